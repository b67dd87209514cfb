"""Swept volumes of rigidly moving meshes by dense time stamping (``wp.geometry.swept_volume_*``).

The field at a grid node is the smallest signed distance from the node to any mesh at any sampled
pose: one launch per mesh over (pose, node) maps every node into the mesh's rest frame (the inverse
pose) and takes a signed closest-point query (winding number, normal, parity or no sign); the
minimum over poses and meshes is the field. ``swept_volume_mesh`` extracts an isosurface of that field with
marching cubes. The kernel-side ``swept_volume_sdf`` (meshes as an array of ids) is in
:mod:`jwarp.geometry.kernel_api`.

Example:
    >>> import numpy as np, jwarp as wp
    >>> import jwarp.geometry as geo
    >>> pts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float32)
    >>> tris = np.array([0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3], np.int32)
    >>> mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(tris, dtype=wp.int32), support_winding_number=True)
    >>> poses = np.array([[[0, 0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0, 1]]], np.float32)
    >>> field, lower, upper = geo.swept_volume_field([mesh], poses, voxel_size=0.25)
    >>> bool(field.numpy().min() < 0)
    True
"""

from __future__ import annotations

import enum
import math
from typing import Any, Sequence

import jax.numpy as jnp
import numpy as np

import jwarp as wp
from jwarp.runtime.geometry.iso_surface import IsoSurfaceMarchingCubes


class SweptVolumeSignMode(enum.IntEnum):
    """How the per-mesh distance is signed (inside negative)."""

    NORMAL = 0
    WINDING_NUMBER = 1
    PARITY = 2
    NO_SIGN = 3


@wp.func
def _node(i: int, j: int, k: int, lower: wp.vec3, spacing: wp.vec3, xform: wp.transform) -> wp.vec3:
    p = lower + wp.vec3(float(i) * spacing[0], float(j) * spacing[1], float(k) * spacing[2])
    return wp.transform_point(wp.transform_inverse(xform), p)


@wp.func
def _keep(field: wp.array4d(dtype=float), s: int, i: int, j: int, k: int, d: float):
    field[s, i, j, k] = d


@wp.kernel
def _stamp_winding(mesh: wp.uint64, xforms: wp.array(dtype=wp.transform), lower: wp.vec3, spacing: wp.vec3,
                   max_dist: float,
                   field: wp.array4d(dtype=float)):
    s, i, j, k = wp.tid()
    q = _node(i, j, k, lower, spacing, xforms[s])
    r = wp.mesh_query_point_sign_winding_number(mesh, q, max_dist)
    if r.result:
        _keep(field, s, i, j, k, r.sign * wp.length(q - wp.mesh_eval_position(mesh, r.face, r.u, r.v)))


@wp.kernel
def _stamp_normal(mesh: wp.uint64, xforms: wp.array(dtype=wp.transform), lower: wp.vec3, spacing: wp.vec3,
                  max_dist: float,
                  field: wp.array4d(dtype=float)):
    s, i, j, k = wp.tid()
    q = _node(i, j, k, lower, spacing, xforms[s])
    r = wp.mesh_query_point_sign_normal(mesh, q, max_dist)
    if r.result:
        _keep(field, s, i, j, k, r.sign * wp.length(q - wp.mesh_eval_position(mesh, r.face, r.u, r.v)))


@wp.kernel
def _stamp_parity(mesh: wp.uint64, xforms: wp.array(dtype=wp.transform), lower: wp.vec3, spacing: wp.vec3,
                  max_dist: float,
                  field: wp.array4d(dtype=float)):
    s, i, j, k = wp.tid()
    q = _node(i, j, k, lower, spacing, xforms[s])
    r = wp.mesh_query_point_sign_parity(mesh, q, max_dist)
    if r.result:
        _keep(field, s, i, j, k, r.sign * wp.length(q - wp.mesh_eval_position(mesh, r.face, r.u, r.v)))


@wp.kernel
def _stamp_unsigned(mesh: wp.uint64, xforms: wp.array(dtype=wp.transform), lower: wp.vec3, spacing: wp.vec3,
                    max_dist: float,
                    field: wp.array4d(dtype=float)):
    s, i, j, k = wp.tid()
    q = _node(i, j, k, lower, spacing, xforms[s])
    r = wp.mesh_query_point_no_sign(mesh, q, max_dist)
    if r.result:
        _keep(field, s, i, j, k, wp.length(q - wp.mesh_eval_position(mesh, r.face, r.u, r.v)))


_KERNELS = {SweptVolumeSignMode.WINDING_NUMBER: _stamp_winding, SweptVolumeSignMode.NORMAL: _stamp_normal,
            SweptVolumeSignMode.PARITY: _stamp_parity, SweptVolumeSignMode.NO_SIGN: _stamp_unsigned}


def _poses(meshes: Sequence[Any], transforms: Any) -> np.ndarray:
    """Transforms as float32 ``(meshes, samples, 7)``, checked against the meshes."""
    if len(meshes) == 0:
        raise ValueError("'meshes' must contain at least one mesh.")
    data = transforms.numpy() if isinstance(transforms, wp.array) else np.asarray(transforms)
    data = np.asarray(data, np.float32)
    if data.ndim != 3 or data.shape[-1] != 7:
        raise ValueError(f"'transforms' must have shape (num_meshes, num_samples) of wp.transform or "
                         f"(num_meshes, num_samples, 7), got {data.shape}")
    if data.shape[0] != len(meshes):
        raise ValueError(f"'transforms' has {data.shape[0]} rows of poses but {len(meshes)} meshes were given")
    if data.shape[1] == 0:
        raise ValueError("'transforms' must hold at least one pose per mesh")
    return data


def _rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate points ``v (..., 3)`` by unit quaternions ``q (..., 4)`` (x, y, z, w)."""
    u, w = q[..., :3], q[..., 3:4]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def _bounds(meshes: Sequence[Any], poses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
    for mesh, rows in zip(meshes, poses.astype(np.float64)):
        pts = mesh.points.numpy().reshape(-1, 3).astype(np.float64)
        a, b = pts.min(axis=0), pts.max(axis=0)
        corners = np.array([[(a, b)[(c >> d) & 1][d] for d in range(3)] for c in range(8)])
        world = _rotate(rows[:, None, 3:], corners[None]) + rows[:, None, :3]
        lo, hi = np.minimum(lo, world.reshape(-1, 3).min(axis=0)), np.maximum(hi, world.reshape(-1, 3).max(axis=0))
    return lo, hi


def swept_volume_bounds(meshes: Sequence[Any], transforms: Any, padding: float = 0.0,
                        device: Any = None) -> tuple[Any, Any]:
    """World-space box ``(lower, upper)`` of every mesh's rest box at every pose, widened by ``padding``."""
    lo, hi = _bounds(meshes, _poses(meshes, transforms))
    return wp.vec3(*(lo - padding)), wp.vec3(*(hi + padding))


def _grid(meshes: Sequence[Any], poses: np.ndarray, voxel_size: Any, resolution: Any, lower: Any, upper: Any,
          threshold: float) -> tuple:
    if (voxel_size is None) == (resolution is None):
        raise ValueError("Pass exactly one of 'voxel_size' and 'resolution'")
    if (lower is None) != (upper is None):
        raise ValueError("Pass both 'lower' and 'upper', or neither")
    if voxel_size is not None:
        if not (voxel_size > 0 and math.isfinite(voxel_size)):
            raise ValueError(f"'voxel_size' must be positive, got {voxel_size}")
        if lower is not None:
            raise ValueError("'voxel_size' cannot be combined with explicit 'lower'/'upper' bounds")
    else:
        resolution = tuple(int(n) for n in resolution)
        if len(resolution) != 3 or min(resolution) < 2:
            raise ValueError(f"'resolution' must be three node counts of at least 2, got {resolution}")
    tight_lo, tight_hi = _bounds(meshes, poses)
    if lower is not None:
        lo, hi = np.array(tuple(lower), np.float64), np.array(tuple(upper), np.float64)
        dims = resolution
    elif voxel_size is not None:  # about two cells of padding, then whole cells centred on the box
        pad = max(threshold, 0.0) + 2.0 * voxel_size
        cells = np.ceil((tight_hi - tight_lo + 2.0 * pad) / voxel_size).astype(int)
        centre = 0.5 * (tight_lo + tight_hi)
        lo = centre - 0.5 * cells * voxel_size
        hi = lo + cells * voxel_size
        dims = tuple(int(c) + 1 for c in cells)
    else:
        cell = float(np.max(tight_hi - tight_lo)) / (min(resolution) - 5) if min(resolution) > 5 else 0.0
        pad = max(threshold, 0.0) + 2.0 * cell
        lo, hi = tight_lo - pad, tight_hi + pad
        dims = resolution
    return lo, hi, dims, tight_lo, tight_hi


def swept_volume_field(meshes: Sequence[Any], transforms: Any, voxel_size: float | None = None, *,
                       resolution: tuple | None = None, lower: Any = None, upper: Any = None,
                       sign_mode: SweptVolumeSignMode = SweptVolumeSignMode.WINDING_NUMBER, device: Any = None,
                       _threshold: float = 0.0) -> tuple:
    """Dense swept-volume signed distance field: ``(field (nx, ny, nz) float32, lower, upper)``.

    Give ``voxel_size`` (cubic cells; the domain is the padded swept box grown to whole cells) or
    ``resolution`` (node counts), and optionally both domain corners (with ``resolution``).
    ``transforms``: ``(num_meshes, num_samples)`` ``wp.transform`` or ``(..., 7)`` poses.
    """
    poses = _poses(meshes, transforms)
    sign_mode = SweptVolumeSignMode(sign_mode)
    device = wp.get_device(device) if device is not None else meshes[0].device
    for i, mesh in enumerate(meshes):
        if sign_mode == SweptVolumeSignMode.WINDING_NUMBER and not mesh.support_winding_number:
            raise ValueError(f"'meshes[{i}]' was not built with support_winding_number=True, which "
                             "SweptVolumeSignMode.WINDING_NUMBER requires")
    lo, hi, dims, tight_lo, tight_hi = _grid(meshes, poses, voxel_size, resolution, lower, upper, _threshold)
    spacing = (hi - lo) / (np.array(dims) - 1)
    span = np.maximum(hi, tight_hi) - np.minimum(lo, tight_lo)
    max_dist = float(np.linalg.norm(span))
    kernel = _KERNELS[sign_mode]
    best = None
    for mesh, rows in zip(meshes, poses):  # one launch per mesh over all its poses, then the minimum
        stamps = wp.full((rows.shape[0], *dims), max_dist, dtype=wp.float32, device=device)
        wp.launch(kernel, dim=stamps.shape, inputs=[mesh.id, wp.array(rows, dtype=wp.transform, device=device),
                                                    wp.vec3(*lo), wp.vec3(*spacing), max_dist, stamps], device=device)
        low = stamps.buffer.min(axis=0)
        best = low if best is None else jnp.minimum(best, low)
    return wp.array(best, dtype=wp.float32, device=device), wp.vec3(*lo), wp.vec3(*hi)


def swept_volume_mesh(meshes: Sequence[Any], transforms: Any, voxel_size: float | None = None, *,
                      resolution: tuple | None = None, lower: Any = None, upper: Any = None, threshold: float = 0.0,
                      sign_mode: SweptVolumeSignMode = SweptVolumeSignMode.WINDING_NUMBER,
                      device: Any = None) -> tuple:
    """The ``threshold`` isosurface of :func:`swept_volume_field` (marching cubes, world coordinates):
    ``(vertices wp.vec3, indices wp.int32)``. ``NO_SIGN`` needs a positive ``threshold``."""
    _poses(meshes, transforms)
    if SweptVolumeSignMode(sign_mode) == SweptVolumeSignMode.NO_SIGN and not threshold > 0:
        raise ValueError("SweptVolumeSignMode.NO_SIGN gives a field that is positive everywhere: pass a positive "
                         "'threshold'")
    field, lo, hi = swept_volume_field(meshes, transforms, voxel_size, resolution=resolution, lower=lower,
                                       upper=upper, sign_mode=sign_mode, device=device, _threshold=threshold)
    return IsoSurfaceMarchingCubes.extract(field, threshold, lower=lo, upper=hi)


__all__ = ["SweptVolumeSignMode", "swept_volume_bounds", "swept_volume_field", "swept_volume_mesh"]
