"""Kernel-side functions of ``warp.geometry`` (``@wp.func``s callable from user kernels).

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


__all__ = ["find_triangle_neighbor_edge_index"]
