"""The adjoint-launch and tape-backward programs built from compiled kernels are bounded caches that
``forget_compiled`` (``wp.clear_kernel_cache``) empties, so their executables can be released."""

from __future__ import annotations

import numpy as np

import jwarp as wp
from jwarp.runtime import adjoint, tape_chain
from jwarp.runtime.kernel import forget_compiled


@wp.kernel
def _square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


def _tape_grad(n: int) -> np.ndarray:
    x = wp.array(np.arange(n, dtype=np.float32), requires_grad=True)
    y = wp.zeros(n, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_square, dim=n, inputs=[x], outputs=[y])
    tape.backward(grads={y: wp.ones(n, dtype=float)})
    return x.grad.numpy()


def test_tape_backward_cache_is_bounded_and_least_recently_used(monkeypatch):
    monkeypatch.setattr(tape_chain, "_CACHE_LIMIT", 2)
    tape_chain._CACHE.clear()
    order = []
    for n in (3, 4, 3, 5):  # 3 is used again before 5 arrives: 4 is the one evicted
        np.testing.assert_allclose(_tape_grad(n), 2 * np.arange(n))
        order.append(list(tape_chain._CACHE))
    key3, key4 = order[1]
    assert order[2] == [key4, key3]
    assert len(order[3]) == 2 and order[3][0] == key3 and key4 not in order[3]
    forget_compiled()
    assert not tape_chain._CACHE


def test_adjoint_cache_is_bounded_and_cleared(monkeypatch):
    monkeypatch.setattr(adjoint, "_CACHE_LIMIT", 1)
    adjoint._CACHE.clear()
    for n in (3, 4):
        x = wp.array(np.arange(n, dtype=np.float32))
        y = wp.zeros(n, dtype=float)
        adj_x = wp.zeros(n, dtype=float)
        adj_y = wp.ones(n, dtype=float)
        wp.launch(_square, dim=n, inputs=[x], outputs=[y], adj_inputs=[adj_x], adj_outputs=[adj_y], adjoint=True)
        np.testing.assert_allclose(adj_x.numpy(), 2 * np.arange(n))
    assert len(adjoint._CACHE) == 1
    forget_compiled()
    assert not adjoint._CACHE
