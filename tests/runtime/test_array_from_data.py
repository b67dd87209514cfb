"""``wp.array(data, dtype=<vector/matrix>)``: how the data's inner axes become elements, compared
with real Warp (skipped where warp-lang is not installed)."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp

CASES = [((1024, 2, 1), "vec2"), ((4, 8), "vec2"), ((3, 4), "mat22"), ((4, 6), "vec3"), ((5, 2, 2), "vec2"),
         ((6,), "vec2"), ((4, 1, 2), "vec2"), ((2, 3, 2), "mat22"), ((4, 2, 2), "vec4"), ((3, 1), "vec3")]


def _shape_or_error(module, shape, dtype_name):
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    try:
        a = module.array(data, dtype=getattr(module, dtype_name))
    except RuntimeError:
        return "error", None
    return a.shape, a.numpy()


@pytest.mark.parametrize("shape,dtype_name", CASES)
def test_inner_axes_become_elements_as_in_warp(shape, dtype_name):
    warp = pytest.importorskip("warp")
    warp.config.quiet = True
    expected_shape, expected = _shape_or_error(warp, shape, dtype_name)
    got_shape, got = _shape_or_error(wp, shape, dtype_name)
    assert got_shape == expected_shape
    if expected is not None:
        np.testing.assert_array_equal(got, expected)
