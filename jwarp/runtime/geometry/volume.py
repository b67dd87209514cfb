"""``wp.Volume``: a sparse grid of 8×8×8 tiles with an index↔world transform (Warp's NanoVDB volumes).

jwarp builds volumes from dense data and point sets (``load_from_numpy``, ``allocate``,
``allocate_by_tiles``, ``allocate_by_voxels``), not from NanoVDB buffers. The leaves' values are
one flat array (512 voxels per tile, in NanoVDB's leaf and voxel order) and a dense int32 *tile map*
over the tiles' bounding box gives each tile's leaf (see :mod:`volume_topology`). Kernels receive
``volume.id`` and use the ``volume_*`` builtins (:mod:`jwarp.builtins.volume`); voxels without a
tile read the background value, and ``volume_store`` writes only allocated voxels, as in Warp.

Example:
    >>> import numpy as np, jwarp as wp
    >>> v = wp.Volume.load_from_numpy(np.ones((4, 4, 4), np.float32), voxel_size=0.5, bg_value=0.0)
    >>> v.get_tile_count(), v.get_voxel_size()
    (1, (0.5, 0.5, 0.5))
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from jwarp.lang import composites, scalars
from jwarp.runtime import handles
from jwarp.runtime.array import array
from jwarp.runtime.device import get_device
from jwarp.runtime.geometry import nanovdb
from jwarp.runtime.geometry import volume_rebuild as rebuild
from jwarp.runtime.geometry import volume_topology as topo
from jwarp.runtime.geometry.volume_args import (GRID_TYPES, VALUE_TYPES, grid_type_of, mask_points,
                                                 normalize_voxel_size, points_numpy)

# NanoVDB type names of the value types a volume may hold (Warp's _nvdb_type_to_dtype)
_TYPE_NAMES = VALUE_TYPES
_FEATURE_TYPES = {**GRID_TYPES, "int16": scalars.int16, "Half": scalars.float16, "bool": scalars.bool_,
                  "uint8": scalars.uint8, "Vec3u8": composites.vector(3, scalars.uint8),
                  "Vec3u16": composites.vector(3, scalars.uint16)}
INDEX_TYPES = ("Index", "OnIndex", "IndexMask", "OnIndexMask")


def _width(t: Any) -> int:
    return t._length_ if t is not None and composites.is_composite(t) else 1


def _scalar(t: Any) -> Any:
    if t is None:
        return scalars.float32
    return t._wp_scalar_type_ if composites.is_composite(t) else t


class Volume(handles.Registered):
    """A sparse volume of 8×8×8 tiles (Warp's ``wp.Volume``), built from dense data or points.

    Attributes:
        id: the volume's ``uint64`` handle, passed to kernels.
        CLOSEST, LINEAR: sampling modes of ``wp.volume_sample``.
    """

    CLOSEST = 0
    LINEAR = 1
    REBUILD_SUCCESS = rebuild.SUCCESS
    REBUILD_LEAF_CAPACITY_EXCEEDED = rebuild.LEAF_EXCEEDED
    REBUILD_LOWER_CAPACITY_EXCEEDED = rebuild.LOWER_EXCEEDED
    REBUILD_UPPER_CAPACITY_EXCEEDED = rebuild.UPPER_EXCEEDED
    REBUILD_VOXEL_CAPACITY_EXCEEDED = rebuild.VOXEL_EXCEEDED
    REBUILD_INVALID_INPUT = rebuild.INVALID_INPUT
    _NANOVDB_LEAF_TABLE_COUNT = topo.LEAF_VOXELS

    class RebuildInfo(NamedTuple):
        kind: str | None
        max_voxel_count: int
        max_leaf_node_count: int
        max_lower_node_count: int
        max_upper_node_count: int

    class ActiveStats(NamedTuple):
        voxel_count: int
        leaf_node_count: int
        lower_node_count: int
        upper_node_count: int

    class GridInfo(NamedTuple):
        name: str
        size_in_bytes: int
        grid_index: int
        grid_count: int
        type_str: str
        translation: Any
        transform_matrix: Any

    def __new__(cls, *args: Any, **kwargs: Any) -> Volume:
        instance = super().__new__(cls)
        instance.id = None
        return instance

    def __init__(self, data: array | None, copy: bool = True):
        self._rebuild_info = Volume.RebuildInfo(None, 0, 0, 0, 0)
        if data is None:
            return
        raw = data.numpy().view(np.uint8).reshape(-1).tobytes() if isinstance(data, array) else bytes(data)
        buffers = nanovdb.split_grids(raw)
        loaded = Volume._from_grids(buffers, 0, getattr(data, "device", None), nanovdb.parse_all(buffers)[0])
        self.__dict__.update({k: v for k, v in loaded.__dict__.items() if k != "id"})
        self.id = handles.register(self)

    @staticmethod
    def _decode_nvdb_name(name: Any) -> str:
        """A fixed-size NanoVDB name field (bytes) as a string."""
        return nanovdb.decode_name(bytes(name))

    # ------------------------------------------------------------------ construction
    def _build(self, device: Any, tiles: np.ndarray, grid_type: str, bg_value: Any, transform: np.ndarray,
               translation: Any, active_voxels: np.ndarray | None = None, constant_tiles: list | None = None,
               capacity: int = 0) -> None:
        """Set up the volume for ``tiles`` (origins in NanoVDB order); ``constant_tiles``: ``(origin,
        value)`` of tiles without a leaf that hold one value (NanoVDB internal tiles); ``capacity``:
        leaves to make room for (rebuildable volumes)."""
        self.device = get_device(device)
        self._grid_type = grid_type
        self._is_index = grid_type in INDEX_TYPES
        self._grid_meta = ("", None, 0, 1)  # name, size in bytes (None: jwarp's storage size), index, count
        self._dtype = None if self._is_index else GRID_TYPES.get(grid_type)  # None: no values jwarp reads (FpN)
        if self._dtype is None:
            self._bg, self._bg_np = scalars.float32(0.0), np.zeros(1, np.float32)
        else:
            dtype = self._dtype
            self._bg = dtype(*bg_value) if composites.is_composite(dtype) else dtype(bg_value)
            self._bg_np = np.asarray(bg_value, dtype=_scalar(dtype)._np_dtype).copy()
        self._capacity = capacity
        self._set_topology(tiles, active_voxels, constant_tiles)
        mat = np.asarray(transform, np.float32).reshape(3, 3)
        try:
            inv = np.linalg.inv(mat.astype(np.float64))
        except np.linalg.LinAlgError:  # a file's degenerate transform (loaded grids use the file's inverse)
            inv = np.zeros((3, 3))
        self._mat, self._inv = mat, inv
        self._translation = np.asarray([float(t) for t in translation], np.float32)
        self._invf = inv.astype(np.float32)
        self._matd, self._invd, self._vecd = mat.astype(np.float64), inv, self._translation.astype(np.float64)
        self._voxel_size = None
        self._launch_values = None
        self.id = handles.register(self)

    def _set_topology(self, tiles: np.ndarray, active_voxels: np.ndarray | None = None,
                      constant_tiles: list | None = None) -> None:
        """Buffers for ``tiles``: the tile map, background-filled values and voxel indices."""
        self._tiles = tiles
        constant_tiles = constant_tiles or []
        self._constant = bool(constant_tiles)
        slots, origin = topo.tile_map(tiles, constant_tiles=[o for o, _ in constant_tiles] or None)
        self._tile_origin = origin
        self._tile_map = array(slots, dtype=scalars.int32, device=self.device)
        n = max(tiles.shape[0], self._capacity) * topo.LEAF_VOXELS
        if self._dtype is None:
            self._values = array(np.zeros(1, np.float32), dtype=scalars.float32, device=self.device)
            index, self._index_count = topo.active_index(tiles, active_voxels)
            if index.shape[0] < n:
                index = np.concatenate([index, np.full(n - index.shape[0], -1, np.int32)])
            self._voxel_index = array(index, dtype=scalars.int32, device=self.device)
        else:
            dtype = self._dtype
            shape = (max(n, 1),) + ((dtype._length_,) if composites.is_composite(dtype) else ())
            fill = np.broadcast_to(self._bg_np, shape)
            self._values = array(np.ascontiguousarray(fill), dtype=dtype, device=self.device)
            self._voxel_index = array(np.zeros(1, np.int32), dtype=scalars.int32, device=self.device)
            self._index_count = tiles.shape[0] * topo.LEAF_VOXELS
        values = [v for _, v in constant_tiles] or [np.zeros(_width(self._dtype))]
        scalar = _scalar(self._dtype)
        self._tile_values = array(np.asarray(values, scalar._np_dtype).reshape(len(values), -1).squeeze(-1)
                                  if _width(self._dtype) == 1 else np.asarray(values, scalar._np_dtype),
                                  dtype=self._dtype or scalars.float32, device=self.device)

    @classmethod
    def _new(cls) -> Volume:
        return cls(data=None)

    @staticmethod
    def _transform(voxel_size: Any, transform: Any) -> np.ndarray:
        if transform is None:
            if voxel_size is None:
                raise ValueError("Either 'voxel_size' or 'transform' must be provided")
            return np.diag(np.asarray(normalize_voxel_size(voxel_size), np.float32))
        if voxel_size is not None:
            raise ValueError("Only one of 'voxel_size' or 'transform' must be provided")
        return np.asarray(transform, np.float32).reshape(3, 3)

    def _to_index(self, points: np.ndarray, mat: np.ndarray, translation: Any) -> np.ndarray:
        """World points to voxels as NanoVDB's builder rounds them (float32, ``floor(x + 0.5)``)."""
        inv = np.linalg.inv(mat.astype(np.float64)).astype(np.float32)
        rel = points.astype(np.float32) - np.asarray(translation, np.float32)
        ijk = (rel[:, None, :] * inv[None, :, :]).sum(axis=2, dtype=np.float32)
        return np.floor(ijk + np.float32(0.5)).astype(np.int64)

    @classmethod
    def load_from_numpy(cls, ndarray: np.ndarray, min_world: Any = (0.0, 0.0, 0.0), voxel_size: Any = 1.0,
                        bg_value: Any = 0.0, device: Any = None) -> Volume:
        """A volume holding a dense 3-d array (or 4-d with a last axis of 3 for a vec3 volume) whose
        voxel ``(0, 0, 0)`` sits at ``min_world``. A Python ``int`` ``bg_value`` makes an int32 volume,
        a sequence a vec3f volume, anything else a float32 volume."""
        voxel_size = normalize_voxel_size(voxel_size)
        ndarray = np.asarray(ndarray)
        target = tuple(math.ceil(ndarray.shape[a] / 8) * 8 for a in range(3))
        if hasattr(bg_value, "__len__"):
            padded = np.full(target + (3,), bg_value, dtype=np.float32)
            padded[: ndarray.shape[0], : ndarray.shape[1], : ndarray.shape[2], :] = ndarray
            cast = np.float32
        else:
            padded = np.full(target, bg_value, dtype=ndarray.dtype)
            padded[: ndarray.shape[0], : ndarray.shape[1], : ndarray.shape[2]] = ndarray
            cast = np.int32 if isinstance(bg_value, int) else np.float32
        shape = padded.shape
        upper = [min_world[a] + (shape[a] - 1) * voxel_size[a] for a in range(3)]
        volume = cls.allocate(min_world, upper, voxel_size, bg_value=bg_value, points_in_world_space=True,
                              translation=min_world, device=device)
        coords = topo.voxel_coords(volume._tiles)
        inside = np.all((coords >= 0) & (coords < np.array(shape[:3])), axis=1)
        values = volume._values.numpy().copy()
        values[np.nonzero(inside)[0]] = padded[coords[inside, 0], coords[inside, 1], coords[inside, 2]].astype(cast)
        volume._values._set_buffer(array(values, dtype=volume._dtype, device=volume.device).buffer)
        return volume

    @classmethod
    def allocate(cls, min: Any, max: Any, voxel_size: Any, bg_value: Any = 0.0, translation: Any = (0.0, 0.0, 0.0),
                 points_in_world_space: bool = False, device: Any = None) -> Volume:
        """A volume with every tile that overlaps voxels ``min`` … ``max`` (inclusive; world
        coordinates when ``points_in_world_space``)."""
        voxel_size = normalize_voxel_size(voxel_size)
        if points_in_world_space:
            vs = np.asarray(voxel_size, dtype=np.float32)
            min = np.around((np.array(min, dtype=np.float32) - translation) / vs)
            max = np.around((np.array(max, dtype=np.float32) - translation) / vs)
        lo = np.array(min, dtype=np.int32) // 8
        hi = np.array(max, dtype=np.int32) // 8
        axes = [np.arange(lo[a], hi[a] + 1) for a in range(3)]
        grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3).astype(np.int32) * 8
        return cls.allocate_by_tiles(array(grid, dtype=scalars.int32, device=device), voxel_size, bg_value,
                                     translation, device)

    @classmethod
    def allocate_by_tiles(cls, tile_points: array, voxel_size: Any = None, bg_value: Any = 0.0,
                          translation: Any = (0.0, 0.0, 0.0), device: Any = None, transform: Any = None,
                          rebuildable: bool = False, max_tiles: int | None = None, max_lower_nodes: int | None = None,
                          max_upper_nodes: int | None = None, status: array | None = None,
                          point_mask: array | None = None) -> Volume:
        """A volume with the tiles that contain ``tile_points`` (integer: index space; float: world
        space). ``bg_value=None`` makes an index volume."""
        data, world = points_numpy(tile_points, "tile_points")
        rebuildable = rebuildable or any(x is not None for x in (max_tiles, max_lower_nodes, max_upper_nodes))
        mat = cls._transform(voxel_size, transform)
        device = get_device(device or tile_points.device)
        status = rebuild.check_status(status, device) if rebuildable else None
        caps = None
        if rebuildable:
            leaves = rebuild.capacity(max_tiles, data.shape[0], "max_tiles")
            lower = rebuild.capacity(max_lower_nodes, leaves, "max_lower_nodes")
            caps = (None, leaves, lower, rebuild.capacity(max_upper_nodes, lower, "max_upper_nodes"))
        data = mask_points(data, point_mask)
        volume = cls._new()
        ijk = volume._to_index(data, mat, translation) if world else data.astype(np.int64)
        tiles = topo.order_tiles(topo.tile_origins(ijk))
        flags = 0
        if caps is not None:
            tiles, _, flags = rebuild.fit(tiles, None, caps)
        grid_type = "Index" if bg_value is None else _TYPE_NAMES[grid_type_of(bg_value)]
        volume._build(device, tiles, grid_type, bg_value, mat, translation, capacity=caps[1] if caps else 0)
        if caps is not None:
            volume._rebuild_info = Volume.RebuildInfo("tiles", caps[1] * topo.LEAF_VOXELS, *caps[1:])
            rebuild.write_status(status, flags)
        return volume

    @classmethod
    def allocate_by_voxels(cls, voxel_points: array, voxel_size: Any = None, translation: Any = (0.0, 0.0, 0.0),
                           device: Any = None, transform: Any = None, rebuildable: bool = False,
                           max_active_voxels: int | None = None, max_leaf_nodes: int | None = None,
                           max_lower_nodes: int | None = None, max_upper_nodes: int | None = None,
                           status: array | None = None, point_mask: array | None = None) -> Volume:
        """An index volume whose active voxels are ``voxel_points`` (integer: index space; float:
        world space); ``volume_lookup_index`` numbers them in NanoVDB's order."""
        data, world = points_numpy(voxel_points, "voxel_points")
        rebuildable = rebuildable or any(x is not None for x in (max_active_voxels, max_leaf_nodes, max_lower_nodes,
                                                                 max_upper_nodes))
        mat = cls._transform(voxel_size, transform)
        device = get_device(device or voxel_points.device)
        status = rebuild.check_status(status, device) if rebuildable else None
        caps = None
        if rebuildable:
            voxels = rebuild.capacity(max_active_voxels, data.shape[0], "max_active_voxels")
            leaves = rebuild.capacity(max_leaf_nodes, voxels, "max_leaf_nodes")
            lower = rebuild.capacity(max_lower_nodes, leaves, "max_lower_nodes")
            caps = (voxels, leaves, lower, rebuild.capacity(max_upper_nodes, lower, "max_upper_nodes"))
        data = mask_points(data, point_mask)
        volume = cls._new()
        ijk = volume._to_index(data, mat, translation) if world else data.astype(np.int64)
        tiles = topo.order_tiles(topo.tile_origins(ijk))
        flags = 0
        if caps is not None:
            tiles, ijk, flags = rebuild.fit(tiles, ijk, caps)
        volume._build(device, tiles, "OnIndex", None, mat, translation, active_voxels=ijk,
                      capacity=caps[1] if caps else 0)
        if caps is not None:
            volume._rebuild_info = Volume.RebuildInfo("voxels", *caps)
            rebuild.write_status(status, flags)
        return volume

    @classmethod
    def load_from_nvdb(cls, file_or_buffer: Any, device: Any = None) -> Volume:
        """A volume from a serialized NanoVDB file (a file object or its bytes; codecs none, zip and
        blosc). The volume holds the file's first grid; ``load_next_grid`` gives the next ones."""
        try:
            data = file_or_buffer.read()
        except AttributeError:
            data = file_or_buffer
        buffers = nanovdb.read_file(data)
        return cls._from_grids(buffers, 0, device, nanovdb.parse_all(buffers)[0])

    @classmethod
    def _from_grids(cls, buffers: list, index: int, device: Any, grid: Any = None) -> Volume:
        grid = grid or nanovdb.parse_grid(buffers[index])
        volume = cls._new()
        bg = grid.background
        bg_value = None if grid.leaf_values is None else (bg.tolist() if bg.size > 1 else bg[0])
        volume._build(device, grid.leaf_origins, grid.type_str, bg_value, grid.matf, grid.vecf,
                      constant_tiles=grid.tiles)
        if grid.leaf_values is not None:
            volume._values._set_buffer(array(grid.leaf_values, dtype=volume._dtype, device=volume.device).buffer)
        else:
            volume._voxel_index = array(grid.voxel_index, dtype=scalars.int32, device=volume.device)
            volume._index_count = grid.voxel_count
        volume._invf = grid.invmatf
        volume._matd, volume._invd, volume._vecd = grid.matd, grid.invmatd, grid.vecd
        volume._inv = grid.invmatd
        volume._voxel_size = grid.voxel_size
        volume._grid_meta = (grid.name, grid.size_in_bytes, index, len(buffers))
        volume._grid_buffers = buffers
        volume._features = grid.features
        volume._value_offsets = grid.value_offsets if grid.leaf_values is not None else None
        return volume

    @classmethod
    def load_from_address(cls, grid_ptr: int, buffer_size: int = 0, device: Any = None) -> Volume:
        """Not supported: jwarp volumes are not NanoVDB buffers in memory."""
        raise NotImplementedError("Volume.load_from_address: jwarp cannot read NanoVDB buffers")

    def save_to_nvdb(self, path: Any, codec: str = "none") -> Any:
        """Write a volume loaded from NanoVDB (with its current values) as a ``.nvdb`` file
        (codecs "none", "zip", "blosc"); volumes built by jwarp have no NanoVDB buffer to write."""
        if getattr(self, "_grid_buffers", None) is None:
            raise NotImplementedError("Volume.save_to_nvdb: only volumes loaded from NanoVDB can be written by "
                                      "jwarp (volumes built from numpy data or points have no NanoVDB buffer)")
        if self._grid_meta[2] > 0:
            raise RuntimeError("Saving of aliased Volumes is not supported. Use `save_to_nvdb` on the original "
                               "volume, before any `load_next_grid` calls.")
        return nanovdb.write_file(path, nanovdb.split_grids(self._nvdb_bytes()), codec)

    def _nvdb_bytes(self) -> bytes:
        """This grid's NanoVDB buffer with its current leaf values, followed by the file's next grids."""
        buffers, index = self._grid_buffers, self._grid_meta[2]
        current = buffers[index]
        if self._value_offsets is not None and len(self._value_offsets):
            n = len(self._value_offsets) * topo.LEAF_VOXELS
            current = nanovdb.patch_values(current, self._value_offsets, self._values.numpy()[:n])
        return b"".join([current, *buffers[index + 1:]])

    def load_next_grid(self) -> Volume | None:
        """The next grid of the NanoVDB file this volume was loaded from (None after the last)."""
        buffers = getattr(self, "_grid_buffers", None)
        index = self._grid_meta[2] + 1
        if buffers is None or index >= len(buffers):
            return None
        return Volume._from_grids(buffers, index, self.device)

    def rebuild(self, points: array, status: array | None = None, point_mask: array | None = None) -> array | None:
        """Replace the topology of a rebuildable volume with the tiles (or voxels, for
        ``allocate_by_voxels`` volumes) of ``points``; values are reset to the background. Returns
        ``status`` (Warp's ``REBUILD_*`` flags) when given."""
        kind = self._rebuild_info.kind
        if kind is None:
            raise RuntimeError("Volume was not allocated as a rebuildable tile volume")
        data, world = points_numpy(points, "tile_points" if kind == "tiles" else "voxel_points")
        status = rebuild.check_status(status, self.device)
        if point_mask is not None and (not isinstance(point_mask, array) or point_mask.dtype != scalars.int32
                                       or point_mask.ndim != 1 or point_mask.shape[0] < data.shape[0]):
            raise RuntimeError("point_mask must be a contiguous 1D Warp array with dtype int32")
        if point_mask is not None:
            data = data[point_mask.numpy()[: data.shape[0]] != 0]
        ijk = self._to_index(data, self._mat, self._translation) if world else data.astype(np.int64)
        tiles = topo.order_tiles(topo.tile_origins(ijk))
        caps = tuple(self._rebuild_info[1:]) if kind == "voxels" else (None, *self._rebuild_info[2:])
        tiles, ijk, flags = rebuild.fit(tiles, ijk if kind == "voxels" else None, caps)
        self._set_topology(tiles, ijk if kind == "voxels" else None)
        rebuild.write_status(status, flags)
        return status

    # ------------------------------------------------------------------ introspection
    def _check(self) -> None:
        if not self.id:
            raise RuntimeError("Invalid Volume")

    def get_tile_count(self) -> int:
        """Number of tiles (NanoVDB leaf nodes; the reserved leaves of a rebuildable volume)."""
        if self._rebuild_info.kind is not None:
            return int(self._rebuild_info.max_leaf_node_count)
        return int(self._tiles.shape[0])

    def get_voxel_count(self) -> int:
        """Number of allocated voxels (512 per tile; the active voxels of an ``allocate_by_voxels``
        volume; the reserved capacity of a rebuildable volume)."""
        if self._rebuild_info.kind is not None:
            return int(self._rebuild_info.max_voxel_count)
        return int(self._index_count)

    def _coords_out(self, coords: np.ndarray, out: array | None, rows: int) -> array:
        """``coords`` in ``out`` (or a new ``rows × 3`` array; rows past the coordinates are 0: the
        reserved, inactive entries of a rebuildable volume)."""
        if out is None:
            full = np.zeros((max(rows, coords.shape[0]), 3), np.int32)
            full[: coords.shape[0]] = coords
            return array(full, dtype=scalars.int32, device=self.device)
        if out.device != self.device or out.shape[0] < coords.shape[0]:
            raise RuntimeError(f"'out' array must an array with at least {coords.shape[0]} rows on device "
                               f"{self.device}")
        current = out.numpy()
        flat = current.reshape(current.shape[0], -1).copy()
        if not out.is_contiguous or flat.shape[1] != 3 or flat.dtype != np.int32:
            raise RuntimeError("'out' must be a contiguous 1D array with type vec3i or a 2D array of type int32 with "
                               "shape (N, 3) ")
        flat[: coords.shape[0]] = coords
        out.assign(flat.reshape(current.shape))
        return out

    def get_tiles(self, out: array | None = None) -> array:
        """Origins of the allocated tiles (``tile_count × 3`` int32), in NanoVDB's leaf order."""
        self._check()
        return self._coords_out(self._tiles, out, self.get_tile_count())

    def get_voxels(self, out: array | None = None) -> array:
        """Coordinates of the allocated voxels (``voxel_count × 3`` int32), in NanoVDB's order."""
        self._check()
        coords = topo.voxel_coords(self._tiles)
        if self._is_index and self._index_count != coords.shape[0]:
            coords = coords[self._voxel_index.numpy()[: coords.shape[0]] >= 0]
        return self._coords_out(coords, out, self.get_voxel_count())

    def get_active_stats(self) -> Volume.ActiveStats:
        """Active voxel, leaf, lower and upper node counts."""
        tiles = self._tiles.astype(np.int64)
        lower = len({tuple(t) for t in tiles >> 7})
        upper = len({tuple(t) for t in tiles >> 12})
        return Volume.ActiveStats(int(self._index_count), int(tiles.shape[0]), lower, upper)

    def get_voxel_size(self) -> tuple[float, float, float]:
        """The world-space diagonal of a voxel (the transform applied to ``(1, 1, 1)``)."""
        self._check()
        size = self._voxel_size or self._mat.astype(np.float64) @ np.ones(3)
        return tuple(float(np.float32(s)) for s in size)

    def get_grid_info(self) -> Volume.GridInfo:
        """Grid metadata (name, size of the value storage in bytes, index/count, type, transform)."""
        self._check()
        name, size, index, count = self._grid_meta
        if size is None:
            size = int(self._values.size * self._values.numpy().itemsize) + int(self._tile_map.size) * 4
        vec3 = composites.vector(3, scalars.float32)
        mat33 = composites.matrix((3, 3), scalars.float32)
        return Volume.GridInfo(name, size, index, count, self._grid_type, vec3(*self._translation.tolist()),
                               mat33(*self._mat.reshape(-1).tolist()))

    @property
    def dtype(self) -> Any:
        """The type of the values (None for index volumes)."""
        return self._dtype

    @property
    def is_index(self) -> bool:
        """Whether the volume is an index grid (no values; voxels map to linear indices)."""
        return self._is_index

    @property
    def is_rebuildable(self) -> bool:
        return self._rebuild_info.kind is not None

    def get_rebuild_info(self) -> Volume.RebuildInfo:
        return self._rebuild_info

    class FeatureArrayInfo(NamedTuple):
        name: str
        ptr: int
        value_size: int
        value_count: int
        type_str: str

    def get_feature_array_count(self) -> int:
        """Number of supplemental (NanoVDB blind data) arrays of a volume loaded from a file."""
        return len(getattr(self, "_features", ()))

    def get_feature_array_info(self, feature_index: int) -> Volume.FeatureArrayInfo:
        """Name, value size and count and type of feature array ``feature_index`` (``ptr`` is 0:
        jwarp arrays have no addresses)."""
        features = getattr(self, "_features", ())
        if not 0 <= feature_index < len(features):
            raise RuntimeError("Invalid feature array")
        name, _, size, count, type_str = features[feature_index]
        return Volume.FeatureArrayInfo(name, 0, size, count, type_str)

    def feature_array(self, feature_index: int, dtype: Any = None) -> array:
        """Feature array ``feature_index`` as a ``wp.array`` of ``dtype`` (default: from its metadata;
        byte arrays convert to and from any type, as in Warp)."""
        info = self.get_feature_array_info(feature_index)
        if dtype is None:
            dtype = _FEATURE_TYPES.get(info.type_str, scalars.uint8)
        raw = nanovdb.feature_values(self._features[feature_index], _scalar(dtype)._np_dtype, _width(dtype),
                                     getattr(dtype, "__name__", str(dtype)))
        return array(raw, dtype=dtype, device=self.device)

    def array(self) -> array:
        """The NanoVDB buffer of a volume loaded from one (this grid and the next ones); for other
        volumes the value storage as bytes (jwarp's leaf layout, not a NanoVDB buffer)."""
        buffers = getattr(self, "_grid_buffers", None)
        if buffers is not None:
            raw = np.frombuffer(self._nvdb_bytes(), np.uint8)
            return array(raw.copy(), dtype=scalars.uint8, device=self.device)
        raw = np.ascontiguousarray(self._values.numpy()).view(np.uint8).reshape(-1)
        return array(raw, dtype=scalars.uint8, device=self.device)

    # ------------------------------------------------------------------ kernels
    def _launch_operands(self) -> handles.LaunchOperands:
        """The volume's buffers for a launch that receives its id (see :mod:`jwarp.runtime.handles`)."""
        static = (("grid_type", self._grid_type), ("tile_origin", self._tile_origin), ("constant", self._constant),
                  ("leaf_count", int(self._tiles.shape[0])), ("active_count", int(self._index_count)))
        values = self._launch_values
        if values is None:  # (built once: the transform and background are fixed at construction)
            mat33 = composites.matrix((3, 3), scalars.float32)
            mat33d = composites.matrix((3, 3), scalars.float64)
            vec3 = composites.vector(3, scalars.float32)
            vec3d = composites.vector(3, scalars.float64)
            values = self._launch_values = {
                "background": (self._dtype or scalars.float32, self._bg),
                "mat": (mat33, mat33(*self._mat.reshape(-1).tolist())),
                "inv": (mat33, mat33(*self._invf.reshape(-1).tolist())),
                "vec": (vec3, vec3(*self._translation.tolist())),
                "matd": (mat33d, mat33d(*self._matd.reshape(-1).tolist())),
                "invd": (mat33d, mat33d(*self._invd.reshape(-1).tolist())),
                "vecd": (vec3d, vec3d(*self._vecd.tolist())),
            }
        arrays = {"values": self._values, "tile_map": self._tile_map, "voxel_index": self._voxel_index,
                  "tile_values": self._tile_values}
        return handles.LaunchOperands("volume", static, arrays, values)


__all__ = ["Volume"]
