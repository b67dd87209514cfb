"""Tile views that alias their parent tile, as Warp's do.

``row = t[i]``, ``part = t[2:6, ::2]`` and ``wp.tile_view(t, offset=..., shape=...)`` name
elements of ``t`` rather than copies: a write through ``row`` (``wp.tile_assign(row, ...)``,
``row[j] = x``) changes ``t``, and a write into ``t`` shows in ``row``.

jwarp keeps a view as a :class:`TileView` value: its own dense data (gathered from the parent,
so every tile operation reads it like any tile), plus where its elements live — the local
variable holding the *root* tile (the first tile that is not itself a view) and the flat
position of every view element in it. A write to a view is scattered into the root, and every
write to a root re-gathers the views of it held in local variables (:func:`write`). A view
also records its element strides in the root, for Warp's "contiguous tile" rules
(``tile_reshape`` of a strided view is rejected).

Views made from an expression that is not a local variable (``wp.tile_load(...)[1:]``) alias
nothing and are plain values. Views held in variables across a dynamic loop boundary become
copies (the loop carries their data only).

Example (kernel code):
    b = wp.tile_zeros(shape=(4, 8), dtype=float)
    row = b[1]                    # TileView(root="b", positions 8..15)
    wp.tile_assign(row, ones)     # scatters into b, row re-gathered
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import jax.numpy as jnp

from jwarp.compiler import tiles
from jwarp.compiler.values import Value, leaves_of, value_from_leaves
from jwarp.lang import scalars
from jwarp.compiler.selects import clip, where


@dataclass(frozen=True, eq=False)
class TileView(Value):
    """A tile value that is a view: ``root`` names the local variable whose tile holds its
    elements (None when the parent was not a variable), ``positions`` the flat element positions
    in that tile, shaped ``(*lead, *shape)``; ``strides`` its element strides in the root."""

    root: str | None = None
    positions: Any = None
    strides: tuple = ()
    base: Value | None = None  # the viewed tile when it is no local variable (anonymous storage)


def dense_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major element strides of a dense tile of ``shape``."""
    out, step = [], 1
    for extent in reversed(shape):
        out.append(step)
        step *= extent
    return tuple(reversed(out))


def strides_of(v: Value) -> tuple[int, ...]:
    return v.strides if isinstance(v, TileView) else dense_strides(v.type.shape)


def is_contiguous(v: Value) -> bool:
    """Whether the tile's elements are dense and row-major in their storage (Warp's rule for
    reshaping a tile in place); axes of extent one do not matter."""
    expected = dense_strides(v.type.shape)
    return all(s == e for s, e, n in zip(strides_of(v), expected, v.type.shape) if n > 1)


# ----------------------------------------------------------------------------------------------
# gathers and scatters by flat element position


def flat_positions(shape: tuple[int, ...], per_axis: list) -> Any:
    """Row-major flat positions in a tile of ``shape`` from per-axis index arrays (clamped)."""
    flat = jnp.zeros((), jnp.int32)
    for idx, extent in zip(per_axis, shape):
        flat = flat * extent + clip(jnp.asarray(idx, jnp.int32), 0, extent - 1)
    return flat


def gather(ctx: Any, a: Value, flat: Any, out_shape: tuple[int, ...]) -> Value:
    """The tile of ``out_shape`` whose elements are ``a``'s at flat positions ``flat``
    (broadcastable to ``(*lead, *out_shape)``)."""
    t = a.type
    n = len(ctx.grid)
    flat = jnp.asarray(flat, jnp.int32)
    flat = flat.reshape((1,) * max(n + len(out_shape) - flat.ndim, 0) + flat.shape)
    element = tiles.elements(ctx, a)
    planes = []
    for plane in leaves_of(element):
        p = plane.reshape(plane.shape[:n] + (-1,))
        target = jnp.broadcast_shapes(p.shape[:n] + (1,) * len(out_shape), flat.shape)
        f = jnp.broadcast_to(flat, target).reshape(target[:n] + (-1,))
        p = jnp.broadcast_to(p, target[:n] + p.shape[n:])
        planes.append(jnp.take_along_axis(p, f, axis=n).reshape(target))
    return tiles.from_elements(ctx, value_from_leaves(element.type, planes), out_shape, t.storage)


def scatter(ctx: Any, dst: Value, flat: Any, src: Value, valid: Any = None, add: bool = False) -> Value:
    """``dst`` with the elements at flat positions ``flat`` replaced by ``src`` (a tile of the
    positions' shape, or one element value), or incremented by it with ``add`` (repeated
    positions accumulate); positions where ``valid`` is false are dropped."""
    t = dst.type
    n = len(ctx.grid)
    grid = tiles.block_grid(ctx)
    src_shape = src.type.shape if tiles.is_tile_type(src.type) else ()
    full = grid + tuple(src_shape)
    flat = jnp.asarray(flat, jnp.int32)
    flat = flat.reshape((1,) * max(n + len(src_shape) - flat.ndim, 0) + flat.shape)
    if valid is not None:
        flat = where(valid, flat, t.size)  # past the end: dropped
    flat = jnp.broadcast_to(flat, full).reshape(grid + (-1,))
    new_el = tiles.elements(ctx, src) if tiles.is_tile_type(src.type) else src
    old_el = tiles.elements(ctx, dst)
    lead_idx = tuple(jnp.expand_dims(i, -1) for i in jnp.indices(grid, sparse=True))
    planes = []
    for old, new in zip(leaves_of(old_el), leaves_of(new_el)):
        old = jnp.broadcast_to(old, grid + t.shape).reshape(grid + (-1,))
        if not tiles.is_tile_type(src.type):
            new = tiles.expand_scalar_leaf(ctx, new, 0)
        new = jnp.broadcast_to(jnp.asarray(new, old.dtype), full).reshape(grid + (-1,))
        at = old.at[lead_idx + (flat,)]
        updated = at.add(new, mode="drop") if add else at.set(new, mode="drop")
        planes.append(updated.reshape(grid + t.shape))
    return tiles.from_elements(ctx, value_from_leaves(t.dtype, planes), t.shape, t.storage)


# ----------------------------------------------------------------------------------------------
# making views and writing through them


def _plain(v: Value) -> Value:
    return Value(v.type, v.data) if isinstance(v, TileView) else v


def view_of(lw: Any, parent: Value, parent_name: str | None, flat: Any, out_shape: tuple[int, ...],
            strides: tuple[int, ...]) -> Value:
    """The view of ``parent`` made of its elements at flat positions ``flat``.

    ``parent_name`` is the local variable ``parent`` was read from (None for an expression,
    whose tile then becomes the view's anonymous storage); a view of a view shares the storage
    of its parent."""
    ctx = lw.ctx
    data = gather(ctx, parent, flat, out_shape)
    if isinstance(parent, TileView) and (parent.root is not None or parent.base is not None):
        source = tiles.make_tile(ctx, scalars.int32, parent.type.shape,
                                 _lead_positions(ctx, parent.positions, parent.type.ndim))
        positions = gather(ctx, source, flat, out_shape).data
        return TileView(data.type, data.data, root=parent.root, positions=positions, strides=tuple(strides),
                        base=parent.base)
    if parent_name is not None and lw.env.get(parent_name) is parent:
        return TileView(data.type, data.data, root=parent_name, positions=flat, strides=tuple(strides))
    return TileView(data.type, data.data, positions=flat, strides=tuple(strides), base=_plain(parent))


def _bind(lw: Any, name: str, value: Value) -> None:
    """Bind a tile whose inactive blocks (or lanes) were already left unchanged: no lane mask
    (a lane mask would widen the tile's single lane axis to the block's threads)."""
    tiles.without_mask(lw, lambda: lw.bind(name, value))


def block_select(lw: Any, new: Value, old: Value) -> Value:
    """``new`` in the blocks whose lane 0 is active, ``old`` elsewhere (tile writes under a
    branch, as a block executes a tile operation together)."""
    mask = tiles.block_mask(lw.ctx, lw.active)
    if mask is None:
        return new
    m = tiles.expand_mask(mask, jnp.ndim(new.data))
    return Value(new.type, where(m, new.data, old.data))


def _update_storage(lw: Any, view: TileView, name: str, change: Value, add: bool) -> None:
    """Scatter ``change`` into the storage of ``view`` (held in local ``name``): its root
    variable, whose views are then re-gathered, or its anonymous base, re-gathered into it."""
    positions = _lead_positions(lw.ctx, view.positions, len(view.type.shape))
    if view.root is not None and view.root in lw.env and view.root != name:
        root = lw.env[view.root]
        _bind_keeping(lw, view.root, scatter(lw.ctx, _plain(root), positions, change, add=add))
        refresh(lw, view.root)
    elif view.base is not None:
        base = scatter(lw.ctx, view.base, positions, change, add=add)
        current = lw.env[name]
        fresh = gather(lw.ctx, base, positions, view.type.shape)
        lw.env[name] = replace(current, data=fresh.data, base=base)


def write(lw: Any, name: str, new: Value, masked: bool = False) -> None:
    """Write tile ``new`` into the local ``name`` in place: through to the storage it views when
    ``name`` holds a view, and into every other view of the same tile. Unless ``masked`` (the
    caller already kept inactive lanes' elements), blocks outside the active mask keep their
    old tile."""
    old = lw.env.get(name)
    new = _plain(new)
    if not masked and old is not None and old.type == new.type:
        new = block_select(lw, new, _plain(old))
    lw.inplace_written = getattr(lw, "inplace_written", set()) | {name}
    if isinstance(old, TileView):
        _bind(lw, name, new)
        lw.env[name] = replace(old, data=lw.env[name].data)
        _update_storage(lw, lw.env[name], name, new, add=False)
        return
    _bind(lw, name, new)
    refresh(lw, name)


def accumulate(lw: Any, name: str, delta: Value) -> bool:
    """Add tile ``delta`` onto the elements the view in local ``name`` names, in the tile it
    views (a broadcast view adds every repeat into the one element it repeats). False when
    ``name`` is not a view."""
    view = lw.env.get(name)
    if not (isinstance(view, TileView) and (view.root not in (None, name) or view.base is not None)):
        return False
    delta = block_select(lw, delta, Value(delta.type, jnp.zeros_like(delta.data)))
    _update_storage(lw, view, name, delta, add=True)
    return True


def _lead_positions(ctx: Any, positions: Any, ndim: int) -> Any:
    n = len(ctx.grid)
    positions = jnp.asarray(positions, jnp.int32)
    return positions.reshape((1,) * max(0, n + ndim - positions.ndim) + positions.shape)


def _bind_keeping(lw: Any, name: str, value: Value) -> None:
    """Bind ``name`` keeping its view record (a root may itself be a view of nothing)."""
    old = lw.env.get(name)
    _bind(lw, name, value)
    if isinstance(old, TileView):
        lw.env[name] = replace(old, data=lw.env[name].data)


def scatter_lanes(ctx: Any, dst: Value, flat: Any, value: Value, ok: Any, add: bool = False) -> Value:
    """``dst`` with each thread's ``value`` written (or added) at its own flat position ``flat``
    (one per thread) where ``ok`` (``(*block_grid, block_dim)``) holds: per-thread writes into
    the block's tile (``t[i] = x`` with per-thread ``i``, ``wp.tile_scatter_masked``)."""
    t = dst.type
    grid = tiles.block_grid(ctx)
    lanes = tiles.to_lanes(ctx, jnp.asarray(flat, jnp.int32))
    bd = ok.shape[-1]
    target = where(ok, jnp.broadcast_to(lanes, grid + (bd,)), t.size)
    lead = tuple(jnp.expand_dims(i, -1) for i in jnp.indices(grid, sparse=True))
    planes = []
    for old, new in zip(leaves_of(tiles.elements(ctx, dst)), leaves_of(value)):
        old = jnp.broadcast_to(old, grid + t.shape).reshape(grid + (-1,))
        new = jnp.broadcast_to(tiles.to_lanes(ctx, new), grid + (bd,)).astype(old.dtype)
        at = old.at[lead + (target,)]
        planes.append((at.add(new, mode="drop") if add else at.set(new, mode="drop")).reshape(grid + t.shape))
    return tiles.from_elements(ctx, value_from_leaves(t.dtype, planes), t.shape, t.storage)


def refresh(lw: Any, root: str) -> None:
    """Re-gather every local view of the tile held in ``root`` (after a write to it)."""
    if root not in lw.env:
        return
    base = _plain(lw.env[root])
    for name, v in list(lw.env.items()):
        if isinstance(v, TileView) and v.root == root and name != root:
            positions = _lead_positions(lw.ctx, v.positions, len(v.type.shape))
            fresh = gather(lw.ctx, base, positions, v.type.shape)
            lw.env[name] = replace(v, data=fresh.data)


def without_view(v: Value) -> Value:
    """``v`` as a plain tile value (a copy of the view's elements)."""
    return _plain(v)


__all__ = ["TileView", "dense_strides", "strides_of", "is_contiguous", "flat_positions", "gather", "scatter",
           "view_of", "write", "accumulate", "refresh", "block_select", "scatter_lanes", "without_view"]
