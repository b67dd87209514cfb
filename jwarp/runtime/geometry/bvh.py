"""``wp.Bvh``: a bounding volume hierarchy over user boxes, for box, sphere, ray and capsule queries.

Built on the host (:mod:`jwarp.runtime.geometry.bvh_build`); kernels receive ``bvh.id`` and
iterate the boxes a query overlaps with ``wp.bvh_query_aabb`` / ``_ray`` / ``_sphere`` /
``_capsule`` and ``wp.bvh_query_next`` (:mod:`jwarp.builtins.bvh_queries`).

Example:
    >>> import numpy as np, jwarp as wp
    >>> lo = wp.array(np.zeros((4, 3), np.float32), dtype=wp.vec3)
    >>> hi = wp.array(np.ones((4, 3), np.float32), dtype=wp.vec3)
    >>> bvh = wp.Bvh(lo, hi)
    >>> bvh.refit()
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jwarp.lang import composites, scalars
from jwarp.runtime import handles
from jwarp.runtime.array import array
from jwarp.runtime.geometry import bvh_build, bvh_refit
from jwarp.runtime.geometry.mesh import assign_group_tables, check_constructor, group_tables, node_bounds


class Bvh(handles.Registered):
    """A BVH over ``n`` boxes ``[lowers[i], uppers[i]]`` (Warp's ``wp.Bvh``).

    Args:
        lowers, uppers: ``wp.vec3`` arrays of the boxes' corners, on one device.
        constructor: ``"sah"``, ``"median"``, ``"lbvh"``, ``"cubql"`` or None (accepted for
            compatibility; query results do not depend on it).
        groups: per-box group ids (``wp.int32``): each group becomes one subtree, whose root
            ``wp.bvh_get_group_root`` returns for the queries' ``root`` argument.
        leaf_size: accepted for compatibility (jwarp's leaves hold one box).

    Attributes:
        id: the BVH's ``uint64`` handle, passed to kernels.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Bvh:
        instance = super().__new__(cls)
        instance.id = None
        return instance

    def __init__(self, lowers: array, uppers: array, constructor: Any = None, groups: array | None = None,
                 leaf_size: int = 1):
        if len(lowers) != len(uppers):
            raise RuntimeError("The same number of lower and upper bounds must be provided")
        if lowers.device != uppers.device:
            raise RuntimeError("Lower and upper bounds must live on the same device")
        if composites.canonical(lowers.dtype) is not composites.vec3 or not lowers.is_contiguous:
            raise RuntimeError("lowers should be a contiguous array of type wp.vec3")
        if composites.canonical(uppers.dtype) is not composites.vec3 or not uppers.is_contiguous:
            raise RuntimeError("uppers should be a contiguous array of type wp.vec3")
        if groups is not None:
            if groups.dtype != scalars.int32 or not groups.is_contiguous:
                raise RuntimeError("groups should be a contiguous array of type wp.int32")
            if groups.device != lowers.device:
                raise RuntimeError("groups must live on the same device as lowers/uppers")
            if len(groups) != len(lowers):
                raise RuntimeError("groups must have the same length as lowers/uppers")
        name = check_constructor(constructor)
        if name == "cubql" and groups is not None:
            raise RuntimeError("Grouped BVHs are not supported with constructor='cubql'")
        if leaf_size < 1:
            raise ValueError(f"leaf_size must be greater than or equal to 1, current value: {leaf_size}")
        self.device = lowers.device
        self.lowers = lowers
        self.uppers = uppers
        self.groups = groups
        self._constructor = name
        self._build()
        self.id = handles.register(self)

    def _boxes(self) -> tuple[np.ndarray, np.ndarray]:
        return (self.lowers.numpy().reshape(-1, 3).astype(np.float32),
                self.uppers.numpy().reshape(-1, 3).astype(np.float32))

    def _group_ids(self) -> np.ndarray | None:
        return None if self.groups is None else self.groups.numpy()

    def _build(self) -> None:
        boxes = self._boxes()
        self._tree = bvh_build.build(*boxes, self._group_ids(), bounds=False)
        self._refitter = bvh_refit.for_tree(self._tree, self.groups is not None, self.device.jax_device)
        self._node_bounds = array(node_bounds(self._tree, self._refitter, *boxes), dtype=scalars.float32,
                                  device=self.device)
        self._node_links = array(self._tree.links, dtype=scalars.int32, device=self.device)
        self._groups = group_tables(self._tree, self.device)

    def refit(self) -> None:
        """Recompute the node boxes from the current ``lowers`` / ``uppers`` (same tree)."""
        if self._refitter is not None:
            self._node_bounds._set_buffer(self._refitter.bounds(self.lowers.buffer, self.uppers.buffer))
            return
        bvh_build.refit(self._tree, *self._boxes())
        self._node_bounds.assign(self._tree.bounds)

    def rebuild(self, constructor: Any = None) -> None:
        """Build the tree anew from the current ``lowers`` / ``uppers``."""
        if constructor is not None:
            name = check_constructor(constructor)
            if name == "cubql" and self._constructor != "cubql":
                raise ValueError("Cannot rebuild a non-cuBQL BVH with constructor='cubql'; create a new BVH instead")
            self._constructor = name
        boxes = self._boxes()
        tree = bvh_build.build(*boxes, self._group_ids(), bounds=False)
        self._tree = tree
        self._refitter = bvh_refit.for_tree(tree, self.groups is not None, self.device.jax_device)
        self._node_bounds.assign(node_bounds(tree, self._refitter, *boxes))
        self._node_links.assign(tree.links)
        self._groups = assign_group_tables(self._groups, tree, self.device)

    def _launch_operands(self) -> handles.LaunchOperands:
        """The BVH's buffers for a launch that receives its id (see :mod:`jwarp.runtime.handles`)."""
        arrays = {"node_bounds": self._node_bounds, "node_links": self._node_links, **self._groups}
        static = (("nodes", self._tree.node_count), ("grouped", self.groups is not None))
        return handles.LaunchOperands("bvh", static, arrays, {})


__all__ = ["Bvh"]
