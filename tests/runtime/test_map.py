"""wp.map's Python-side API: errors, outputs, lambdas written inside larger statements."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp


@wp.func
def double(x: float):
    return 2.0 * x


@wp.func
def nothing(x: float):
    x = x + 1.0


def test_errors_name_the_problem():
    a = wp.array([1.0, 2.0], dtype=float)
    with pytest.raises(ValueError, match="at least one warp.array"):
        wp.map(double, 1.0)
    with pytest.raises(TypeError, match=r"Number of input arguments \(2\)"):
        wp.map(double, a, a)
    with pytest.raises(TypeError, match="callable"):
        wp.map(3, a)
    with pytest.raises(TypeError, match="must return a value"):
        wp.map(nothing, a)
    with pytest.raises(TypeError, match="expected 1 Warp arrays"):
        wp.map(double, a, out=5)
    with pytest.raises(ValueError, match="not broadcastable"):
        wp.map(lambda x, y: x + y, a, wp.zeros(3, dtype=float))


def test_lambda_inside_a_multiline_statement():
    a = wp.array([1.0, 2.0], dtype=float)
    result = {"k": wp.map(
        lambda x: x * 3.0 + 1.0,
        a).numpy()}
    np.testing.assert_allclose(result["k"], [4.0, 7.0])
    # two lambdas on one line with the same parameters: each maps its own body
    both = [wp.map(lambda x: x + 1.0, a).numpy(), wp.map(lambda x: x - 1.0, a).numpy()]
    np.testing.assert_allclose(both[0], [2.0, 3.0])
    np.testing.assert_allclose(both[1], [0.0, 1.0])


def test_closure_values_reach_the_lambda():
    scale = 5.0
    a = wp.array([1.0, 2.0], dtype=float)
    np.testing.assert_allclose(wp.map(lambda x: x * scale, a).numpy(), [5.0, 10.0])
