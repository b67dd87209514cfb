"""Marching cubes over an explicit, sparse set of cells (the core of ``warp.geometry``'s sparse API).

Topology is host work on integer subscripts (:func:`dedupe_corners`): every cell's 8 corners are
packed into one int64 code relative to the smallest subscript, sorted (stably), and numbered in
code order, so unique corner ``u`` is the ``u``-th corner in (i, j, k) row-major order. A corner
keeps the flat ``cell * 8 + corner`` index of its first occurrence (:attr:`Corners.source`), and
every (corner, axis) pair knows the corner one step further along the axis (:attr:`Corners.upper`,
-1 where absent).

Extraction (:func:`extract`) is vectorised numpy on the host, like the octree that feeds it (sizes
are data-dependent at every step, as Warp's synchronising scans; no compilation): each cell's case
code (bit ``c`` when corner ``c`` is ``>= threshold``); every edge slot ``corner * 3 + axis`` that one
of the cells' triangles uses becomes a vertex, numbered in slot order, placed by interpolation
between the slot's two corners; triangles follow the cells' order. So vertices come in the
(i, j, k, axis) order of their lower corner and triangles in the cells' order, as Warp's sparse
marching cubes. :func:`values_gradient` is the adjoint of the vertex positions with respect to the
corner values (for ``wp.Tape``).

Example:
    >>> import numpy as np
    >>> cells = np.array([[0, 0, 0], [1, 0, 0]])
    >>> corners = dedupe_corners(cells, (0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
    >>> corners.positions.shape, corners.cell_corners.shape
    ((12, 3), (2, 8))
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from jwarp.runtime.geometry.marching_cubes_tables import (
    CASE_TO_TRI_RANGE,
    CUBE_CORNER_OFFSETS,
    EDGE_CELL_AXIS,
    TRI_LOCAL_INDICES,
)

_OFFSETS = np.asarray(CUBE_CORNER_OFFSETS, np.int64)
_RANGE = np.asarray(CASE_TO_TRI_RANGE, np.int32)
_TRI_COUNT = (_RANGE[1:] - _RANGE[:-1]) // 3
_MAX_LOCAL = int(3 * _TRI_COUNT.max())
_LOCAL = np.asarray(TRI_LOCAL_INDICES, np.int32)
# per cube edge: the corner at its lower end (the edge's owner) and its axis
_EDGE_OWNER = np.asarray([CUBE_CORNER_OFFSETS.index(tuple(e[:3])) for e in EDGE_CELL_AXIS], np.int32)
_EDGE_AXIS = np.asarray([e[3] for e in EDGE_CELL_AXIS], np.int32)


@dataclasses.dataclass
class Corners:
    """The de-duplicated corners of a set of cells.

    Attributes:
        cell_corners: ``(cells, 8)`` int32, each cell's corner numbers in ``CUBE_CORNER_OFFSETS`` order.
        positions: ``(corners, 3)`` float32 world positions.
        source: ``(corners,)`` int32, the flat ``cell * 8 + corner`` index of each corner's first use.
        upper: ``(3 * corners,)`` int32, for slot ``corner * 3 + axis`` the corner one step along
            ``axis`` (-1 where no cell has it).
    """

    cell_corners: np.ndarray
    positions: np.ndarray
    source: np.ndarray
    upper: np.ndarray


def subscript_stride(cells: np.ndarray) -> tuple[np.ndarray, int]:
    """The smallest subscript per axis and the number of corner nodes per axis that packing needs.

    Raises:
        ValueError: the subscripts span too many nodes to pack three of them into an int64 code.
    """
    lo, hi = cells.min(axis=0), cells.max(axis=0)
    stride = int((hi - lo).max()) + 2
    if stride ** 3 >= 2 ** 63:
        raise ValueError(
            f"Cell subscript range spans {stride} nodes per axis, too large to pack into 64-bit corner codes.")
    return lo, stride


def dedupe_corners(cells: np.ndarray, origin: Any, cell_width: Any, offset: Any = None,
                   stride: int | None = None) -> Corners:
    """Number the distinct corners of ``cells`` (``(n, 3)`` integer minimum-corner subscripts).

    Cell ``(i, j, k)`` spans ``origin + cell_width * [(i, j, k), (i + 1, j + 1, k + 1)]``. Positions
    are ``base + cell_width * relative subscript`` in float32, ``base`` (the position of ``offset``)
    formed in float64, so large subscripts keep adjacent corners apart.
    """
    cells = np.asarray(cells, np.int64).reshape(-1, 3)
    if offset is None or stride is None:
        offset, stride = subscript_stride(cells)
    offset = np.asarray(offset, np.int64)
    rel = (cells[:, None, :] + _OFFSETS[None, :, :] - offset).reshape(-1, 3)
    codes = (rel[:, 0] * stride + rel[:, 1]) * stride + rel[:, 2]
    order = np.argsort(codes, kind="stable")
    ordered = codes[order]
    first = np.ones(ordered.shape, bool)
    first[1:] = ordered[1:] != ordered[:-1]
    number = np.cumsum(first) - 1
    inverse = np.empty(codes.shape, np.int64)
    inverse[order] = number
    unique = ordered[first]
    sub = np.stack([unique // (stride * stride), (unique // stride) % stride, unique % stride], -1)

    width = np.asarray(tuple(cell_width), np.float32).reshape(3)
    origin = np.asarray(tuple(origin), np.float32).reshape(3)
    base = (origin.astype(np.float64) + width.astype(np.float64) * offset).astype(np.float32)
    positions = base + width * sub.astype(np.int32).astype(np.float32)

    upper = np.full((unique.shape[0], 3), -1, np.int64)
    for axis, step in enumerate((stride * stride, stride, 1)):
        at = np.searchsorted(unique, unique + step)
        found = at < unique.shape[0]
        found[found] = unique[at[found]] == unique[found] + step
        upper[found, axis] = at[found]
    return Corners(inverse.reshape(-1, 8).astype(np.int32), positions.astype(np.float32),
                   order[first].astype(np.int32), upper.reshape(-1).astype(np.int32))


def _cases(cell_corners: np.ndarray, values: np.ndarray, threshold: np.float32) -> np.ndarray:
    above = (values[cell_corners] >= threshold).astype(np.int32)
    return (above << np.arange(8, dtype=np.int32)).sum(axis=1)


@dataclasses.dataclass
class Surface:
    """An extracted surface: ``verts`` ``(n, 3)`` float32 and flat ``tris`` ``(3 t,)`` int32, with the
    vertices' end corners ``lo`` / ``hi`` and interpolation inputs for :func:`values_gradient`."""

    verts: np.ndarray
    tris: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    t: np.ndarray
    span: np.ndarray


def extract(corners: Corners, values: Any, threshold: Any) -> Surface:
    """Marching cubes on the cells of ``corners`` with ``values`` ``(corners,)`` at their corners.

    Vertex ``v`` is the ``v``-th edge slot (``corner * 3 + axis``) that a triangle uses, at
    ``lerp(p_lo, p_hi, clamp((threshold - f_lo) / (f_hi - f_lo), 0, 1))`` in float32 (products
    rounded before sums, as Warp's CPU kernels); triangles follow the cells' order."""
    values = np.asarray(values, np.float32).reshape(-1)
    threshold = np.float32(threshold)
    case = _cases(corners.cell_corners, values, threshold)
    entries = 3 * _TRI_COUNT[case]
    cell = np.repeat(np.arange(case.shape[0]), entries)
    local = np.arange(cell.shape[0]) - np.repeat(np.cumsum(entries) - entries, entries)
    edge = _LOCAL[_RANGE[case[cell]] + local]
    slot = corners.cell_corners[cell, _EDGE_OWNER[edge]].astype(np.int64) * 3 + _EDGE_AXIS[edge]
    active = np.zeros(3 * values.shape[0], bool)
    active[slot] = True
    number = np.cumsum(active, dtype=np.int64) - 1
    used = np.flatnonzero(active)
    lo, hi = used // 3, corners.upper[used]
    span = values[hi] - values[lo]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (threshold - values[lo]) / span
    w = np.clip(t, np.float32(0.0), np.float32(1.0))[:, None]
    verts = corners.positions[lo] * (np.float32(1.0) - w) + corners.positions[hi] * w
    return Surface(verts.astype(np.float32), number[slot].astype(np.int32), lo, hi, t, span)


def values_gradient(surface: Surface, positions: np.ndarray, n_values: int, cotangent: np.ndarray) -> np.ndarray:
    """The corner values' gradient ``(n_values,)`` of ``sum(verts * cotangent)`` (Warp's adjoints of
    the lerp, clamp and division: the clamp passes the gradient where ``0 <= t <= 1``)."""
    g = np.asarray(cotangent, np.float32).reshape(-1, 3)
    d_t = np.sum(g * (positions[surface.hi] - positions[surface.lo]), axis=1, dtype=np.float32)
    d_t = np.where((surface.t >= 0.0) & (surface.t <= 1.0), d_t, np.float32(0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        d_num = d_t / surface.span
        d_span = -d_num * surface.t
    out = np.zeros(n_values, np.float32)
    np.add.at(out, surface.lo, -d_num - d_span)
    np.add.at(out, surface.hi, d_span)
    return out


__all__ = ["Corners", "Surface", "dedupe_corners", "extract", "subscript_stride", "values_gradient"]
