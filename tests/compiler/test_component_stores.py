"""Stores into one column of a short last axis (``u[i, 2] = x`` on an ``(n, 9)`` array) rebuild the plane
as a stack of its columns (jwarp/compiler/memory.py: _replace_component) instead of a strided
dynamic_update_slice per column; the values are the same, with masks, repeated stores and both
program forms (small launches; launches of INTERLEAVE_LANES threads and more, interleaved)."""

import numpy as np
import pytest

import jwarp as wp
from jwarp.compiler.output_interleave import INTERLEAVE_LANES


@wp.kernel
def _columns(x: wp.array(dtype=wp.vec3), u: wp.array2d(dtype=float)):
    i = wp.tid()
    v = x[i]
    for k in range(3):
        for l in range(3):
            u[i, 3 * k + l] = v[k] * v[l]
    if i % 2 == 0:
        u[i, 4] = -v[0]  # a second, masked store to one column
    u[i, 7] = u[i, 7] + 1.0  # read back after the stores


@wp.kernel
def _some_columns(x: wp.array(dtype=float), u: wp.array2d(dtype=float)):
    i = wp.tid()
    if x[i] > 0.0:
        u[i, 1] = x[i]
    u[i, 3] = -0.0 * x[i]


def _hlo_of_last_program(kernel):
    compiled = next(c for c in kernel._cache.values() if hasattr(c, "closed_jaxpr"))
    return str(compiled.closed_jaxpr)


@pytest.mark.parametrize("lanes", [64, INTERLEAVE_LANES])
def test_column_stores_match_numpy(lanes):
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((lanes, 3)).astype(np.float32)
    x, u = wp.array(xs, dtype=wp.vec3), wp.array(np.full((lanes, 9), 5.0, np.float32))
    wp.launch(_columns, lanes, inputs=[x], outputs=[u])
    expected = np.einsum("ni,nj->nij", xs, xs).reshape(lanes, 9)
    expected[::2, 4] = -xs[::2, 0]
    expected[:, 7] += 1.0
    # (XLA:CPU may contract v[2] * v[1] + 1.0 into one FMA: docs/compatibility.md)
    np.testing.assert_allclose(u.numpy(), expected, rtol=1e-6, atol=1e-6)
    assert "dynamic_update_slice" not in _hlo_of_last_program(_columns)


@pytest.mark.parametrize("lanes", [64, INTERLEAVE_LANES])
def test_unwritten_columns_and_signed_zeros_are_kept(lanes):
    rng = np.random.default_rng(4)
    xs = rng.standard_normal(lanes).astype(np.float32)
    start = rng.standard_normal((lanes, 5)).astype(np.float32)
    x, u = wp.array(xs), wp.array(start)
    wp.launch(_some_columns, lanes, inputs=[x], outputs=[u])
    expected = start.copy()
    expected[xs > 0, 1] = xs[xs > 0]
    expected[:, 3] = np.float32(-0.0) * xs
    np.testing.assert_array_equal(u.numpy().view(np.uint32), expected.view(np.uint32))
