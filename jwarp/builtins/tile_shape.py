"""Tile views, reshapes and writes into tiles: ``tile_view``, ``tile_reshape``, ``tile_squeeze``,
``tile_astype``, ``tile_assign`` and element assignment ``t[i, j] = v`` / ``t[i] += v``.

Each is one dense ``jnp`` operation on the tile's data ``(*lead, *shape, *dtype_shape)``:
views are gathers of the selected elements (offsets may vary per block), reshapes are
``reshape`` of the tile axes, writes are ``.at[].set`` scatters whose result is bound back to
the destination variable (Warp's in-place semantics for a named tile).

Limitation: Warp's views alias their parent tile (writing through ``v = wp.tile_view(t, ...)``
changes ``t``); jwarp's views are copies, so writes into a view do not reach its parent.

Example (kernel code):
    t = wp.tile_load(a, shape=(8, 8))
    row = wp.tile_view(t, offset=(3,))          # shape (8,)
    block = wp.tile_view(t, offset=(2, 4), shape=(4, 4))
    flat = wp.tile_reshape(t, shape=(-1,))      # shape (64,)
    t[0, 0] = 1.0
    wp.tile_assign(t, block * 2.0, offset=(0, 0))
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from jwarp.builtins.common import STATIC, Call, Value
from jwarp.builtins.tile_core import require_tile
from jwarp.compiler import tiles
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import TupleType, is_const, leaves_of, value_from_leaves
from jwarp.errors import WarpCodegenError
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import type_name

# ----------------------------------------------------------------------------------------------
# gathers and scatters over the tile axes


def _offset_values(call: Call, offset: Value | None) -> list[Value]:
    if offset is None:
        return []
    items = list(offset.data) if isinstance(offset.type, TupleType) else [offset]
    for k, v in enumerate(items):
        if v.type is STATIC and isinstance(v.data, slice):
            raise WarpCodegenError(f"wp.{call.name}(): slices in 'offset' are not supported by jwarp yet")
        if not scalars.is_int(v.type):
            raise WarpCodegenError(f"wp.{call.name}(): offset {k} must be an integer, got {type_name(v.type)}")
    return items


def _block_index(ctx: Any, v: Value, extent: int, out_ndim: int) -> Any:
    """A block-uniform integer as a leaf broadcastable to ``(*lead, *out_shape)``; negative
    indices count from the end, as for tile subscripts."""
    x = jnp.asarray(tiles.lead_leaf(ctx, v.data)).astype(jnp.int32)
    x = jnp.where(x < 0, x + extent, x)
    return x.reshape(x.shape + (1,) * out_ndim)


def _ramp(extent: int, axis: int, ndim: int) -> Any:
    shape = [1] * ndim
    shape[axis] = extent
    return jnp.arange(extent, dtype=jnp.int32).reshape(shape)


def _flat_index(ctx: Any, shape: tuple, per_axis: list) -> Any:
    """Row-major flat positions in a tile of ``shape`` from per-axis index arrays (clamped)."""
    flat = None
    for idx, extent in zip(per_axis, shape):
        k = jnp.clip(idx, 0, extent - 1)
        flat = k if flat is None else flat * extent + k
    return flat


def _gather(ctx: Any, a: Value, per_axis: list, out_shape: tuple) -> Value:
    """Tile of ``out_shape`` whose element ``e`` is ``a[per_axis[0][e], per_axis[1][e], ...]``."""
    t = a.type
    n = len(ctx.grid)
    flat = _flat_index(ctx, t.shape, per_axis)
    element = tiles.elements(ctx, a)
    planes = []
    for plane in leaves_of(element):
        p = plane.reshape(plane.shape[:n] + (-1,))
        target = jnp.broadcast_shapes(p.shape[:n] + (1,) * len(out_shape), flat.shape)
        f = jnp.broadcast_to(flat, target)
        p = jnp.broadcast_to(p, target[:n] + p.shape[n:])
        picked = jnp.take_along_axis(p, f.reshape(target[:n] + (-1,)), axis=n)
        planes.append(picked.reshape(target))
    return tiles.from_elements(ctx, value_from_leaves(element.type, planes), out_shape, t.storage)


def _scatter(ctx: Any, dst: Value, per_axis: list, src: Value, mask: Any) -> Value:
    """``dst`` with the elements at ``per_axis`` positions replaced by ``src``'s elements
    (positions outside ``dst`` are dropped; inactive blocks keep ``dst``)."""
    t = dst.type
    n = len(ctx.grid)
    src_shape = src.type.shape if hasattr(src.type, "shape") else ()
    valid = None
    for idx, extent in zip(per_axis, t.shape):
        ok = (idx >= 0) & (idx < extent)
        valid = ok if valid is None else valid & ok
    flat = _flat_index(ctx, t.shape, per_axis)
    flat = jnp.where(valid, flat, t.size)  # past the end: dropped
    new_el = tiles.elements(ctx, src) if tiles.is_tile_type(src.type) else src
    if new_el.type != t.dtype:
        raise WarpCodegenError(f"Cannot assign a value of type {type_name(new_el.type)} into a tile of "
                               f"{type_name(t.dtype)}")
    old_el = tiles.elements(ctx, dst)
    grid = tiles.block_grid(ctx)
    full = grid + tuple(src_shape)
    flat = jnp.broadcast_to(flat, full).reshape(grid + (-1,))
    block = tiles.block_mask(ctx, mask)
    planes = []
    for old, new in zip(leaves_of(old_el), leaves_of(new_el)):
        old = jnp.broadcast_to(old, grid + t.shape).reshape(grid + (-1,))
        if not tiles.is_tile_type(src.type):
            new = tiles.expand_scalar_leaf(ctx, new, 0)
        new = jnp.broadcast_to(jnp.asarray(new, old.dtype), full).reshape(grid + (-1,))
        lead_idx = jnp.indices(grid, sparse=True)
        lead_idx = tuple(jnp.expand_dims(i, -1) for i in lead_idx)
        updated = old.at[lead_idx + (flat,)].set(new, mode="drop")
        if block is not None:
            updated = jnp.where(block.reshape(block.shape + (1,)), updated, old)
        planes.append(updated.reshape(grid + t.shape))
    return tiles.from_elements(ctx, value_from_leaves(t.dtype, planes), t.shape, t.storage)


# ----------------------------------------------------------------------------------------------
# views and reshapes


@builtin("tile_view", group="Tile Primitives", kernel_only=True)
def tile_view(call: Call, t: Value, offset: Value | None = None, shape: Value | None = None) -> Value:
    """The part of ``t`` at ``offset``: with ``shape``, the rectangle of that extent; without it,
    integer offsets select (and remove) leading dimensions, e.g. row ``i`` of a 2-D tile."""
    call.require_kernel()
    require_tile(call, t, "t")
    ctx = call.ctx
    src = t.type
    items = _offset_values(call, offset)
    if len(items) > src.ndim:
        raise WarpCodegenError(f"wp.tile_view(): offset has {len(items)} entries for a tile of {src.ndim} dimensions")
    if shape is not None:
        dims = tiles.static_shape(shape)
        if len(dims) != src.ndim:
            raise WarpCodegenError(f"tile_view() if shape is specified it must have same number of dimensions as "
                                   f"source tile, expected {src.ndim}, got {len(dims)}")
        out_shape, fixed = dims, 0
    else:
        out_shape, fixed = src.shape[len(items):], len(items)
    k = len(out_shape)
    per_axis = []
    for axis, extent in enumerate(src.shape):
        start = _block_index(ctx, items[axis], extent, k) if axis < len(items) else jnp.zeros((), jnp.int32)
        if axis < fixed:
            per_axis.append(start)
        else:
            per_axis.append(start + _ramp(out_shape[axis - fixed], axis - fixed, k))
    if not out_shape:  # every dimension selected: a tile of one element
        return _gather(ctx, t, [jnp.reshape(i, jnp.shape(i) + (1,)) for i in per_axis], (1,))
    return _gather(ctx, t, per_axis, out_shape)


def _reshaped(call: Call, t: Value, dims: tuple) -> Value:
    src = t.type
    n = len(call.ctx.grid)
    lead = t.data.shape[:n]
    return tiles.make_tile(call.ctx, src.dtype, dims, t.data.reshape(lead + dims + src.dtype_shape), src.storage)


@builtin("tile_reshape", group="Tile Primitives", kernel_only=True)
def tile_reshape(call: Call, t: Value, shape: Value) -> Value:
    """``t`` with a new shape of the same size, elements in row-major order (one entry may be -1)."""
    call.require_kernel()
    require_tile(call, t, "t")
    dims = list(tiles.static_shape(shape))
    size = t.type.size
    if dims.count(-1) > 1:
        raise WarpCodegenError("wp.tile_reshape(): at most one dimension of the new shape may be -1")
    if -1 in dims:
        known = int(np.prod([d for d in dims if d != -1]))
        if known == 0 or size % known:
            raise WarpCodegenError(f"wp.tile_reshape(): cannot reshape a tile of shape {t.type.shape} to {tuple(dims)}")
        dims[dims.index(-1)] = size // known
    if int(np.prod(dims)) != size:
        raise WarpCodegenError(f"wp.tile_reshape(): cannot reshape a tile of shape {t.type.shape} "
                               f"({size} elements) to {tuple(dims)}")
    return _reshaped(call, t, tuple(dims))


@builtin("tile_squeeze", group="Tile Primitives", kernel_only=True)
def tile_squeeze(call: Call, t: Value, axis: Value | None = None) -> Value:
    """``t`` without its dimensions of extent one (or only the given ones)."""
    call.require_kernel()
    require_tile(call, t, "t")
    shape = t.type.shape
    ndim = len(shape)
    if axis is None:
        dims = tuple(d for d in shape if d != 1)
    else:
        axes = tiles.static_shape(axis, "axis")
        for a in axes:
            if not -ndim <= a < ndim:
                raise WarpCodegenError(f"tile_squeeze() axis {a} is out of bounds for tile with {ndim} dimensions")
        axes = tuple(a % ndim for a in axes)
        for a in axes:
            if shape[a] != 1:
                raise WarpCodegenError("Cannot select an axis to squeeze out which has size not equal to one, "
                                       f"axis={a}, size={shape[a]}")
        dims = tuple(d for i, d in enumerate(shape) if i not in axes)
    return _reshaped(call, t, dims or (1,))


@builtin("tile_astype", group="Tile Primitives", kernel_only=True)
def tile_astype(call: Call, t: Value, dtype: Value) -> Value:
    """``t`` converted element-wise to the scalar type ``dtype`` (floats truncate toward zero)."""
    call.require_kernel()
    require_tile(call, t, "t")
    target = tiles.static_dtype(dtype)
    if not scalars.is_scalar_type(t.type.dtype) or not scalars.is_scalar_type(target):
        raise WarpCodegenError(f"wp.tile_astype(): only scalar tiles convert, got {type_name(t.type.dtype)} to "
                               f"{type_name(target)}")
    return tiles.make_tile(call.ctx, target, t.type.shape, t.data.astype(tiles.jnp_dtype(target)), t.type.storage)


# ----------------------------------------------------------------------------------------------
# writes into tiles


def _converted(call: Call, src: Value, dtype: Any) -> Value:
    if src.type.dtype == dtype:
        return src
    if not (scalars.is_scalar_type(src.type.dtype) and scalars.is_scalar_type(dtype)):
        raise WarpCodegenError(f"wp.tile_assign(): cannot assign a tile of {type_name(src.type.dtype)} into a tile "
                               f"of {type_name(dtype)}")
    return tiles.make_tile(call.ctx, dtype, src.type.shape, src.data.astype(tiles.jnp_dtype(dtype)), src.type.storage)


@builtin("tile_assign", group="Tile Primitives", kernel_only=True)
def tile_assign(call: Call, dst: Value, src: Value, offset: Value | None = None) -> None:
    """Copy tile ``src`` into ``dst`` at ``offset`` (``dst`` is updated in place)."""
    call.require_kernel()
    require_tile(call, dst, "dst")
    require_tile(call, src, "src")
    if src.type.ndim != dst.type.ndim:
        raise WarpCodegenError(f"wp.tile_assign(): src has {src.type.ndim} dimensions, dst has {dst.type.ndim}")
    items = _offset_values(call, offset)
    if items and len(items) != dst.type.ndim:
        raise WarpCodegenError(f"wp.tile_assign(): offset has {len(items)} entries, expected {dst.type.ndim}")
    for axis, (s, d) in enumerate(zip(src.type.shape, dst.type.shape)):
        if s > d:
            raise WarpCodegenError(f"wp.tile_assign(): src of shape {src.type.shape} does not fit into dst of "
                                   f"shape {dst.type.shape}")
    ctx = call.ctx
    k = src.type.ndim
    per_axis = []
    for axis, extent in enumerate(src.type.shape):
        start = _block_index(ctx, items[axis], dst.type.shape[axis], k) if items else jnp.zeros((), jnp.int32)
        per_axis.append(start + _ramp(extent, axis, k))
    result = _scatter(ctx, dst, per_axis, _converted(call, src, dst.type.dtype), None)
    call.assign_back(0, result, "dst")
    return None


@builtin("_tile_set", group="Code Generation", kernel_only=True)
def tile_set(call: Call, t: Value, value: Value, *idx: Value) -> Value:
    """``t[i, j] = value``: a copy of ``t`` with one element replaced (every index given), or
    ``t[i] = row`` with a tile ``value`` replacing the selected sub-tile."""
    ctx = call.ctx
    shape = t.type.shape
    if len(idx) > len(shape):
        raise WarpCodegenError(f"A tile of shape {shape} takes at most {len(shape)} indices, got {len(idx)}")
    for i, v in enumerate(idx):
        if not scalars.is_int(v.type):
            raise WarpCodegenError(f"Tile index {i} must be an integer, got {type_name(v.type)}")
    rest = shape[len(idx):]
    if rest:
        if not tiles.is_tile_type(value.type) or value.type.shape != rest:
            raise WarpCodegenError(f"Assigning to a sub-tile of shape {rest} needs a tile of that shape, got "
                                   f"{type_name(value.type)}")
        value = _converted(call, value, t.type.dtype)
    elif tiles.is_tile_type(value.type):
        raise WarpCodegenError("Cannot assign a tile to a single tile element")
    elif value.type != t.type.dtype:
        from jwarp.compiler.operators import call_builtin

        if not (scalars.is_scalar_type(value.type) and scalars.is_scalar_type(t.type.dtype)):
            raise WarpCodegenError(f"Cannot assign a value of type {type_name(value.type)} into a tile of "
                                   f"{type_name(t.type.dtype)}")
        value = call_builtin(call.lowerer, "_construct", Value(STATIC, t.type.dtype), value)
    k = len(rest)
    per_axis = [_block_index(ctx, v, e, k) for v, e in zip(idx, shape)]
    per_axis += [_ramp(e, a, k) for a, e in enumerate(rest)]
    return _scatter(ctx, t, per_axis, value, None)  # the caller binds the result under the lane mask


__all__ = ["tile_view", "tile_reshape", "tile_squeeze", "tile_astype", "tile_assign", "tile_set", "composites",
           "is_const"]
