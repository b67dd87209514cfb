"""jwarp/builtins/inverse_trig.py: the CPU's vector atan, atan2, asin and acos are float32 results
within 0.501 ulp, follow C's special values, have the usual derivatives, and are what kernels use."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jwarp as wp
from jwarp.builtins import inverse_trig
from jwarp.compiler.vector_code import VECTOR_CODE_LANES


def _ulps(actual: np.ndarray, exact: np.ndarray) -> np.ndarray:
    spacing = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    return np.abs(np.asarray(actual, np.float64) - exact) / spacing


@pytest.mark.parametrize("scale", [1e-6, 0.05, 0.7, 1.0, 3.0, 1e4, 3e38])
def test_results_are_correctly_rounded(scale):
    rng = np.random.default_rng(int(np.log10(scale) + 100))
    x = (rng.uniform(-1.0, 1.0, 200_000) * scale).astype(np.float32)
    y = (rng.uniform(-1.0, 1.0, 200_000) * scale).astype(np.float32)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    assert _ulps(jax.jit(inverse_trig.atan)(jnp.asarray(x)), np.arctan(x64)).max() <= 0.501
    assert _ulps(jax.jit(inverse_trig.atan2)(jnp.asarray(y), jnp.asarray(x)), np.arctan2(y64, x64)).max() <= 0.501
    if scale <= 1.0:
        assert _ulps(jax.jit(inverse_trig.asin)(jnp.asarray(x)), np.arcsin(x64)).max() <= 0.501
        assert _ulps(jax.jit(inverse_trig.acos)(jnp.asarray(x)), np.arccos(x64)).max() <= 0.501


def test_atan2_special_values_follow_c():
    values = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.5, -1e-40, 1e-40], np.float32)
    y, x = (v.ravel() for v in np.meshgrid(values, values))
    got = np.asarray(jax.jit(inverse_trig.atan2)(jnp.asarray(y), jnp.asarray(x)))
    with np.errstate(all="ignore"):
        expected = np.arctan2(y, x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    finite = ~np.isnan(expected)
    np.testing.assert_allclose(got[finite], expected[finite], rtol=2.5e-7, atol=0)  # (subnormals too)
    np.testing.assert_array_equal(np.signbit(got[finite]), np.signbit(expected[finite]))


@pytest.mark.parametrize("name", ["atan", "asin", "acos"])
def test_special_values_of_one_argument(name):
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1.5, -1e-40, 2.0**-13], np.float32)
    got = np.asarray(jax.jit(getattr(inverse_trig, name))(jnp.asarray(x)))
    with np.errstate(all="ignore"):
        expected = {"atan": np.arctan, "asin": np.arcsin, "acos": np.arccos}[name](x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    finite = ~np.isnan(expected)
    np.testing.assert_allclose(got[finite], expected[finite], rtol=2.5e-7, atol=0)
    np.testing.assert_array_equal(np.signbit(got[finite]), np.signbit(expected[finite]))


def test_derivatives():
    x = jnp.asarray(np.random.default_rng(2).uniform(-0.9, 0.9, 2048).astype(np.float32))
    x64 = np.asarray(x, np.float64)
    def loss(v):
        return jnp.sum(inverse_trig.atan(3.0 * v) + inverse_trig.asin(v) + 2.0 * inverse_trig.acos(v)
                       + inverse_trig.atan2(v, 0.5 + v * v))
    den = 0.5 + x64 * x64
    expected = (3.0 / (1.0 + 9.0 * x64**2) - 1.0 / np.sqrt(1.0 - x64**2)
                + (den - 2.0 * x64 * x64) / (den**2 + x64**2))
    np.testing.assert_allclose(np.asarray(jax.jit(jax.grad(loss))(x)), expected, rtol=1e-5, atol=1e-6)


def test_kernels_use_the_vector_code_on_the_cpu():
    @wp.kernel
    def angles(x: wp.array(dtype=float), y: wp.array(dtype=float), a: wp.array(dtype=float),
               a2: wp.array(dtype=float), s: wp.array(dtype=float), c: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = wp.atan(x[i])
        a2[i] = wp.atan2(y[i], x[i])
        s[i] = wp.asin(x[i] * 0.5)
        c[i] = wp.acos(y[i] * 0.5)

    n = VECTOR_CODE_LANES  # (smaller launches take XLA's functions)
    rng = np.random.default_rng(3)
    x, y = (rng.uniform(-2.0, 2.0, n).astype(np.float32) for _ in range(2))
    outs = [wp.zeros(n, dtype=float) for _ in range(4)]
    wp.launch(angles, n, inputs=[wp.array(x), wp.array(y)], outputs=outs)
    expected = [np.arctan(x), np.arctan2(y, x), np.arcsin(x * 0.5), np.arccos(y * 0.5)]
    for out, e in zip(outs, expected):
        np.testing.assert_allclose(out.numpy(), e, rtol=3e-7, atol=0)
    compiled = next(c for c in angles._cache.values() if hasattr(c, "closed_jaxpr"))
    assert "atan2" not in {e.primitive.name for e in compiled.closed_jaxpr.jaxpr.eqns}  # (nested: the vector code)
    hlo = jax.jit(lambda v: inverse_trig.atan2(v, v + 1.0)).lower(jnp.asarray(x)).compile().as_text()
    assert not re.search(r"[}\]] atan2\(", hlo)  # no atan2 instruction: no per-element library call
    exact = jax.jit(lambda v: inverse_trig.atan2(v, v + 1.0, exact=True)).lower(jnp.asarray(x)).compile().as_text()
    assert re.search(r"[}\]] atan2\(", exact)


@wp.kernel
def _asin_small(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.asin(x[i])


def test_xla_arc_sine_keeps_subnormal_arguments():
    # a small launch takes XLA's arcsin, which reads subnormals as zero on the CPU; Warp gives x
    x = np.array([1e-40, -1e-40, 1e-39, 2.0**-13, 0.5], dtype=np.float32)
    out = wp.zeros(5, dtype=float)
    wp.launch(_asin_small, 5, inputs=[wp.array(x)], outputs=[out])
    np.testing.assert_allclose(out.numpy(), np.arcsin(x), rtol=2e-7, atol=0)


def test_float32_arc_cosine_is_within_one_ulp():
    """``acos_within_ulp`` (mesh vertex angles): float32 arithmetic, within 1.5 ulp of the exact
    arc cosine over [-1, 1], its ends and the branch points at +-1/2 included."""
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(-1.0, 1.0, 400_000), np.linspace(0.999, 1.0, 20_000),
                        np.linspace(-1.0, -0.999, 20_000), [-1.0, -0.5, -0.0, 0.0, 0.5, 1.0]]).astype(np.float32)
    x = np.concatenate([x, np.nextafter(np.float32([0.5, -0.5]), np.float32([1, -1]))])
    got = jax.jit(inverse_trig.acos_within_ulp)(jnp.asarray(x))
    assert _ulps(got, np.arccos(x.astype(np.float64))).max() <= 1.5
    ends = np.asarray(jax.jit(inverse_trig.acos_within_ulp)(jnp.float32([1.0, -1.0, 0.0])))
    assert ends.tolist() == [0.0, np.float32(np.pi), np.float32(np.pi / 2)]
