"""``warp.geometry``: isosurface extraction and geometry processing.

:class:`IsoSurfaceMarchingCubes` (dense-field marching cubes, Warp's output order, differentiable
from the field to the vertices) and its interface :class:`IsoSurfaceBase`; :func:`tri_tri_adjacency`
and :func:`delaunay_edge_flip`; :class:`IsoSurfaceNets` (surface nets, one vertex per cell);
swept volumes (``swept_volume_field`` / ``_mesh`` / ``_bounds``); sparse marching cubes
(``sparse_marching_cubes``, ``lipschitz_octree``, ``sparse_marching_cubes_from_cells``); the kernel-side
``find_triangle_neighbor_edge_index`` and ``swept_volume_sdf`` (mesh ids from an array).

Example:
    >>> import numpy as np, jwarp as wp
    >>> import jwarp.geometry
    >>> field = wp.array(np.random.rand(4, 4, 4).astype(np.float32), dtype=float)
    >>> iso = wp.geometry.IsoSurfaceMarchingCubes(4, 4, 4)
    >>> iso.surface(field, 0.5)
    >>> iso.indices.dtype is wp.int32
    True
"""

from __future__ import annotations

from jwarp.runtime.geometry.delaunay import delaunay_edge_flip as delaunay_edge_flip
from jwarp.runtime.geometry.delaunay import tri_tri_adjacency as tri_tri_adjacency
from jwarp.runtime.geometry.iso_surface import IsoSurfaceBase as IsoSurfaceBase
from jwarp.runtime.geometry.iso_surface import IsoSurfaceMarchingCubes as IsoSurfaceMarchingCubes
from jwarp.runtime.geometry.iso_surface import IsoSurfaceNets as IsoSurfaceNets
from jwarp.geometry.kernel_api import find_triangle_neighbor_edge_index as find_triangle_neighbor_edge_index
from jwarp.geometry.kernel_api import swept_volume_sdf as swept_volume_sdf
from jwarp.geometry.sparse_marching_cubes import lipschitz_octree as lipschitz_octree
from jwarp.geometry.sparse_marching_cubes import sparse_marching_cubes as sparse_marching_cubes
from jwarp.geometry.sparse_marching_cubes import sparse_marching_cubes_from_cells as sparse_marching_cubes_from_cells
from jwarp.geometry.swept_volume import SweptVolumeSignMode as SweptVolumeSignMode
from jwarp.geometry.swept_volume import swept_volume_bounds as swept_volume_bounds
from jwarp.geometry.swept_volume import swept_volume_field as swept_volume_field
from jwarp.geometry.swept_volume import swept_volume_mesh as swept_volume_mesh

__all__ = ["IsoSurfaceBase", "IsoSurfaceMarchingCubes", "IsoSurfaceNets", "SweptVolumeSignMode", "delaunay_edge_flip",
           "find_triangle_neighbor_edge_index", "lipschitz_octree", "sparse_marching_cubes",
           "sparse_marching_cubes_from_cells", "swept_volume_bounds", "swept_volume_field", "swept_volume_mesh",
           "swept_volume_sdf", "tri_tri_adjacency"]
