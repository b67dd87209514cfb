"""Host-side topology of a ``wp.Volume``: which 8×8×8 tiles exist, in NanoVDB's leaf order.

A Warp volume is a NanoVDB tree whose leaves are dense 8×8×8 tiles. jwarp keeps the leaves as
one flat value buffer (leaf ``n`` holds voxels ``n*512 … n*512+511``, z fastest, as a NanoVDB leaf)
plus a dense *tile map*: an int32 grid over the bounding box of the tiles giving each tile's leaf
number, or -1 where no tile is allocated. A voxel lookup is two gathers (tile map, then value).

Leaves are numbered in NanoVDB's order (what ``get_tiles``/``get_voxels`` and
``volume_lookup_index`` expose): by upper node (4096³ voxels, signed lexicographic x, y, z), then by
the lower node's offset in its upper node, then by the leaf's offset in its lower node.

Example:
    >>> import numpy as np
    >>> order_tiles(np.array([[0, 0, 0], [-8, 0, 0]])).tolist()
    [[-8, 0, 0], [0, 0, 0]]
"""

from __future__ import annotations

import math

import numpy as np

LEAF_VOXELS = 512
MAX_TILE_MAP = 1 << 27  # entries of the dense tile map (512 MiB of int32); larger boxes are refused


def tile_origins(ijk: np.ndarray) -> np.ndarray:
    """The origin (multiple of 8) of the tile holding each index-space voxel ``ijk`` (N×3 int)."""
    return (np.asarray(ijk, np.int64) >> 3) << 3


def _order_key(origins: np.ndarray) -> tuple:
    """lexsort keys (last is primary) for NanoVDB's leaf order of tile origins."""
    o = origins.astype(np.int64)
    upper = o >> 12
    upper_off = (((o[:, 0] & 4095) >> 7) << 10) | (((o[:, 1] & 4095) >> 7) << 5) | ((o[:, 2] & 4095) >> 7)
    lower_off = (((o[:, 0] & 127) >> 3) << 8) | (((o[:, 1] & 127) >> 3) << 4) | ((o[:, 2] & 127) >> 3)
    return (lower_off, upper_off, upper[:, 2], upper[:, 1], upper[:, 0])


def order_tiles(origins: np.ndarray) -> np.ndarray:
    """Unique tile origins (N×3, multiples of 8) in NanoVDB's leaf order."""
    o = np.unique(np.asarray(origins, np.int64).reshape(-1, 3), axis=0)
    if o.shape[0] == 0:
        return o.astype(np.int32)
    return o[np.lexsort(_order_key(o))].astype(np.int32)


def leaf_offsets() -> np.ndarray:
    """(512, 3) voxel offsets inside a leaf, in NanoVDB's order (z fastest)."""
    r = np.arange(LEAF_VOXELS)
    return np.stack([r >> 6, (r >> 3) & 7, r & 7], axis=1).astype(np.int32)


def tile_map(tiles: np.ndarray, what: str = "Volume", constant_tiles: np.ndarray | None = None
             ) -> tuple[np.ndarray, tuple]:
    """(map, origin): an int32 grid over the tiles' bounding box (in tile units) holding each
    tile's leaf number, -1 elsewhere, and the box's lower corner in tile units. ``constant_tiles``
    (origins of tiles of one value, from NanoVDB internal nodes) get ``-2 - k`` for the k-th."""
    extra = np.zeros((0, 3), np.int64) if constant_tiles is None else np.asarray(constant_tiles, np.int64)
    if tiles.shape[0] == 0 and extra.shape[0] == 0:
        return np.full((1, 1, 1), -1, np.int32), (0, 0, 0)
    t = np.concatenate([tiles.astype(np.int64).reshape(-1, 3), extra.reshape(-1, 3)]) >> 3
    lo = t.min(axis=0)
    extent = t.max(axis=0) - lo + 1
    if math.prod(int(e) for e in extent) > MAX_TILE_MAP:
        raise NotImplementedError(
            f"{what}: the allocated tiles span {tuple(int(e) for e in extent)} tiles; jwarp keeps a dense map of "
            f"tiles over their bounding box and supports at most {MAX_TILE_MAP} entries (very sparse volumes "
            "spread over large index ranges are not supported)")
    grid = np.full(tuple(int(e) for e in extent), -1, np.int32)
    rel = t - lo
    n = tiles.shape[0]
    grid[rel[:n, 0], rel[:n, 1], rel[:n, 2]] = np.arange(n, dtype=np.int32)
    grid[rel[n:, 0], rel[n:, 1], rel[n:, 2]] = -2 - np.arange(t.shape[0] - n, dtype=np.int32)
    return grid, tuple(int(x) for x in lo)


def voxel_coords(tiles: np.ndarray) -> np.ndarray:
    """(n_tiles*512, 3) index coordinates of every voxel of the leaves, in leaf order."""
    return (tiles[:, None, :].astype(np.int32) + leaf_offsets()[None, :, :]).reshape(-1, 3)


def active_index(tiles: np.ndarray, voxels: np.ndarray | None) -> tuple[np.ndarray, int]:
    """(index per leaf voxel, count): for an index grid of active ``voxels`` (an OnIndex grid), each
    leaf voxel's rank among the active voxels in leaf order, -1 for inactive ones; without
    ``voxels`` every leaf voxel is active (rank = its position)."""
    n = tiles.shape[0] * LEAF_VOXELS
    if voxels is None:
        return np.arange(max(n, 1), dtype=np.int32), n
    slots, _ = tile_map(tiles)
    grid, lo = slots, np.array(tiles_origin(tiles))
    v = np.asarray(voxels, np.int64).reshape(-1, 3)
    t = (v >> 3) - lo
    leaf = grid[t[:, 0], t[:, 1], t[:, 2]].astype(np.int64)
    local = ((v[:, 0] & 7) << 6) | ((v[:, 1] & 7) << 3) | (v[:, 2] & 7)
    active = np.zeros(max(n, 1), bool)
    active[leaf * LEAF_VOXELS + local] = True
    index = np.where(active, np.cumsum(active) - 1, -1).astype(np.int32)
    return index, int(active.sum())


def tiles_origin(tiles: np.ndarray) -> tuple:
    """Lower corner of the tiles' bounding box, in tile units."""
    if tiles.shape[0] == 0:
        return (0, 0, 0)
    return tuple(int(x) for x in (tiles.astype(np.int64) >> 3).min(axis=0))


__all__ = ["LEAF_VOXELS", "active_index", "leaf_offsets", "order_tiles", "tile_map", "tile_origins", "voxel_coords"]
