"""jwarp/builtins/trig.py: the CPU's vector sine, cosine and tangent are float32 results within 0.501
ulp for every argument, keep signed zeros, NaN and infinities as the C library does, have the
right derivatives, and are what kernels use on the CPU (XLA's functions in Pallas kernels)."""

from __future__ import annotations

import re
from decimal import Decimal, getcontext

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jwarp as wp
from jwarp.builtins import trig
from jwarp.compiler.vector_code import VECTOR_CODE_LANES

PI_DIGITS = "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899863"
FUNCTIONS = {"sin": np.sin, "cos": np.cos, "tan": np.tan}


def _ulps(actual: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """Error of float32 results in units of the float32 spacing at the exact (float64) value."""
    spacing = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    return np.abs(actual.astype(np.float64) - exact) / spacing


def test_reduction_constants_are_pi():
    getcontext().prec = 80
    half_pi = Decimal(PI_DIGITS) / 2
    assert abs(half_pi - Decimal(trig._PIO2_HI) - Decimal(trig._PIO2_LO)) < Decimal(2) ** -77
    assert float(trig._PIO2_HI).hex().endswith("0000000p+0")  # (only its leading bits are set)
    # the words of 2/pi after 8 zero bits: 2/pi = 0x0.A2F9836E4E441529FC2757D1F534DDC0DB629599...
    two_over_pi = int(Decimal(2) / Decimal(PI_DIGITS) * (Decimal(2) ** 216))
    assert trig._WORDS == tuple((two_over_pi >> (32 * (6 - j))) & 0xFFFFFFFF for j in range(7))
    assert trig._WORDS[:3] == (0x00A2F983, 0x6E4E4415, 0x29FC2757)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("decade", [-6, 0, 2, 5, 6, 7, 9, 20, 38])
def test_results_are_correctly_rounded(name, decade):
    rng = np.random.default_rng(decade + 100)
    x = (rng.uniform(-1.0, 1.0, 200_000) * 3.0 * 10.0**decade).astype(np.float32)
    got = np.asarray(jax.jit(getattr(trig, name))(jnp.asarray(x)))
    # (a float64 result rounded once: off only within ~1e-4 ulp of a tie)
    assert _ulps(got, FUNCTIONS[name](x.astype(np.float64))).max() <= 0.501


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_special_arguments_match_the_c_library(name):
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 2.0**-12, -(2.0**-13), 2.0**20,
                  np.nextafter(np.float32(2.0**20), np.float32(np.inf)), 3.4e38, -3.4e38], np.float32)
    got = np.asarray(jax.jit(getattr(trig, name))(jnp.asarray(x)))
    with np.errstate(invalid="ignore"):
        expected = FUNCTIONS[name](x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    finite = ~np.isnan(expected)
    np.testing.assert_allclose(got[finite], expected[finite], rtol=2.5e-7, atol=0)
    np.testing.assert_array_equal(np.signbit(got[:2]), np.signbit(expected[:2]))  # signed zeros


def test_derivatives():
    x = jnp.asarray(np.random.default_rng(1).uniform(-30.0, 30.0, 4096).astype(np.float32))
    x64 = np.asarray(x, np.float64)
    grad = jax.jit(jax.grad(lambda x: jnp.sum(trig.sin(x) + 2.0 * trig.cos(x) + 0.25 * trig.tan(x))))
    expected = np.cos(x64) - 2.0 * np.sin(x64) + 0.25 / np.cos(x64) ** 2
    np.testing.assert_allclose(np.asarray(grad(x)), expected, rtol=2e-6, atol=1e-6)


def test_kernels_use_the_vector_code_on_the_cpu():
    @wp.kernel
    def wave(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = wp.sin(x[i]) + wp.cos(x[i]) * wp.tan(x[i])

    x = np.linspace(-40.0, 40.0, VECTOR_CODE_LANES).astype(np.float32)  # (smaller launches: XLA's functions)
    y = wp.zeros(len(x), dtype=float)
    wp.launch(wave, len(x), inputs=[wp.array(x)], outputs=[y])
    np.testing.assert_allclose(y.numpy(), np.sin(x) + np.cos(x) * np.tan(x), rtol=1e-5, atol=1e-5)
    hlo = jax.jit(lambda v: trig.sin(v)).lower(jnp.asarray(x)).compile().as_text()
    assert not re.search(r"[}\]] sine\(", hlo)  # no sine instruction: no per-element library call


def test_exact_and_untraced_arguments_take_xla_functions():
    x = jnp.asarray(np.linspace(-3.0, 3.0, 16, dtype=np.float32))
    assert re.search(r"[}\]] sine\(", jax.jit(lambda v: trig.sin(v, exact=True)).lower(x).compile().as_text())
    assert "cosine" in jax.jit(lambda v: trig.cos(v.astype(jnp.float16))).lower(x).as_text()
    np.testing.assert_array_equal(np.asarray(trig.tan(x)), np.asarray(jnp.tan(x)))  # (not traced)


def test_kernels_with_vector_arrays_compute_the_vector_code_apart():
    @wp.kernel
    def planar(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = wp.sin(x[i])

    @wp.kernel
    def stacked(x: wp.array(dtype=float), y: wp.array(dtype=wp.vec2)):
        i = wp.tid()
        y[i] = wp.vec2(wp.sin(x[i]), wp.cos(x[i]))

    n = VECTOR_CODE_LANES
    x = np.linspace(-3.0, 3.0, n).astype(np.float32)
    a, b, small = wp.zeros(n, dtype=float), wp.zeros(n, dtype=wp.vec2), wp.zeros(64, dtype=float)
    wp.launch(planar, n, inputs=[wp.array(x)], outputs=[a])
    wp.launch(stacked, n, inputs=[wp.array(x)], outputs=[b])
    wp.launch(planar, 64, inputs=[wp.array(x[:64])], outputs=[small])
    np.testing.assert_allclose(b.numpy(), np.stack([np.sin(x), np.cos(x)], axis=1), rtol=3e-7, atol=1e-7)
    np.testing.assert_allclose(small.numpy(), np.sin(x[:64]), rtol=3e-7, atol=1e-7)

    def jaxpr(kernel, lanes):
        return next(c for c in kernel._cache.values()
                    if hasattr(c, "closed_jaxpr") and c.signature.grid == (lanes,)).closed_jaxpr.jaxpr

    def top_level(kernel, lanes):  # XLA's sin at the top of the program (the vector code nests it in a branch)
        return [e.primitive.name for e in jaxpr(kernel, lanes).eqns]

    def conds(j):  # conditionals, nested ones included: the platform's switch, and a result computed apart
        return sum((e.primitive.name == "cond") + sum(conds(b.jaxpr) for b in e.params.get("branches", ()))
                   for e in j.eqns)

    assert "sin" not in top_level(planar, n) and conds(jaxpr(planar, n)) == 1
    # vector elements: the vector code, each result apart (a conditional that no fusion crosses)
    assert "sin" not in top_level(stacked, n) and conds(jaxpr(stacked, n)) == 2 + 2
    assert "sin" in top_level(planar, 64)  # a small launch: XLA's functions (a shorter compile)
    with trig.vector_code(False):
        assert re.search(r"[}\]] sine\(", jax.jit(trig.sin).lower(jnp.asarray(x)).compile().as_text())


def test_a_result_computed_apart_keeps_its_value_and_derivative():
    x = jnp.asarray(np.random.default_rng(2).uniform(-30.0, 30.0, 4096).astype(np.float32))
    with trig.vector_code(True, apart=True):
        hlo = jax.jit(lambda v: trig.sin(v) * 2.0).lower(x).compile().as_text()
        value = jax.jit(lambda v: trig.sin(v) + trig.cos(v))(x)
        grad = jax.jit(jax.grad(lambda v: jnp.sum(trig.sin(v) * v)))(x)
    assert "conditional(" in hlo
    x64 = np.asarray(x, np.float64)
    np.testing.assert_allclose(np.asarray(value), np.sin(x64) + np.cos(x64), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(grad), np.sin(x64) + x64 * np.cos(x64), rtol=1e-5, atol=1e-5)


@wp.kernel
def _tan_small(x: wp.array(dtype=float), x64: wp.array(dtype=wp.float64), t: wp.array(dtype=float),
               t64: wp.array(dtype=wp.float64)):
    i = wp.tid()
    t[i] = wp.tan(x[i])
    t64[i] = wp.tan(x64[i])


def test_xla_tangent_keeps_subnormal_and_tiny_arguments():
    # a small launch takes XLA's tan, whose older-emitter code reads subnormals as zero; Warp gives x
    x = np.array([1e-40, -1e-40, 1e-39, 2.0**-13, 0.5, -0.0], dtype=np.float32)
    x64 = np.array([1e-310, -1e-310, 1e-300, 2.0**-28, 2.0**-26, 0.5])
    t, t64 = wp.zeros(6, dtype=float), wp.zeros(6, dtype=wp.float64)
    wp.launch(_tan_small, 6, inputs=[wp.array(x), wp.array(x64, dtype=wp.float64)], outputs=[t, t64])
    np.testing.assert_array_equal(t.numpy(), np.tan(x))
    assert np.signbit(t.numpy()[5])
    np.testing.assert_allclose(t64.numpy(), np.tan(x64), rtol=5e-16, atol=0)  # (XLA: 1 ulp)
