"""Argument handling of ``wp.Volume``'s constructors: voxel sizes, background types, point arrays.

Example:
    >>> normalize_voxel_size(0.5)
    (0.5, 0.5, 0.5)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from jwarp.lang import composites, scalars
from jwarp.runtime.array import array

# the value types a volume may hold, by NanoVDB type name (Warp's _nvdb_type_to_dtype)
GRID_TYPES = {"float": scalars.float32, "double": scalars.float64, "int32": scalars.int32, "int64": scalars.int64,
              "uint32": scalars.uint32, "Vec3f": composites.vector(3, scalars.float32),
              "Vec3d": composites.vector(3, scalars.float64), "Vec4f": composites.vector(4, scalars.float32),
              "Vec4d": composites.vector(4, scalars.float64)}
VALUE_TYPES = {t: n for n, t in GRID_TYPES.items()}


def normalize_voxel_size(voxel_size: Any) -> tuple[float, float, float]:
    """``voxel_size`` as three positive finite floats (a scalar means isotropic voxels)."""
    if isinstance(voxel_size, (int, float, np.floating, np.integer)):
        s = float(voxel_size)
        voxel_size = (s, s, s)
    elif isinstance(voxel_size, (list, tuple, np.ndarray)) or hasattr(voxel_size, "_length_"):
        voxel_size = tuple(float(v) for v in voxel_size)
        if len(voxel_size) != 3:
            raise ValueError(f"voxel_size must be a scalar or a 3-element sequence, got length {len(voxel_size)}")
    else:
        raise TypeError(
            f"voxel_size must be a numeric scalar or a sequence of 3 floats, got {type(voxel_size).__name__}")
    if not all(math.isfinite(v) and v > 0.0 for v in voxel_size):
        raise ValueError(f"All voxel_size components must be finite and positive, got {voxel_size}")
    return voxel_size


def grid_type_of(bg_value: Any) -> Any:
    """The value type a background value gives a volume (Warp's rules: Python float → float32,
    int → int32, a plain sequence → vec3f/vec4f, a Warp scalar or vector → its type)."""
    if isinstance(bg_value, bool):
        t = scalars.bool_
    elif isinstance(bg_value, int):
        t = scalars.int32
    elif isinstance(bg_value, float):
        t = scalars.float32
    elif isinstance(bg_value, np.generic):
        t = scalars.canonical_scalar(bg_value.dtype.type)
    elif scalars.is_scalar_type(type(bg_value)) or composites.is_composite(type(bg_value)):
        t = type(bg_value)
    elif hasattr(bg_value, "__len__"):
        t = composites.vector(len(bg_value), scalars.float32)
    else:
        t = type(bg_value)
    if t not in VALUE_TYPES:
        raise TypeError(f"Unsupported bg_value type for volume allocation {getattr(t, '__name__', t)}. "
                        f"Supported volume types are {', '.join(GRID_TYPES)}.")
    return t


def points_numpy(points: Any, what: str) -> tuple[np.ndarray, bool]:
    """(N×3 points, in world space?) of a vec3i/vec3f or N×3 int32/float32 contiguous array."""
    ok = isinstance(points, array) and points.is_contiguous and (
        (points.ndim == 1 and composites.canonical(points.dtype) in (composites.vector(3, scalars.int32), composites.vec3))
        or (points.ndim == 2 and points.shape[1] == 3 and points.dtype in (scalars.int32, scalars.float32)))
    if not ok:
        raise RuntimeError(f"{what} must be contiguous and either a 1D Warp array of vec3f or vec3i or a 2D n-by-3 "
                           "array of int32 or float32.")
    data = points.numpy().reshape(-1, 3)
    return data, data.dtype == np.float32


def mask_points(data: np.ndarray, point_mask: Any) -> np.ndarray:
    if point_mask is None:
        return data
    if not isinstance(point_mask, array) or point_mask.dtype != scalars.int32 or point_mask.size != data.shape[0]:
        raise RuntimeError("point_mask must be a contiguous int32 array with one entry per point")
    return data[point_mask.numpy().reshape(-1) != 0]


__all__ = ["GRID_TYPES", "VALUE_TYPES", "grid_type_of", "mask_points", "normalize_voxel_size", "points_numpy"]
