"""Strided stores lower to padding and selects (no scatter), drop lanes whose position falls
outside the array, and keep working under masks."""

from __future__ import annotations

import numpy as np

import jwarp as wp


@wp.kernel
def _past_the_end(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[3 * i + 2] = x[i]


@wp.kernel
def _masked(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if i % 3 != 0:
        out[2 * i + 1] += x[i]


def _compiled(kernel):
    return next(iter(kernel._cache.values()))


def test_writes_past_the_end_are_dropped_without_scatter():
    x = wp.array(np.arange(1, 17, dtype=np.float32))
    out = wp.zeros(20, dtype=float)
    wp.launch(_past_the_end, 16, [x, out])
    expected = np.zeros(20, np.float32)
    expected[2::3] = np.arange(1, 7)  # lanes 0..5; lanes 6.. fall past the end
    np.testing.assert_array_equal(out.numpy(), expected)
    assert "scatter" not in str(_compiled(_past_the_end).closed_jaxpr)


def test_masked_strided_atomic():
    x = wp.array(np.arange(1, 11, dtype=np.float32))
    out = wp.ones(21, dtype=float)
    wp.launch(_masked, 10, [x, out])
    expected = np.ones(21, np.float32)
    for i in range(10):
        if i % 3:
            expected[2 * i + 1] += i + 1
    np.testing.assert_array_equal(out.numpy(), expected)
    jaxpr = str(_compiled(_masked).closed_jaxpr)
    assert "scatter" not in jaxpr and "gather" not in jaxpr
