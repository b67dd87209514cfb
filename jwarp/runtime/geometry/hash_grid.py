"""``wp.HashGrid``: points bucketed into a periodic grid of cubic cells, for neighbour queries.

``build(points, radius)`` computes every point's cell (Warp's hashing: ``floor(p / radius)`` per axis,
wrapped into ``dim_x × dim_y × dim_z``), sorts the point indices by cell (stable: points of one cell
stay in index order, as in Warp; one sort of unique ``cell * n + index`` keys, much faster on XLA:CPU
than a stable argsort) and finds each cell's range from per-cell counts and their prefix sum. All of
it is one jitted JAX function. Kernels receive ``grid.id`` and query it with ``wp.hash_grid_query`` (see :mod:`jwarp.builtins.hash_grid`).

Example:
    >>> import numpy as np, jwarp as wp
    >>> grid = wp.HashGrid(8, 8, 8)
    >>> grid.build(wp.array(np.random.rand(100, 3), dtype=wp.vec3), radius=0.25)
    >>> isinstance(grid.id, int)
    True
"""

from __future__ import annotations

import functools
import operator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jwarp.builtins.hash_grid import cell_coord, cell_index
from jwarp.builtins.hash_grid_pairs import doubled_order, row_ranges
from jwarp.compiler.prefix_sums import running_total
from jwarp.lang import composites, scalars
from jwarp.runtime import capture, handles, storage
from jwarp.runtime.array import array
from jwarp.runtime.device import get_device

_MAX_CELL_COUNT = (1 << 31) - 1


@functools.partial(jax.jit, static_argnames=("dims", "capacity"))
def _build(points: Any, inv: Any, groups: Any, hint: Any, dims: tuple, capacity: int) -> tuple:
    """(point ids in cell order, cell starts, cell ends, groups in that order, grid row ranges, the
    doubled order). With ``groups``, points of one cell are ordered by group id as an unsigned number
    (Warp's (cell, group) keys). The last two serve queries lowered as (lane, candidate) pairs
    (:mod:`jwarp.builtins.hash_grid_pairs`); made here, once per build, not in every launch.
    ``hint[:n]``: a permutation of the point indices, the order in which the keys are sorted (any
    gives the same result; the last build's order gives nearly sorted keys)."""
    dx, dy, dz = dims
    n = points.shape[0]
    cells = cell_index(*(cell_coord(points[:, k] * inv) for k in range(3)), dims).astype(jnp.int32)
    if groups is None:  # one sort of unique int64 keys (cell, index): far faster than a stable argsort
        index = hint[:n]
        keys = jnp.sort(cells[index].astype(jnp.int64) * max(n, 1) + index.astype(jnp.int64))
        order = (keys % max(n, 1)).astype(jnp.int32)
    else:
        order = jnp.lexsort((groups.astype(jnp.uint32), cells)).astype(jnp.int32)
    counts = jnp.zeros(dx * dy * dz, jnp.int32).at[cells].add(1, mode="promise_in_bounds")
    ends = running_total(counts, n)
    starts = ends - counts
    point_ids = jnp.zeros(capacity, jnp.int32).at[: order.shape[0]].set(order)
    sorted_groups = jnp.zeros(capacity, jnp.int32)
    if groups is not None:
        sorted_groups = sorted_groups.at[: order.shape[0]].set(groups.astype(jnp.int32)[order])
    grid_rows = row_ranges(starts, ends, dims)
    return point_ids, starts, ends, sorted_groups, grid_rows, doubled_order(point_ids, grid_rows, capacity)


class HashGrid(handles.Registered):
    """A hash grid for neighbour queries on points (Warp's ``wp.HashGrid``).

    Args:
        dim_x, dim_y, dim_z: cells per axis (positions wrap around them).
        device: the device of the grid and of the points it is built from.
        dtype: coordinate precision, ``wp.float32`` (default) or ``wp.float64``.

    Attributes:
        id: the grid's ``uint64`` handle, passed to kernels.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> HashGrid:
        instance = super().__new__(cls)
        instance.id = None
        return instance

    def __init__(self, dim_x: int, dim_y: int, dim_z: int, device: Any = None, dtype: Any = None):
        dtype = scalars.float32 if dtype is None else dtype
        if dtype not in (scalars.float16, scalars.float32, scalars.float64):
            raise TypeError(f"Unsupported dtype {dtype} for HashGrid. Supported types: float16, float32, float64")
        try:
            dims = tuple(operator.index(d) for d in (dim_x, dim_y, dim_z))
        except TypeError as e:
            raise TypeError("HashGrid dimensions must be integers") from e
        if min(dims) <= 0:
            raise RuntimeError("Hash grid dimensions must be positive")
        count = dims[0] * dims[1] * dims[2]
        if count > _MAX_CELL_COUNT:
            raise RuntimeError(f"Hash grid cell count exceeds supported limit: {dims[0]} * {dims[1]} * {dims[2]} = "
                               f"{count} > {_MAX_CELL_COUNT}")
        self.dtype = dtype
        self._vec_type = composites.vector(3, dtype)
        self.device = get_device(device)
        self._dims = dims
        self._capacity = 1
        self._built = False
        self._cell_width_inv = dtype._np_dtype.type(0)
        self._point_ids = array(np.zeros(1, np.int32), dtype=scalars.int32, device=self.device)
        self._point_groups = array(np.zeros(1, np.int32), dtype=scalars.int32, device=self.device)
        self._grouped = False
        self._sorted = None  # (point count, point ids) of the last build without groups
        self._identity = None
        zeros = np.zeros(count, np.int32)
        self._cell_starts = array(zeros, dtype=scalars.int32, device=self.device)
        self._cell_ends = array(zeros, dtype=scalars.int32, device=self.device)
        self._grid_rows = array(np.zeros((dims[1] * dims[2], 2), np.int32), dtype=scalars.int32, device=self.device)
        self._doubled = array(np.zeros(2, np.int32), dtype=scalars.int32, device=self.device)
        self.reserved = False
        self.groups = None
        self.id = handles.register(self)

    def reserve(self, num_points: int, with_groups: bool = False) -> None:
        """Make room for ``num_points`` points, so later builds up to that size keep the buffers."""
        if capture.recording(self.device):
            raise NotImplementedError(
                "HashGrid.reserve() cannot be called during CPU graph capture; reserve before capture")
        self._reserve(int(num_points))
        self._built = True
        self.reserved = True

    def _reserve(self, num_points: int) -> None:
        if num_points > self._capacity:
            self._capacity = num_points * 3 // 2
            self._point_ids = array(np.zeros(self._capacity, np.int32), dtype=scalars.int32, device=self.device)
            self._point_groups = array(np.zeros(self._capacity, np.int32), dtype=scalars.int32, device=self.device)
            self._doubled = array(np.zeros(2 * self._capacity, np.int32), dtype=scalars.int32, device=self.device)

    def build(self, points: array, radius: float, groups: Any = None) -> None:
        """Bucket ``points`` (an array of this grid's vec3 type) into cells of width ``radius``."""
        if composites.canonical(points.dtype) is not self._vec_type:
            raise TypeError(f"Hash grid points should have type {self._vec_type.__name__}, got {points.dtype}")
        if radius <= 0.0:
            raise ValueError(f"Hash grid cell width must be positive, got {radius}")
        if points.device is not self.device:
            raise RuntimeError("points must live on the same device as this HashGrid")
        if groups is not None:
            if groups.dtype != scalars.int32:
                raise RuntimeError("groups should be an array of type wp.int32")
            if groups.device is not self.device:
                raise RuntimeError("groups must live on the same device as this HashGrid")
            if groups.size != points.size:
                raise RuntimeError("groups must have the same length as points")
        if capture.saveable():
            raise NotImplementedError(
                "HashGrid serialization is not yet supported; use apic=False or build outside capture")
        np_float = self.dtype._np_dtype.type
        inv = np_float(1) / np_float(radius)
        self._reserve(points.size)  # at record time inside a capture: the replays keep these buffers
        self._grouped = groups is not None
        self.groups = groups
        self._cell_width_inv = inv
        self._built = True
        self.reserved = True
        written = [self._point_ids, self._point_groups, self._cell_starts, self._cell_ends, self._grid_rows,
                   self._doubled]
        if not capture.deferred(self.device, lambda: self._bucket(points, groups, inv),
                                [points, *written, *([groups] if groups is not None else [])],
                                key=("hash_grid_build", id(self), id(points), id(groups), float(inv))):
            self._bucket(points, groups, inv)

    def _bucket(self, points: array, groups: array | None, inv: Any) -> None:
        """Sort the points into cells (run now, or at each replay of a captured build)."""
        group_data = None if groups is None else groups.buffer.reshape(-1)
        data = points.buffer.reshape(-1, 3)
        with storage.x64():
            point_ids, starts, ends, sorted_groups, grid_rows, doubled = _build(
                data, jnp.asarray(inv), group_data, self._sort_hint(points.size), self._dims, self._capacity)
        traced = isinstance(point_ids, jax.core.Tracer)  # (a captured build's replay: no order to keep)
        self._sorted = (points.size, point_ids) if groups is None and not traced else None
        self._grid_rows._set_buffer(grid_rows)
        self._doubled._set_buffer(doubled)
        self._point_ids._set_buffer(point_ids)
        self._point_groups._set_buffer(sorted_groups)
        self._cell_starts._set_buffer(starts)
        self._cell_ends._set_buffer(ends)

    def _sort_hint(self, count: int) -> Any:
        """The order the build's sort reads the points in: the last build's, when it sorted ``count``
        points without groups, outside a capture's trace, and its ids are still the grid's. Points move
        little between builds, so the keys come nearly sorted: 62,500 keys sort in 1.0 ms instead of
        2.2. Otherwise the index order."""
        ids = self._point_ids.buffer
        if self._sorted is not None and self._sorted[0] == count and self._sorted[1] is ids:
            return ids
        if self._identity is None or self._identity.shape[0] != self._capacity:
            self._identity = jnp.arange(self._capacity, dtype=jnp.int32)
        return self._identity

    def _launch_operands(self) -> handles.LaunchOperands:
        """The grid's buffers for a launch that receives its id (see :mod:`jwarp.runtime.handles`)."""
        static = (("dims", self._dims), ("dtype", self.dtype._np_dtype.name), ("capacity", self._capacity),
                  ("built", self._built), ("grouped", self._grouped))
        arrays = {"point_ids": self._point_ids, "cell_starts": self._cell_starts, "cell_ends": self._cell_ends,
                  "point_groups": self._point_groups, "grid_rows": self._grid_rows, "doubled": self._doubled}
        return handles.LaunchOperands("hash_grid", static, arrays, {"cell_width_inv": (self.dtype, self._cell_width_inv)})


__all__ = ["HashGrid"]
