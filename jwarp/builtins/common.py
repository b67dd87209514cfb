"""Shared helpers for builtin implementations: type checks with Warp's messages, and leaf
arithmetic that stays in numpy for compile-time constants and uses jax.numpy otherwise."""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.compiler.registry import Call
from jwarp.compiler.values import STATIC, Value, const, is_const, leaves_of, value_from_leaves, xp
from jwarp.errors import WarpCodegenError
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import ArrayType, type_name
from jwarp.compiler import selects

# -- type predicates --------------------------------------------------------------------------------


def is_scalar(v: Value) -> bool:
    return scalars.is_scalar_type(v.type)


def is_float_scalar(v: Value) -> bool:
    return scalars.is_float(v.type)


def is_int_scalar(v: Value) -> bool:
    return scalars.is_int(v.type)


def is_composite(v: Value) -> bool:
    return composites.is_composite(v.type)


def is_vector(v: Value) -> bool:
    return composites.is_vector(v.type)


def is_matrix(v: Value) -> bool:
    return composites.is_matrix(v.type)


def is_quat(v: Value) -> bool:
    return composites.is_quaternion(v.type)


def is_transform(v: Value) -> bool:
    return composites.is_transformation(v.type)


def is_array(v: Value) -> bool:
    return isinstance(v.type, ArrayType)


def scalar_type(v: Value) -> type:
    """The scalar type of a scalar or composite value."""
    if composites.is_composite(v.type):
        return v.type._wp_scalar_type_
    return v.type


def same_types(call: Call, *args: Value) -> None:
    first = args[0].type
    if any(a.type != first for a in args[1:]):
        raise RuntimeError(f"Input types must be the same, got {[type_name(a.type) for a in args]}")


def require(cond: bool, call: Call, *args: Value) -> None:
    if not cond:
        raise call.no_overload(*args)


def require_static(call: Call, v: Value, what: str) -> Any:
    if v.type is not STATIC:
        raise WarpCodegenError(f"wp.{call.name}(): {what} must be a compile-time value")
    return v.data


# -- leaves ---------------------------------------------------------------------------------------


def constant(t: type, x: Any) -> np.generic:
    return const(x, t)


def leafwise(fn: Callable, *values: Value, out_type: Any = None) -> Value:
    """Apply ``fn`` to corresponding leaves of values with identical structure."""
    columns = [leaves_of(v) for v in values]
    return value_from_leaves(out_type or values[0].type, [fn(*g) for g in zip(*columns)])


def broadcast_scalar(fn: Callable, composite: Value, scalar_leaf: Any, scalar_first: bool = False) -> Value:
    if scalar_first:
        return value_from_leaves(composite.type, [fn(scalar_leaf, x) for x in leaves_of(composite)])
    return value_from_leaves(composite.type, [fn(x, scalar_leaf) for x in leaves_of(composite)])


def _pair(a: Any, b: Any):
    m = xp(a, b)
    if m is np:
        return np, a, b
    a, b = jnp.asarray(a), jnp.asarray(b)
    if a.shape != b.shape:
        a, b = jnp.broadcast_arrays(a, b)
    return jnp, a, b


def _lax_operands(a: Any, b: Any) -> bool:
    """Whether a ``lax`` binary op gives what the ``jnp`` one would: a traced operand, one numeric
    (non-bool) dtype, no weak types, shapes equal or one of rank 0. ``lax`` ops trace several times
    faster than ``jnp``'s (jitted) ones, and a kernel on vectors traces one op per component."""
    ta, tb = _aval_of(a), _aval_of(b)
    if ta is None or tb is None or not (isinstance(a, jax.core.Tracer) or isinstance(b, jax.core.Tracer)):
        return False
    (sa, da, wa), (sb, db, wb) = ta, tb
    return da == db and da != np.bool_ and not wa and not wb and (sa == sb or not sa or not sb)


def _aval_of(x: Any) -> tuple | None:
    if isinstance(x, jax.core.Tracer):
        aval = x.aval
        return aval.shape, aval.dtype, aval.weak_type
    if isinstance(x, (np.generic, np.ndarray)):
        return x.shape, x.dtype, False
    return None


def add(a, b):
    if _lax_operands(a, b):
        return lax.add(a, b)
    return xp(a, b).add(a, b) if xp(a, b) is np else jnp.add(a, b)


def sub(a, b):
    if _lax_operands(a, b):
        return lax.sub(a, b)
    return xp(a, b).subtract(a, b)


def mul(a, b):
    if _lax_operands(a, b):
        return lax.mul(a, b)
    return xp(a, b).multiply(a, b)


_HALF_FLOATS = (np.dtype(np.float16), jnp.dtype(jnp.bfloat16))


def fdiv(a, b, via_float: bool = False):
    """Float quotient, rounded once as IEEE division (Warp's). XLA turns ``x / c`` by a
    launch-uniform ``c`` into ``x * (1/c)``, which is often one unit off: half-precision values
    divide in float32, and (``via_float``: lowered through XLA, not Pallas; CPU programs) float32
    lanes divided by a uniform value in float64, each rounded once to the narrower type (the
    product with the wider reciprocal lies too close to the exact quotient to round otherwise)."""
    m = xp(a, b)
    if m is jnp and jnp.result_type(a, b) in _HALF_FLOATS:
        dtype = jnp.result_type(a, b)
        return (jnp.asarray(a, jnp.float32) / jnp.asarray(b, jnp.float32)).astype(dtype)
    if (via_float and m is jnp and jnp.result_type(a, b) == jnp.float32 and jnp.ndim(a) > 0
            and _uniform_divisor(a, b) and jax.dtypes.canonicalize_dtype(np.float64) == np.float64):
        def wide(a: Any, b: Any) -> Any:
            return (a.astype(jnp.float64) / b.astype(jnp.float64)).astype(jnp.float32)

        return lax.platform_dependent(jnp.asarray(a), jnp.asarray(b), cpu=wide, default=jnp.divide)
    return m.divide(a, b)


# integer types whose quotients float64 division gives exactly (operands below 2^53 in magnitude)
_FLOAT64_EXACT = frozenset(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32))


def _quotient(a: Any, b: Any, kind: str, via_float: bool, uniform: bool = True) -> Any:
    """``a / b`` of traced integer arrays of one shape for ``b != 0``: C's truncated quotient
    (``kind="div"``), the floor quotient (``"floor"``) or C's remainder (``"rem"``).

    XLA:CPU divides integers one element at a time; for types of at most 32 bits a float64 quotient
    vectorises and is exact: IEEE division rounds ``a / b`` once, and for ``|a| < 2^53`` a rounded
    quotient never crosses an integer (its error is below ``|a / b| * 2^-53``, a non-integer quotient
    is at least ``1 / |b|`` from one). XLA turns a division by a launch-uniform divisor (a broadcast)
    into a product with its reciprocal, which is not exact (``floor(49 * (1 / 49.0))`` is 0), so such a
    divisor (``uniform``) goes through an optimisation barrier first: XLA then divides by an array
    (``tid % width`` and ``tid // width`` over 2^20 lanes: 0.63 ms against 1.8 for integer division
    or the reciprocal product corrected by the exact remainder). ``via_float``: the caller lowers
    through XLA (not Pallas); the float form is staged for the CPU only (integer division stays
    elsewhere)."""
    def integer(a: Any, b: Any) -> Any:
        if kind == "rem":
            return lax.rem(a, b)
        return lax.div(a, b) if kind == "div" else jnp.floor_divide(a, b)

    if not via_float or a.dtype not in _FLOAT64_EXACT or jax.dtypes.canonicalize_dtype(np.float64) != np.float64:
        return integer(a, b)

    def through_float64(a: Any, b: Any) -> Any:
        divisor = b.astype(jnp.float64)
        if uniform and divisor.ndim:
            divisor = lax.optimization_barrier(divisor)
        q = a.astype(jnp.float64) / divisor
        q = jnp.floor(q) if kind == "floor" else jnp.trunc(q)
        # the quotient in the type of the arithmetic (narrow types promote to int32, C's wrapping after):
        # float64 -> int32 converts in vector registers, float64 -> int64 does not (AVX2)
        wide = jnp.dtype(jnp.uint32) if a.dtype == jnp.uint32 else jnp.dtype(jnp.int32)
        if wide == jnp.uint32:
            q = q.astype(jnp.int64).astype(wide)
        elif a.dtype == jnp.int32:  # INT_MIN / -1 wraps to INT_MIN (as lax.div)
            q = selects.where(q >= 2.0**31, jnp.int32(-(2**31)), q.astype(wide))
        else:
            q = q.astype(wide)
        if kind == "rem":
            q = a.astype(wide) - q * b.astype(wide)
        return q.astype(a.dtype)

    return lax.platform_dependent(a, b, cpu=through_float64, default=integer)


def _uniform_divisor(a: Any, b: Any) -> bool:
    """Whether the divisor ``b`` is one value for lanes of ``a`` (XLA then multiplies by its
    reciprocal: see :func:`_quotient`)."""
    return jnp.ndim(b) == 0 or jnp.size(b) == 1 or jnp.shape(b) != jnp.shape(a)


def _guarded(a: Any, b: Any, kind: str, via_float: bool, uniform: bool, constant: bool) -> Any:
    """:func:`_quotient` of traced operands with Warp's ``x / 0 == 0``. ``constant``: the divisor was
    known when the kernel was traced; LLVM then divides by multiplying (vectorised, faster than the
    float64 quotient: ``tid % 37`` and ``tid // 37`` over 2^20 lanes, 0.4 against 0.9-1.3 ms)."""
    zero = b == 0
    q = _quotient(a, selects.where(zero, jnp.ones_like(b), b), kind, via_float and not constant, uniform)
    return selects.where(zero, jnp.zeros_like(q), q)


def int_div(a, b, via_float: bool = False):
    """C integer division: truncates toward zero; x / 0 == 0 (Warp). ``via_float``: see :func:`_quotient`."""
    uniform, constant = _uniform_divisor(a, b), not isinstance(b, jax.Array)
    m, a, b = _pair(a, b)
    if m is np:
        if b == 0:
            return a.dtype.type(0)
        q = abs(int(a)) // abs(int(b))
        return np.asarray(q if (a >= 0) == (b >= 0) else -q).astype(a.dtype)[()]
    return _guarded(a, b, "div", via_float, uniform, constant)


def int_floordiv(a, b, via_float: bool = False):
    uniform, constant = _uniform_divisor(a, b), not isinstance(b, jax.Array)
    m, a, b = _pair(a, b)
    if m is np:
        if b == 0:
            return a.dtype.type(0)
        return np.asarray(int(a) // int(b)).astype(a.dtype)[()]
    return _guarded(a, b, "floor", via_float, uniform, constant)


def int_mod(a, b, via_float: bool = False):
    """C remainder (sign of the dividend); x % 0 == 0."""
    uniform, constant = _uniform_divisor(a, b), not isinstance(b, jax.Array)
    m, a, b = _pair(a, b)
    if m is np:
        if b == 0:
            return a.dtype.type(0)
        r = abs(int(a)) % abs(int(b))
        return np.asarray(r if a >= 0 else -r).astype(a.dtype)[()]
    return _guarded(a, b, "rem", via_float, uniform, constant)


def xla_target(call: Call) -> bool:
    """Whether ``call`` is lowered through XLA (not traced for a Pallas kernel)."""
    return getattr(call.ctx, "ref_memory", None) is None


def float_mod(a, b):
    m, a, b = _pair(a, b)
    if m is np:
        with np.errstate(all="ignore"):
            return np.fmod(a, b)
    return lax.rem(a, b)


def neg(a):
    return xp(a).negative(a)


def where(c, a, b):
    m = xp(c, a, b)
    if m is np:
        return a if bool(c) else b
    return selects.where(c, a, b)


def jnp_unary(fn: Callable) -> Callable:
    """Wrap a jnp function so constants fold through numpy when it has an equivalent."""

    def apply(x):
        return fn(x)

    return apply


def to_jnp(x: Any) -> Any:
    return jnp.asarray(x)


def vector_value(t: type, leaves: list) -> Value:
    return value_from_leaves(t, list(leaves))


__all__ = [
    "Call", "Value", "STATIC", "leaves_of", "value_from_leaves", "is_const", "xp", "type_name",
    "composites", "scalars", "jnp", "np", "lax",
]
