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

import jax.numpy as jnp
from jax import lax

from jwarp.builtins.common import STATIC, Call, Value
from jwarp.builtins.tile_core import apply_op, require_tile
from jwarp.compiler import tiles
from jwarp.compiler.registry import BUILTINS
from jwarp.compiler.values import is_const, leaves_of, value_from_leaves
from jwarp.compiler.registry import builtin
from jwarp.errors import WarpCodegenError
from jwarp.lang import composites, scalars


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


def _reduce_planes(call: Call, a: Value, axis: int | None, reducer) -> Value:
    """Reduce every component plane of ``a`` with ``reducer(plane, axes)`` over the tile axes."""
    require_tile(call, a)
    ctx = call.ctx
    n = len(ctx.grid)
    element = tiles.elements(ctx, a)
    axes = tuple(range(n, n + a.type.ndim)) if axis is None else (n + axis,)
    shape = _result_shape(a.type.shape, axis)
    lead = block_lead(a)
    planes = [reducer(x, axes).reshape(lead + shape) for x in leaves_of(element)]
    return tiles.from_elements(ctx, value_from_leaves(element.type, planes), shape, a.type.storage)


def block_lead(a: Value) -> tuple:
    t = a.type
    return a.data.shape[: a.data.ndim - t.ndim - len(t.dtype_shape)]


@builtin("tile_sum", group="Tile Primitives", kernel_only=True)
def tile_sum(call: Call, a: Value, axis: Value | None = None) -> Value:
    """Sum of a tile's elements (per component for vector/matrix tiles)."""
    return _reduce_planes(call, a, _axis(call, a, axis), lambda x, axes: jnp.sum(x, axis=axes, dtype=x.dtype))


def _require_scalar(call: Call, a: Value) -> None:
    require_tile(call, a)
    if not scalars.is_scalar_type(a.type.dtype):
        raise WarpCodegenError(f"wp.{call.name}(): the tile must have a scalar dtype")


@builtin("tile_min", group="Tile Primitives", kernel_only=True)
def tile_min(call: Call, a: Value, axis: Value | None = None) -> Value:
    """Smallest element of a scalar tile."""
    _require_scalar(call, a)
    return _reduce_planes(call, a, _axis(call, a, axis), lambda x, axes: jnp.min(x, axis=axes))


@builtin("tile_max", group="Tile Primitives", kernel_only=True)
def tile_max(call: Call, a: Value, axis: Value | None = None) -> Value:
    """Largest element of a scalar tile."""
    _require_scalar(call, a)
    return _reduce_planes(call, a, _axis(call, a, axis), lambda x, axes: jnp.max(x, axis=axes))


def _arg(call: Call, a: Value, axis: Value | None, pick) -> Value:
    _require_scalar(call, a)
    k = _axis(call, a, axis)
    ctx = call.ctx
    n = len(ctx.grid)
    x = a.data
    lead = block_lead(a)
    if k is None:  # flat (row-major) index of the first extremum
        flat = x.reshape(lead + (-1,))
        idx = pick(flat, flat.ndim - 1, jnp.int32)
    else:
        idx = pick(x, n + k, jnp.int32)
    shape = _result_shape(a.type.shape, k)
    return tiles.make_tile(ctx, scalars.int32, shape, idx.reshape(lead + shape), a.type.storage)


@builtin("tile_argmin", group="Tile Primitives", kernel_only=True)
def tile_argmin(call: Call, a: Value, axis: Value | None = None) -> Value:
    """Index (flat, row-major) of the smallest element of a scalar tile, as an int32 tile of shape (1,)."""
    return _arg(call, a, axis, lax.argmin)


@builtin("tile_argmax", group="Tile Primitives", kernel_only=True)
def tile_argmax(call: Call, a: Value, axis: Value | None = None) -> Value:
    """Index (flat, row-major) of the largest element of a scalar tile, as an int32 tile of shape (1,)."""
    return _arg(call, a, axis, lax.argmax)


_JNP_REDUCERS = {"add": jnp.sum, "mul": jnp.prod, "min": jnp.min, "max": jnp.max}


@builtin("tile_reduce", group="Tile Primitives", kernel_only=True)
def tile_reduce(call: Call, op: Value, a: Value, axis: Value | None = None) -> Value:
    """Reduce a tile with a binary builtin or ``@wp.func`` ``op`` (assumed associative)."""
    require_tile(call, a)
    k = _axis(call, a, axis)
    fn = op.data if op.type is STATIC else None
    name = getattr(fn, "name", None) if fn is BUILTINS.get(getattr(fn, "name", "")) else None
    if name in _JNP_REDUCERS:
        reducer = _JNP_REDUCERS[name]
        if name in ("min", "max") and composites.is_composite(a.type.dtype):
            pass  # component-wise min/max of vectors: Warp's wp.min/wp.max on vectors are component-wise too
        return _reduce_planes(call, a, k, lambda x, axes: reducer(x, axis=axes).astype(x.dtype))
    return _tree_reduce(call, op, a, k)


def _tree_reduce(call: Call, op: Value, a: Value, axis: int | None) -> Value:
    """Pairwise reduction with a user function: halve the reduced axis until one element remains."""
    ctx = call.ctx
    n = len(ctx.grid)
    t = a.type
    lead = block_lead(a)
    data = a.data
    if axis is None:  # flatten the tile axes into one
        data = data.reshape(lead + (t.size,) + t.dtype_shape)
        ax = n
    else:
        ax = n + axis
    while data.shape[ax] > 1:
        m = data.shape[ax]
        half = m // 2
        left = jnp.take(data, jnp.arange(half), axis=ax)
        right = jnp.take(data, jnp.arange(half, 2 * half), axis=ax)
        tshape = data.shape[n: data.ndim - len(t.dtype_shape)]
        tshape_half = tuple(half if i == ax - n else d for i, d in enumerate(tshape))
        lt = tiles.make_tile(ctx, t.dtype, tshape_half, left)
        rt = tiles.make_tile(ctx, t.dtype, tshape_half, right)
        combined = tiles.elementwise(ctx, lambda x, y: apply_op(call, op, [x, y]), [lt, rt]).data
        if m % 2:
            rest = jnp.take(data, jnp.arange(2 * half, m), axis=ax)
            combined = jnp.concatenate([combined.astype(data.dtype), rest], axis=ax)
        data = combined
    shape = _result_shape(t.shape, axis)
    return tiles.make_tile(ctx, t.dtype, shape, data.reshape(data.shape[:n] + shape + t.dtype_shape), t.storage)


__all__ = ["tile_sum", "tile_min", "tile_max", "tile_argmin", "tile_argmax", "tile_reduce"]
