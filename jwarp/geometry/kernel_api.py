"""Kernel-side functions of ``warp.geometry`` (``@wp.func``s callable from user kernels):
``find_triangle_neighbor_edge_index`` and ``swept_volume_sdf`` (whose meshes come as an array of
ids: every live mesh whose id the array holds when the launch is bound joins the launch).

Example:
    >>> import numpy as np, jwarp as wp
    >>> import jwarp.geometry
    >>> @wp.kernel
    ... def shared_edge(nbrs: wp.array2d(dtype=wp.int32), out: wp.array(dtype=wp.int32)):
    ...     out[0] = wp.geometry.find_triangle_neighbor_edge_index(nbrs, 0, 1)
    >>> out = wp.zeros(1, dtype=wp.int32)
    >>> wp.launch(shared_edge, 1, inputs=[wp.array([[-1, 1, -1], [0, -1, -1]], dtype=wp.int32), out])
    >>> int(out.numpy()[0])
    1
"""

from __future__ import annotations

import jwarp as wp
from jwarp.geometry.swept_volume import SweptVolumeSignMode


@wp.func
def find_triangle_neighbor_edge_index(triangle_neighbors: wp.array2d(dtype=wp.int32), triangle: wp.int32,
                                      neighbor: wp.int32) -> wp.int32:
    """The local edge ``j`` of ``triangle`` with ``triangle_neighbors[triangle, j] == neighbor``
    (the adjacency of :func:`tri_tri_adjacency`), or -1 when the two triangles are not adjacent."""
    edge = wp.int32(-1)
    if triangle_neighbors[triangle, 2] == neighbor:
        edge = wp.int32(2)
    if triangle_neighbors[triangle, 1] == neighbor:
        edge = wp.int32(1)
    if triangle_neighbors[triangle, 0] == neighbor:
        edge = wp.int32(0)
    return edge


_WINDING = wp.constant(int(SweptVolumeSignMode.WINDING_NUMBER))
_PARITY = wp.constant(int(SweptVolumeSignMode.PARITY))
_NO_SIGN = wp.constant(int(SweptVolumeSignMode.NO_SIGN))


@wp.func
def swept_volume_sdf(point: wp.vec3, mesh_ids: wp.array(dtype=wp.uint64), transforms: wp.array2d(dtype=wp.transform),
                     max_dist: wp.float32, sign_mode: wp.int32) -> wp.float32:
    """The swept-volume pseudo signed distance at ``point``: the smallest signed distance to mesh
    ``m`` at pose ``transforms[m, s]`` over all meshes and poses (``max_dist`` when nothing is
    closer). The point is mapped into each mesh's rest frame; ``sign_mode`` is a
    :class:`SweptVolumeSignMode` value (NORMAL, WINDING_NUMBER, PARITY, or NO_SIGN, whose search
    shrinks to the best distance so far). ``mesh_ids`` is an array of ``Mesh.id`` values."""
    best = max_dist
    for m in range(mesh_ids.shape[0]):
        mesh = mesh_ids[m]
        for s in range(transforms.shape[1]):
            local = wp.transform_point(wp.transform_inverse(transforms[m, s]), point)
            if sign_mode == _WINDING:
                query = wp.mesh_query_point_sign_winding_number(mesh, local, max_dist)
            elif sign_mode == _PARITY:
                query = wp.mesh_query_point_sign_parity(mesh, local, max_dist)
            elif sign_mode == _NO_SIGN:
                query = wp.mesh_query_point_no_sign(mesh, local, best)
            else:
                query = wp.mesh_query_point_sign_normal(mesh, local, max_dist)
            if query.result:
                closest = wp.mesh_eval_position(mesh, query.face, query.u, query.v)
                sign = query.sign
                if sign_mode == _NO_SIGN:
                    sign = 1.0
                best = wp.min(best, sign * wp.length(local - closest))
    return best


__all__ = ["find_triangle_neighbor_edge_index", "swept_volume_sdf"]
