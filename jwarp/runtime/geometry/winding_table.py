"""The per-node table of a mesh's fast winding numbers, built on the host with the mesh's BVH.

Every internal node of the heap-numbered halving tree (:mod:`jwarp.builtins.bvh_trail`) gets the
multipole moments of its triangles about their area-weighted centre ``P`` (Warp computes the same
moments when a mesh with ``support_winding_number=True`` is built or refit):

- ``S = Σ A n`` (area-weighted normals), ``N1[i, j] = Σ n_i ∫ (x - P)_j dA``,
  ``N2[i, j, k] = Σ n_i ∫ (x - P)_j (x - P)_k dA``;
- the far radius² ``|max(P - lower, upper - P)|²`` of the node's box, which decides where the
  expansion may stand in for the node (see :mod:`jwarp.builtins.winding_number`).

A triangle's moments about its centroid are ``N1 = 0`` and ``N2 = n ⊗ A/12 · Σ_v e_v e_vᵀ``
(``e_v`` its corners minus the centroid); a parent's are its children's shifted to its centre
(``d = P_child - P``): ``N1 += S ⊗ d``, ``N2_ijk += N1_ij d_k + N1_ik d_j + S_i d_j d_k``. The sums
are taken in float64 level by level from the leaves up; leaves store their three corners instead.

Example:
    >>> import numpy as np
    >>> from jwarp.runtime.geometry import bvh_build
    >>> pts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float32)
    >>> tris = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]], np.int32)
    >>> corners = pts[tris]
    >>> tree = bvh_build.build(corners.min(axis=1), corners.max(axis=1), None)
    >>> winding_rows(pts, tris, tree).shape
    (8, 36)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jwarp.builtins import bvh_trail
from jwarp.builtins.winding_number import FLAG, N1, N2, PAIRS, R2, WIDTH, P, S
from jwarp.runtime.geometry.bvh_refit import heap_primitives


def supported(face_count: int, grouped: bool) -> bool:
    """Whether a mesh of ``face_count`` faces gets a table (else queries sum every face exactly)."""
    return bvh_trail.supported(face_count, grouped)


# the symmetric (j, k) pairs of N2's last two indices, as index arrays
_J = np.array([j for j, _ in PAIRS])
_K = np.array([k for _, k in PAIRS])


def _triangles(corners: np.ndarray) -> dict:
    """Moments of triangles about their centroids; ``corners`` ``(3 corners, 3 coords, m)``.
    Every array of the result is component-major: its last axis runs over the ``m`` nodes."""
    a, b, c = corners
    u, v = b - a, c - a
    normal = 0.5 * np.stack([u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]])
    centre = (a + b + c) / 3.0
    e = corners - centre  # (3 corners, 3 coords, m)
    spread = (e[0][_J] * e[0][_K] + e[1][_J] * e[1][_K] + e[2][_J] * e[2][_K]) / 12.0  # (6, m)
    return {"area": np.sqrt(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]),
            "centre": centre, "lower": corners.min(axis=0), "upper": corners.max(axis=0), "s": normal,
            "n1": np.zeros((3, 3, a.shape[1])), "n2": normal[:, None, :] * spread[None, :, :]}


def _combine(left: dict, right: dict, triangles: bool = False) -> dict:
    """The union's moments; ``n2`` holds the symmetric pairs ``(j, k)`` of :data:`PAIRS` only.
    ``triangles``: both children are triangles (their ``n1`` is zero)."""
    area = left["area"] + right["area"]
    lower, upper = np.minimum(left["lower"], right["lower"]), np.maximum(left["upper"], right["upper"])
    weighted = left["area"] * left["centre"] + right["area"] * right["centre"]
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = np.where(area > 0, weighted / area, 0.5 * (lower + upper))
    s = left["s"] + right["s"]
    n1 = left["n1"] + right["n1"]
    n2 = left["n2"] + right["n2"]
    for child in (left, right):
        d = child["centre"] - centre  # (3, m)
        cs, cn1 = child["s"], child["n1"]
        n1 += cs[:, None, :] * d[None, :, :]
        n2 += cs[:, None, :] * (d[_J] * d[_K])[None]
        if not triangles:
            n2 += cn1[:, _J] * d[_K] + cn1[:, _K] * d[_J]
    return {"area": area, "centre": centre, "lower": lower, "upper": upper, "s": s, "n1": n1, "n2": n2}


def _rows(m: dict, leaf: np.ndarray, corners: np.ndarray | None, out: np.ndarray) -> None:
    """Write the level's rows into ``out`` ``(m, WIDTH)`` float32 (each value rounded once)."""
    far = np.maximum(m["centre"] - m["lower"], m["upper"] - m["centre"])
    out[:, P:P + 3] = m["centre"].T
    out[:, R2] = far[0] * far[0] + far[1] * far[1] + far[2] * far[2]
    out[:, S:S + 3] = m["s"].T
    out[:, N1:N1 + 9] = m["n1"].reshape(9, -1).T
    out[:, N2:N2 + 18] = m["n2"].reshape(18, -1).T
    if corners is not None and leaf.any():
        out[leaf, 0:FLAG] = 0.0
        out[leaf, 0:9] = corners[:, :, leaf].reshape(9, -1).T
    out[:, FLAG] = leaf


def _corners(coords: np.ndarray, tris: np.ndarray, prim: np.ndarray) -> np.ndarray:
    """``(corner, coord, m)`` float64 corners of the triangles ``prim`` (-1: triangle 0, a
    placeholder for an empty slot, whose row no query reads)."""
    corner_points = np.take(tris, np.maximum(prim, 0), axis=0)  # (m, 3)
    return np.stack([np.take(coords, corner_points[:, v], axis=1) for v in range(3)])


def winding_rows(points: np.ndarray, tris: np.ndarray, tree: Any) -> np.ndarray:
    """The ``(2^levels, WIDTH)`` float32 table of heap rows (row 0 unused) of the mesh
    (``points`` ``(n, 3)``, ``tris`` ``(faces, 3)``) over its halving tree ``tree``.

    Each level is held component-major (``(components, nodes)`` arrays, so every operation runs
    over long rows; the children ``2k`` and ``2k + 1`` of a level are its even and odd columns)
    and its rows are written straight into the table."""
    pre, prim, levels = heap_primitives(tree)
    leaf = prim >= 0
    coords = np.asarray(points, np.float64).T  # (3, points)
    tris = np.asarray(tris)
    table = np.zeros((pre.shape[0], WIDTH), np.float32)
    below = None
    for level in range(levels - 1, -1, -1):
        lo, hi = 1 << level, 2 << level
        keep = leaf[lo:hi]
        if below is None:  # the last level: leaves and empty slots only
            corners = _corners(coords, tris, prim[lo:hi])
            here = _triangles(corners)
        else:  # the children of slot k are slots 2k and 2k + 1: pairs of the level below
            here = _combine(*({k: v[..., j::2] for k, v in below.items()} for j in (0, 1)),
                            triangles=level == levels - 2)
            corners = None
            if keep.any():  # (leaves are on the last two levels only)
                corners = _corners(coords, tris, prim[lo:hi])
                mine = _triangles(corners[:, :, keep])
                for k, v in here.items():
                    v[..., keep] = mine[k]
        _rows(here, keep, corners, table[lo:hi])
        below = here
    return table


__all__ = ["supported", "winding_rows"]
