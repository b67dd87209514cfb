"""Tile reductions: ``tile_sum``, ``tile_min``, ``tile_max``, ``tile_argmin``, ``tile_argmax``,
``tile_reduce`` — each one ``jnp`` reduction over the tile axes, batched over blocks.

Without ``axis`` the result is a tile of shape ``(1,)``; with ``axis`` that axis is removed
(a 1-D tile reduces to shape ``(1,)``).

Example (kernel code):
    t = wp.tile_load(a, shape=(8, 4), offset=(i * 8, 0))
    s = wp.tile_sum(t)                 # tile of shape (1,)
    rows = wp.tile_reduce(wp.max, t, axis=1)   # tile of shape (8,)
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from jwarp.builtins.common import STATIC, Call, Value
from jwarp.builtins.tile_core import apply_op, require_tile
from jwarp.compiler import tiles
from jwarp.compiler.registry import BUILTINS
from jwarp.compiler.values import is_const, leaves_of, value_from_leaves
from jwarp.compiler.registry import builtin
from jwarp.errors import WarpCodegenError, WarpCodegenTypeError
from jwarp.lang.arrays import type_name
from jwarp.lang.struct import StructType
from jwarp.lang.tile_types import ACCUMULATED_SCALARS, struct_planes
from jwarp.lang import composites, scalars
from jwarp.compiler.selects import where


def _axis(call: Call, a: Value, axis: Value | None) -> int | None:
    if axis is None:
        return None
    if axis.type is not STATIC and not is_const(axis.data):
        raise WarpCodegenError(f"wp.{call.name}(): axis must be a compile-time constant")
    k = int(axis.data)
    if not -a.type.ndim <= k < a.type.ndim:
        raise WarpCodegenError(f"wp.{call.name}(): axis {k} is out of range for a tile of shape {a.type.shape}")
    return k % a.type.ndim


def _result_shape(shape: tuple, axis: int | None) -> tuple:
    if axis is None:
        return (1,)
    rest = shape[:axis] + shape[axis + 1:]
    return rest or (1,)


def identity(kind: str, dtype) -> Any:
    """The identity of reduction ``kind`` ('add', 'mul', 'min', 'max') for a numpy ``dtype``:
    what the elements of threads that are not running count as (Warp's ``tile_reduce`` identities:
    infinities for float min/max, the integer limits otherwise)."""
    dtype = jnp.dtype(dtype)
    if kind == "add":
        return jnp.zeros((), dtype)
    if kind == "mul":
        return jnp.ones((), dtype)
    if jnp.issubdtype(dtype, jnp.floating):
        return jnp.asarray(jnp.inf if kind == "min" else -jnp.inf, dtype)
    if dtype == jnp.bool_:
        return jnp.asarray(kind == "min", dtype)
    info = jnp.iinfo(dtype)
    return jnp.asarray(info.max if kind == "min" else info.min, dtype)


def owned(call: Call, a: Value) -> Any:
    """The running-thread mask of ``a``'s elements, ``(*block_grid, *shape)``, or None (see
    :func:`jwarp.compiler.tiles.owner_active`)."""
    return tiles.owner_active(call.ctx, call.mask, a.type.shape)


def _reduce_planes(call: Call, a: Value, axis: int | None, reducer, kind: str | None = None) -> Value:
    """Reduce every component plane of ``a`` with ``reducer(plane, axes)`` over the tile axes;
    the elements of threads that are not running count as the identity of ``kind``."""
    require_tile(call, a)
    ctx = call.ctx
    n = len(ctx.grid)
    element = tiles.elements(ctx, a)
    axes = tuple(range(n, n + a.type.ndim)) if axis is None else (n + axis,)
    shape = _result_shape(a.type.shape, axis)
    active = owned(call, a) if kind is not None else None
    carried = _carried_fields(a.type.dtype)
    planes = []
    for x, carry in zip(leaves_of(element), carried):
        lead = x.shape[:n]
        if carry:  # a struct field with no addition: the first element's value (of each slice) rides along
            first = jnp.take(x.reshape(lead + (-1,)), 0, axis=-1) if axis is None else jnp.take(x, 0, axis=n + axis)
            planes.append(first.reshape(lead + shape))
            continue
        if active is not None:
            x = where(active, x, identity(kind, x.dtype))
        planes.append(reducer(x, axes).reshape(lead + shape))
    return tiles.from_elements(ctx, value_from_leaves(element.type, planes), shape, a.type.storage)


def _carried_fields(dtype: Any) -> list:
    """Per element leaf: whether a sum carries it instead of adding it (struct fields without an
    atomic addition, see ``ACCUMULATED_SCALARS``)."""
    if isinstance(dtype, StructType):
        return [s not in ACCUMULATED_SCALARS for s in struct_planes(dtype)]
    n = 1
    for d in (dtype._shape_ if composites.is_composite(dtype) else ()):
        n *= d
    return [False] * n


def block_lead(a: Value) -> tuple:
    t = a.type
    return a.data.shape[: a.data.ndim - t.ndim - len(t.dtype_shape)]


@builtin("tile_sum", group="Tile Primitives", kernel_only=True)
def tile_sum(call: Call, a: Value, axis: Value | None = None) -> Value:
    """Sum of a tile's elements (per component for vector/matrix tiles)."""
    return _reduce_planes(call, a, _axis(call, a, axis), lambda x, axes: jnp.sum(x, axis=axes, dtype=x.dtype), "add")


def _require_scalar(call: Call, a: Value) -> None:
    require_tile(call, a)
    if isinstance(a.type.dtype, StructType):
        raise WarpCodegenTypeError(f"{call.name}() does not support Warp struct tile elements")
    if not scalars.is_scalar_type(a.type.dtype):
        raise WarpCodegenError(f"wp.{call.name}(): the tile must have a scalar dtype")


@builtin("tile_min", group="Tile Primitives", kernel_only=True)
def tile_min(call: Call, a: Value) -> Value:
    """Smallest element of a scalar tile."""
    _require_scalar(call, a)
    return _reduce_planes(call, a, None, lambda x, axes: jnp.min(x, axis=axes), "min")


@builtin("tile_max", group="Tile Primitives", kernel_only=True)
def tile_max(call: Call, a: Value) -> Value:
    """Largest element of a scalar tile."""
    _require_scalar(call, a)
    return _reduce_planes(call, a, None, lambda x, axes: jnp.max(x, axis=axes), "max")


def _arg(call: Call, a: Value, axis: Value | None, pick) -> Value:
    _require_scalar(call, a)
    k = _axis(call, a, axis)
    ctx = call.ctx
    n = len(ctx.grid)
    x = a.data
    active = owned(call, a)
    if active is not None:  # elements of threads that are not running never win
        x = where(active, x, identity("min" if pick is lax.argmin else "max", x.dtype))
    lead = x.shape[:n]
    if k is None:  # flat (row-major) index of the first extremum
        flat = x.reshape(lead + (-1,))
        idx = pick(flat, flat.ndim - 1, jnp.int32)
    else:
        idx = pick(x, n + k, jnp.int32)
    shape = _result_shape(a.type.shape, k)
    return tiles.make_tile(ctx, scalars.int32, shape, idx.reshape(lead + shape), a.type.storage)


@builtin("tile_argmin", group="Tile Primitives", kernel_only=True)
def tile_argmin(call: Call, a: Value) -> Value:
    """Index (flat, row-major) of the smallest element of a scalar tile, as an int32 tile of shape (1,)."""
    return _arg(call, a, None, lax.argmin)


@builtin("tile_argmax", group="Tile Primitives", kernel_only=True)
def tile_argmax(call: Call, a: Value) -> Value:
    """Index (flat, row-major) of the largest element of a scalar tile, as an int32 tile of shape (1,)."""
    return _arg(call, a, None, lax.argmax)


_JNP_REDUCERS = {"add": jnp.sum, "mul": jnp.prod, "min": jnp.min, "max": jnp.max}


@builtin("tile_reduce", group="Tile Primitives", kernel_only=True)
def tile_reduce(call: Call, op: Value, a: Value, axis: Value | None = None) -> Value:
    """Reduce a tile with a binary builtin or ``@wp.func`` ``op`` (assumed associative)."""
    require_tile(call, a)
    k = _axis(call, a, axis)
    fn = op.data if op.type is STATIC else None
    name = getattr(fn, "name", None) if fn is BUILTINS.get(getattr(fn, "name", "")) else None
    if name is not None and isinstance(a.type.dtype, StructType):
        raise WarpCodegenTypeError(f"tile_reduce() operator {name} has no overload accepting Warp struct tile "
                                   f"element type {type_name(a.type.dtype)}")
    if name in _JNP_REDUCERS:
        reducer = _JNP_REDUCERS[name]
        if name in ("min", "max") and composites.is_composite(a.type.dtype):
            pass  # component-wise min/max of vectors: Warp's wp.min/wp.max on vectors are component-wise too
        return _reduce_planes(call, a, k, lambda x, axes: reducer(x, axis=axes).astype(x.dtype), name)
    return _tree_reduce(call, op, a, k)


def _tree_reduce(call: Call, op: Value, a: Value, axis: int | None) -> Value:
    """Pairwise reduction with a user function: halve the reduced axis until one element remains.

    The elements of threads that are not running are left out (each partial result carries
    whether it holds any element); a slice along ``axis`` with none left has no identity to fall
    back on, which Warp reports as an error (the ``tile_identity`` site flag)."""
    ctx = call.ctx
    n = len(ctx.grid)
    t = a.type
    data = a.data
    valid = owned(call, a)  # (*block_grid, *shape) or None
    if valid is not None:
        lead = jnp.broadcast_shapes(data.shape[:n], valid.shape[:n])
        data = jnp.broadcast_to(data, lead + data.shape[n:])
        valid = jnp.broadcast_to(valid, lead + valid.shape[n:])
    if axis is None:  # flatten the tile axes into one
        data = data.reshape(data.shape[:n] + (t.size,) + t.dtype_shape)
        valid = None if valid is None else valid.reshape(valid.shape[:n] + (t.size,))
        ax = n
    else:
        ax = n + axis
    comps = (1,) * len(t.dtype_shape)
    while data.shape[ax] > 1:
        m = data.shape[ax]
        half = m // 2
        left = jnp.take(data, jnp.arange(half), axis=ax)
        right = jnp.take(data, jnp.arange(half, 2 * half), axis=ax)
        tshape = data.shape[n: data.ndim - len(t.dtype_shape)]
        tshape_half = tuple(half if i == ax - n else d for i, d in enumerate(tshape))
        lt = tiles.make_tile(ctx, t.dtype, tshape_half, left)
        rt = tiles.make_tile(ctx, t.dtype, tshape_half, right)
        combined_tile = tiles.elementwise(ctx, lambda x, y: apply_op(call, op, [x, y]), [lt, rt])
        if isinstance(t.dtype, StructType) and combined_tile.type.dtype != t.dtype:
            raise WarpCodegenTypeError(f"tile_reduce() operator {getattr(op.data, '__name__', op.data)} must return "
                                       f"the tile element type {type_name(t.dtype)}, got "
                                       f"{type_name(combined_tile.type.dtype)}")
        combined = combined_tile.data.astype(data.dtype)
        if valid is not None:
            lv = jnp.take(valid, jnp.arange(half), axis=ax)
            rv = jnp.take(valid, jnp.arange(half, 2 * half), axis=ax)
            lc, rc = lv.reshape(lv.shape + comps), rv.reshape(rv.shape + comps)
            combined = where(lc & rc, combined, where(lc, left, right))
            halves = lv | rv
        if m % 2:
            rest = jnp.take(data, jnp.arange(2 * half, m), axis=ax)
            combined = jnp.concatenate([jnp.broadcast_to(combined, rest.shape[:ax] + combined.shape[ax:]), rest],
                                       axis=ax)
            if valid is not None:
                halves = jnp.concatenate([halves, jnp.take(valid, jnp.arange(2 * half, m), axis=ax)], axis=ax)
        data = combined
        if valid is not None:
            valid = halves
    if valid is not None:
        empty = ~valid
        data = where(empty.reshape(empty.shape + comps), jnp.zeros((), data.dtype), data)
        if axis is not None:
            running = tiles.block_mask(ctx, call.mask)
            running = True if running is None else tiles.expand_mask(running, empty.ndim)
            lw = call.lowerer
            ctx.flag_site("tile_identity", ctx.add_site(lw.location() if lw is not None else None), empty & running)
    shape = _result_shape(t.shape, axis)
    return tiles.make_tile(ctx, t.dtype, shape, data.reshape(data.shape[:n] + shape + t.dtype_shape), t.storage)


__all__ = ["tile_sum", "tile_min", "tile_max", "tile_argmin", "tile_argmax", "tile_reduce"]
