"""Block-aligned tile loads as slices and reshapes instead of gathers.

The general ``tile_load`` is one gather of ``(*grid, *shape)`` indices. The common GEMM / stencil
pattern is aligned: along each array axis the tile offset is either

- ``g * extent + c`` with ``g`` the thread index of one launch axis (an affine ``wp.tid()``
  component whose scale is the tile's extent), so the blocks of that launch axis tile the array
  axis side by side: the array axis *is* ``(blocks, extent)`` after a slice; or
- the same for every block (a loop counter, a constant): one ``dynamic_slice`` window.

Such a load is a ``dynamic_slice`` (on an array padded with zeros past its end, so ranges that
run past it read zeros as the gather does) and a reshape/transpose into the tile layout
``(*lead, *shape)`` — XLA then feeds ``jnp.matmul`` with contiguous blocks.

A store whose blocks tile the array side by side (every launch axis along which blocks differ
blocks one array axis, windows lie inside the array) is the inverse: a reshape/transpose of the
tile data and one ``dynamic_update_slice`` instead of a scatter (:func:`blocked_store`).

Example (kernel code, ``wp.launch_tiled(k, dim=(M // T, N // T), ...)``):
    i, j = wp.tid()
    a = wp.tile_load(A, shape=(T, T), offset=(i * T, k * T))   # axis 0 blocked on i, axis 1 a window
    wp.tile_store(C, acc, offset=(i * T, j * T))                # one dynamic_update_slice
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from jwarp.compiler import array_views, tiles
from jwarp.compiler.values import ArrayRef, Value, is_const


def _axis_plan(ctx: Any, offset: Value, extent: int, lane: int | None) -> tuple | None:
    """("blocked", grid axis, constant offset) or ("window", start leaf), or None (gather)."""
    affine = offset.affine
    if affine is not None:
        if affine.scale != extent or affine.axis == lane or affine.axis >= len(ctx.grid):
            return None
        return ("blocked", affine.axis, int(affine.offset))
    data = offset.data
    if is_const(data):
        return ("window", int(data))  # a compile-time start
    if jnp.ndim(data) == 0:
        return ("window", jnp.asarray(data, jnp.int32))
    return None


def blocked_load(ctx: Any, array: Value, shape: tuple[int, ...], offset: list[Value]) -> list | None:
    """The loaded tile's component planes ``(*lead, *shape)``, or None when the load is not
    block-aligned (the caller gathers)."""
    ref: ArrayRef = array.data
    slot = ctx.slots[ref.slot]
    axes = array_views.slot_axes(ref, len(slot.shape))
    if any(a[0] != "identity" for a in axes) or len(shape) != len(slot.shape):
        return None
    if offset and len(offset) != len(shape):
        return None
    lane = tiles.lane_axis(ctx)
    plans = []
    for d, t in enumerate(shape):
        if not offset:
            plans.append(("window", 0))
            continue
        plan = _axis_plan(ctx, offset[d], t, lane)
        if plan is None:
            return None
        plans.append(plan)
    blocked_axes = [p[1] for p in plans if p[0] == "blocked"]
    if len(set(blocked_axes)) != len(blocked_axes):
        return None
    if any(p[0] == "blocked" and p[2] < 0 for p in plans):
        return None
    n = len(ctx.grid)
    starts, sizes, block_pads, window_axes = [], [], [], []
    for d, (plan, t, extent) in enumerate(zip(plans, shape, slot.shape)):
        if plan[0] == "blocked":
            size = ctx.grid[plan[1]] * t
            starts.append(jnp.asarray(plan[2], jnp.int32))
            sizes.append(size)
            block_pads.append(max(0, plan[2] + size - extent))  # blocks past the end read zeros
        else:
            starts.append(plan[1])
            sizes.append(t)
            block_pads.append(0)
            window_axes.append(d)

    def window_of(plane: Any, window_pad: bool) -> Any:
        pads = [(0, p + (t if window_pad and d in window_axes else 0))
                for d, (p, t) in enumerate(zip(block_pads, shape))]
        padded = jnp.pad(plane, pads) if any(p for _, p in pads) else plane
        return lax.dynamic_slice(padded, [jnp.asarray(x, jnp.int32) for x in starts], sizes)

    # a window that may run past the array's end reads zeros there (an array padded with them);
    # the common in-range case slices the array itself (padding it every iteration is a copy)
    in_range: Any = True
    for d in window_axes:
        start, t, extent = starts[d], shape[d], slot.shape[d]
        if t > extent:  # the window is wider than the array
            in_range = False
            continue
        if _static(start) is not None:
            in_range = in_range if 0 <= _static(start) <= extent - t else False
            continue
        ok = (start >= 0) & (start + t <= extent)
        in_range = ok if in_range is True else (False if in_range is False else in_range & ok)
    out = []
    for plane in slot.planes:
        if in_range is True:
            window = window_of(plane, False)
        elif in_range is False:
            window = window_of(plane, True)
        else:
            window = lax.cond(in_range, lambda p: window_of(p, False), lambda p: window_of(p, True), plane)
        out.append(_to_tile_layout(ctx, window, plans, shape, n))
    return out


def _static(x: Any) -> int | None:
    """The value of a compile-time integer (a constant, or a concrete 0-d array), else None."""
    try:
        return int(x)
    except Exception:  # a traced value
        return None


def _to_tile_layout(ctx: Any, window: Any, plans: list, shape: tuple[int, ...], n: int) -> Any:
    """A window ``(*sizes)`` split into ``(*lead, *shape)``: blocked axes become (blocks, extent)
    and their block axes move to the launch-grid axes they follow."""
    split_shape, block_pos, tile_pos = [], {}, []
    for plan, t in zip(plans, shape):
        if plan[0] == "blocked":
            block_pos[plan[1]] = len(split_shape)
            split_shape += [ctx.grid[plan[1]], t]
        else:
            split_shape.append(t)
        tile_pos.append(len(split_shape) - 1)
    window = window.reshape(split_shape)
    order = [block_pos[g] for g in sorted(block_pos)] + tile_pos
    window = jnp.transpose(window, order)
    lead = [ctx.grid[g] if g in block_pos else 1 for g in range(n)]
    return window.reshape(tuple(lead) + tuple(shape))


def blocked_store(ctx: Any, array: Value, planes: list, shape: tuple[int, ...], offset: list[Value]) -> list | None:
    """The array's component planes after writing the tile element ``planes`` (each
    ``(*block_grid, *shape)``) block-aligned at ``offset``, or None when the store is not
    block-aligned or blocks would write the same elements (the caller scatters).

    Each block writes its own region: every launch axis with more than one block blocks an array
    axis; the other axes are windows at compile-time offsets inside the array. Blocks past the
    array's end are dropped (cropped)."""
    ref: ArrayRef = array.data
    slot = ctx.slots[ref.slot]
    axes = array_views.slot_axes(ref, len(slot.shape))
    if any(a[0] != "identity" for a in axes) or len(shape) != len(slot.shape):
        return None
    if offset and len(offset) != len(shape):
        return None
    lane = tiles.lane_axis(ctx)
    grid = tiles.block_grid(ctx)
    plans = []
    for d, t in enumerate(shape):
        plan = ("window", 0) if not offset else _axis_plan(ctx, offset[d], t, lane)
        if plan is None:
            return None
        if plan[0] == "window":
            start = _static(plan[1])
            if start is None or start < 0 or start + t > slot.shape[d]:
                return None
            plan = ("window", start)
        elif plan[2] < 0:
            return None
        plans.append(plan)
    blocked = [p[1] for p in plans if p[0] == "blocked"]
    if len(set(blocked)) != len(blocked) or any(g > 1 and a not in blocked for a, g in enumerate(grid)):
        return None
    n = len(grid)
    order, sizes, starts, crops = [], [], [], []
    for d, (plan, t) in enumerate(zip(plans, shape)):
        if plan[0] == "blocked":
            order += [plan[1], n + d]
            size = grid[plan[1]] * t
            starts.append(plan[2])
        else:
            order.append(n + d)
            size = t
            starts.append(plan[1])
        sizes.append(size)
        crops.append(max(0, min(size, slot.shape[d] - starts[-1])))
    if any(c == 0 for c in crops):
        return list(slot.planes)  # every block lies past the end
    kept = set(order)
    out = []
    for plane, values in zip(slot.planes, planes):
        x = jnp.broadcast_to(values, grid + tuple(shape))
        x = jnp.squeeze(x, tuple(a for a in range(n) if a not in kept))
        rank = {a: r for r, a in enumerate(sorted(kept))}
        x = jnp.transpose(x, [rank[a] for a in order]).reshape(sizes)
        x = x[tuple(slice(0, c) for c in crops)].astype(plane.dtype)
        out.append(lax.dynamic_update_slice(plane, x, [jnp.int32(s) for s in starts]))
    return out


__all__ = ["blocked_load", "blocked_store"]
