"""Grouped BVH traversal: ``bvh_get_group_root`` and ``mesh_get_group_root``.

A BVH or mesh built with ``groups=`` keeps each group in one subtree (see
:mod:`jwarp.runtime.geometry.bvh_build`) and ships a sorted table of group ids with their subtree
roots; these builtins look a group up by binary search and return its root node (-1 for a group
that has no box, as Warp), to pass as the ``root`` argument of ``bvh_query_*``, ``mesh_query_ray``,
``mesh_query_ray_anyhit`` and ``mesh_query_ray_count_intersections``. Root values are jwarp's
node numbers (Warp's differ); only -1 and "a valid root" carry meaning across implementations.

Example:
    >>> import jwarp as wp
    >>> @wp.kernel
    ... def count(bvh: wp.uint64, group: int, lower: wp.vec3, upper: wp.vec3, out: wp.array(dtype=int)):
    ...     query = wp.bvh_query_aabb(bvh, lower, upper, wp.bvh_get_group_root(bvh, group))
    ...     i = int(0)
    ...     while wp.bvh_query_next(query, i):
    ...         out[0] += 1
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from jwarp.builtins.bvh_queries import _bound
from jwarp.builtins.bvh_walk import table
from jwarp.builtins.common import Call, Value
from jwarp.builtins.mesh_common import full
from jwarp.compiler.registry import builtin
from jwarp.lang import scalars
from jwarp.compiler.selects import clip, where


def _group_root(call: Call, id: Value, group: Value, kinds: tuple, what: str) -> Value:
    if not (scalars.is_int(id.type) and scalars.is_int(group.type)):
        raise call.no_overload(id, group)
    wanted = full(call, group.data, jnp.int32)
    result: Any = jnp.full(wanted.shape, -1, jnp.int32)
    for handle, selected in _bound(call, full(call, id.data, jnp.uint64), kinds, what):
        keys = table(call, handle, "group_keys")[0]
        roots = table(call, handle, "group_roots")[0]
        at = clip(jnp.searchsorted(keys, wanted), 0, keys.shape[0] - 1)
        root = where(keys[at] == wanted, roots[at], -1)
        result = root if selected is None else where(selected, root, result)
    return Value(scalars.int32, result)


@builtin("bvh_get_group_root", group="Geometry", kernel_only=True)
def bvh_get_group_root(call: Call, id: Value, group: Value) -> Value:
    """The root node of ``group``'s subtree in the BVH ``id`` (-1 when no box has that group; a
    BVH built without groups has the single group 0)."""
    return _group_root(call, id, group, ("bvh", "mesh"), "Bvh")


@builtin("mesh_get_group_root", group="Geometry", kernel_only=True)
def mesh_get_group_root(call: Call, id: Value, group: Value) -> Value:
    """The root node of ``group``'s subtree in the mesh ``id``'s BVH (-1 when no face has that group)."""
    return _group_root(call, id, group, ("mesh",), "Mesh")


__all__ = ["bvh_get_group_root", "mesh_get_group_root"]
