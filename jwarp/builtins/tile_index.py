"""Tile subscripts and views: ``t[i, j]``, ``t[i]``, ``t[2:6, ::2]``, ``t[idx, :]``,
``wp.tile_view``, and assignments into them (``t[0:4, :] = u``, ``t[i][1] = x``).

A subscript takes, per tile dimension, an integer (removes the dimension; negative counts from
the end), a slice with compile-time bounds (NumPy's rules: clamped bounds, negative steps) or,
on one dimension with ``:`` on all others, an integer tile (advanced indexing: a gather). Every
integer gives the element; fewer integers or any slice give a *view* aliasing ``t``
(:mod:`jwarp.compiler.tile_views`); advanced indexing gives a copy.

Example (kernel code):
    t = wp.tile_load(a, shape=(16, 32))
    rows = t[4:12, :]                   # (8, 32) view
    last = t[-1]                        # (32,) view of the last row
    picked = t[wp.tile_arange(0, 8, dtype=int) * 2, :]   # (8, 32) gather
    t[0:4, :] = wp.tile_ones(shape=(4, 32), dtype=float)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp

from jwarp.builtins.common import STATIC, Call, Value
from jwarp.builtins.tile_core import require_tile
from jwarp.compiler import tile_views, tiles
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import TupleType, is_const, leaves_of, value_from_leaves
from jwarp.errors import WarpCodegenError, WarpCodegenTypeError, WarpCodegenValueError
from jwarp.lang import scalars
from jwarp.lang.arrays import type_name
from jwarp.compiler.selects import where


@builtin("_slice", group="Code Generation", kernel_only=False)
def make_slice(call: Call, *args: Value) -> Value:
    """``slice(start, stop, step)`` in kernel code: a compile-time slice (tile views' offsets)."""
    if not 1 <= len(args) <= 3:
        raise WarpCodegenError("slice() takes 1 to 3 arguments")
    bounds = [_static_bound(a) for a in args]
    return Value(STATIC, slice(*bounds))


def _static_bound(v: Value) -> int | None:
    if v.type is STATIC and v.data is None:
        return None
    if v.type is not STATIC and not (scalars.is_int(v.type) and is_const(v.data)):
        if scalars.is_int(v.type):
            raise WarpCodegenValueError("Tile slice bounds must be compile-time constants (a literal, a "
                                        "wp.constant or a wp.static() expression)")
        raise WarpCodegenTypeError(f"Tile slice bounds must be integers, got {type_name(v.type)}")
    return int(v.data)


# ----------------------------------------------------------------------------------------------
# resolving a subscript


@dataclass
class Selection:
    """A resolved tile subscript: per-axis element indices broadcastable to ``(*lead, *shape)``."""

    per_axis: list
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    element: bool  # an integer for every dimension
    gathered: bool  # advanced indexing (a copy, not a view)


def _kind(v: Value) -> str:
    if v.type is STATIC and isinstance(v.data, slice):
        return "slice"
    if tiles.is_tile_type(v.type):
        if not scalars.is_int(v.type.dtype):
            raise WarpCodegenValueError(f"Advanced tile indexing needs an integer index tile, got a tile of "
                                       f"{type_name(v.type.dtype)}")
        return "tile"
    if scalars.is_int(v.type):
        return "int"
    raise WarpCodegenTypeError(f"Tile indices must be integers or slices, got {type_name(v.type)}")


def _int_index(ctx: Any, v: Value, extent: int, axis: int, wrap: bool = True, per_lane: bool = False) -> Any:
    """An integer index as a leaf of ``len(grid)`` axes: block-uniform (lane 0's) for views, or
    each thread's own for element reads (``per_lane``); constants are checked, negatives wrap."""
    if is_const(v.data):
        k = int(v.data)
        if not (-extent <= k < extent if wrap else 0 <= k < extent):
            raise WarpCodegenValueError(f"Tile index {k} is out of bounds for dimension {axis} of extent {extent}")
        return jnp.asarray(k % extent, jnp.int32)
    if per_lane:
        x = jnp.asarray(v.data).astype(jnp.int32)
        x = x.reshape((1,) * (len(ctx.grid) - x.ndim) + x.shape)
    else:
        x = tiles.lead_leaf(ctx, v.data).astype(jnp.int32)
    return where(x < 0, x + extent, x) if wrap else x


def _ramp(extent: int, axis: int, ndim: int) -> Any:
    shape = [1] * ndim
    shape[axis] = extent
    return jnp.arange(extent, dtype=jnp.int32).reshape(shape)


def _trailing(x: Any, k: int) -> Any:
    x = jnp.asarray(x)
    return x.reshape(x.shape + (1,) * k)


def resolve(ctx: Any, tile: Value, items: list[Value], wrap: bool = True, per_lane: bool = True) -> Selection:
    """Resolve subscript ``items`` (integers, slices, one integer tile) on ``tile``; an element
    (an integer per dimension) is read at each thread's own indices unless ``per_lane`` is False."""
    t = tile.type
    if len(items) > t.ndim:
        raise WarpCodegenValueError(f"Too many indices for a tile of {t.ndim} dimensions: got {len(items)}")
    items = list(items) + [Value(STATIC, slice(None))] * (t.ndim - len(items))
    kinds = [_kind(v) for v in items]
    if "tile" in kinds:
        if kinds.count("tile") > 1 or any(
            k != "tile" and not (k == "slice" and v.data == slice(None)) for k, v in zip(kinds, items)
        ):
            raise WarpCodegenValueError("Advanced tile indexing with an index tile requires ':' on all other axes")
    if all(k == "int" for k in kinds):
        per_axis = [_int_index(ctx, v, e, a, wrap, per_lane) for a, (v, e) in enumerate(zip(items, t.shape))]
        return Selection(per_axis, (), (), True, False)
    # output dimensions, in order, for slices and the index tile
    out_shape, out_strides, parts = [], [], []
    parent_strides = tile_views.strides_of(tile)
    for axis, (kind, v, extent) in enumerate(zip(kinds, items, t.shape)):
        if kind == "int":
            parts.append(("int", _int_index(ctx, v, extent, axis, wrap)))
        elif kind == "slice":
            start, stop, step = v.data.indices(extent)
            length = len(range(start, stop, step))
            if length <= 0:
                raise WarpCodegenValueError(f"Tile slice {_slice_text(v.data)} on dimension {axis} (extent {extent}) "
                                            "gives an empty tile (a zero-length dimension)")
            parts.append(("slice", (start, step, len(out_shape))))
            out_shape.append(length)
            out_strides.append(parent_strides[axis] * step)
        else:
            if v.type.ndim != 1:
                raise WarpCodegenValueError(f"An index tile must be one-dimensional, got shape {v.type.shape}")
            parts.append(("tile", (v, extent, len(out_shape))))
            out_shape.append(v.type.shape[0])
            out_strides.append(0)
    k = len(out_shape)
    per_axis = []
    for kind, info in parts:
        if kind == "int":
            per_axis.append(_trailing(info, k))
        elif kind == "slice":
            start, step, out_axis = info
            per_axis.append(start + step * _ramp(out_shape[out_axis], out_axis, k))
        else:
            v, extent, out_axis = info
            idx = v.data.astype(jnp.int32)  # (*lead, L)
            idx = where(idx < 0, idx + extent, idx)
            n = len(ctx.grid)
            shape = idx.shape[:n] + tuple(idx.shape[n] if a == out_axis else 1 for a in range(k))
            per_axis.append(idx.reshape(shape))
    return Selection(per_axis, tuple(out_shape), tuple(out_strides), False, "tile" in kinds)


def _slice_text(s: slice) -> str:
    def part(x):
        return "" if x is None else str(x)

    return f"[{part(s.start)}:{part(s.stop)}" + (f":{s.step}]" if s.step is not None else "]")


def _element(ctx: Any, tile: Value, sel: Selection) -> Value:
    """The element at an all-integer subscript (block-uniform)."""
    n = len(ctx.grid)
    flat = tile_views.flat_positions(tile.type.shape, sel.per_axis)
    flat = jnp.reshape(flat, (1,) * max(0, n - jnp.ndim(flat)) + jnp.shape(flat))
    element = tiles.elements(ctx, tile)
    out = []
    for plane in leaves_of(element):
        p = plane.reshape(plane.shape[:n] + (-1,))
        target = jnp.broadcast_shapes(p.shape[:n], flat.shape)
        p = jnp.broadcast_to(p, target + p.shape[n:])
        f = jnp.broadcast_to(flat, target)[..., None]
        out.append(jnp.take_along_axis(p, f, axis=n)[..., 0])
    return value_from_leaves(element.type, out)


@dataclass(frozen=True)
class TileBoundsSite:
    """A debug-mode tile bounds check: where it is and what it checks (see ``check_sites``)."""

    location: Any
    detail: str

    def format(self) -> str:
        return f"({self.detail}) " + (self.location.format() if self.location is not None else "")


def check_element_bounds(call: Call, tile: Value, sel: Selection) -> None:
    """Debug mode (``mode="debug"``): flag running threads whose element index falls outside the
    tile (Warp's "tile index out of bounds" check); the launch then raises ``IndexError``."""
    ctx = call.ctx
    if not ctx.debug:
        return
    lw = call.lowerer
    location = lw.location() if lw is not None else None
    for axis, (idx, extent) in enumerate(zip(sel.per_axis, tile.type.shape)):
        if is_const(idx):
            continue  # checked when compiling
        bad = (jnp.asarray(idx) < 0) | (jnp.asarray(idx) >= extent)
        if call.mask is not None and not is_const(call.mask):
            bad = bad & jnp.asarray(call.mask)
        detail = (f"{tile.type.storage} tile: coordinate dimension {axis} has an index outside valid range "
                  f"[0, {extent})")
        ctx.flag_site("tile_oob", ctx.add_site(TileBoundsSite(location, detail)), bad)


def select(call: Call, tile: Value, parent_name: str | None, items: list[Value], wrap: bool = True) -> Value:
    """``tile[items]``: an element, a view aliasing ``tile`` or a gathered copy."""
    ctx = call.ctx
    sel = resolve(ctx, tile, items, wrap)
    if sel.element:
        check_element_bounds(call, tile, sel)
        return _element(ctx, tile, sel)
    flat = tile_views.flat_positions(tile.type.shape, sel.per_axis)
    if sel.gathered:
        return tile_views.gather(ctx, tile_views.without_view(tile), flat, sel.shape)
    return tile_views.view_of(call.lowerer, tile, parent_name, flat, sel.shape, sel.strides)


@builtin("_tile_subscript", group="Code Generation", kernel_only=True)
def tile_subscript(call: Call, name: Value, t: Value, *items: Value) -> Value:
    """``t[...]`` in kernel code; ``name`` is the variable ``t`` was read from (or None)."""
    return select(call, t, name.data, list(items))


# ----------------------------------------------------------------------------------------------
# tile_view


def _offset_items(call: Call, offset: Value | None) -> list[Value]:
    if offset is None:
        return []
    items = list(offset.data) if isinstance(offset.type, TupleType) else [offset]
    for v in items:
        if not (v.type is STATIC and isinstance(v.data, slice)) and not scalars.is_int(v.type):
            raise WarpCodegenValueError(f"wp.tile_view(): offsets must be integers or slices, got {type_name(v.type)}")
    return items


@builtin("tile_view", group="Tile Primitives", kernel_only=True)
def tile_view(call: Call, t: Value, offset: Value | None = None, shape: Value | None = None) -> Value:
    """A view of ``t`` aliasing its elements. With ``shape``, the rectangle of that extent at
    ``offset``; without it, ``offset`` entries index (integers remove a dimension) or slice
    (``slice(start, stop, step)``) the leading dimensions, as ``t[...]`` does."""
    call.require_kernel()
    require_tile(call, t, "t")
    ctx = call.ctx
    src = t.type
    items = _offset_items(call, offset)
    if len(items) > src.ndim:
        raise WarpCodegenValueError(f"wp.tile_view(): offset has {len(items)} entries for a tile of {src.ndim} "
                                    "dimensions")
    node = call.arg_node(0, "t")
    parent_name = getattr(node, "id", None)
    if shape is None:
        return select(call, t, parent_name, items, wrap=False)
    if any(v.type is STATIC for v in items):
        raise WarpCodegenValueError("wp.tile_view() cannot take 'shape' together with a slice in 'offset'")
    dims = tiles.static_shape(shape)
    if len(dims) != src.ndim:
        raise WarpCodegenError(f"tile_view() if shape is specified it must have same number of dimensions as "
                               f"source tile, expected {src.ndim}, got {len(dims)}")
    k = len(dims)
    per_axis = []
    for axis, extent in enumerate(src.shape):
        if axis < len(items):
            start = _trailing(_int_index(ctx, items[axis], extent, axis, wrap=False), k)
        else:
            start = jnp.zeros((), jnp.int32)
        per_axis.append(start + _ramp(dims[axis], axis, k))
    flat = tile_views.flat_positions(src.shape, per_axis)
    return tile_views.view_of(call.lowerer, t, parent_name, flat, dims, tile_views.strides_of(t))


# ----------------------------------------------------------------------------------------------
# writes


def _converted(call: Call, src: Value, dtype: Any) -> Value:
    if src.type.dtype == dtype:
        return src
    if not (scalars.is_scalar_type(src.type.dtype) and scalars.is_scalar_type(dtype)):
        raise WarpCodegenError(f"Cannot assign a tile of {type_name(src.type.dtype)} into a tile of {type_name(dtype)}")
    return tiles.make_tile(call.ctx, dtype, src.type.shape, src.data.astype(tiles.jnp_dtype(dtype)), src.type.storage)


@builtin("_tile_set", group="Code Generation", kernel_only=True)
def tile_set(call: Call, t: Value, value: Value, *items: Value) -> Value:
    """``t[items] = value``: a copy of ``t`` with the selected element(s) replaced — for an integer
    per dimension, each active thread's element at its own indices, else a tile of the
    selection's shape (in active blocks)."""
    ctx = call.ctx
    sel = resolve(ctx, t, list(items))
    if sel.element:
        check_element_bounds(call, t, sel)
        if tiles.is_tile_type(value.type):
            raise WarpCodegenError("Cannot assign a tile to a single tile element")
        if value.type != t.type.dtype:
            from jwarp.compiler.operators import call_builtin

            if not (scalars.is_scalar_type(value.type) and scalars.is_scalar_type(t.type.dtype)):
                raise WarpCodegenError(f"Cannot assign a value of type {type_name(value.type)} into a tile of "
                                       f"{type_name(t.type.dtype)}")
            value = call_builtin(call.lowerer, "_construct", Value(STATIC, t.type.dtype), value)
        flat = tile_views.flat_positions(t.type.shape, sel.per_axis)  # each thread writes its element
        ok = tiles.lane_mask(ctx, call.mask)
        return tile_views.scatter_lanes(ctx, tile_views.without_view(t), flat, value, ok)
    if not tiles.is_tile_type(value.type):
        raise WarpCodegenValueError(f"Assigning to a tile view of shape {sel.shape} requires a tile of matching shape, "
                                    f"got a value of type {type_name(value.type)}")
    if value.type.shape != sel.shape:
        raise WarpCodegenValueError(f"Tile assignment shape mismatch: a tile of shape {value.type.shape} does not fit "
                                    f"a view of shape {sel.shape}")
    value = _converted(call, value, t.type.dtype)
    flat = tile_views.flat_positions(t.type.shape, sel.per_axis)
    plain = tile_views.without_view(t)
    new = tile_views.scatter(ctx, plain, flat, value)
    return tile_views.block_select(call.lowerer, new, plain) if call.lowerer is not None else new


@builtin("tile_assign", group="Tile Primitives", kernel_only=True)
def tile_assign(call: Call, dst: Value, src: Value, offset: Value | None = None) -> None:
    """Copy tile ``src`` into ``dst`` at ``offset``; ``dst`` is updated in place (and, when it is a
    view, the tile it views)."""
    call.require_kernel()
    require_tile(call, dst, "dst")
    require_tile(call, src, "src")
    if src.type.ndim != dst.type.ndim:
        raise WarpCodegenError(f"wp.tile_assign(): src has {src.type.ndim} dimensions, dst has {dst.type.ndim}")
    items = _offset_items(call, offset)
    if items and len(items) != dst.type.ndim:
        raise WarpCodegenError(f"wp.tile_assign(): offset has {len(items)} entries, expected {dst.type.ndim}")
    for s, d in zip(src.type.shape, dst.type.shape):
        if s > d:
            raise WarpCodegenError(f"wp.tile_assign(): src of shape {src.type.shape} does not fit into dst of "
                                   f"shape {dst.type.shape}")
    ctx = call.ctx
    k = src.type.ndim
    per_axis, valid = [], None
    for axis, extent in enumerate(src.type.shape):
        start = _trailing(_int_index(ctx, items[axis], dst.type.shape[axis], axis, wrap=False), k) if items \
            else jnp.zeros((), jnp.int32)
        idx = start + _ramp(extent, axis, k)
        ok = idx < dst.type.shape[axis]
        valid = ok if valid is None else valid & ok
        per_axis.append(idx)
    flat = tile_views.flat_positions(dst.type.shape, per_axis)
    result = tile_views.scatter(ctx, tile_views.without_view(dst), flat, _converted(call, src, dst.type.dtype), valid)
    call.assign_back(0, result, "dst")
    return None


__all__ = ["make_slice", "resolve", "select", "tile_subscript", "tile_view", "tile_set", "tile_assign"]
