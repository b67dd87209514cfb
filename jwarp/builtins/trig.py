"""Sine, cosine and tangent of float32 values as vector code on XLA:CPU.

XLA:CPU evaluates ``sin``, ``cos`` and ``tan`` with one C library call per element: 4.5–9 ms for
2^20 float32 values on one core, where ``exp`` takes 0.5 ms. On the CPU jwarp computes them as
straight-line vector code instead (1.1–2.7 ms): the argument is reduced by the nearest multiple of
pi/2 in float64 — Cody and Waite's two-part pi/2 for ``|x| <= 2^20``, Payne and Hanek's exact
product with the bits of 2/pi beyond — float64 polynomials give the sine and the cosine of the
remainder (|r| <= pi/4, truncation error below 1e-11), and the result is rounded once to float32.
Measured over 200,000 arguments per decade up to 3e38: at most 0.50005 ulp from the exact value
(XLA's own functions: up to 0.56 ulp for ``sin``, 1.1 for ``tan``), so kernels keep Warp's results,
which come from the C library too. Arguments below 2^-12 in magnitude give ``sin(x) = x`` and
``tan(x) = x`` (signed zeros and subnormals kept); infinities and NaN give NaN.

The derivatives are the same functions: ``sin' = cos`` and ``cos' = -sin`` share the forward's
reduction, ``tan' = 1 + tan^2`` (Warp's adjoint is ``1 / cos^2``; the two agree to rounding).

Elsewhere these are XLA's functions: on XLA:GPU, in Pallas kernels (``exact=True``), for arguments that
are not float32 (float64; the builtins compute half-precision ones in float32, which then take the
vector code) and for values that are not traced.

Example:
    >>> import jax.numpy as jnp
    >>> from jwarp.builtins import trig
    >>> float(trig.sin(jnp.float32(0.5)))  # doctest: +ELLIPSIS
    0.4794255...
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Any, Callable, Iterator

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jwarp.compiler.selects import clip, where

# |x| up to this takes Cody and Waite's reduction: k = round(x * 2/pi) stays below 2^20, far inside the
# 2^29 for which k * _PIO2_HI is exact, and the reduction's error stays below 1e-17 absolute.
_LIMIT = np.float32(2.0**20)
# |x| below this: sin, tan, atan and asin of x round to x (x^3/3 is under a quarter of x's ulp).
_TINY = np.float32(2.0**-12)
_TINY_64 = np.float64(2.0**-27)  # x^3/3 below half an ulp of x in float64
_TWO_OVER_PI = 2.0 / np.pi
# pi/2 = _PIO2_HI + _PIO2_LO to 2.7e-24 (2^-78); _PIO2_HI is the float64 pi/2 cut to its leading 24 bits
# (1.5707962512969971), _PIO2_LO the rest rounded to float64 (tests/builtins/test_trig.py checks both)
_PIO2_HI = float(np.array([np.pi / 2]).view(np.uint64).__and__(np.uint64(0xFFFFFFFFE0000000)).view(np.float64)[0])
_PIO2_LO = 7.549789954891882e-08
# Taylor coefficients of (sin(r)/r - 1) / r^2 and (cos(r) - 1) / r^2 as polynomials in r^2 (|r| <= pi/4)
_SIN = tuple((-1.0) ** i / float(np.prod(np.arange(1, 2 * i + 2))) for i in range(1, 6))
_COS = tuple((-1.0) ** i / float(np.prod(np.arange(1, 2 * i + 1))) for i in range(1, 7))


def _horner(r2: Any, coefficients: tuple) -> Any:
    acc = coefficients[-1]
    for a in coefficients[-2::-1]:
        acc = a + r2 * acc
    return acc


def _reduce_near(x: Any) -> tuple:
    """Float64 quadrant-relative remainder of float32 ``x`` for ``|x| <= _LIMIT``: ``(r, q)`` with
    ``x = r + q * pi/2`` to within 1e-16 (Cody and Waite's reduction)."""
    x = x.astype(jnp.float64)
    k = jnp.round(x * _TWO_OVER_PI)
    return (x - k * _PIO2_HI) - k * _PIO2_LO, k


def _two_over_pi_words(count: int = 7, lead: int = 8) -> tuple:
    """The binary fraction of 2/pi after ``lead`` zero bits, as ``count`` 32-bit words (pi from
    Machin's formula in integers)."""
    bits = 32 * count - lead
    one = 1 << (bits + 64)

    def arctan_inverse(x: int) -> int:
        power = total = one // x
        n, sign = 1, 1
        while power:
            power //= x * x
            n, sign = n + 2, -sign
            total += sign * (power // n)
        return total

    pi = 4 * (4 * arctan_inverse(5) - arctan_inverse(239))
    fraction = ((2 * one * one) // pi) >> 64  # floor(2/pi * 2^bits)
    return tuple((fraction >> (32 * (count - 1 - j))) & 0xFFFFFFFF for j in range(count))


_WORDS = _two_over_pi_words()


def _reduce_far(x: Any) -> tuple:
    """``(r, q)`` as :func:`_reduce_near` for every finite float32 ``x`` (Payne and Hanek's reduction):
    ``|x| = m * 2^e`` with a 24-bit integer ``m``, and ``m * 2^e * 2/pi`` modulo 4 needs only the
    96 bits of 2/pi from the one worth 2 (once scaled by ``2^e``) on; they are shifted out of
    :data:`_WORDS` and multiplied by ``m`` in 32-bit limbs, exactly."""
    u32, u64 = jnp.uint32, jnp.uint64
    bits = lax.bitcast_convert_type(jnp.abs(x), u32)
    offset = clip(bits >> 23, u32(147), u32(254)) - u32(144)  # e + 6, in range for arguments not taken from here
    word, shift = offset >> 5, offset & 31

    def word_at(k: int) -> Any:
        picked = u32(_WORDS[k + 3])
        for j in (2, 1, 0):
            picked = where(word == j, u32(_WORDS[j + k]), picked)
        return picked

    words = [word_at(k) for k in range(4)]
    # (a shift by 32 gives 0 in XLA)
    limbs = [((words[k] << shift) | (words[k + 1] >> (u32(32) - shift))).astype(u64) for k in range(3)]
    m = ((bits & 0x7FFFFF) | 0x800000).astype(u64)
    low = m * limbs[2]
    mid = m * limbs[1] + (low >> 32)
    top = (m * limbs[0] + (mid >> 32)) & 0xFFFFFFFF
    fraction = ((top & 0x3FFFFFFF).astype(jnp.float64) * 2.0**-30 + (mid & 0xFFFFFFFF).astype(jnp.float64) * 2.0**-62
                + (low & 0xFFFFFFFF).astype(jnp.float64) * 2.0**-94)
    quadrant = (top >> 30).astype(jnp.float64)
    upper = fraction >= 0.5
    fraction = where(upper, fraction - 1.0, fraction)
    quadrant = where(upper, quadrant + 1.0, quadrant)
    sign = where(x < 0, -1.0, 1.0)
    return sign * fraction * (np.pi / 2), sign * quadrant


def _sincos_reduced(x: Any) -> tuple:
    """Float64 ``(sin x, cos x)`` of float32 ``x`` (NaN for infinities and NaN)."""
    with jax.enable_x64(True):
        near = jnp.abs(x) <= _LIMIT
        r_near, k_near = _reduce_near(where(near, x, jnp.zeros_like(x)))
        r_far, k_far = _reduce_far(x)
        r = where(near, r_near, r_far)
        k = where(near, k_near, k_far)
        r = where(jnp.isfinite(x), r, jnp.nan)
        r2 = r * r
        s = r + r * r2 * _horner(r2, _SIN)
        c = 1.0 + r2 * _horner(r2, _COS)
        quadrant = k - 4.0 * jnp.floor(k * 0.25)  # 0..3
        odd = (quadrant == 1.0) | (quadrant == 3.0)
        sin = where(odd, c, s) * where(quadrant >= 2.0, -1.0, 1.0)
        cos = where(odd, s, c) * where((quadrant == 1.0) | (quadrant == 2.0), -1.0, 1.0)
        return sin, cos


def odd_small(x: Any, value: Any) -> Any:
    """``value``, or ``x`` itself where ``|x| < 2^-12`` (float64: ``2^-27``): the rounded result of an odd
    function whose slope at 0 is 1 (``sin``, ``tan``, ``atan``, ``asin``), signed zeros and subnormals
    kept (XLA:CPU's arithmetic reads subnormals as zeros; a select passes them unchanged)."""
    tiny = _TINY_64 if jnp.result_type(x) == jnp.float64 else _TINY
    return where(jnp.abs(x) < tiny, x, value)


def _sincos32(x: Any) -> tuple:
    sin, cos = _sincos_reduced(x)
    return odd_small(x, sin.astype(jnp.float32)), cos.astype(jnp.float32)


@jax.custom_jvp
def _sin_cpu(x: Any) -> Any:
    return _sincos32(x)[0]  # (XLA drops the unused cosine)


@jax.custom_jvp
def _cos_cpu(x: Any) -> Any:
    return _sincos32(x)[1]


@jax.custom_jvp
def _tan_cpu(x: Any) -> Any:
    sin, cos = _sincos_reduced(x)
    with jax.enable_x64(True):
        return odd_small(x, (sin / cos).astype(jnp.float32))


@_sin_cpu.defjvp
def _sin_jvp(primals: tuple, tangents: tuple) -> tuple:
    sin, cos = _sincos32(primals[0])
    return sin, cos * tangents[0]


@_cos_cpu.defjvp
def _cos_jvp(primals: tuple, tangents: tuple) -> tuple:
    sin, cos = _sincos32(primals[0])
    return cos, -sin * tangents[0]


@_tan_cpu.defjvp
def _tan_jvp(primals: tuple, tangents: tuple) -> tuple:
    tan = _tan_cpu(primals[0])
    return tan, (1.0 + tan * tan) * tangents[0]


# Off while the kernel compiler traces a small launch; results apart in a kernel with arrays that are not
# one-dimensional scalar arrays (jwarp/compiler/vector_code.py)
_VECTOR_CODE: contextvars.ContextVar = contextvars.ContextVar("jwarp_vector_code", default=True)
_APART: contextvars.ContextVar = contextvars.ContextVar("jwarp_vector_code_apart", default=False)


@contextlib.contextmanager
def vector_code(enabled: bool, apart: bool = False) -> Iterator[None]:
    """Trace with the vector code on or off (off: XLA's functions); ``apart``: each result computed in
    a loop of its own (:func:`apart`).

    The kernel compiler (``jwarp/compiler/vector_code.py``) turns it off for small launches, and
    computes the results apart in kernels with an array of vector, matrix or struct elements or of more
    than one dimension: XLA:CPU computes the values stored into such an array's components in the loop
    that interleaves them, one element at a time, where the vector code would lose its vector
    instructions (a ``vec3`` store of ``sin``/``atan2`` values, 2^20 lanes: 199 ms; XLA's functions
    79 ms; the vector code computed apart 37-40 ms)."""
    token = _VECTOR_CODE.set(enabled)
    apart_token = _APART.set(enabled and apart)
    try:
        yield
    finally:
        _APART.reset(apart_token)
        _VECTOR_CODE.reset(token)


def vectorised(x: Any, exact: bool) -> bool:
    """Whether ``x`` takes the vector code: a traced float32 value lowered through XLA, with the
    vector code on (:func:`vector_code`)."""
    return not exact and _VECTOR_CODE.get() and isinstance(x, jax.core.Tracer) and x.dtype == jnp.float32


def on_cpu(*args: Any, cpu: Callable, default: Callable) -> Any:
    """``cpu(*args)`` in programs for the CPU, ``default(*args)`` for other platforms."""
    if _APART.get():
        return lax.platform_dependent(*args, cpu=lambda *a: apart(cpu(*a)), default=default)
    return lax.platform_dependent(*args, cpu=cpu, default=default)


def apart(value: Any) -> Any:
    """``value``, computed in a loop of its own: XLA fuses nothing across a conditional, and the
    predicate (one lane of ``value`` equals itself or does not) is true at run time without XLA
    being able to fold it. An integer lane is compared as the float of its bits: XLA folds an
    integer's ``x == x``, and the conditional with it."""
    if jnp.size(value) == 0:
        return value
    first = jnp.reshape(value, (-1,))[0]
    if not jnp.issubdtype(first.dtype, jnp.floating):
        first = lax.bitcast_convert_type(first.astype(jnp.int32), jnp.float32)
    go = (first == first) | (first != first)
    return lax.cond(go, lambda v: v, jnp.zeros_like, value)


def sin(x: Any, exact: bool = False) -> Any:
    """Sine of a float array or value; ``exact``: XLA's function everywhere (Pallas kernels)."""
    return on_cpu(x, cpu=_sin_cpu, default=jnp.sin) if vectorised(x, exact) else jnp.sin(x)


def cos(x: Any, exact: bool = False) -> Any:
    """Cosine of a float array or value; ``exact``: XLA's function everywhere (Pallas kernels)."""
    return on_cpu(x, cpu=_cos_cpu, default=jnp.cos) if vectorised(x, exact) else jnp.cos(x)


def tan(x: Any, exact: bool = False) -> Any:
    """Tangent of a float array or value; ``exact``: XLA's function everywhere (Pallas kernels).
    Arguments below 2^-12 give themselves (XLA:CPU's older emitters read subnormals as zero in ``tan``)."""
    return on_cpu(x, cpu=_tan_cpu, default=jnp.tan) if vectorised(x, exact) else odd_small(x, jnp.tan(x))


__all__ = ["apart", "cos", "odd_small", "on_cpu", "sin", "tan", "vector_code", "vectorised"]
