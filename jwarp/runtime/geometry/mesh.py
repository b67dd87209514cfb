"""``wp.Mesh``: a triangle mesh with a BVH over its faces, for closest-point, ray and box queries.

The BVH is built on the host (:mod:`jwarp.runtime.geometry.bvh_build`) over the faces' bounding
boxes and kept as flat node arrays; its node boxes are computed on the device, at build and refit
(:mod:`jwarp.runtime.geometry.bvh_refit`). Kernels receive ``mesh.id`` and query the mesh with the
builtins of :mod:`jwarp.builtins.mesh_queries`; the points array is read live, so after changing
it in place call :meth:`Mesh.refit` (or assign ``mesh.points``, which refits).

Example:
    >>> import numpy as np, jwarp as wp
    >>> points = wp.array(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32), dtype=wp.vec3)
    >>> mesh = wp.Mesh(points=points, indices=wp.array([0, 1, 2], dtype=wp.int32))
    >>> mesh.indices.size
    3
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jwarp.builtins import bvh_trail
from jwarp.lang import composites, scalars
from jwarp.runtime import handles
from jwarp.runtime.array import array
from jwarp.runtime.geometry import bvh_build, bvh_refit, winding_table

CONSTRUCTORS = ("sah", "median", "lbvh", "cubql")


def is_cubql_available() -> bool:
    """Whether ``constructor="cubql"`` is accepted: always (as Warp's CPU build with cuBQL). jwarp
    builds its own tree for every constructor name; the choice does not change query results, and
    cuBQL's restrictions (no groups, no winding numbers, no cubql rebuild of another tree) apply."""
    return True


def check_constructor(constructor: Any) -> str:
    """The constructor's name (jwarp builds every tree the same way; the choice does not change
    query results, as in Warp)."""
    if constructor is None:
        return "sah"
    name = getattr(constructor, "name", constructor)
    name = str(name).lower()
    if name not in CONSTRUCTORS:
        raise ValueError(f"Unknown BVH constructor '{constructor}'. Valid choices are: {', '.join(CONSTRUCTORS)}")
    return name


def group_tables(tree: bvh_build.FlatTree, device: Any) -> dict:
    """A tree's group ids and their subtree roots as launch arrays (for ``*_get_group_root``)."""
    return {"group_keys": array(tree.group_keys, dtype=scalars.int32, device=device),
            "group_roots": array(tree.group_roots, dtype=scalars.int32, device=device)}


def assign_group_tables(tables: dict, tree: bvh_build.FlatTree, device: Any) -> dict:
    """``tables`` updated in place for a rebuilt tree (new arrays when the group count changed)."""
    if tables["group_keys"].shape[0] != tree.group_keys.shape[0]:
        return group_tables(tree, device)
    tables["group_keys"].assign(tree.group_keys)
    tables["group_roots"].assign(tree.group_roots)
    return tables


def node_bounds(tree: bvh_build.FlatTree, refitter: Any, lowers: np.ndarray, uppers: np.ndarray) -> np.ndarray:
    """The node boxes of a tree built with ``bounds=False``: on the device where ``refitter`` (a
    :class:`~jwarp.runtime.geometry.bvh_refit.DeviceRefit`) is given, else by the host refit."""
    if refitter is not None:
        return np.asarray(refitter.bounds(lowers, uppers))
    bvh_build.refit(tree, lowers, uppers)
    return tree.bounds


def _vec3_array(a: Any, what: str) -> None:
    if not isinstance(a, array) or composites.canonical(a.dtype) is not composites.vec3 or not a.is_contiguous:
        raise RuntimeError(f"Mesh {what} should be a contiguous array of type wp.vec3")


class Mesh(handles.Registered):
    """A triangle mesh for spatial queries in kernels (Warp's ``wp.Mesh``).

    Args:
        points: vertex positions, a 1-d ``wp.vec3`` array.
        indices: three vertex indices per triangle, a flat ``wp.int32`` array.
        velocities: optional per-vertex velocities (``wp.vec3``), read by ``mesh_eval_velocity``.
        support_winding_number: lets ``mesh_query_point_sign_winding_number`` use the winding number.
        bvh_constructor: ``"sah"``, ``"median"``, ``"lbvh"``, ``"cubql"`` or None (accepted for
            compatibility; results do not depend on it).
        bvh_leaf_size: accepted for compatibility (jwarp's leaves hold one face).
        groups: optional per-face group ids (``wp.int32``).

    Attributes:
        id: the mesh's ``uint64`` handle, passed to kernels.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Mesh:
        instance = super().__new__(cls)
        instance.id = None
        return instance

    def __init__(self, points: array, indices: array, velocities: array | None = None,
                 support_winding_number: bool = False, bvh_constructor: Any = None, bvh_leaf_size: int | None = None,
                 groups: array | None = None):
        if points.device != indices.device:
            raise RuntimeError("Mesh points and indices must live on the same device")
        _vec3_array(points, "points")
        if velocities is not None:
            _vec3_array(velocities, "velocities")
        if indices.dtype != scalars.int32 or not indices.is_contiguous:
            raise RuntimeError("Mesh indices should be a contiguous array of type wp.int32")
        if indices.ndim > 1:
            raise RuntimeError("Mesh indices should be a flattened 1d array of indices")
        if groups is not None:
            if groups.dtype != scalars.int32 or not groups.is_contiguous:
                raise RuntimeError("groups should be a contiguous array of type wp.int32")
            if groups.device != points.device:
                raise RuntimeError("groups must live on the same device as points")
            if groups.shape[0] != indices.size // 3:
                raise RuntimeError("groups must have the same length as indices / 3")
        constructor = check_constructor(bvh_constructor)
        if constructor == "cubql":
            if groups is not None:
                raise RuntimeError("Grouped mesh queries are not supported with bvh_constructor='cubql'")
            if support_winding_number:
                raise RuntimeError("support_winding_number=True is not supported with bvh_constructor='cubql'")
        if bvh_leaf_size is not None and bvh_leaf_size < 1:
            raise ValueError(f"bvh_leaf_size must be greater than or equal to 1, current value: {bvh_leaf_size}")
        self.device = points.device
        self._points = points
        self._velocities = velocities
        self.indices = indices
        self.groups = groups
        self.support_winding_number = bool(support_winding_number)
        self._constructor = constructor
        tris = indices.numpy().reshape(-1, 3).astype(np.int32)
        self._face_count = tris.shape[0]
        self._tris = array(tris if tris.size else np.zeros((1, 3), np.int32), dtype=scalars.int32, device=self.device)
        self._no_velocities = array(np.zeros((1, 3), np.float32), dtype=composites.vec3, device=self.device)
        lowers, uppers = self._face_bounds()
        self._tree = bvh_build.build(lowers, uppers, None if groups is None else groups.numpy(), bounds=False)
        self._refitter = bvh_refit.for_tree(self._tree, groups is not None, self.device.jax_device)
        # walks read tables built from the boxes in heap order and the faces in the tree's order
        # (jwarp.builtins.bvh_layout.heap_rows): kept where the tree refits on the device
        self._heap_rows = self._refitter is not None and bvh_trail.supported(self._face_count, groups is not None)
        if self._refitter is not None:
            bounds, heap = (np.asarray(x) for x in self._refitter.bounds(lowers, uppers, heap=True))
        else:
            bounds, heap = node_bounds(self._tree, None, lowers, uppers), np.zeros((1, 6), np.float32)
        self._node_bounds = array(bounds, dtype=scalars.float32, device=self.device)
        self._node_heap = array(heap, dtype=scalars.float32, device=self.device)
        # (from the host copy of the faces made above; a mesh without heap boxes keeps one dummy row)
        order = self._tree.order if self._heap_rows else np.zeros(0, np.int32)
        leaf_faces = np.concatenate([tris[order], order[:, None]], axis=1).astype(np.int32)
        if not leaf_faces.size:
            leaf_faces = np.zeros((1, 4), np.int32)
        self._leaf_faces = array(leaf_faces, dtype=scalars.int32, device=self.device)
        self._node_links = array(self._tree.links, dtype=scalars.int32, device=self.device)
        self._groups = group_tables(self._tree, self.device)
        self._winding_table = self.support_winding_number and winding_table.supported(
            self._face_count, groups is not None)
        self._winding_rows = array(self._winding_moments(), dtype=scalars.float32, device=self.device)
        self.id = handles.register(self)

    def _winding_moments(self) -> np.ndarray:
        """The fast-winding-number table (one dummy row when the mesh has none)."""
        if not self._winding_table:
            return np.zeros((1, winding_table.WIDTH), np.float32)
        pts = self._points.numpy().reshape(-1, 3)
        return winding_table.winding_rows(pts, self._tris.numpy()[: self._face_count], self._tree)

    def _face_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        pts = self._points.numpy().reshape(-1, 3).astype(np.float32)
        tris = self._tris.numpy()[: self._face_count]
        if tris.size and (tris.min() < 0 or tris.max() >= pts.shape[0]):
            raise RuntimeError("Mesh indices must lie in [0, len(points))")
        a, b, c = (np.take(pts, tris[:, k], axis=0) for k in range(3))  # (take: numpy's fast row gather)
        edges = (np.linalg.norm(a - b, axis=1) + np.linalg.norm(a - c, axis=1)) + np.linalg.norm(c - b, axis=1)
        self._average_edge_length = np.float32(edges.sum() / max(3 * self._face_count, 1))
        return np.minimum(np.minimum(a, b), c), np.maximum(np.maximum(a, b), c)

    def refit(self) -> None:
        """Refit the BVH to the current points (call after changing ``points`` in place)."""
        if self._refitter is not None:
            tris = self._tris.buffer
            if tris.shape[0] != self._face_count:  # (an empty mesh keeps one row of zeros)
                tris = tris[: self._face_count]  # a slice is one more dispatch: 0.09 ms of the bunny's 0.49
            bounds, heap, self._average_edge_length = self._refitter.mesh(self._points.buffer, tris)
            self._node_bounds._set_buffer(bounds)
            self._node_heap._set_buffer(heap)
        else:
            lowers, uppers = self._face_bounds()
            bvh_build.refit(self._tree, lowers, uppers)
            self._node_bounds.assign(self._tree.bounds)
        if self._winding_table:
            self._winding_rows.assign(self._winding_moments())

    @property
    def points(self) -> array:
        """The vertex positions; assigning a new array of the same shape refits the BVH."""
        return self._points

    @points.setter
    def points(self, points_new: array) -> None:
        if points_new.device != self._points.device:
            raise RuntimeError("The new points and the original points must live on the same device, the new points "
                               f"are on {points_new.device} while the old points are on {self._points.device}.")
        if points_new.ndim != 1 or points_new.shape[0] != self._points.shape[0]:
            raise RuntimeError("The new points and the original points must have the same shape, the new points' "
                               f"shape is {points_new.shape}, while the old points' shape is {self._points.shape}.")
        _vec3_array(points_new, "points")
        self._points = points_new
        self.refit()

    @property
    def velocities(self) -> array | None:
        """The per-vertex velocities (None when the mesh has none); assign to replace them."""
        return self._velocities

    @velocities.setter
    def velocities(self, velocities_new: array) -> None:
        if self._velocities is None:
            raise RuntimeError("This mesh was created without velocities")
        if velocities_new.device != self._velocities.device:
            raise RuntimeError("The new velocities and the original velocities must live on the same device")
        if velocities_new.ndim != 1 or velocities_new.shape[0] != self._velocities.shape[0]:
            raise RuntimeError("The new velocities and the original velocities must have the same shape, the new "
                               f"shape is {velocities_new.shape}, the old one {self._velocities.shape}.")
        _vec3_array(velocities_new, "velocities")
        self._velocities = velocities_new

    def _launch_operands(self) -> handles.LaunchOperands:
        """The mesh's buffers for a launch that receives its id (see :mod:`jwarp.runtime.handles`)."""
        static = (("faces", self._face_count), ("nodes", self._tree.node_count),
                  ("velocities", self._velocities is not None), ("winding", self.support_winding_number),
                  ("winding_table", self._winding_table), ("depth", self._tree.depth),
                  ("grouped", self.groups is not None), ("heap_rows", self._heap_rows))
        arrays = {"points": self._points, "indices": self.indices, "tris": self._tris,
                  "velocities": self._velocities if self._velocities is not None else self._no_velocities,
                  "node_bounds": self._node_bounds, "node_links": self._node_links, "node_heap": self._node_heap,
                  "leaf_faces": self._leaf_faces,
                  "winding_rows": self._winding_rows, **self._groups}
        # (a device refit's result stays a device scalar: a replayed launch passes it on as it is)
        values = {"average_edge_length": (scalars.float32, self._average_edge_length)}
        return handles.LaunchOperands("mesh", static, arrays, values)


__all__ = ["Mesh", "check_constructor", "is_cubql_available"]
