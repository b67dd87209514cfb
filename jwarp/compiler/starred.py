"""Starred call arguments in kernel code: ``f(*v)``, ``wp.vec4(*v3, 1.0)``, ``wp.vec3i(*arr[:3])``.

As in Warp, a starred argument unpacks, at compile time, into one argument per element of:

- a vector, quaternion or matrix (a matrix unpacks into its rows), or a compile-time slice
  of one (``*v[1:3]``, ``*m[-2:]``: Python's slice rules, negative bounds counted from the end);
- a 1-D array sliced with compile-time, non-negative bounds and an explicit stop
  (``*arr[0:4:2]`` reads ``arr[0]`` and ``arr[2]``).

Example (kernel code)::

    v4 = wp.vec4(*v3, 4.0)
    m2 = wp.matrix_from_rows(*m[:2])
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jwarp.compiler import components, lvalues
from jwarp.compiler.values import Value, const, is_const
from jwarp.errors import WarpCodegenError, WarpCodegenTypeError, WarpCodegenValueError
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import ArrayType, type_name
from jwarp.lang.refs import strip_reference

if TYPE_CHECKING:
    from jwarp.compiler.lower import FunctionLowerer


def expand_arguments(lw: FunctionLowerer, nodes: list[ast.expr]) -> tuple[list[Value], list[ast.expr | None]]:
    """Evaluate call arguments, unpacking starred ones; returns the values and, for each, its
    source expression (None for an element of an unpacked argument)."""
    values: list[Value] = []
    sources: list[ast.expr | None] = []
    for node in nodes:
        if isinstance(node, ast.Starred):
            elements = unpack(lw, node.value)
            values.extend(elements)
            sources.extend([None] * len(elements))
        else:
            values.append(lw.eval_call_argument(node))
            sources.append(node)
    return values, sources


def unpack(lw: FunctionLowerer, node: ast.expr) -> list[Value]:
    """The elements ``*node`` stands for."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        base = lw.eval(node.value)
        t = strip_reference(base.type)
        if composites.is_composite(t):
            elements = _composite_elements(lw, components.load(lw, base, node.slice))
        elif isinstance(t, ArrayType):
            positions = _array_positions(lw, t, node.slice)
            elements = [lvalues.subscript(lw, base, [_index(i)], node) for i in positions]
        else:
            raise WarpCodegenTypeError(
                "Starred expressions with slices are only supported for arrays, vectors, quaternions, and "
                f"matrices. Got {type_name(t)}."
            )
    else:
        base = lw.eval(node)
        t = strip_reference(base.type)
        if isinstance(t, ArrayType):
            raise WarpCodegenTypeError(
                "Starred expressions apply to arrays only if they are sliced with bounds known at compile-time."
            )
        if not composites.is_composite(t):
            raise WarpCodegenTypeError(
                "Starred expressions are only supported for arrays (with slice), vectors, quaternions, and "
                f"matrices. Got {type_name(t)}."
            )
        elements = _composite_elements(lw, base)
    if not elements:
        raise WarpCodegenError("Starred expression results in empty sequence.")
    return elements


def _composite_elements(lw: FunctionLowerer, value: Value) -> list[Value]:
    t = value.type
    if not composites.is_composite(t):  # a slice that kept a single component
        return [value]
    n = t._shape_[0] if composites.is_matrix(t) else t._length_
    return [lvalues.subscript(lw, value, [_index(i)]) for i in range(n)]


def _index(i: int) -> Value:
    return Value(scalars.int32, const(i, scalars.int32))


def _constant_bound(lw: FunctionLowerer, node: ast.expr) -> int:
    value = lw.eval(node)
    if not is_const(value.data) or not scalars.is_scalar_type(value.type):
        raise WarpCodegenValueError("Slice component must be a compile-time constant.")
    if not scalars.is_int(value.type):
        raise WarpCodegenTypeError("Slice component must be an integer.")
    return int(value.data)


def _array_positions(lw: FunctionLowerer, t: ArrayType, node: ast.Slice) -> range:
    if t.ndim != 1:
        raise WarpCodegenValueError(
            f"Starred expressions with slices are only supported for 1D arrays, got {t.ndim}D array."
        )
    step = 1 if node.step is None else _constant_bound(lw, node.step)
    if step == 0:
        raise WarpCodegenValueError("Slice step cannot be zero.")
    start = 0 if node.lower is None else _constant_bound(lw, node.lower)
    stop = None if node.upper is None else _constant_bound(lw, node.upper)
    if stop is None:
        raise WarpCodegenValueError(
            "Starred expression on arrays requires explicit upper bound (e.g., *array[0:3], not *array[0:])."
        )
    if start < 0 or stop < 0:
        raise WarpCodegenValueError("Starred expression slice bounds cannot be negative for arrays.")
    if step < 0:
        raise WarpCodegenValueError("Starred expression slice step cannot be negative for arrays.")
    return range(start, stop, step)
