"""Hash-grid queries: ``hash_grid_query``, ``hash_grid_query_next``, ``hash_grid_point_id``.

A query is a small per-lane iterator (:data:`HashGridQuery`, a struct of ints): the box of cells
that the query sphere overlaps, the current cell and the range of sorted points left in it. Each
``hash_grid_query_next`` advances every active lane to its next point, stepping over empty cells
in x, then y, then z order (Warp's order). Cells wrap around the grid's dimensions, as in Warp.
The query finds *candidates*: every point in an overlapped cell, without a distance test.

Example:
    >>> import jwarp as wp
    >>> @wp.kernel
    ... def count(grid: wp.uint64, points: wp.array(dtype=wp.vec3), out: wp.array(dtype=int)):
    ...     i = wp.tid()
    ...     n = int(0)
    ...     for j in wp.hash_grid_query(grid, points[i], 0.5):
    ...         n += 1
    ...     out[i] = n
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from jwarp.builtins.common import Call, Value
from jwarp.compiler import handles
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import leaves_of, to_device_leaf, value_from_leaves
from jwarp.lang import composites, scalars
from jwarp.lang.struct import StructType
from jwarp.compiler.selects import clip, where

_INT_MAX = 2**31 - 1
_INT_MIN = -(2**31)
_FIELDS = ("x_start", "y_start", "z_start", "x_end", "y_end", "z_end", "x", "y", "z", "cell_index", "cell_end",
           "current", "group", "filter_by_group")
_STEPPED = tuple(f for f in _FIELDS if f not in ("current", "group", "filter_by_group"))


class _QueryStructType(StructType):
    """A query struct type; ``HashGridQuery[wp.float64]`` names the query of a float64 grid."""

    def __getitem__(self, dtype: Any) -> StructType:
        try:
            return QUERY_TYPES[dtype]
        except KeyError:
            raise TypeError(f"HashGridQuery has no variant for dtype {dtype}") from None


def _query_type(name: str) -> StructType:
    cls = type(name, (), {"__annotations__": {"grid": scalars.uint64, **{f: scalars.int32 for f in _FIELDS}}})
    cls.__qualname__ = "HashGridQuery"
    cls.__module__ = __name__
    t = _QueryStructType(cls)
    t._jwarp_query_next_ = "hash_grid_query_next"  # for-loops iterate queries with this builtin
    return t


HashGridQuery = _query_type("HashGridQuery")
"""The state of one lane's hash-grid query (Warp's ``hash_grid_query_t``); ``HashGridQuery[wp.float64]``
is the query of a float64 grid (same fields: the grid's precision only matters when it starts)."""
QUERY_TYPES = {scalars.float16: _query_type("HashGridQueryH"), scalars.float32: HashGridQuery,
               scalars.float64: _query_type("HashGridQueryD")}
_BY_NAME = {t._np_dtype.name: q for t, q in QUERY_TYPES.items()}


def cell_coord(v: Any) -> Any:
    """Warp's cell coordinate of a scaled position: floor, saturated to the int32 range (NaN: 0).

    float16 values are widened to float32 first; float64 saturates at INT_MAX - 1 from 2147483646 on
    (as Warp), so a query's last cell never reaches INT_MAX and its x/y/z steps cannot overflow."""
    if v.dtype == jnp.float16:
        v = v.astype(jnp.float32)
    c = jnp.floor(v)
    top = jnp.asarray(2147483646.0 if c.dtype == jnp.float64 else 2147483648.0, c.dtype)
    low = jnp.asarray(-2147483648.0, c.dtype)
    inside = clip(c, low, top - 1).astype(jnp.int32)
    return where(c >= top, jnp.int32(_INT_MAX - 1),
                     where(c >= low, inside, where(c < low, jnp.int32(_INT_MIN), jnp.int32(0))))


def cell_index(x: Any, y: Any, z: Any, dims: tuple) -> Any:
    """Linear cell of integer cell coordinates, wrapped into the grid (Warp's ``hash_grid_index``)."""
    dx, dy, dz = (jnp.int32(d) for d in dims)
    return jnp.mod(z, dz) * (dx * dy) + jnp.mod(y, dy) * dx + jnp.mod(x, dx)


def _query_end(start: Any, end: Any, dim: int) -> Any:
    """At most ``dim`` cells per axis (a wider query would visit cells twice)."""
    wide = end.astype(jnp.int64) - start.astype(jnp.int64) >= dim
    return where(wide, start + jnp.int32(dim - 1), end)


def _grid(call: Call, shape_of: Any) -> Any:
    return lambda leaf: jnp.broadcast_to(to_device_leaf(leaf), call.ctx.grid)


def _cell_range(call: Call, handle: handles.BoundHandle, cell: Any, mask: Any, group: Any = None,
                filtered: Any = None) -> tuple[Any, Any]:
    """The range of sorted points in ``cell``; for a grouped query on a grouped grid, only the points
    of ``group`` (cells keep their points ordered by group id as an unsigned number)."""
    starts = handles.load(call, handle, "cell_starts", [Value(scalars.int32, cell)], mask)[0]
    ends = handles.load(call, handle, "cell_ends", [Value(scalars.int32, cell)], mask)[0]
    if group is None or not handle.fact("grouped"):
        return starts, ends
    key = jnp.asarray(group).astype(jnp.uint32)
    lo = _bisect(call, handle, starts, ends, key, mask, upper=False)
    hi = _bisect(call, handle, lo, ends, key, mask, upper=True)
    return where(filtered, lo, starts), where(filtered, hi, ends)


def _bisect(call: Call, handle: handles.BoundHandle, lo: Any, hi: Any, key: Any, mask: Any, upper: bool) -> Any:
    """First position in [lo, hi) whose group is >= key (> key when ``upper``), per lane."""
    capacity = handle.fact("capacity")
    for _ in range(max(capacity, 1).bit_length() + 1):
        open_ = lo < hi
        mid = lo + (hi - lo) // 2
        slot = clip(mid, 0, capacity - 1)
        g = handles.load(call, handle, "point_groups", [Value(scalars.int32, slot)], mask)[0].astype(jnp.uint32)
        go_right = (g <= key) if upper else (g < key)
        lo = where(open_ & go_right, mid + 1, lo)
        hi = where(open_ & ~go_right, mid, hi)
    return lo


@builtin("hash_grid_query", group="Geometry", kernel_only=True)
def hash_grid_query(call: Call, grid: Value, point: Value, max_dist: Value, *group: Value) -> Value:
    """Start a query of the points in the cells within ``max_dist`` of ``point``; iterate it with
    ``hash_grid_query_next`` or ``for index in wp.hash_grid_query(...)``."""
    call.require_kernel()
    if len(group) > 1 or (group and not scalars.is_int(group[0].type)):
        raise call.no_overload(grid, point, max_dist, *group)
    if not (scalars.is_int(grid.type) and composites.is_vector(point.type) and point.type._length_ == 3
            and scalars.is_float(max_dist.type)):
        raise call.no_overload(grid, point, max_dist)
    full = _grid(call, None)
    parts = []
    for handle, lanes in handles.candidates(call, grid, "hash_grid", "HashGrid"):
        dims = handle.fact("dims")
        ftype = handle.fact("dtype")
        inv = jnp.asarray(handle.values["cell_width_inv"].data, ftype)
        radius = jnp.asarray(to_device_leaf(max_dist.data)).astype(ftype)
        pos = [jnp.asarray(to_device_leaf(p)).astype(ftype) for p in leaves_of(point)]
        starts = [cell_coord((p - radius) * inv) for p in pos]
        ends = [_query_end(s, cell_coord((p + radius) * inv), d) for s, p, d in zip(starts, pos, dims)]
        starts, ends = [full(s) for s in starts], [full(e) for e in ends]
        mask = call.mask if lanes is None else (lanes if call.mask is None else call.mask & lanes)
        group_id = full(jnp.asarray(to_device_leaf(group[0].data)).astype(jnp.int32)) if group else full(jnp.int32(0))
        filtered = full(jnp.int32(1 if group else 0))
        begin, end = _cell_range(call, handle, cell_index(*starts, dims), mask, group_id, filtered != 0)
        ident = full(jnp.asarray(to_device_leaf(grid.data)).astype(jnp.uint64))
        fields = [ident, *starts, *ends, *starts, full(begin), full(end), full(jnp.int32(0)), group_id, filtered]
        parts.append((value_from_leaves(_BY_NAME[ftype], fields), lanes))
    return handles.merge(parts)


def _advance(call: Call, handle: handles.BoundHandle, state: dict, active: Any) -> dict:
    """Step the active lanes over empty cells until each has points left or has passed its last cell."""
    dims = handle.fact("dims")

    def needs_step(s: dict) -> Any:
        return active & (s["cell_index"] >= s["cell_end"]) & ~s["done"]

    def cond(s: dict) -> Any:
        return jnp.any(needs_step(s))

    def body(s: dict) -> dict:
        step = needs_step(s)
        x = s["x"] + 1
        wrap_x = x > s["x_end"]
        x = where(wrap_x, s["x_start"], x)
        y = where(wrap_x, s["y"] + 1, s["y"])
        wrap_y = y > s["y_end"]
        y = where(wrap_y, s["y_start"], y)
        z = where(wrap_y, s["z"] + 1, s["z"])
        done = z > s["z_end"]
        begin, end = _cell_range(call, handle, cell_index(x, y, z, dims), step & ~done, s["group"],
                                 s["filter_by_group"] != 0)
        new = dict(s)
        for key, val in (("x", x), ("y", y), ("z", z)):
            new[key] = where(step, val, s[key])
        new["done"] = s["done"] | (step & done)
        new["cell_index"] = where(step & ~done, begin, s["cell_index"])
        new["cell_end"] = where(step & ~done, end, s["cell_end"])
        return new

    return lax.while_loop(cond, body, state)


@builtin("hash_grid_query_next", group="Geometry", kernel_only=True)
def hash_grid_query_next(call: Call, query: Value, index: Value) -> Value:
    """Move ``query`` to its next candidate point; writes the point's index into ``index`` and returns
    True, or returns False when the query has no points left."""
    call.require_kernel()
    if query.type not in _BY_NAME.values() or not scalars.is_int(index.type):
        raise call.no_overload(query, index)
    new_query, new_index, found = next_point(call, query, index.data)
    call.assign_back(0, new_query)
    call.assign_back(1, Value(index.type, new_index))
    return Value(scalars.bool_, found)


def next_point(call: Call, query: Value, index: Any) -> tuple[Value, Any, Any]:
    """(advanced query, index leaf, found mask) for the active lanes; others keep their state."""
    grid = call.ctx.grid
    full = _grid(call, None)
    fields = dict(zip(("grid", *_FIELDS), (full(leaf) for leaf in leaves_of(query))))
    active = jnp.ones(grid, bool) if call.mask is None else jnp.broadcast_to(call.mask, grid)
    index = full(jnp.asarray(to_device_leaf(index)).astype(jnp.int32))
    results = []
    for handle, lanes in handles.candidates(call, Value(scalars.uint64, fields["grid"]), "hash_grid", "HashGrid"):
        mine = active if lanes is None else active & lanes
        state = {k: fields[k] for k in _FIELDS if k != "current"}
        state["done"] = ~mine if handle.fact("built") else jnp.ones(grid, bool)
        state = _advance(call, handle, state, mine)
        found = mine & ~state["done"]
        slot = clip(state["cell_index"], 0, handle.fact("capacity") - 1)
        point = handles.load(call, handle, "point_ids", [Value(scalars.int32, slot)], found)[0]
        new_index = where(found, point, index)
        out = dict(fields)
        out.update({k: state[k] for k in _STEPPED})
        out["cell_index"] = where(found, state["cell_index"] + 1, state["cell_index"])
        out["current"] = where(found, point, fields["current"])
        results.append(((out, new_index, found), lanes))
    out, new_index, found = results[0][0]
    for (o, i, f), lanes in results[1:]:
        out = {k: where(lanes, o[k], out[k]) for k in out}
        new_index, found = where(lanes, i, new_index), where(lanes, f, found)
    new_query = value_from_leaves(query.type, [out[k] for k in ("grid", *_FIELDS)])
    return new_query, new_index, found


@builtin("hash_grid_point_id", group="Geometry", kernel_only=True)
def hash_grid_point_id(call: Call, grid: Value, index: Value) -> Value:
    """The index of the point stored at position ``index`` of the grid's cell-sorted order
    (-1 for a grid that was never built)."""
    call.require_kernel()
    if not (scalars.is_int(grid.type) and scalars.is_int(index.type)):
        raise call.no_overload(grid, index)
    parts = []
    for handle, lanes in handles.candidates(call, grid, "hash_grid", "HashGrid"):
        slot = clip(jnp.asarray(to_device_leaf(index.data)).astype(jnp.int32), 0, handle.fact("capacity") - 1)
        point = handles.load(call, handle, "point_ids", [Value(scalars.int32, slot)])[0]
        if not handle.fact("built"):
            point = jnp.full_like(point, -1)
        parts.append((Value(scalars.int32, point), lanes))
    return handles.merge(parts)


__all__ = ["HashGridQuery", "cell_coord", "cell_index", "hash_grid_point_id", "hash_grid_query",
           "hash_grid_query_next"]
