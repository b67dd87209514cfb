"""Vector components gathered as rows and scattered in complex64 pairs (jwarp/compiler/packing.py):
used where it pays, bit-identical to plane-by-plane access, and differentiable."""

from __future__ import annotations

import numpy as np

import jwarp as wp
from jwarp.compiler import packing
from jwarp.runtime.kernel import forget_compiled


@wp.kernel
def _springs(pairs: wp.array(dtype=int), x: wp.array(dtype=wp.vec3), w: wp.array(dtype=float),
             f: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec4)):
    s = wp.tid()
    i = pairs[2 * s]
    j = pairs[2 * s + 1]
    d = (x[j] - x[i]) * w[s]
    wp.atomic_add(f, i, d)
    wp.atomic_sub(f, j, d)
    out[j] = wp.vec4(d[0], d[1], d[2], w[s])


def _launch(n: int, m: int, seed: int = 0, requires_grad: bool = False):
    rng = np.random.default_rng(seed)
    pairs = wp.array(rng.integers(0, n, 2 * m).astype(np.int32))
    x = wp.array(rng.standard_normal((n, 3)).astype(np.float32), dtype=wp.vec3, requires_grad=requires_grad)
    w = wp.array(rng.standard_normal(m).astype(np.float32))
    f = wp.array(rng.standard_normal((n, 3)).astype(np.float32), dtype=wp.vec3, requires_grad=requires_grad)
    out = wp.zeros(n, dtype=wp.vec4)
    wp.launch(_springs, m, inputs=[pairs, x, w, f, out])
    return pairs, x, w, f, out


def _jaxpr_text() -> str:
    return "\n".join(str(c.closed_jaxpr) for c in _springs._cache.values() if hasattr(c, "closed_jaxpr"))


def test_many_lanes_pack_float32_pairs():
    forget_compiled()
    _launch(n=50, m=200)
    text = _jaxpr_text()
    assert ":c64[" in text and "scatter-add" in text.replace("scatter_add", "scatter-add")


def test_few_lanes_move_planes_alone():
    forget_compiled()
    _launch(n=1000, m=20)
    assert ":c64[" not in _jaxpr_text()


def test_packed_results_are_bit_identical_to_unpacked(monkeypatch):
    forget_compiled()
    packed = [a.numpy() for a in _launch(n=30, m=300, seed=3)[3:]]
    assert ":c64[" in _jaxpr_text()
    forget_compiled()
    monkeypatch.setattr(packing, "_groups", lambda planes, lanes: [(k,) for k in range(len(planes))])
    plain = [a.numpy() for a in _launch(n=30, m=300, seed=3)[3:]]
    assert ":c64[" not in _jaxpr_text()
    forget_compiled()
    for a, b in zip(packed, plain):
        np.testing.assert_array_equal(a, b)


def test_many_lanes_gather_rows():
    forget_compiled()
    _launch(n=50, m=200)
    text = _jaxpr_text()
    assert "f32[200,3] = gather" in text  # x[i] and x[j]: one row of three components per lane


def test_row_gathers_are_bit_identical_to_plane_gathers(monkeypatch):
    forget_compiled()
    rows = [a.numpy() for a in _launch(n=30, m=300, seed=4)[3:]]
    forget_compiled()
    monkeypatch.setattr(packing, "gather", lambda planes, index, lanes: [
        p.at[index].get(mode="promise_in_bounds") for p in planes])
    plain = [a.numpy() for a in _launch(n=30, m=300, seed=4)[3:]]
    assert "f32[300,3] = gather" not in _jaxpr_text()
    forget_compiled()
    for a, b in zip(rows, plain):
        np.testing.assert_array_equal(a, b)


def test_packed_gradients_match_the_analytic_gradient():
    forget_compiled()
    rng = np.random.default_rng(5)
    n, m = 20, 80
    pairs_np = rng.integers(0, n, 2 * m).astype(np.int32)
    c = rng.standard_normal((n, 3)).astype(np.float32)
    pairs = wp.array(pairs_np)
    x = wp.array(rng.standard_normal((n, 3)).astype(np.float32), dtype=wp.vec3, requires_grad=True)
    w_np = rng.standard_normal(m).astype(np.float32)
    w = wp.array(w_np)
    f = wp.zeros(n, dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(n, dtype=wp.vec4, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(_springs, m, inputs=[pairs, x, w, f, out])
    f.grad = wp.array(c, dtype=wp.vec3)
    tape.backward()
    # f[i] += w (x[j] - x[i]); f[j] -= w (x[j] - x[i])  =>  dL/dx[j] += w (c[i] - c[j]), dL/dx[i] -= same
    i, j = pairs_np[0::2], pairs_np[1::2]
    expected = np.zeros((n, 3))
    g = w_np[:, None] * (c[i] - c[j])
    np.add.at(expected, j, g)
    np.add.at(expected, i, -g)
    assert ":c64[" in _jaxpr_text()
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-5, atol=1e-5)
