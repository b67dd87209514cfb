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


def supported(face_count: int, grouped: bool) -> bool:
    """Whether a mesh of ``face_count`` faces gets a table (else queries sum every face exactly)."""
    return bvh_trail.supported(face_count, grouped)


# the symmetric (j, k) pairs of N2's last two indices, as index arrays
_J = np.array([j for j, _ in PAIRS])
_K = np.array([k for _, k in PAIRS])


def _outer(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return x[:, :, None] * y[:, None, :]


def _triangles(corners: np.ndarray) -> dict:
    a, b, c = corners[:, 0], corners[:, 1], corners[:, 2]
    normal = 0.5 * np.cross(b - a, c - a)
    centre = corners.mean(axis=1)
    spread = sum(e[:, _J] * e[:, _K] for e in (a - centre, b - centre, c - centre)) / 12.0  # (m, 6)
    return {"area": np.linalg.norm(normal, axis=1), "centre": centre, "lower": corners.min(axis=1),
            "upper": corners.max(axis=1), "s": normal, "n1": np.zeros((len(a), 3, 3)),
            "n2": normal[:, :, None] * spread[:, None, :]}


def _combine(left: dict, right: dict) -> dict:
    """The union's moments; ``n2`` holds the symmetric pairs ``(j, k)`` of :data:`PAIRS` only."""
    area = left["area"] + right["area"]
    lower, upper = np.minimum(left["lower"], right["lower"]), np.maximum(left["upper"], right["upper"])
    weighted = left["area"][:, None] * left["centre"] + right["area"][:, None] * right["centre"]
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = np.where((area > 0)[:, None], weighted / area[:, None], 0.5 * (lower + upper))
    n1 = np.zeros_like(left["n1"])
    n2 = np.zeros_like(left["n2"])
    for child in (left, right):
        d = child["centre"] - centre
        n1 += child["n1"] + _outer(child["s"], d)
        n2 += (child["n2"] + child["n1"][:, :, _J] * d[:, None, _K] + child["n1"][:, :, _K] * d[:, None, _J]
               + child["s"][:, :, None] * (d[:, _J] * d[:, _K])[:, None, :])
    return {"area": area, "centre": centre, "lower": lower, "upper": upper, "s": left["s"] + right["s"],
            "n1": n1, "n2": n2}


def _rows(m: dict, leaf: np.ndarray, corners: np.ndarray) -> np.ndarray:
    out = np.zeros((leaf.shape[0], WIDTH), np.float64)
    far = np.maximum(m["centre"] - m["lower"], m["upper"] - m["centre"])
    out[:, P:P + 3] = m["centre"]
    out[:, R2] = np.sum(far * far, axis=1)
    out[:, S:S + 3] = m["s"]
    out[:, N1:N1 + 9] = m["n1"].reshape(-1, 9)
    out[:, N2:N2 + 18] = m["n2"].reshape(-1, 18)
    out[leaf, 0:FLAG] = 0.0
    out[leaf, 0:9] = corners[leaf].reshape(-1, 9)
    out[:, FLAG] = leaf
    return out


def winding_rows(points: np.ndarray, tris: np.ndarray, tree: Any) -> np.ndarray:
    """The ``(2^levels, WIDTH)`` float32 table of heap rows (row 0 unused) of the mesh
    (``points`` ``(n, 3)``, ``tris`` ``(faces, 3)``) over its halving tree ``tree``."""
    pre, levels = bvh_trail.heap_order(tris.shape[0])
    prim = np.where(pre >= 0, tree.links[np.maximum(pre, 0), 1], -1)
    leaf = prim >= 0
    corners = points.astype(np.float64)[tris[np.maximum(prim, 0)]]  # (slots, 3, 3)
    table = np.zeros((pre.shape[0], WIDTH), np.float64)
    below = None
    for level in range(levels - 1, -1, -1):
        lo, hi = 1 << level, 1 << (level + 1)
        keep = leaf[lo:hi]
        if below is None:  # the last level: leaves and empty slots only
            here = _triangles(corners[lo:hi])
        else:  # the children of slot k are slots 2k and 2k + 1: pairs of the level below
            here = _combine(*({k: v[j::2] for k, v in below.items()} for j in (0, 1)))
            if keep.any():  # (leaves are on the last two levels only)
                mine = _triangles(corners[lo:hi][keep])
                for k, v in here.items():
                    v[keep] = mine[k]
        table[lo:hi] = _rows(here, leaf[lo:hi], corners[lo:hi])
        below = here
    return table.astype(np.float32)


__all__ = ["supported", "winding_rows"]
