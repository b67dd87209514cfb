"""jwarp/compiler/materialise.py: the chunks of the lane-chunked backward pass compute their
straight-line locals apart (a conditional each), with the gradients of the whole-grid vjp and of
finite differences; plain launches and loop bodies keep XLA's fusion."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp
from jwarp.compiler import materialise
from jwarp.runtime import lane_chunks

N = 1000  # four chunks of 256 threads (small_chunks), the last one partial


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(lane_chunks, "LANE_CHUNK", 256)
    monkeypatch.setattr(lane_chunks, "MIN_CHUNKS", 2)
    monkeypatch.setattr(wp.config, "launch_memory_budget", 4096)


@pytest.fixture
def apart_calls(monkeypatch):
    """How many locals were materialised (calls of materialise.apart) since the test began."""
    calls = []
    real = materialise.apart

    def counting(value):
        calls.append(value.shape)
        return real(value)

    monkeypatch.setattr(materialise, "apart", counting)
    return calls


@wp.kernel
def _shade(tex: wp.array(dtype=wp.vec3), uv: wp.array(dtype=float), w: float, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    s = uv[i] * float(tex.shape[0] - 2)
    k = int(s)
    a = s - float(k)
    c = (1.0 - a) * tex[k] + a * tex[k + 1]  # read by every component and by both gathers' adjoints
    lit = wp.max(wp.dot(c, wp.vec3(0.3, 0.6, 0.1)) * w, 0.0)
    total = float(0.0)
    for j in range(2):  # a loop body's locals are not materialised
        t = lit * float(j + 1)
        total += t
    out[i] = c * total


def _inputs() -> tuple:
    rng = np.random.default_rng(11)
    return rng.random((64, 3)).astype(np.float32), (rng.random(N) * 0.99).astype(np.float32)


def _shade_numpy(tex: np.ndarray, uv: np.ndarray, w: float) -> np.ndarray:
    s = uv.astype(np.float32) * np.float32(tex.shape[0] - 2)
    k = s.astype(np.int32)
    a = (s - k)[:, None]
    c = (1 - a) * tex[k] + a * tex[k + 1]
    lit = np.maximum(c @ np.float32([0.3, 0.6, 0.1]) * w, 0)
    return c * (3.0 * lit)[:, None]


def _gradients(tex_np: np.ndarray, uv_np: np.ndarray) -> tuple:
    tex = wp.array(tex_np, dtype=wp.vec3, requires_grad=True)
    uv = wp.array(uv_np, requires_grad=True)
    out = wp.zeros(N, dtype=wp.vec3, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_shade, N, inputs=[tex, uv, 1.5], outputs=[out])
    tape.backward(grads={out: wp.array(np.ones((N, 3), np.float32), dtype=wp.vec3)})
    return out.numpy(), tex.grad.numpy(), uv.grad.numpy()


def test_plain_launches_keep_their_locals_fused(apart_calls):
    tex, uv = _inputs()
    out, _, _ = _gradients(tex, uv)  # (the whole-grid vjp: no chunks)
    np.testing.assert_allclose(out, _shade_numpy(tex, uv, 1.5), rtol=2e-5, atol=1e-6)
    assert not apart_calls


def test_chunked_backward_materialises_and_keeps_the_gradients(small_chunks, apart_calls, monkeypatch):
    tex, uv = _inputs()
    out, tex_grad, uv_grad = _gradients(tex, uv)
    assert any(isinstance(k, tuple) and k and k[0] == "lane_chunk" for k in _shade._cache)
    # s, a, c (three leaves stacked) and lit at each trace of a chunk; not k (an integer), total (a
    # uniform constant) or t (in a loop body)
    stacked = [shape[0] for shape in apart_calls]
    assert stacked and stacked == [1, 1, 3, 1] * (len(stacked) // 4)
    assert all(shape[-1] == 256 for shape in apart_calls)
    np.testing.assert_allclose(out, _shade_numpy(tex, uv, 1.5), rtol=2e-5, atol=1e-6)
    # against the whole-grid vjp
    monkeypatch.setattr(lane_chunks, "MIN_CHUNKS", 10**9)
    _, tex_whole, uv_whole = _gradients(tex, uv)
    np.testing.assert_allclose(tex_grad, tex_whole, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(uv_grad, uv_whole, rtol=1e-5, atol=1e-4)
    # and against central differences of sum(out) in one texel
    row = int(uv[0] * 62)
    bump = np.zeros_like(tex)
    bump[row, 1] = 1e-2
    fd = (_shade_numpy(tex + bump, uv, 1.5).sum() - _shade_numpy(tex - bump, uv, 1.5).sum()) / 2e-2
    assert abs(tex_grad[row, 1] - fd) <= 2e-2 * max(1.0, abs(fd))
