"""Shared plumbing of the mesh builtins: a bound mesh's tables, lane broadcasting, per-mesh merging.

:class:`MeshView` holds what queries read of one mesh bound to a launch: its points as one
``(points, 3)`` table, its faces as ``(faces, 3)`` vertex indices and its BVH. :func:`per_mesh`
evaluates a query once per mesh the id may select (usually one) and merges the lanes' results.

Example (inside a builtin):
    >>> leaves = per_mesh(call, mesh_id, lambda view, lanes: [view.face_count_leaf()])  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any, Callable

import jax.numpy as jnp
from jax import lax

from jwarp.builtins import bvh_layout, bvh_walk
from jwarp.builtins.trig import apart
from jwarp.compiler import handles
from jwarp.compiler.values import Value, leaves_of, to_device_leaf, value_from_leaves
from jwarp.lang import composites, scalars
from jwarp.compiler.selects import where


class MeshView:
    """One bound mesh as lane-gatherable tables (no gradients flow into them)."""

    def __init__(self, call: Any, handle: handles.BoundHandle):
        self.call = call
        self.handle = handle
        self.points = jnp.stack(bvh_walk.table(call, handle, "points"), axis=-1)
        self.tris = bvh_walk.table(call, handle, "tris")[0]
        self.face_count = handle.fact("faces")
        self.tree = bvh_walk.Tree.of(call, handle)
        facts = dict(handle.static)
        self.depth = int(facts.get("depth", 64))

    def velocities(self) -> Any:
        return jnp.stack(bvh_walk.table(self.call, self.handle, "velocities"), axis=-1)

    def corners(self, face: Any, table: Any = None) -> tuple:
        """The three corners ``(a, b, c)`` of each lane's face, as (x, y, z) tuples of lane arrays."""
        table = self.points if table is None else table
        tri = bvh_walk.gather_rows(self.tris, face)
        verts = bvh_walk.gather_rows(table, tri)  # lanes + (3, 3)
        return tuple(tuple(verts[..., k, c] for c in range(3)) for k in range(3))

    def trail_rows(self, extras: Callable[[tuple, tuple, tuple], list]) -> Any:
        """The node table of the stackless walks (:mod:`jwarp.builtins.bvh_layout`) whose leaves hold
        each face's corners (9 coordinates) and then ``extras(a, b, c)`` (at most 3 arrays) of the
        faces with corners ``a``, ``b``, ``c`` ((x, y, z) tuples of arrays over the faces). Built from
        the mesh's node boxes in heap order where it keeps them, else from the pre-order nodes."""
        if not self.handle.fact("heap_rows"):
            def data(prim: Any) -> list:
                a, b, c = self.corners(prim)
                return [*a, *b, *c, *extras(a, b, c)]
            return bvh_layout.node_rows(self.tree, self.face_count, data)
        faces = bvh_walk.table(self.call, self.handle, "leaf_faces")[0]  # (faces, 4): corners' indices, face
        heap = bvh_walk.table(self.call, self.handle, "node_heap")[0]
        # the corners gathered row-major (the rows' own layout), in loops of their own, and
        # coordinate-major for the arithmetic, which then vectorises (Warp's bunny, sign-normal
        # columns: 0.36 -> 0.30 ms; gathered coordinate-major 0.36, arithmetic on strided columns 0.37-0.42)
        count = faces.shape[0]
        corners = apart(jnp.take(self.points, faces[:, :3], axis=0).reshape(count, 9))
        by_coordinate = apart(corners.T)
        a, b, c = (tuple(by_coordinate[3 * k + j] for j in range(3)) for k in range(3))
        more = extras(a, b, c)
        leaves = corners if not more else jnp.concatenate([corners, apart(jnp.stack(more)).T], axis=1)
        return bvh_layout.heap_rows(heap, leaves, faces[:, 3])

    def average_edge_length(self) -> Any:
        return jnp.asarray(self.handle.values["average_edge_length"].data, jnp.float32)


def lanes(call: Any) -> tuple:
    return tuple(call.ctx.grid)


def full(call: Any, leaf: Any, dtype: Any = None) -> Any:
    """A lane array of the launch's shape (optionally cast)."""
    x = jnp.asarray(to_device_leaf(leaf))
    if dtype is not None:
        x = x.astype(dtype)
    return jnp.broadcast_to(x, lanes(call))


def vec3_leaves(call: Any, value: Value, dtype: Any = jnp.float32) -> tuple:
    return tuple(full(call, x, dtype) for x in leaves_of(value))


def active(call: Any) -> Any:
    return jnp.ones(lanes(call), bool) if call.mask is None else jnp.broadcast_to(call.mask, lanes(call))


def check_vec3(value: Value) -> bool:
    return composites.is_vector(value.type) and value.type._length_ == 3 and \
        value.type._wp_scalar_type_ == scalars.float32


def per_mesh(call: Any, mesh_id: Value, fn: Callable[[MeshView, Any], list]) -> list:
    """``fn(view, lanes)`` for each mesh the id may select; lanes take their own mesh's leaves."""
    call.require_kernel()
    out = None
    for handle, selected in handles.candidates(call, mesh_id, "mesh", "Mesh"):
        leaves = fn(MeshView(call, handle), selected)
        if out is None:
            out = leaves
        else:
            out = [where(selected, new, old) for new, old in zip(leaves, out)]
    return out


def write_back(call: Any, index: int, target: Value, leaves: list, keep: Any) -> None:
    """Assign ``leaves`` to the in-out argument ``index`` on lanes ``keep`` (others keep their value)."""
    old = [full(call, x) for x in leaves_of(target)]
    dtypes = [o.dtype for o in old]
    new = [where(keep, n.astype(d), o) for n, o, d in zip(leaves, old, dtypes)]
    call.assign_back(index, value_from_leaves(target.type, new))


def stop(x: Any) -> Any:
    return lax.stop_gradient(x)


__all__ = ["MeshView", "active", "check_vec3", "full", "per_mesh", "vec3_leaves", "write_back"]
