"""The tape differentiates a large launch chunk by chunk over its grid (``jwarp/runtime/lane_chunks.py``,
``jwarp/compiler/lane_vjp.py``): the gradients equal those of the whole-grid vjp and finite
differences, including loops over a run-time count, in-place updates and a partial last chunk;
kernels whose results depend on the order threads run are differentiated whole. The chunk size
is made small here so the launches stay small; ``grad_lane_chunks`` (a differential program)
checks a launch of the default size against Warp."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime import lane_chunks
from tests.differential.harness import PROGRAMS, load_program

N = 1000  # four chunks of 256 threads, the last one partial


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(lane_chunks, "LANE_CHUNK", 256)
    monkeypatch.setattr(lane_chunks, "MIN_CHUNKS", 2)
    monkeypatch.setattr(wp.config, "launch_memory_budget", 4096)  # (forward launches of 1000 threads stay whole)


@wp.kernel
def _shade(x: wp.array(dtype=wp.vec3), idx: wp.array(dtype=int), table: wp.array(dtype=float), count: int,
           y: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for k in range(count):  # a run-time trip count
        v = table[(idx[i] + k) % 13] * x[i][k % 3]
        if v < 0.0:
            v = 0.5 * v
        s = s + v
    y[i] = x[i] * s
    wp.atomic_add(loss, 0, s * s)


@wp.kernel
def _scale_in_place(y: wp.array(dtype=wp.vec3), w: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = y[i] * w[i % 5]


@wp.kernel
def _norms(y: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.length(y[i]))


def _inputs(x_np=None, table_np=None, w_np=None):
    rng = np.random.default_rng(3)
    x = rng.uniform(-1.0, 1.0, (N, 3)).astype(np.float32) if x_np is None else x_np
    table = rng.uniform(-1.0, 1.0, 13).astype(np.float32) if table_np is None else table_np
    w = rng.uniform(0.5, 2.0, 5).astype(np.float32) if w_np is None else w_np
    idx = rng.integers(0, 13, N).astype(np.int32)
    return x, table, w, idx


def _loss_and_grads(x_np, table_np, w_np, idx_np):
    x = wp.array(x_np, dtype=wp.vec3, requires_grad=True)
    table = wp.array(table_np, dtype=float, requires_grad=True)
    w = wp.array(w_np, dtype=float, requires_grad=True)
    idx = wp.array(idx_np, dtype=int)
    y = wp.zeros(N, dtype=wp.vec3, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_shade, N, inputs=[x, idx, table, 5], outputs=[y, loss])
        wp.launch(_scale_in_place, N, inputs=[y, w])
        wp.launch(_norms, N, inputs=[y], outputs=[loss])
    tape.backward(loss)
    return float(loss.numpy()[0]), x.grad.numpy(), table.grad.numpy(), w.grad.numpy()


def _chunked(kernel) -> bool:
    return any(isinstance(k, tuple) and k and k[0] == "lane_chunk" for k in kernel._cache)


def test_chunked_backward_matches_the_whole_grid_vjp(small_chunks, monkeypatch):
    args = _inputs()
    _, *chunked = _loss_and_grads(*args)
    assert _chunked(_shade) and _chunked(_scale_in_place) and _chunked(_norms)
    monkeypatch.setattr(lane_chunks, "MIN_CHUNKS", 10**9)
    _, *whole = _loss_and_grads(*args)
    for a, b in zip(chunked, whole):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)
    assert np.abs(chunked[0]).sum() > 0 and np.abs(chunked[1]).sum() > 0 and np.abs(chunked[2]).sum() > 0


def test_chunked_backward_matches_finite_differences(small_chunks):
    x, table, w, idx = _inputs()
    _, gx, gtable, gw = _loss_and_grads(x, table, w, idx)
    x64, table64, w64 = x.astype(np.float64), table.astype(np.float64), w.astype(np.float64)

    def loss(xv, tv, wv):  # the three kernels in numpy (float64)
        s = np.zeros(N)
        for k in range(5):
            v = tv[(idx + k) % 13] * xv[:, k % 3]
            s += np.where(v < 0.0, 0.5 * v, v)
        y = xv * s[:, None] * wv[np.arange(N) % 5][:, None]
        return np.sum(s * s) + np.sum(np.linalg.norm(y, axis=1))

    eps = 1e-4
    for name, base, grad, args in (("x", x64, gx, lambda v: (v, table64, w64)),
                                   ("table", table64, gtable, lambda v: (x64, v, w64)),
                                   ("w", w64, gw, lambda v: (x64, table64, v))):
        for flat in (0, 3, base.size - 1):
            up, down = base.copy(), base.copy()
            up.flat[flat] += eps
            down.flat[flat] -= eps
            fd = (loss(*args(up)) - loss(*args(down))) / (2 * eps)
            assert grad.flat[flat] == pytest.approx(fd, rel=2e-3, abs=2e-3), (name, flat)


@wp.kernel
def _compact(x: wp.array(dtype=float), counter: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    slot = wp.atomic_add(counter, 0, 1)  # the old value: which slot depends on the thread order
    out[slot] = x[i] * 2.0


def test_kernel_using_atomic_results_is_differentiated_whole(small_chunks):
    x = wp.array(np.arange(N, dtype=np.float32), dtype=float, requires_grad=True)
    counter = wp.zeros(1, dtype=int)
    out = wp.zeros(N, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_compact, N, inputs=[x, counter], outputs=[out])
    tape.backward(grads={out: wp.ones_like(out)})
    assert not _chunked(_compact)
    np.testing.assert_allclose(x.grad.numpy(), np.full(N, 2.0, np.float32))


def test_a_launch_of_the_default_size_is_differentiated_in_chunks():
    program = load_program(PROGRAMS / "grad_lane_chunks.py", wp, "lane_chunk_check")
    results = program.run()  # (it lowers the launch memory budget, so its forward launches run in chunks too)
    assert _chunked(program.shade) and _chunked(program.scale) and _chunked(program.total)
    assert np.abs(results["points_grad"]).sum() > 0


def test_a_launch_whose_intermediates_fit_the_budget_is_differentiated_whole(small_chunks, monkeypatch):
    monkeypatch.setattr(wp.config, "launch_memory_budget", 1 << 30)
    for kernel in (_shade, _scale_in_place, _norms):  # (what the tests before compiled)
        for key in [k for k in kernel._cache if isinstance(k, tuple) and k and k[0] == "lane_chunk"]:
            del kernel._cache[key]
    _loss_and_grads(*_inputs())
    assert not (_chunked(_shade) or _chunked(_scale_in_place) or _chunked(_norms))


def test_a_launch_writing_a_retain_grad_array_is_differentiated_whole(small_chunks, monkeypatch):
    def grads(retain: bool):
        x_np, table_np, w_np, idx_np = _inputs()
        x = wp.array(x_np, dtype=wp.vec3, requires_grad=True)
        table = wp.array(table_np, dtype=float, requires_grad=True)
        idx = wp.array(idx_np, dtype=int)
        y = wp.zeros(N, dtype=wp.vec3, requires_grad=True)
        y.retain_grad = retain  # the stores to y do not consume its adjoint
        loss = wp.zeros(1, dtype=float, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(_shade, N, inputs=[x, idx, table, 5], outputs=[y, loss])
            wp.launch(_norms, N, inputs=[y], outputs=[loss])
        tape.backward(loss)
        return x.grad.numpy(), table.grad.numpy(), y.grad.numpy()

    retained = grads(True)
    monkeypatch.setattr(lane_chunks, "MIN_CHUNKS", 10**9)
    for a, b in zip(retained, grads(True)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)
    assert np.abs(retained[2]).sum() > 0  # y kept its adjoint
