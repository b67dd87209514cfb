"""Scalar Math group: ``min max clamp abs sign copysign step nonzero bit_count``, the
elementary functions (``sin … erfcinv``), rounding (``round rint trunc floor ceil frac``)
and predicates (``isfinite isnan isinf``).

Conventions checked against Warp: ``round`` rounds half away from zero and ``rint`` half to
even; ``sign(0) == 1`` and ``step(0) == 0``; ``acos``/``asin`` clamp their argument to
[-1, 1]; ``frac(x) = x - trunc(x)``. Functions that Warp defines component-wise on vectors
(``abs sign min max clamp floor ceil round rint trunc frac`` …) accept vectors too.
"""

from __future__ import annotations

from typing import Callable

import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
from jax import lax

from jwarp.builtins import common as c
from jwarp.builtins import inverse_trig, trig
from jwarp.builtins.common import Call, Value
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import leaves_of, xp
from jwarp.lang import composites, scalars


def _vector_or_scalar(v: Value) -> bool:
    return c.is_scalar(v) or c.is_vector(v)


def _unary(name: str, fn: Callable, kinds: str = "f", vectors: bool = False, doc: str = "",
           targeted: bool = False) -> None:
    """Register ``name``: ``fn`` applied per component; ``kinds`` are allowed scalar kinds.
    ``targeted``: ``fn(x, exact)``, where ``exact`` says the call is traced for a Pallas kernel."""

    def impl(call: Call, x: Value) -> Value:
        ok = (c.is_scalar(x) or (vectors and c.is_composite(x))) and c.scalar_type(x)._kind in kinds
        c.require(ok, call, x)
        if targeted:
            exact = not c.xla_target(call)
            return c.leafwise(_j(lambda leaf: fn(leaf, exact)), x)
        return c.leafwise(fn, x)

    impl.__doc__ = doc or f"``{name}`` of a {'float' if kinds == 'f' else 'numeric'} scalar."
    globals()[name] = builtin(name, group="Scalar Math")(impl)


_HALF_DTYPES = (jnp.dtype(jnp.float16), jnp.dtype(jnp.bfloat16))


def _j(fn: Callable) -> Callable:
    """``fn`` on a jax array; half-precision inputs are computed in float32 and rounded once,
    as Warp evaluates its float16/bfloat16 math (``asin(bfloat16(0.75))`` is the nearest bfloat16)."""

    def apply(x):
        x = jnp.asarray(x)
        if x.dtype in _HALF_DTYPES:
            return fn(x.astype(jnp.float32)).astype(x.dtype)
        return fn(x)

    return apply


def _np_or_j(np_fn: Callable, j_fn: Callable) -> Callable:
    return lambda x: np_fn(x) if c.is_const(x) else j_fn(x)


# vector code on XLA:CPU, where XLA calls the C library per element (see trig.py, inverse_trig.py)
_unary("sin", trig.sin, targeted=True, doc="``sin`` of a float scalar.")
_unary("cos", trig.cos, targeted=True, doc="``cos`` of a float scalar.")
_unary("tan", trig.tan, targeted=True, doc="``tan`` of a float scalar.")
_unary("sinh", _j(jnp.sinh))
_unary("cosh", _j(jnp.cosh))
_unary("tanh", _j(jnp.tanh))
_unary("atan", inverse_trig.atan, targeted=True, doc="``atan`` of a float scalar.")
_unary("asin", lambda x, exact: inverse_trig.asin(inverse_trig.clamp_unit(x), exact), targeted=True,
       doc="Arc sine; the argument is clamped to [-1, 1] (NaN to -1, as Warp's ``fmin(fmax(-1, x), 1)``).")
_unary("acos", lambda x, exact: inverse_trig.acos(inverse_trig.clamp_unit(x), exact), targeted=True,
       doc="Arc cosine; the argument is clamped to [-1, 1] (NaN to -1, as Warp's ``fmin(fmax(-1, x), 1)``).")
_unary("sqrt", _j(jnp.sqrt))
_unary("cbrt", _j(jnp.cbrt))
_unary("exp", _j(jnp.exp))
_unary("log", _j(jnp.log))
_unary("log2", _j(jnp.log2))
_unary("log10", _j(jnp.log10))
_unary("erf", _j(jsp.erf))
_unary("erfc", _j(jsp.erfc))
_unary("erfinv", _j(jsp.erfinv))
_unary("erfcinv", _j(lambda x: jsp.erfinv(1 - x)))
_unary("degrees", _j(lambda x: x * (180.0 / np.pi)), vectors=True)
_unary("radians", _j(lambda x: x * (np.pi / 180.0)), vectors=True)
_unary("round", _j(lambda x: lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO)), vectors=True,
       doc="Round to the nearest integer, halves away from zero.")
_unary("rint", _j(lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)), vectors=True,
       doc="Round to the nearest integer, halves to even.")
_unary("trunc", _np_or_j(np.trunc, jnp.trunc), vectors=True)
_unary("floor", _np_or_j(np.floor, jnp.floor), vectors=True)
_unary("ceil", _np_or_j(np.ceil, jnp.ceil), vectors=True)
_unary("frac", _j(lambda x: x - jnp.trunc(x)), vectors=True, doc="Fractional part: ``x - trunc(x)``.")
_unary("abs", lambda x: xp(x).abs(x), kinds="fiu", vectors=True, doc="Absolute value (component-wise).")


@builtin("bit_count", group="Scalar Math")
def bit_count(call: Call, x: Value) -> Value:
    """Number of set bits of an integer scalar, as an ``int32`` (negative values count their
    two's-complement bits: ``bit_count(-1) == 32`` for an ``int32``)."""
    c.require(c.is_scalar(x) and x.type._kind in "iu", call, x)
    if c.is_const(x.data):  # folded in Python: the value's bits in its own width
        bits = x.type._np_dtype.itemsize * 8
        return Value(scalars.int32, np.int32(bin(int(x.data) & ((1 << bits) - 1)).count("1")))
    return Value(scalars.int32, lax.population_count(x.data).astype(jnp.int32))  # (Triton: pallas_triton_rules)


def _sign(x):
    m = xp(x)
    one, neg = x.dtype.type(1), x.dtype.type(-1) if x.dtype.kind != "u" else x.dtype.type(1)
    return m.where(x < 0, neg, one).astype(x.dtype) if m is jnp else (neg if x < 0 else one)


_unary("sign", _sign, kinds="fi", vectors=True, doc="-1 where x < 0, else 1 (so sign(0) == 1, as in Warp).")


def _step(x):
    m = xp(x)
    return m.where(x < 0, x.dtype.type(1), x.dtype.type(0)).astype(x.dtype) if m is jnp else x.dtype.type(x < 0)


_unary("step", _step, kinds="fi", vectors=True, doc="1 where x < 0, else 0.")


def _nonzero(x):
    m = xp(x)
    return m.where(x != 0, x.dtype.type(1), x.dtype.type(0)).astype(x.dtype) if m is jnp else x.dtype.type(x != 0)


_unary("nonzero", _nonzero, kinds="fiu", vectors=True, doc="1 where x != 0, else 0.")


def _predicate(name: str, fn: Callable, combine_any: bool = True) -> None:
    def impl(call: Call, x: Value) -> Value:
        c.require((c.is_scalar(x) or c.is_composite(x)) and c.scalar_type(x)._kind in "fiu", call, x)
        out = None
        for leaf in leaves_of(x):
            m = xp(leaf)
            term = fn(m, leaf)
            if combine_any:
                out = term if out is None else m.logical_or(out, term) if m is jnp else (out or term)
            else:
                out = term if out is None else m.logical_and(out, term) if m is jnp else (out and term)
        return Value(scalars.bool_, np.bool_(out) if isinstance(out, (bool, np.bool_)) else out)

    impl.__doc__ = f"``{name}``: true for a scalar (or, for composites, per Warp's rule)."
    globals()[name] = builtin(name, group="Scalar Math")(impl)


_predicate("isnan", lambda m, x: m.isnan(x))
_predicate("isinf", lambda m, x: m.isinf(x))
_predicate("isfinite", lambda m, x: m.isfinite(x), combine_any=False)


def _binary_float(name: str, fn: Callable, doc: str, targeted: bool = False) -> None:
    """Register ``name``: ``fn(a, b)`` of two float scalars of one type (``targeted``: ``fn(a, b, exact)``,
    where ``exact`` says the call is traced for a Pallas kernel)."""
    def impl(call: Call, a: Value, b: Value) -> Value:
        c.require(c.is_float_scalar(a), call, a, b)
        c.same_types(call, a, b)
        if targeted:
            exact = not c.xla_target(call)
            return c.leafwise(lambda y, x: fn(y, x, exact), a, b)
        return c.leafwise(fn, a, b)

    impl.__doc__ = doc
    globals()[name] = builtin(name, group="Scalar Math")(impl)


_binary_float("atan2", inverse_trig.atan2, "Arc tangent of ``y / x`` using the signs of both.", targeted=True)
_binary_float("copysign", lambda a, b: jnp.copysign(a, b), "``|a|`` with the sign of ``b``.")


def _reduce_vector(call: Call, v: Value, op) -> Value:
    leaves = leaves_of(v)
    out = leaves[0]
    for leaf in leaves[1:]:
        out = op(xp(out, leaf), out, leaf)
    return Value(v.type._wp_scalar_type_, out)


@builtin("min", group="Scalar Math")
def min_(call: Call, a: Value, b: Value | None = None) -> Value:
    """Smaller of two values (component-wise; NaNs are skipped as by C fmin), or the smallest component."""
    if b is None:
        c.require(c.is_vector(a), call, a)
        return _reduce_vector(call, a, lambda m, x, y: m.fmin(x, y))
    c.require(_vector_or_scalar(a) and not c.is_array(a), call, a, b)
    c.same_types(call, a, b)
    return c.leafwise(lambda x, y: xp(x, y).fmin(x, y), a, b)


@builtin("max", group="Scalar Math")
def max_(call: Call, a: Value, b: Value | None = None) -> Value:
    """Larger of two values (component-wise; NaNs are skipped as by C fmax), or the largest component."""
    if b is None:
        c.require(c.is_vector(a), call, a)
        return _reduce_vector(call, a, lambda m, x, y: m.fmax(x, y))
    c.require(_vector_or_scalar(a) and not c.is_array(a), call, a, b)
    c.same_types(call, a, b)
    return c.leafwise(lambda x, y: xp(x, y).fmax(x, y), a, b)


@builtin("clamp", group="Scalar Math")
def clamp(call: Call, x: Value, low: Value, high: Value) -> Value:
    """``min(max(x, low), high)`` (component-wise for vectors)."""
    c.require(_vector_or_scalar(x), call, x, low, high)
    c.same_types(call, x, low, high)

    def fn(v, lo, hi):
        m = xp(v, lo, hi)
        return m.fmin(m.fmax(v, lo), hi)

    return c.leafwise(fn, x, low, high)


def _pow_doc() -> None:
    """``pow`` lives with the operators (``a ** b``)."""


__all__ = ["min_", "max_", "clamp", "composites"]
