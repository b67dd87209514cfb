"""Rebuildable volumes (``allocate_by_tiles/voxels(rebuildable=True, max_*=...)``, ``Volume.rebuild``).

A rebuildable volume reserves capacities (leaves, lower and upper nodes, active voxels); a rebuild
replaces its topology with the tiles or voxels of new points and resets the values to the
background (Warp's behaviour). jwarp keeps room for ``max_tiles`` leaves, so the value buffer's
shape survives rebuilds. When the new topology does not fit, the status gets Warp's
``REBUILD_*_CAPACITY_EXCEEDED`` flags and the volume becomes empty.

Example:
    >>> capacity(None, 3, "max_tiles")
    3
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jwarp.lang import scalars
from jwarp.runtime.array import array

SUCCESS = 0
LEAF_EXCEEDED, LOWER_EXCEEDED, UPPER_EXCEEDED, VOXEL_EXCEEDED, INVALID_INPUT = 1, 2, 4, 8, 16


def capacity(value: Any, default: int, name: str) -> int:
    """A rebuild capacity: ``value`` (or ``default``) as a positive integer that fits in uint32."""
    cap = default if value is None else value
    try:
        cap = int(cap)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be an integer") from err
    if cap <= 0:
        raise ValueError(f"{name} must be positive, got {cap}")
    if cap >= 2**32:
        raise ValueError(f"{name} must fit in uint32, got {cap}")
    return cap


def check_status(status: Any, device: Any) -> Any:
    """Warp's validation of a ``status`` array (uint32, at least one element, on the volume's device)."""
    if status is None:
        return None
    if not isinstance(status, array) or status.dtype != scalars.uint32 or status.size < 1:
        raise RuntimeError("status must be a Warp array with dtype uint32 and at least one element")
    if status.device != device:
        raise RuntimeError(f"status must be on device {device}")
    return status


def write_status(status: Any, flags: int) -> None:
    if status is not None:
        current = status.numpy().copy()
        current.reshape(-1)[0] = np.uint32(flags)
        status.assign(current)


def fit(tiles: np.ndarray, voxels: np.ndarray | None, caps: tuple) -> tuple[np.ndarray, np.ndarray | None, int]:
    """(tiles, voxels, status flags): the topology if it fits ``caps`` = (voxels or None, leaves,
    lower nodes, upper nodes), else an empty one with the flags of what overflowed."""
    max_voxels, max_leaves, max_lower, max_upper = caps
    t = tiles.astype(np.int64)
    flags = 0
    if max_voxels is not None and voxels is not None and len(np.unique(voxels, axis=0)) > max_voxels:
        flags |= VOXEL_EXCEEDED
    if t.shape[0] > max_leaves:
        flags |= LEAF_EXCEEDED
    if len(np.unique(t >> 7, axis=0)) > max_lower:
        flags |= LOWER_EXCEEDED
    if len(np.unique(t >> 12, axis=0)) > max_upper:
        flags |= UPPER_EXCEEDED
    if flags:
        empty = np.zeros((0, 3), np.int32)
        return empty, (None if voxels is None else np.zeros((0, 3), np.int64)), flags
    return tiles, voxels, SUCCESS


__all__ = ["capacity", "check_status", "fit", "write_status"]
