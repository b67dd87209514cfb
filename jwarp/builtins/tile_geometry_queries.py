"""Block-cooperative BVH and mesh queries: ``tile_bvh_query_aabb`` / ``_ray``,
``tile_mesh_query_aabb``, ``tile_bvh_query_next``, ``tile_mesh_query_aabb_next``,
``tile_query_valid`` (and Warp's ``*_tiled`` aliases).

Every thread of a block receives one result per step (or -1), each result once, in an unspecified
order, as Warp specifies. jwarp lets thread ``j`` of a block of ``B`` threads take results
``j, j + B, j + 2B, ...`` of the block's (shared) query: its iterator skips ``j`` results first,
then ``B - 1`` between its own. A thread's query stays valid while it still receives results.

Example (launched with ``wp.launch_tiled(k, dim=1, inputs=[...], block_dim=64)``):
    >>> import jwarp as wp
    >>> @wp.kernel
    ... def hits(bvh: wp.uint64, lo: wp.vec3, hi: wp.vec3, out: wp.array(dtype=int)):
    ...     q = wp.tile_bvh_query_aabb(bvh, lo, hi)
    ...     while wp.tile_query_valid(q):
    ...         i = wp.untile(wp.tile_bvh_query_next(q))
    ...         if i >= 0:
    ...             wp.atomic_add(out, i, 1)
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from jwarp.builtins import bvh_queries as bq
from jwarp.builtins.common import Call, Value
from jwarp.builtins.mesh_common import active, full
from jwarp.builtins.tile_core import tile
from jwarp.compiler import tiles
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import leaves_of, value_from_leaves
from jwarp.lang import scalars
from jwarp.lang.struct import StructType
from jwarp.compiler.selects import where

_EXTRA = ("skip", "valid")


def _tiled_type(name: str, mesh_kind: bool) -> StructType:
    fields = {k: bq.BvhQuery.vars[k].type for k in bq._FIELDS}  # a block query keeps no result buffer
    fields.update({f: scalars.int32 for f in _EXTRA})
    cls = type(name, (), {"__annotations__": fields})
    cls.__module__ = __name__
    t = StructType(cls)
    t._jwarp_mesh_kind_ = mesh_kind
    return t


BvhQueryTiled = _tiled_type("BvhQueryTiled", False)
"""A block's BVH query (Warp's ``bvh_query_thread_block_t``)."""
MeshQueryAABBTiled = _tiled_type("MeshQueryAABBTiled", True)
"""A block's mesh box query (Warp's ``mesh_query_aabb_thread_block_t``)."""
_FIELDS = (*bq._FIELDS, *_EXTRA)


def _lane_in_block(call: Call) -> tuple[Any, int]:
    """Each lane's index in its block, and the block size (1 without thread blocks)."""
    ctx = call.ctx
    axis = tiles.lane_axis(ctx)
    if axis is None:
        return jnp.zeros(tuple(ctx.grid), jnp.int32), 1
    shape = [1] * len(ctx.grid)
    shape[axis] = ctx.block_dim
    return jnp.broadcast_to(jnp.arange(ctx.block_dim, dtype=jnp.int32).reshape(shape), tuple(ctx.grid)), ctx.block_dim


def _start(call: Call, qtype: StructType, plain: Value) -> Value:
    lane, _ = _lane_in_block(call)
    leaves = [full(call, x) for x in leaves_of(plain)[:len(bq._FIELDS)]]
    return value_from_leaves(qtype, [*leaves, lane, jnp.ones_like(lane)])


@builtin("tile_bvh_query_aabb", group="Tile Primitives", kernel_only=True)
def tile_bvh_query_aabb(call: Call, id: Value, low: Value, high: Value) -> Value:
    """Start a block-cooperative query of the BVH's boxes overlapping ``[low, high]``."""
    return _start(call, BvhQueryTiled, bq.bvh_query_aabb.impl(call, id, low, high))


@builtin("tile_bvh_query_ray", group="Tile Primitives", kernel_only=True)
def tile_bvh_query_ray(call: Call, id: Value, start: Value, dir: Value) -> Value:
    """Start a block-cooperative query of the BVH's boxes the ray meets."""
    return _start(call, BvhQueryTiled, bq.bvh_query_ray.impl(call, id, start, dir))


@builtin("tile_mesh_query_aabb", group="Tile Primitives", kernel_only=True)
def tile_mesh_query_aabb(call: Call, id: Value, low: Value, high: Value) -> Value:
    """Start a block-cooperative query of the mesh's faces whose boxes overlap ``[low, high]``."""
    return _start(call, MeshQueryAABBTiled, bq.mesh_query_aabb.impl(call, id, low, high))


def _next(call: Call, query: Value, max_dist: Value | None = None) -> Value:
    mesh_kind = query.type is MeshQueryAABBTiled
    if query.type not in (BvhQueryTiled, MeshQueryAABBTiled):
        raise call.no_overload(query)
    q = dict(zip(_FIELDS, (full(call, x) for x in leaves_of(query))))
    limit = jnp.float32(jnp.inf) if max_dist is None else full(call, max_dist.data, jnp.float32)
    run0 = active(call) & (q["valid"] != 0)
    node, last, found = bq.advance(call, q, run0, mesh_kind, limit, need=q["skip"] + 1)
    _, block = _lane_in_block(call)
    q["node"] = where(run0, node, q["node"])
    q["index"] = where(run0 & found, last, q["index"])
    q["skip"] = where(run0, block - 1, q["skip"])
    q["valid"] = where(run0, found.astype(jnp.int32), q["valid"])
    call.assign_back(0, value_from_leaves(query.type, [q[f] for f in _FIELDS]))
    result = where(run0 & found, last, -1).astype(jnp.int32)
    return tile.impl(call, Value(scalars.int32, result))


@builtin("tile_bvh_query_next", group="Tile Primitives", kernel_only=True)
def tile_bvh_query_next(call: Call, query: Value, max_dist: Value | None = None) -> Value:
    """The block's next results: a tile with one box index per thread (-1 where none is left)."""
    return _next(call, query, max_dist)


@builtin("tile_mesh_query_aabb_next", group="Tile Primitives", kernel_only=True)
def tile_mesh_query_aabb_next(call: Call, query: Value) -> Value:
    """The block's next faces: a tile with one face index per thread (-1 where none is left)."""
    return _next(call, query)


@builtin("tile_query_valid", group="Tile Primitives", kernel_only=True)
def tile_query_valid(call: Call, query: Value) -> Value:
    """Whether the block query may still hand out results (False once exhausted)."""
    if query.type not in (BvhQueryTiled, MeshQueryAABBTiled):
        raise call.no_overload(query)
    return Value(scalars.bool_, full(call, leaves_of(query)[-1]) != 0)


for _alias, _target in (("bvh_query_aabb_tiled", tile_bvh_query_aabb), ("bvh_query_ray_tiled", tile_bvh_query_ray),
                        ("mesh_query_aabb_tiled", tile_mesh_query_aabb), ("bvh_query_next_tiled", tile_bvh_query_next),
                        ("mesh_query_aabb_next_tiled", tile_mesh_query_aabb_next)):
    builtin(_alias, group="Tile Primitives", kernel_only=True)(_target.impl)

__all__ = ["BvhQueryTiled", "MeshQueryAABBTiled", "tile_bvh_query_aabb", "tile_bvh_query_next", "tile_bvh_query_ray",
           "tile_mesh_query_aabb", "tile_mesh_query_aabb_next", "tile_query_valid"]
