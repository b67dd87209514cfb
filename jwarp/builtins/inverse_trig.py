"""Arc tangent, arc sine and arc cosine of float32 values as vector code on XLA:CPU.

As for ``sin`` (see :mod:`jwarp.builtins.trig`), XLA:CPU calls the C library once per element for
``atan``, ``atan2``, ``asin`` and ``acos``: 12–22 ms for 2^20 float32 values on one core. Here they
are float64 straight-line code rounded once to float32:

- ``atan``: ``|x| > 1`` maps to ``pi/2 - atan(1/|x|)``, then ``u > tan(pi/8)`` to
  ``pi/4 + atan((u - 1) / (u + 1))``, leaving ``|w| <= tan(pi/8)``, where 14 terms of the Taylor
  series of ``atan(w) / w`` in ``w^2`` are within 1e-12;
- ``atan2(y, x)``: ``atan(min/max)`` of the magnitudes placed in its octant, with C's signed zeros,
  infinities (``atan2(inf, -inf) = 3 pi/4``) and NaN;
- ``asin(x) = atan2(x, sqrt((1 - x)(1 + x)))`` and ``acos(x) = atan2(sqrt((1 - x)(1 + x)), x)``
  (exact products in float64; NaN outside [-1, 1], as in C).

Their derivatives are the usual formulas (``jax.custom_jvp``). Elsewhere (XLA:GPU, Pallas kernels
with ``exact=True``, other dtypes, untraced values) these are XLA's functions.

Example:
    >>> import jax, jax.numpy as jnp
    >>> from jwarp.builtins import inverse_trig
    >>> round(float(jax.jit(inverse_trig.atan2)(jnp.float32(1.0), jnp.float32(-1.0))), 6)
    2.356194
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.builtins.trig import odd_small, on_cpu, vectorised
from jwarp.compiler.selects import where

_TAN_PI_8 = float(np.tan(np.pi / 8))
# atan(w) / w - 1 = sum_k (-1)^k w^(2k) / (2k + 1), k >= 1, as a polynomial in w^2
_ATAN = tuple((-1.0) ** k / (2 * k + 1) for k in range(1, 15))


def _atan_magnitude(u: Any) -> Any:
    """Float64 ``atan(u)`` of float64 ``u >= 0`` (``inf`` gives ``pi/2``, NaN stays NaN)."""
    inverted = u > 1.0
    u = where(inverted, 1.0 / u, u)
    shifted = u > _TAN_PI_8
    w = where(shifted, (u - 1.0) / (u + 1.0), u)
    w2 = w * w
    acc = _ATAN[-1]
    for a in _ATAN[-2::-1]:
        acc = a + w2 * acc
    angle = w + w * w2 * acc + where(shifted, np.pi / 4, 0.0)
    return where(inverted, np.pi / 2 - angle, angle)


def _atan2_64(y: Any, x: Any) -> Any:
    """Float64 ``atan2`` of float64 ``y``, ``x`` with C's special values."""
    ay, ax = jnp.abs(y), jnp.abs(x)
    steep = ay > ax
    ratio = where(steep, ax / ay, ay / ax)
    ratio = where((ay == 0.0) & (ax == 0.0), 0.0, ratio)  # atan2(+-0, +-0)
    ratio = where(jnp.isinf(ay) & jnp.isinf(ax), 1.0, ratio)  # atan2(+-inf, +-inf)
    base = _atan_magnitude(ratio)
    base = where(steep, np.pi / 2 - base, base)
    base = where(jnp.signbit(x), np.pi - base, base)
    return where(jnp.signbit(y), -base, base)


def _f32(fn: Callable) -> Callable:
    """``fn`` of float64 operands applied to float32 ones, rounded once to float32."""

    def apply(*args: Any) -> Any:
        with jax.enable_x64(True):
            return fn(*(a.astype(jnp.float64) for a in args)).astype(jnp.float32)

    return apply


def _root_of_one_minus_square(x: Any) -> Any:
    return jnp.sqrt((1.0 - x) * (1.0 + x))


@jax.custom_jvp
def _atan_cpu(x: Any) -> Any:
    angle = _f32(lambda x: where(jnp.signbit(x), -1.0, 1.0) * _atan_magnitude(jnp.abs(x)))(x)
    return odd_small(x, angle)


def _widened(v: Any) -> Any:
    """Float64 value of float32 ``v``, subnormals included (XLA:CPU reads them as zeros in arithmetic)."""
    bits = lax.bitcast_convert_type(v, jnp.int32)
    subnormal = (bits & 0x7F800000) == 0
    magnitude = (bits & 0x7FFFFF).astype(jnp.float64) * 2.0**-149
    return where(subnormal, where(bits < 0, -magnitude, magnitude), v.astype(jnp.float64))


def _narrowed(v: Any) -> Any:
    """Float64 ``v`` rounded to float32, subnormal results included (XLA:CPU's conversion flushes them)."""
    magnitude = jnp.abs(v)
    tiny = magnitude < 2.0**-126
    bits = jnp.round(where(tiny, magnitude, 0.0) * 2.0**149).astype(jnp.int32) | where(
        jnp.signbit(v), jnp.int32(-(2**31)), jnp.int32(0))
    return where(tiny, lax.bitcast_convert_type(bits, jnp.float32), v.astype(jnp.float32))


@jax.custom_jvp
def _atan2_cpu(y: Any, x: Any) -> Any:
    with jax.enable_x64(True):
        return _narrowed(_atan2_64(_widened(y), _widened(x)))


@jax.custom_jvp
def _asin_cpu(x: Any) -> Any:
    angle = _f32(lambda x: _atan2_64(x, _root_of_one_minus_square(x)))(x)
    return odd_small(x, angle)


@jax.custom_jvp
def _acos_cpu(x: Any) -> Any:
    return _f32(lambda x: _atan2_64(_root_of_one_minus_square(x), x))(x)


@_atan_cpu.defjvp
def _atan_jvp(primals: tuple, tangents: tuple) -> tuple:
    (x,), (t,) = primals, tangents
    return _atan_cpu(x), t / (1.0 + x * x)


@_atan2_cpu.defjvp
def _atan2_jvp(primals: tuple, tangents: tuple) -> tuple:
    (y, x), (ty, tx) = primals, tangents
    r2 = x * x + y * y
    return _atan2_cpu(y, x), (x * ty - y * tx) / r2


@_asin_cpu.defjvp
def _asin_jvp(primals: tuple, tangents: tuple) -> tuple:
    (x,), (t,) = primals, tangents
    return _asin_cpu(x), t * lax.rsqrt(1.0 - x * x)


@_acos_cpu.defjvp
def _acos_jvp(primals: tuple, tangents: tuple) -> tuple:
    (x,), (t,) = primals, tangents
    return _acos_cpu(x), -t * lax.rsqrt(1.0 - x * x)


# asin(a) = a + a z P(z), z = a^2 <= 1/4: P's coefficients, a least-squares fit of the relative error
# (jwarp's own; float32 evaluation gives arccos within 1 ulp, see :func:`acos_within_ulp`)
_ASIN_SMALL = (0.16666754, 0.07495431, 0.0454366, 0.02440953, 0.0416895)


def _asin_small(a: Any) -> Any:
    """Float32 ``asin(a)`` for ``|a| <= 1/2``."""
    z = a * a
    acc = jnp.float32(_ASIN_SMALL[-1])
    for c in _ASIN_SMALL[-2::-1]:
        acc = acc * z + jnp.float32(c)
    return a + a * z * acc


def acos_within_ulp(x: Any) -> Any:
    """Float32 arc cosine of ``x`` in [-1, 1] within 1 ulp of the rounded exact value (XLA's
    ``acos``: within 2), in float32 arithmetic: a few multiplies and one square root, which XLA:CPU
    vectorises, where XLA's ``acos`` calls the C library per element (~10 ns). For tables computed
    at every launch whatever its size (a mesh's vertex angles, ``mesh_query_point_sign_normal``), where
    the float64 vector code (:func:`acos`) would cost a long compile. No derivative (tables are
    computed under ``stop_gradient``).

    Example:
        >>> import jax.numpy as jnp
        >>> round(float(acos_within_ulp(jnp.float32(0.5))), 6)
        1.047198
    """
    x = jnp.asarray(x, jnp.float32)
    half = jnp.float32(0.5)
    middle = jnp.float32(np.pi / 2) - _asin_small(jnp.clip(x, -half, half))
    edge = 2.0 * _asin_small(jnp.sqrt((1.0 - jnp.abs(x)) * half))  # acos(|x|) for |x| > 1/2
    return where(x > half, edge, where(x < -half, jnp.float32(np.pi) - edge, middle))


def clamp_unit(x: Any) -> Any:
    """``x`` clamped to [-1, 1] as Warp's ``asin``/``acos`` do (``fmin(fmax(-1, x), 1)``: NaN gives -1)."""
    x = jnp.asarray(x)
    # (a select, so that subnormal arguments pass unchanged: XLA:CPU's arithmetic reads them as zeros)
    return where(jnp.abs(x) <= 1.0, x, jnp.fmin(jnp.fmax(x, -1.0), 1.0).astype(x.dtype))


def atan(x: Any, exact: bool = False) -> Any:
    """Arc tangent; ``exact``: XLA's function everywhere (Pallas kernels)."""
    return on_cpu(x, cpu=_atan_cpu, default=jnp.arctan) if vectorised(x, exact) else jnp.arctan(x)


def atan2(y: Any, x: Any, exact: bool = False) -> Any:
    """Arc tangent of ``y / x`` in the quadrant of ``(x, y)``; ``exact``: XLA's function everywhere."""
    traced = vectorised(y, exact) or vectorised(x, exact)
    if traced and all(getattr(v, "dtype", None) == jnp.float32 for v in (y, x)):
        y, x = jnp.broadcast_arrays(y, x)
        return on_cpu(y, x, cpu=_atan2_cpu, default=jnp.arctan2)
    return jnp.arctan2(y, x)


def asin(x: Any, exact: bool = False) -> Any:
    """Arc sine (NaN outside [-1, 1]); ``exact``: XLA's function everywhere (Pallas kernels)."""
    return on_cpu(x, cpu=_asin_cpu, default=jnp.arcsin) if vectorised(x, exact) else odd_small(x, jnp.arcsin(x))


def acos(x: Any, exact: bool = False) -> Any:
    """Arc cosine (NaN outside [-1, 1]); ``exact``: XLA's function everywhere (Pallas kernels)."""
    return on_cpu(x, cpu=_acos_cpu, default=jnp.arccos) if vectorised(x, exact) else jnp.arccos(x)


__all__ = ["acos", "acos_within_ulp", "asin", "atan", "atan2", "clamp_unit"]
