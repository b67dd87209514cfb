"""Tile transfers between kernel memory and tiles: ``tile_load``, ``tile_store``, ``tile_atomic_add``.

A transfer of a tile of ``shape`` at ``offset`` touches array element
``(*prefix, offset[0] + i, offset[1] + j, ...)`` for tile element ``(i, j, ...)`` — ``prefix``
being indices already applied to the array (``wp.tile_load(a[k], ...)``); a slice made in kernel
code (``wp.tile_load(a[1:9:2], ...)``) maps tile positions through it. Each block moves its
own tile, so a transfer is one gather (or scatter) over ``(*lead, *shape)`` indices per
component plane of the array. Out-of-range elements read as zero and are not written (Warp's
``bounds_check=True`` behaviour; jwarp also clamps with ``bounds_check=False`` rather than
reading out of bounds). Negative offsets (garbage reads in Warp) read zeros here.

Block-aligned loads (offsets ``i * TILE`` on a launch axis, or the same for every block) are
slices and reshapes instead (:mod:`jwarp.compiler.tile_blocks`), and so are stores whose blocks
write distinct regions; other stores are scatters.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from jwarp.compiler import array_views, tile_blocks, tiles
from jwarp.compiler.values import ArrayRef, Value
from jwarp.errors import WarpCodegenError
from jwarp.lang import scalars
from jwarp.lang.arrays import type_name
from jwarp.compiler.selects import clip, where


def _plan(ctx: Any, array: Value, shape: tuple[int, ...], offset: list[Value], op: str,
          gather: tuple[int, Value] | None = None):
    """Index arrays ``(*lead, *shape)``-broadcastable for every array axis, and their validity.

    The array may be a view made in kernel code (``a[k]``, ``a[2:10:2]``): its fixed axes take
    their index, its sliced axes map tile positions through the slice (positions past the
    slice's extent are out of range). ``gather = (axis, indices)`` reads tile axis ``axis``
    through the 1-D index tile ``indices`` (``tile_load_indexed``) instead of consecutively."""
    ref: ArrayRef = array.data
    slot = ctx.slots[ref.slot]
    axes = array_views.slot_axes(ref, len(slot.shape))
    free = [axis for axis, a in enumerate(axes) if a[0] != "fixed"]
    if any(axes[axis][0] == "indexed" for axis in free):
        raise WarpCodegenError(f"{op}: indexed arrays (wp.indexedarray) have no tile transfers, as in Warp")
    if len(free) != len(shape):
        raise WarpCodegenError(
            f"{op}: a tile of {len(shape)} dimensions does not match an array of {len(free)} dimensions"
        )
    if offset and len(offset) != len(shape):
        raise WarpCodegenError(f"{op}: offset has {len(offset)} components, expected {len(shape)}")
    k = len(shape)
    n = len(ctx.grid)

    def leaf(x: Any, what: str) -> Any:
        x = tiles.scalar_of(ctx, x if isinstance(x, Value) else Value(scalars.int32, x), what)
        return x.reshape(x.shape + (1,) * k)

    indices, valid = [], None
    for axis, extent in enumerate(slot.shape):
        a = axes[axis]
        ok = None
        if a[0] == "fixed":
            idx = leaf(a[1], "array index")
        else:
            t_axis = free.index(axis)
            start = tiles.scalar_of(ctx, offset[t_axis], "tile offset") if offset else jnp.zeros((1,) * n, jnp.int32)
            ramp_shape = [1] * k
            ramp_shape[t_axis] = shape[t_axis]
            if gather is not None and gather[0] == t_axis:
                index_data = gather[1].data.astype(jnp.int32)  # (*lead, shape[t_axis])
                ramp = index_data.reshape(index_data.shape[:n] + tuple(ramp_shape))
            else:
                ramp = jnp.arange(shape[t_axis], dtype=jnp.int32).reshape(ramp_shape)
            idx = start.astype(jnp.int32).reshape(start.shape + (1,) * k) + ramp
            if a[0] == "view":
                _, view_start, view_step, view_length = a
                ok = (idx >= 0) & (idx < leaf(view_length, "slice length"))
                idx = leaf(view_start, "slice start") + idx * leaf(view_step, "slice step")
        in_range = (idx >= 0) & (idx < extent)
        ok = in_range if ok is None else ok & in_range
        valid = ok if valid is None else valid & ok
        indices.append(idx)
    return slot, indices, valid


def _clamped(indices: list, slot_shape: tuple) -> tuple:
    return tuple(clip(idx, 0, max(extent - 1, 0)) for idx, extent in zip(indices, slot_shape))


def _gather_planes(slot: Any, indices: list, valid: Any) -> list:
    idx = _clamped(indices, slot.shape)
    return [where(valid, plane[idx], jnp.zeros((), plane.dtype)) for plane in slot.planes]


def _planes_to_tile(ctx: Any, dtype: Any, shape: tuple, planes: list, storage: str) -> Value:
    from jwarp.compiler.values import value_from_leaves

    element = value_from_leaves(dtype, planes)
    return tiles.from_elements(ctx, element, shape, storage)


def load(ctx: Any, array: Value, shape: tuple[int, ...], offset: list[Value], storage: str,
         gather: tuple[int, Value] | None = None) -> Value:
    """``wp.tile_load``: the tile of ``array`` at ``offset`` (zeros outside the array)."""
    if gather is None:
        planes = tile_blocks.blocked_load(ctx, array, shape, offset)  # aligned: slices, no gather
        if planes is not None:
            ctx.slots[array.data.slot].read = True
            return _planes_to_tile(ctx, ctx.slots[array.data.slot].dtype, shape, planes, storage)
    slot, indices, valid = _plan(ctx, array, shape, offset, "tile_load", gather)
    planes = _gather_planes(slot, indices, valid)
    return _planes_to_tile(ctx, slot.dtype, shape, planes, storage)


def _scatter_indices(ctx: Any, slot: Any, indices: list, valid: Any, mask: Any, full: tuple) -> tuple:
    """Indices broadcast to ``full``; invalid or inactive elements point past the array (dropped)."""
    keep = jnp.broadcast_to(valid, full)
    if mask is not None:
        keep = keep & jnp.broadcast_to(tiles.expand_mask(mask, len(full)), full)
    out = []
    for idx, extent in zip(indices, slot.shape):
        out.append(where(keep, jnp.broadcast_to(idx, full), extent))
    return tuple(out)


def _check_dtype(op: str, slot: Any, tile: Value) -> None:
    if slot.dtype != tile.type.dtype:
        raise WarpCodegenError(
            f"{op}: tile dtype {type_name(tile.type.dtype)} does not match array dtype {type_name(slot.dtype)}"
        )


def _element_planes(ctx: Any, tile: Value, full: tuple) -> list:
    from jwarp.compiler.values import leaves_of

    return [jnp.broadcast_to(x, full) for x in leaves_of(tiles.elements(ctx, tile))]


def store(ctx: Any, array: Value, tile: Value, offset: list[Value], mask: Any,
          gather: tuple[int, Value] | None = None) -> None:
    """``wp.tile_store``: write each block's tile into ``array`` (elements outside are dropped)."""
    slot, indices, valid = _plan(ctx, array, tile.type.shape, offset, "tile_store", gather)
    _check_dtype("tile_store", slot, tile)
    full = tiles.block_grid(ctx) + tile.type.shape
    owners = tiles.owner_active(ctx, mask, tile.type.shape)
    values = _element_planes(ctx, tile, full)
    if gather is None and owners is None:  # aligned: a reshape and one update, no scatter
        planes = tile_blocks.blocked_store(ctx, array, values, tile.type.shape, offset)
        if planes is not None:
            slot.planes = planes
            slot.written = True
            return
    idx = _scatter_indices(ctx, slot, indices, valid, owners, full)
    slot.planes = [plane.at[idx].set(v.astype(plane.dtype), mode="drop") for plane, v in zip(slot.planes, values)]
    slot.written = True


def atomic_add(ctx: Any, array: Value, tile: Value, offset: list[Value], mask: Any,
               gather: tuple[int, Value] | None = None) -> Value:
    """``wp.tile_atomic_add``: add each block's tile into ``array``; returns the previous values.

    The returned tile holds the array's contents before this operation (as if each block's
    addition happened after every other block had read, which is one of the interleavings a
    GPU may produce)."""
    slot, indices, valid = _plan(ctx, array, tile.type.shape, offset, "tile_atomic_add", gather)
    ctx.shared_memory = True
    _check_dtype("tile_atomic_add", slot, tile)
    scalar = tile.type.scalar
    if scalar is scalars.bool_ or (scalars.is_int(scalar) and jnp.dtype(scalar._np_dtype).itemsize < 4):
        raise WarpCodegenError(
            f"tile_atomic_add() only supports 32- and 64-bit integer and floating-point elements, got "
            f"{type_name(tile.type.dtype)} (bool and narrow integers have no atomic add)"
        )
    old = _planes_to_tile(ctx, slot.dtype, tile.type.shape, _gather_planes(slot, indices, valid), tile.type.storage)
    full = tiles.block_grid(ctx) + tile.type.shape
    idx = _scatter_indices(ctx, slot, indices, valid, tiles.owner_active(ctx, mask, tile.type.shape), full)
    values = _element_planes(ctx, tile, full)
    # struct elements: only the fields with an atomic addition (not bool or narrow integers) change
    slot.planes = [plane.at[idx].add(v.astype(plane.dtype), mode="drop") if _atomic_plane(plane) else plane
                   for plane, v in zip(slot.planes, values)]
    slot.written = True
    return old


def _atomic_plane(plane: Any) -> bool:
    dtype = jnp.dtype(plane.dtype)
    return dtype != jnp.bool_ and (jnp.issubdtype(dtype, jnp.floating) or dtype.itemsize >= 4)


__all__ = ["load", "store", "atomic_add"]
