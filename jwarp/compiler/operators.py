"""Python operators, comparisons, attribute access and conditional expressions in kernels.

Arithmetic operators dispatch to the registered operator builtins (``add``, ``mul``…, see
``jwarp/builtins/operators.py``) so that ``a + b`` and ``wp.add(a, b)`` share one
implementation and one set of typing rules.
"""

from __future__ import annotations

import ast
import types as pytypes
from typing import TYPE_CHECKING, Any

import numpy as np

from jwarp.compiler.registry import BUILTINS, Call
from jwarp.compiler.values import (
    STATIC,
    ArrayRef,
    StoredArrayField,
    TupleType,
    Value,
    is_const,
    scalar_value,
    select_value,
    xp,
)
from jwarp.errors import WarpCodegenAttributeError, WarpCodegenError, WarpCodegenTypeError
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import ArrayType, type_name
from jwarp.lang.struct import StructType
from jwarp.lang.tile_types import is_tile_type

if TYPE_CHECKING:
    from jwarp.compiler.lower import FunctionLowerer

_BINARY = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "div",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.Pow: "pow",
    ast.LShift: "lshift",
    ast.RShift: "rshift",
    ast.BitAnd: "bit_and",
    ast.BitOr: "bit_or",
    ast.BitXor: "bit_xor",
    ast.MatMult: "mul",
}

_UNARY = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert", ast.Not: "unot"}


def call_builtin(lw: FunctionLowerer | None, name: str, *args: Value) -> Value:
    """Lower builtin ``name`` on already-evaluated values."""
    b = BUILTINS[name]
    call = Call(name, lw.ctx if lw else None, lw.active if lw else None, lw)
    return b.lower(call, list(args), {})


def binary(lw: FunctionLowerer, op: type, a: Value, b: Value) -> Value:
    name = _BINARY.get(op)
    if name is None:
        raise WarpCodegenError(f"Operator {op.__name__} is not supported in kernels")
    if is_tile_type(a.type) or is_tile_type(b.type):  # element-wise on tiles (builtins/tile_linalg.py)
        return call_builtin(lw, "_tile_binary", Value(STATIC, name), a, b)
    user = _user_operator(lw, name, a, b)
    if user is not None:
        return user
    return call_builtin(lw, name, a, b)


def _user_operator(lw: FunctionLowerer | None, name: str, a: Value, b: Value) -> Value | None:
    """Warp's operator overloading: a ``@wp.func`` named like the operator's builtin (``add``,
    ``mul``...) in the function's scope takes the operator when one of its overloads matches."""
    if lw is None:
        return None
    fn = lw.src.closure.get(name, lw.src.globals.get(name))
    if not getattr(fn, "_jwarp_function", False) or fn.select_overload([a.type, b.type], {}) is None:
        return None
    from jwarp.compiler.calls import inline_function

    node = lw._node if isinstance(lw._node, ast.AST) else ast.Call(func=ast.Name(name), args=[], keywords=[])
    return inline_function(lw, fn, [a, b], {}, _site(node))


def _site(node: ast.AST) -> ast.AST:
    """A node with a source position for the inlined call's site."""
    if not hasattr(node, "lineno"):
        node.lineno, node.col_offset = 0, 0
    return node


def unary(lw: FunctionLowerer, op: type, a: Value) -> Value:
    if is_tile_type(a.type):
        return call_builtin(lw, "_tile_unary", Value(STATIC, _UNARY[op]), a)
    return call_builtin(lw, _UNARY[op], a)


def truth(value: Value) -> Any:
    """A bool leaf: the truth of a scalar value (non-zero), as Warp's conditions use it."""
    t = value.type
    if t is scalars.bool_:
        return value.data
    if scalars.is_scalar_type(t):
        leaf = value.data
        return leaf != leaf.dtype.type(0) if is_const(leaf) else leaf != 0
    if t is STATIC:
        return np.bool_(bool(value.data))
    if isinstance(t, ArrayType) and isinstance(value.data, ArrayRef):  # an array is true unless null
        return np.bool_(not value.data.null)
    raise WarpCodegenTypeError(f"A value of type {type_name(t)} cannot be used as a condition")


def boolean(lw: FunctionLowerer, op: type, values: list[Value]) -> Value:
    leaves = [truth(v) for v in values]
    out = leaves[0]
    for leaf in leaves[1:]:
        m = xp(out, leaf)
        out = m.logical_and(out, leaf) if op is ast.And else m.logical_or(out, leaf)
    return Value(scalars.bool_, out)


def short_circuit(lw: FunctionLowerer, node: ast.BoolOp) -> Value:
    """``a and b`` / ``a or b``: later operands are evaluated only for the lanes that need them
    (as Warp short-circuits), so their loads and checks are masked."""
    from jwarp.compiler.masks import mask_and, mask_not

    is_and = isinstance(node.op, ast.And)
    saved = lw.active
    out = truth(lw.eval(node.values[0]))
    try:
        for expr in node.values[1:]:
            if is_const(out) and bool(out) != is_and:
                break  # decided for every lane
            lw.active = mask_and(saved, out if is_and else mask_not(out))
            leaf = truth(lw.eval(expr))
            m = xp(out, leaf)
            out = m.logical_and(out, leaf) if is_and else m.logical_or(out, leaf)
    finally:
        lw.active = saved
    return Value(scalars.bool_, out)


_COMPARE = {
    ast.Lt: "less",
    ast.LtE: "less_equal",
    ast.Gt: "greater",
    ast.GtE: "greater_equal",
    ast.Eq: "equal",
    ast.NotEq: "not_equal",
}


def compare(op: type, a: Value, b: Value) -> Value:
    if op in (ast.Is, ast.IsNot):
        if a.type is STATIC and b.type is STATIC:
            same = a.data is b.data
            return scalar_value(scalars.bool_, same if op is ast.Is else not same)
        raise WarpCodegenError("'is' comparisons are only supported between compile-time constants")
    name = _COMPARE.get(op)
    if name is None:
        raise WarpCodegenError(f"Comparison {op.__name__} is not supported in kernels")
    if a.type is STATIC and b.type is STATIC:
        import operator

        fn = {"less": operator.lt, "less_equal": operator.le, "greater": operator.gt,
              "greater_equal": operator.ge, "equal": operator.eq, "not_equal": operator.ne}[name]
        return scalar_value(scalars.bool_, bool(fn(a.data, b.data)))
    if scalars.is_scalar_type(a.type) and scalars.is_scalar_type(b.type) and a.type != b.type:
        a, b = _promote_for_compare(a, b)  # C++ comparison semantics (Warp emits raw C++ comparisons)
    if a.type != b.type:
        raise WarpCodegenTypeError(
            f"Comparison operands must have the same type, got {type_name(a.type)} and {type_name(b.type)}"
        )
    if scalars.is_scalar_type(a.type):
        return Value(scalars.bool_, getattr(xp(a.data, b.data), name)(a.data, b.data))
    if composites.is_composite(a.type) and name in ("equal", "not_equal"):
        out = np.bool_(True)  # two empty vectors are equal
        for x, y in zip(a.data, b.data):
            m = xp(x, y)
            e = m.equal(x, y)
            out = xp(out, e).logical_and(out, e)
        if name == "not_equal":
            out = xp(out).logical_not(out)
        return Value(scalars.bool_, out)
    raise WarpCodegenTypeError(f"Cannot compare values of type {type_name(a.type)} with '{name}'")


def _promote_for_compare(a: Value, b: Value) -> tuple[Value, Value]:
    """C++'s usual arithmetic conversions for a mixed-type scalar comparison."""
    from jwarp.compiler.values import cast_leaf

    ta, tb = a.type, b.type
    if scalars.is_float(ta) or scalars.is_float(tb):
        floats = [t for t in (ta, tb) if scalars.is_float(t)]
        target = max(floats, key=lambda t: t._np_dtype.itemsize)
    else:
        size = max(ta._np_dtype.itemsize, tb._np_dtype.itemsize, 4)
        unsigned = any(t._kind == "u" and t._np_dtype.itemsize == size for t in (ta, tb))
        target = scalars.canonical_scalar(np.dtype(f"{'u' if unsigned else 'i'}{size}"))
    return Value(target, cast_leaf(a.data, target)), Value(target, cast_leaf(b.data, target))


def compare_chain(lw: FunctionLowerer, node: ast.Compare) -> Value:
    left = lw.eval(node.left)
    result = None
    for k, (op, right_node) in enumerate(zip(node.ops, node.comparators)):
        right = lw.eval(right_node)
        if k > 0 and left.type != right.type:
            raise WarpCodegenTypeError(
                f"Cannot chain comparisons of unequal types: {type_name(left.type)} and {type_name(right.type)}."
            )
        term = compare(type(op), left, right)
        result = term if result is None else boolean(lw, ast.And, [result, term])
        left = right
    return result


def if_expression(lw: FunctionLowerer, node: ast.IfExp) -> Value:
    from jwarp.compiler.masks import mask_and, mask_not

    cond = truth(lw.eval(node.test))
    if is_const(cond):
        return lw.eval(node.body if bool(cond) else node.orelse)
    saved = lw.active
    try:  # each branch runs only for its own lanes (its atomics, stores and checks are masked)
        lw.active = mask_and(saved, cond)
        a = lw.eval(node.body)
        lw.active = mask_and(saved, mask_not(cond))
        b = lw.eval(node.orelse)
    finally:
        lw.active = saved
    if a.type != b.type:
        raise WarpCodegenTypeError(
            f"Both branches of a conditional expression must have the same type, got {type_name(a.type)} "
            f"and {type_name(b.type)}"
        )
    return select_value(cond, a, b)


_VECTOR_FIELDS = {"x": 0, "y": 1, "z": 2, "w": 3}


def attribute(lw: FunctionLowerer, base: Value, attr: str, base_source: str | None = None) -> Value:
    from jwarp.compiler.lower import lift_python

    t = base.type
    type_attribute = _type_attribute(t if t is not STATIC else base.data, attr)
    if type_attribute is not None:
        return type_attribute
    if t is STATIC:
        obj = base.data
        if not hasattr(obj, attr) and getattr(obj, "__name__", None) == "jwarp" and attr in BUILTINS:
            return Value(STATIC, BUILTINS[attr])  # kernel-only builtins kept off the module (wp.matrix, wp.vector)
        if not hasattr(obj, attr):  # Warp's wording
            raise WarpCodegenAttributeError(f"Error, `{attr}` is not an attribute of '{obj!r}'")
        return lift_python(getattr(obj, attr), attr)
    if isinstance(t, StructType):
        if attr not in t.vars:
            owner = f"'{base_source}' " if base_source else ""  # Warp's wording
            raise WarpCodegenAttributeError(f"`{attr}` is not an attribute of {owner}({t.cls.__module__}.{t.key})")
        index = list(t.vars).index(attr)
        if isinstance(base.data[index], StoredArrayField):
            raise NotImplementedError(
                f"Array field '{attr}' of a struct read from an array of {t.key} structs: jwarp cannot access an "
                "array through its address in a kernel; pass the array as a kernel argument or in a struct argument"
            )
        return Value(t.vars[attr].type, base.data[index])
    if isinstance(t, ArrayType):
        return _array_attribute(lw, base, attr)
    if composites.is_transformation(t) and attr in ("p", "q"):
        scalar = t._wp_scalar_type_
        if attr == "p":
            return Value(composites.vector(3, scalar), tuple(base.data[:3]))
        return Value(composites.quaternion(scalar), tuple(base.data[3:]))
    if composites.is_vector_like(t) and attr in _VECTOR_FIELDS:
        index = _VECTOR_FIELDS[attr]
        if index < t._length_:
            return Value(t._wp_scalar_type_, base.data[index])
    from jwarp.lang.introspection import type_repr

    owner = f"'{base_source}' " if base_source else ""  # Warp's wording
    raise WarpCodegenAttributeError(f"Error, `{attr}` is not an attribute of {owner}({type_repr(t)})")


def _type_attribute(t: Any, attr: str) -> Value | None:
    """Warp's type attributes: ``.dtype`` of a composite (its scalar type) or array (its element
    type), ``.length`` of a composite (its number of components); on values and on types."""
    if attr == "dtype":
        if composites.is_composite(t):
            return Value(STATIC, t._wp_scalar_type_)
        if scalars.is_scalar_type(t):
            return Value(STATIC, t)
        if isinstance(t, ArrayType):
            return Value(STATIC, t.dtype)
    if attr == "length" and composites.is_composite(t):
        return scalar_value(scalars.int32, t._length_)
    return None


def _array_attribute(lw: FunctionLowerer, base: Value, attr: str) -> Value:
    from jwarp.compiler.array_views import view_shape

    ref: ArrayRef = base.data
    slot = lw.ctx.slots[ref.slot]
    # a null array (None passed for it) has Warp's zero shape; its scratch slot is only storage
    dims = (0,) * len(slot.shape) if ref.null else view_shape(ref, slot.shape)
    if attr == "shape":
        items = tuple(scalar_value(scalars.int32, d) if is_const(d) or isinstance(d, int) else Value(scalars.int32, d)
                      for d in dims)
        return Value(TupleType((scalars.int32,) * len(items)), items)
    if attr == "ndim":
        return scalar_value(scalars.int32, len(dims))
    if attr == "size":
        n = 1
        for d in dims:
            n = n * d
        return scalar_value(scalars.int32, n) if is_const(n) or isinstance(n, int) else Value(scalars.int32, n)
    raise WarpCodegenAttributeError(f"Arrays have no attribute '{attr}' in kernels (supported: shape, ndim, size)")
