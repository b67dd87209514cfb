"""``jwarp.compiler.selects``: ``where`` and ``clip`` give jnp's values, dtypes, weak types and shapes, and
stage no nested jit."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jwarp.compiler.selects import clip, where
from tests.compiler.jaxprs import count_primitive

VALUES = [True, 2, 1.5, jnp.float16(1), jnp.int8(3), jnp.ones(3, jnp.float32), jnp.arange(3, dtype=jnp.int32),
          jnp.ones((2, 3), jnp.float16), jnp.uint32(7), np.float64(2.0), jnp.array([True, False, True])]
CONDITIONS = [True, jnp.array([True, False, True]), jnp.array([[1], [0]]), jnp.int32(0), np.bool_(True)]


def _outcome(fn, *args):
    try:
        return fn(*args)
    except (TypeError, ValueError) as exc:
        return exc


def test_where_types_match_jnp():
    # abstract evaluation only: every combination's dtype, weak type and shape (no compiles)
    for condition, x, y in itertools.product(CONDITIONS, VALUES, VALUES):
        expected = _outcome(jax.eval_shape, lambda: jnp.where(condition, x, y))
        got = _outcome(jax.eval_shape, lambda: where(condition, x, y))
        if isinstance(expected, Exception):  # (shapes that do not broadcast)
            assert isinstance(got, Exception), (condition, x, y)
            continue
        assert (got.dtype, got.shape, got.weak_type) == (expected.dtype, expected.shape, expected.weak_type), (x, y)


def test_where_values_match_jnp():
    cases = [(c, x, y) for c, x, y in itertools.product(CONDITIONS[1:3], VALUES[5:8], VALUES[:3])]
    run = jax.jit(lambda: ([jnp.where(*case) for case in cases], [where(*case) for case in cases]))
    for expected, got in zip(*run()):
        np.testing.assert_array_equal(got, expected)


def test_where_and_clip_stage_no_nested_jit():
    def body(c, x):
        return clip(where(c, x, 0.0), -1.0, 1.0)

    jaxpr = jax.make_jaxpr(body)(jnp.array([True, False]), jnp.ones(2, jnp.float32)).jaxpr
    assert count_primitive(jaxpr, "jit") == 0 and count_primitive(jaxpr, "select_n") == 1
    jnp_jaxpr = jax.make_jaxpr(lambda c, x: jnp.clip(jnp.where(c, x, 0.0), -1.0, 1.0))(
        jnp.array([True, False]), jnp.ones(2, jnp.float32)).jaxpr
    assert count_primitive(jnp_jaxpr, "jit") == 2  # what the helpers avoid (if JAX inlines these one day, drop them)


def test_clip_matches_jnp():
    cases = [(x, lower, upper) for x in (jnp.array([-2.0, 0.5, 3.0, jnp.nan]), jnp.array([1, 5, -9]), jnp.float16(4))
             for lower, upper in ((-1, 1), (None, 1), (0.5, None), (jnp.float32(0), 2))]
    run = jax.jit(lambda: ([jnp.clip(*case) for case in cases], [clip(*case) for case in cases]))
    for expected, got in zip(*run()):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
