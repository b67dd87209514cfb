"""Components of vectors, matrices, quaternions and transforms: indices and slices.

A composite value keeps one leaf per component (row-major for matrices). Indexing selects
leaves: ``v[1]``, ``m[1, 2]``, ``m[1]`` (a row), and with compile-time slices
``v[1:3]``, ``v[::-1]``, ``m[0, :]`` (a row), ``m[:, 1]`` (a column), ``m[0:2, 1:3]``
(a sub-matrix), ``q[:3]``. An integer index may vary per lane; it then selects among
several *options*, each under its own condition.

:func:`select` gives, for an index expression, the sub-type and the options
``[(condition, leaf positions)]``; reads (:func:`load`) and writes (``lvalues``) share it.

Example (kernel code)::

    m[:, 1] = wp.vec3(1.0, 2.0, 3.0)   # a column
    v[1:3] += x[:2]
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from jwarp.compiler.masks import mask_and
from jwarp.compiler.values import Value, is_const, xp
from jwarp.errors import WarpCodegenIndexError, WarpCodegenTypeError
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import ArrayType, type_name

if TYPE_CHECKING:
    from jwarp.compiler.lower import FunctionLowerer

Options = list  # [(condition or None, tuple of leaf positions)]


def has_slice(node: ast.expr) -> bool:
    """Whether a subscript expression contains a slice (``a:b``) at its top level."""
    if isinstance(node, ast.Slice):
        return True
    return isinstance(node, ast.Tuple) and any(isinstance(e, ast.Slice) for e in node.elts)


def normalize(k: int, n: int) -> int:
    """A constant component index, negative ones counted from the end (Python's rule)."""
    if not -n <= k < n:
        raise WarpCodegenIndexError(f"Index {k} is out of range for a component of length {n}")
    return k % n


def _int_options(index: Value, n: int) -> Options:
    if not scalars.is_int(index.type):
        raise WarpCodegenIndexError(f"Component indices must be integers, got {type_name(index.type)}")
    if is_const(index.data):
        return [(None, (normalize(int(index.data), n),))]
    return [(xp(index.data).equal(index.data, k), (k,)) for k in range(n)]


def _slice_positions(lw: FunctionLowerer, node: ast.Slice, n: int) -> tuple[int, ...]:
    bounds = []
    for part in (node.lower, node.upper, node.step):
        if part is None:
            bounds.append(None)
            continue
        v = lw.eval(part)
        if not scalars.is_int(v.type) or not is_const(v.data):
            raise WarpCodegenIndexError("Component slice bounds must be compile-time integer constants")
        bounds.append(int(v.data))
    if bounds[2] == 0:
        raise WarpCodegenIndexError("Slice step cannot be zero")
    return tuple(range(n)[slice(*bounds)])  # may be empty: Warp's zero-length vector


def _axis(lw: FunctionLowerer, node: ast.expr, n: int) -> tuple[bool, Options]:
    """(is a slice, options) for one axis of length ``n``."""
    if isinstance(node, ast.Slice):
        return True, [(None, _slice_positions(lw, node, n))]
    return False, _int_options(lw.eval(node), n)


def select(lw: FunctionLowerer, t: Any, node: ast.expr) -> tuple[Any, Options]:
    """Sub-type and options of ``value[node]`` for a composite type ``t``."""
    if isinstance(t, ArrayType):  # a store through an array field of a struct held in an array
        raise NotImplementedError(
            "An array field of a struct read from an array of structs cannot be written: jwarp cannot access an "
            "array through its address in a kernel; pass the array as a kernel argument or in a struct argument")
    if not composites.is_composite(t):
        raise WarpCodegenTypeError(f"Values of type {type_name(t)} cannot be indexed")
    parts = list(node.elts) if isinstance(node, ast.Tuple) else [node]
    return select_parts(lw, t, parts)


def select_parts(lw: FunctionLowerer, t: Any, parts: list) -> tuple[Any, Options]:
    """:func:`select` for already split index parts (AST nodes or evaluated Values)."""
    scalar = t._wp_scalar_type_

    def axis(part, n):
        if isinstance(part, Value):
            return False, _int_options(part, n)
        return _axis(lw, part, n)

    if composites.is_matrix(t):
        rows, cols = t._shape_
        if len(parts) not in (1, 2):
            raise WarpCodegenIndexError("Matrices take one (row) or two (row, column) indices")
        r_slice, r_opts = axis(parts[0], rows)
        if len(parts) == 2:
            c_slice, c_opts = axis(parts[1], cols)
        else:
            c_slice, c_opts = True, [(None, tuple(range(cols)))]
        options = [
            (mask_and(rc, cc), tuple(r * cols + c for r in rs for c in cs))
            for rc, rs in r_opts
            for cc, cs in c_opts
        ]
        n_r, n_c = len(r_opts[0][1]), len(c_opts[0][1])
        if r_slice and c_slice:
            sub = composites.matrix((n_r, n_c), scalar)
        elif r_slice or c_slice:
            sub = composites.vector(n_r if r_slice else n_c, scalar)
        else:
            sub = scalar
        return sub, options
    if len(parts) != 1:
        raise WarpCodegenIndexError(f"{type_name(t)} takes a single index")
    is_slice, options = axis(parts[0], t._length_)
    sub = composites.vector(len(options[0][1]), scalar) if is_slice else scalar
    return sub, options


def pick(leaves: list, options: Options) -> list:
    """The leaves ``options`` select (a chain of per-lane selects when there are several)."""
    out = [leaves[p] for p in options[0][1]]
    for cond, positions in options[1:]:
        chosen = [leaves[p] for p in positions]
        out = [xp(cond, o, c).where(cond, c, o) for o, c in zip(out, chosen)]
    return out


def load(lw: FunctionLowerer, base: Value, node: ast.expr) -> Value:
    """``base[node]`` for a composite ``base`` (indices and/or slices)."""
    sub, options = select(lw, base.type, node)
    leaves = pick(list(base.data), options)
    if scalars.is_scalar_type(sub):
        return Value(sub, leaves[0])
    return Value(sub, tuple(leaves))
