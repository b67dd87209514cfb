"""Test meshes and reference geometry shared by the differential programs and the geometry tests:
plain numpy, identical for real Warp and jwarp (programs import it as ``tests.differential.meshes``).

Example:
    >>> points, tris = torus(rings=4, sides=3)
    >>> points.shape, tris.shape
    ((12, 3), (72,))
"""

from __future__ import annotations

import numpy as np


def torus(rings: int = 16, sides: int = 10, r_major: float = 1.0, r_minor: float = 0.35) -> tuple:
    """A closed torus around the z axis: ``(points (n, 3) float32, flat int32 triangle indices)``."""
    u = np.linspace(0.0, 2.0 * np.pi, rings, endpoint=False)
    v = np.linspace(0.0, 2.0 * np.pi, sides, endpoint=False)
    uu, vv = np.meshgrid(u, v, indexing="ij")
    x = (r_major + r_minor * np.cos(vv)) * np.cos(uu)
    y = (r_major + r_minor * np.cos(vv)) * np.sin(uu)
    z = r_minor * np.sin(vv)
    points = np.stack([x, y, z], -1).reshape(-1, 3).astype(np.float32)
    tris = []
    for i in range(rings):
        for j in range(sides):
            a = i * sides + j
            b = ((i + 1) % rings) * sides + j
            c = ((i + 1) % rings) * sides + (j + 1) % sides
            d = i * sides + (j + 1) % sides
            tris += [a, b, c, a, c, d]
    return points, np.array(tris, np.int32)


def uv_sphere(rows: int = 24, cols: int = 48, keep_rows: int | None = None, centre=(0.0, 0.0, 0.0)) -> tuple:
    """A unit UV sphere (``rows`` latitudes, ``cols`` longitudes); ``keep_rows`` bands from the north
    pole give an open cap. Returns ``(points (n, 3) float32, flat int32 triangle indices)``."""
    th = np.linspace(0.0, np.pi, rows)
    ph = np.linspace(0.0, 2.0 * np.pi, cols, endpoint=False)
    t, p = np.meshgrid(th, ph, indexing="ij")
    pts = np.stack([np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)], -1).reshape(-1, 3) + centre
    tris = []
    for i in range(rows - 1 if keep_rows is None else keep_rows):
        for j in range(cols):
            a, b, c, d = i * cols + j, (i + 1) * cols + j, (i + 1) * cols + (j + 1) % cols, i * cols + (j + 1) % cols
            tris += [a, b, c, a, c, d]
    return pts.astype(np.float32), np.array(tris, np.int32)


def solid_angles(points: np.ndarray, tris: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The signed solid angle of every triangle seen from ``q`` (float64, Van Oosterom and Strackee)."""
    a, b, c = (points[tris.reshape(-1, 3)[:, k]].astype(np.float64) - q for k in range(3))
    la, lb, lc = (np.linalg.norm(v, axis=1) for v in (a, b, c))
    det = np.einsum("ij,ij->i", a, np.cross(b, c))
    den = la * lb * lc + np.einsum("ij,ij->i", a, b) * lc + np.einsum("ij,ij->i", b, c) * la \
        + np.einsum("ij,ij->i", c, a) * lb
    return 2.0 * np.arctan2(det, den)


def exact_winding(points: np.ndarray, tris: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """The winding number at each query point, summed exactly over every triangle."""
    return np.array([solid_angles(points, tris, q).sum() / (4.0 * np.pi) for q in queries.astype(np.float64)])


__all__ = ["exact_winding", "solid_angles", "torus", "uv_sphere"]


def cube(cells: int = 3) -> tuple:
    """The surface of [-1, 1]^3, each face split into ``cells`` x ``cells`` squares of two triangles
    (outward counter-clockwise winding)."""
    grid = np.linspace(-1.0, 1.0, cells + 1)
    points, tris = [], []
    for axis in range(3):
        for side in (-1.0, 1.0):
            base = len(points)
            for i in range(cells + 1):
                for j in range(cells + 1):
                    p = [0.0, 0.0, 0.0]
                    p[axis], p[(axis + 1) % 3], p[(axis + 2) % 3] = side, grid[i], grid[j]
                    points.append(p)
            for i in range(cells):
                for j in range(cells):
                    a, b = base + i * (cells + 1) + j, base + (i + 1) * (cells + 1) + j
                    c, d = b + 1, a + 1
                    tris += [a, b, c, a, c, d] if side > 0 else [a, c, b, a, d, c]
    return np.array(points, np.float32), np.array(tris, np.int32)


def edge_rays(rng: np.random.Generator) -> tuple:
    """Starts with one coordinate on a face plane (outside the face) or beyond it, the others inside or
    outside the cube, directions with zero and non-zero components. (Left out, where Warp's CPU
    build and jwarp part ways in the triangle test itself: starts on a face or edge, a hit at t ~ 0,
    and subnormal components, for which Warp reports no hit at all.)"""
    n = 600
    comps = np.array([0.0, 0.0, 0.3, -0.7, 1.0, -1.0, 0.45], np.float32)
    dirs = comps[rng.integers(0, comps.size, (n, 3))]
    dirs[np.all(dirs == 0, axis=1)] = [0.0, 0.0, -1.0]
    planes = np.array([-1.0, 1.0, 2.0, -2.0, 0.1], np.float32)
    others = np.array([0.5512, -0.3471, 0.1093, 2.0137, -2.0291, 0.8123], np.float32)  # off the grid lines
    starts = others[rng.integers(0, others.size, (n, 3))]
    axis = rng.integers(0, 3, n)
    starts[np.arange(n), axis] = planes[rng.integers(0, planes.size, n)]
    on_face_plane = np.abs(starts[np.arange(n), axis]) == 1.0  # keep them off the face itself
    starts[np.arange(n)[on_face_plane], (axis[on_face_plane] + 1) % 3] = 2.0137
    return starts.astype(np.float32), dirs.astype(np.float32)


def edge_ray_batches(seed: int = 11) -> list:
    """``[(name, starts, dirs)]``: the :func:`edge_rays` once (600 rays: one lane pool) and tiled 8 times
    (4800 rays: pools that refill), for the cube's ray programs."""
    starts, dirs = edge_rays(np.random.default_rng(seed))
    return [(name, np.tile(starts, (reps, 1)), np.tile(dirs, (reps, 1))) for name, reps in (("small", 1), ("large", 8))]
