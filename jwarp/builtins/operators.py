"""Operators group: ``add sub mul div floordiv mod pow neg pos invert unot lshift rshift
bit_and bit_or bit_xor`` (and the Python operators that map to them).

Typing follows Warp exactly: both operands must have the same type (no implicit int/float
or 32/64-bit promotion), except scalar×composite products and composite/scalar quotients.
Products of quaternions and of transforms are registered by their own modules in
:data:`MUL_RULES`.
"""

from __future__ import annotations

from typing import Callable

from jwarp.builtins import common as c
from jwarp.builtins.common import Call, Value
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import Affine, FloatLiteral, float_literal, leaves_of, plain_const, value_from_leaves, xp
from jwarp.lang import composites, scalars

# (kind of a, kind of b) -> fn(call, a, b); filled by quaternion/transform modules.
MUL_RULES: dict[tuple[str, str], Callable] = {}


def _kind(v: Value) -> str:
    if c.is_scalar(v):
        return "scalar"
    if c.is_composite(v):
        return v.type._wp_type_kind_
    return "other"


def _numeric(call: Call, *args: Value) -> None:
    for a in args:
        c.require(c.is_scalar(a) or c.is_composite(a), call, *args)


def _shifted(base: Value, offset, sign: int) -> Affine | None:
    """Affine tag of ``s * tid[k] + c ± constant`` (keeps whole-array access fast paths)."""
    if base.affine is None or not c.is_const(offset) or not scalars.is_int(base.type):
        return None
    a = base.affine
    return Affine(a.axis, a.offset + sign * int(offset), a.scale)


def _scaled(base: Value, factor) -> Affine | None:
    """Affine tag of ``(s * tid[k] + c) * k`` for a positive constant ``k``."""
    if base.affine is None or not c.is_const(factor) or not scalars.is_int(base.type) or int(factor) <= 0:
        return None
    a = base.affine
    return Affine(a.axis, a.offset * int(factor), a.scale * int(factor))


@builtin("add", group="Operators")
def add(call: Call, a: Value, b: Value) -> Value:
    """Component-wise sum of two values of the same type."""
    _numeric(call, a, b)
    c.same_types(call, a, b)
    out = c.leafwise(c.add, a, b)
    tag = _shifted(a, b.data, 1) or _shifted(b, a.data, 1)
    return Value(out.type, out.data, tag) if tag else out


@builtin("sub", group="Operators")
def sub(call: Call, a: Value, b: Value) -> Value:
    """Component-wise difference of two values of the same type."""
    _numeric(call, a, b)
    c.same_types(call, a, b)
    out = c.leafwise(c.sub, a, b)
    tag = _shifted(a, b.data, -1)
    return Value(out.type, out.data, tag) if tag else out


def _matmul(call: Call, a: Value, b: Value) -> Value:
    """Matrix-matrix, matrix-vector and vector-matrix products."""
    scalar = c.scalar_type(a)
    if c.scalar_type(b) is not scalar:
        raise call.no_overload(a, b)
    A = leaves_of(a)
    B = leaves_of(b)
    if c.is_matrix(a) and c.is_matrix(b):
        (n, k), (k2, m) = a.type._shape_, b.type._shape_
        c.require(k == k2, call, a, b)
        out = [_dot([A[i * k + t] for t in range(k)], [B[t * m + j] for t in range(k)]) for i in range(n) for j in range(m)]
        return value_from_leaves(composites.matrix((n, m), scalar), out)
    if c.is_matrix(a):
        n, k = a.type._shape_
        c.require(c.is_vector(b) and b.type._length_ == k, call, a, b)
        out = [_dot(A[i * k : (i + 1) * k], B) for i in range(n)]
        return value_from_leaves(composites.vector(n, scalar), out)
    k, m = b.type._shape_
    c.require(c.is_vector(a) and a.type._length_ == k, call, a, b)
    out = [_dot(A, [B[t * m + j] for t in range(k)]) for j in range(m)]
    return value_from_leaves(composites.vector(m, scalar), out)


def _dot(xs: list, ys: list):
    total = c.mul(xs[0], ys[0])
    for x, y in zip(xs[1:], ys[1:]):
        total = c.add(total, c.mul(x, y))
    return total


@builtin("mul", group="Operators")
def mul(call: Call, a: Value, b: Value) -> Value:
    """Products: scalars, scalar×composite, matrix×vector/matrix, quaternions, transforms."""
    _numeric(call, a, b)
    ka, kb = _kind(a), _kind(b)
    if ka == "scalar" and kb == "scalar":
        c.same_types(call, a, b)
        out = c.leafwise(c.mul, a, b)
        tag = _scaled(a, b.data) or _scaled(b, a.data)
        return Value(out.type, out.data, tag) if tag else out
    if ka == "scalar":
        c.require(b.type._wp_scalar_type_ is a.type, call, a, b)
        return c.broadcast_scalar(c.mul, b, a.data, scalar_first=True)
    if kb == "scalar":
        c.require(a.type._wp_scalar_type_ is b.type, call, a, b)
        return c.broadcast_scalar(c.mul, a, b.data)
    rule = MUL_RULES.get((ka, kb))
    if rule is not None:
        return rule(call, a, b)
    if "matrix" in (ka, kb) and ka in ("matrix", "vector") and kb in ("matrix", "vector"):
        return _matmul(call, a, b)
    raise call.no_overload(a, b)


def _scalar_div(leaf_a, leaf_b, t, via_float=False):
    if scalars.is_float(t):
        return c.fdiv(leaf_a, leaf_b, via_float)
    return c.int_div(leaf_a, leaf_b, via_float)


@builtin("div", group="Operators")
def div(call: Call, a: Value, b: Value) -> Value:
    """Quotient: scalars (integers truncate, x / 0 == 0), composite / scalar, scalar / composite
    (elementwise)."""
    _numeric(call, a, b)
    xla = c.xla_target(call)
    if c.is_scalar(a) and c.is_scalar(b):
        c.same_types(call, a, b)
        return Value(a.type, _scalar_div(a.data, b.data, a.type, xla))
    if c.is_composite(a) and c.is_scalar(b):
        t = a.type._wp_scalar_type_
        c.require(t is b.type, call, a, b)
        return c.broadcast_scalar(lambda x, s: _scalar_div(x, s, t, xla), a, b.data)
    if c.is_scalar(a) and c.is_composite(b):
        t = b.type._wp_scalar_type_
        c.require(t is a.type, call, a, b)
        return c.broadcast_scalar(lambda s, x: _scalar_div(s, x, t, xla), b, a.data, scalar_first=True)
    raise call.no_overload(a, b)


@builtin("floordiv", group="Operators")
def floordiv(call: Call, a: Value, b: Value) -> Value:
    """Floor division of scalars (integers: x // 0 == 0)."""
    c.require(c.is_scalar(a) and c.is_scalar(b), call, a, b)
    c.same_types(call, a, b)
    if scalars.is_float(a.type):
        m = xp(a.data, b.data)
        return Value(a.type, m.floor(c.fdiv(a.data, b.data, c.xla_target(call))))
    return Value(a.type, c.int_floordiv(a.data, b.data, c.xla_target(call)))


@builtin("mod", group="Operators")
def mod(call: Call, a: Value, b: Value) -> Value:
    """Remainder with the sign of the dividend (C's ``%``/``fmod``), also component-wise."""
    _numeric(call, a, b)
    c.same_types(call, a, b)
    if scalars.is_float(c.scalar_type(a)):
        return c.leafwise(c.float_mod, a, b)
    xla = c.xla_target(call)
    return c.leafwise(lambda x, y: c.int_mod(x, y, xla), a, b)


@builtin("pow", group="Operators")
def pow_(call: Call, x: Value, y: Value) -> Value:
    """``x`` raised to ``y`` (floating-point scalars or vectors of the same type; Warp's parameter
    names, so ``wp.pow(x=2.0, y=4.0)`` works)."""
    c.require(scalars.is_float(c.scalar_type(x)) if (c.is_scalar(x) or c.is_vector(x)) else False, call, x, y)
    c.require(x.type == y.type, call, x, y)
    return c.leafwise(lambda a, b: xp(a, b).power(a, b), x, y)


@builtin("neg", group="Operators")
def neg(call: Call, a: Value) -> Value:
    _numeric(call, a)
    if isinstance(a.data, FloatLiteral):  # -0.1 is still a literal (wp.float64(-0.1) is exact, as in Warp)
        return Value(a.type, float_literal(-a.data.literal))
    return c.leafwise(c.neg, a)


@builtin("pos", group="Operators")
def pos(call: Call, a: Value) -> Value:
    _numeric(call, a)
    return Value(a.type, plain_const(a.data)) if isinstance(a.data, FloatLiteral) else a


def _int_like(a: Value) -> bool:
    """An integer scalar, or a vector/matrix of integers (Warp's bitwise operators apply per component)."""
    return scalars.is_int(c.scalar_type(a)) and (c.is_scalar(a) or c.is_vector(a) or c.is_matrix(a))


def _int_binary(name: str, np_name: str):
    def impl(call: Call, a: Value, b: Value) -> Value:
        c.require(_int_like(a), call, a, b)
        c.same_types(call, a, b)
        return c.leafwise(lambda x, y: getattr(xp(x, y), np_name)(x, y), a, b)

    impl.__doc__ = f"Bitwise/shift operator ``{name}`` on integers (per component on vectors and matrices)."
    return builtin(name, group="Operators")(impl)


bit_and = _int_binary("bit_and", "bitwise_and")
bit_or = _int_binary("bit_or", "bitwise_or")
bit_xor = _int_binary("bit_xor", "bitwise_xor")
lshift = _int_binary("lshift", "left_shift")
rshift = _int_binary("rshift", "right_shift")


@builtin("invert", group="Operators")
def invert(call: Call, a: Value) -> Value:
    """Bitwise NOT of an integer (per component on integer vectors and matrices)."""
    c.require(_int_like(a), call, a)
    return c.leafwise(lambda x: xp(x).invert(x), a)


@builtin("unot", group="Operators")
def unot(call: Call, a: Value) -> Value:
    """Logical NOT (``not x``): true where ``x`` is zero/false."""
    from jwarp.compiler.operators import truth

    leaf = truth(a)  # (an array is true unless it is null: a constant)
    return Value(scalars.bool_, xp(leaf).logical_not(leaf))
