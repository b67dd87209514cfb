"""Surface nets over a dense float32 field, in two jitted passes.

A node is inside when its value is ``< threshold``; a grid edge crosses the surface when its two
nodes differ. Every crossing edge with four cells around it inside the grid (an *interior* edge)
becomes one quad joining the vertices of those four cells, wound counter-clockwise seen from
outside (the side of the larger values). A cell gets a vertex when one of its edges is an interior
crossing edge (so every vertex belongs to a face), placed at the mean of the crossing points of
its twelve edges (linear interpolation along each edge). Vertices are numbered in row-major cell
order, quads in ``(i, j, k, axis)`` order of their edges, each starting at Warp's corner (so the
``(0, 1, 2), (0, 2, 3)`` triangle split uses Warp's diagonal).

Known difference from Warp: Warp gives a cell crossed by several sheets of the surface one vertex
per sheet (OpenVDB's edge-group table); here every cell has at most one vertex, so where two sheets
pass through one cell they are joined there. Smooth surfaces sampled finer than their features
(the common case) have no such cells and get Warp's vertices, quads and triangles in Warp's order.

Example:
    >>> import numpy as np
    >>> f = np.linalg.norm(np.indices((8, 8, 8)).T - 3.5, axis=-1).astype(np.float32) - 2.5
    >>> verts, cells, quads = extract_buffers(f, 0.0, (0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
    >>> verts.shape[1], quads.shape[1]
    (3, 4)
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jwarp.builtins.random import fmul
from jwarp.runtime.geometry.marching_cubes_tables import EDGE_CELL_AXIS

_EDGE_CELL_AXIS = np.asarray(EDGE_CELL_AXIS, np.int32)


def _interior(n: tuple, axis: int) -> Any:
    """Mask over the nodes ``(nx, ny, nz)`` of edges along ``axis`` with four cells around them."""
    masks = []
    for b in range(3):
        idx = jnp.arange(n[b])
        ok = (idx > 0) & (idx < n[b] - 1) if b != axis else idx < n[b] - 1
        shape = [1, 1, 1]
        shape[b] = n[b]
        masks.append(ok.reshape(shape))
    return masks[0] & masks[1] & masks[2]


def _crossing(inside: Any, axis: int) -> Any:
    """Edges along ``axis`` whose ends differ, on the ``(nx, ny, nz)`` node grid (False past the end)."""
    n = inside.shape[axis]
    lo = jax.lax.slice_in_dim(inside, 0, n - 1, axis=axis)
    hi = jax.lax.slice_in_dim(inside, 1, n, axis=axis)
    pad = [(0, 0)] * 3
    pad[axis] = (0, 1)
    return jnp.pad(lo != hi, pad)


@jax.jit
def _classify(field: Any, threshold: Any) -> tuple:
    """Quad edges (flat ``(nx, ny, nz, 3)`` mask, with an inside-at-the-lower-end flag), the cells
    with a vertex (flat row-major mask) and the vertex numbering prefix sum."""
    inside = field < threshold
    shape = field.shape
    quads = jnp.stack([_crossing(inside, a) & _interior(shape, a) for a in range(3)], axis=-1)
    nx, ny, nz = shape
    used = jnp.zeros((nx - 1, ny - 1, nz - 1), bool)
    for dx, dy, dz, axis in EDGE_CELL_AXIS:  # a cell is used when one of its edges makes a quad
        used = used | quads[dx:dx + nx - 1, dy:dy + ny - 1, dz:dz + nz - 1, axis]
    used = used.reshape(-1)
    return quads.reshape(-1), inside.reshape(-1), jnp.cumsum(used.astype(jnp.int32))


def cell_vertex_positions(field: Any, cell: Any, threshold: Any, lower: Any, delta: Any) -> Any:
    """Positions ``(n, 3)`` of the vertices of flat cells ``cell`` (differentiable in ``field``):
    the mean of the crossing points on the cell's twelve edges."""
    nx, ny, nz = field.shape
    ci, cj, ck = cell // ((ny - 1) * (nz - 1)), (cell // (nz - 1)) % (ny - 1), cell % (nz - 1)
    total = jnp.zeros(cell.shape + (3,), field.dtype)
    count = jnp.zeros(cell.shape, field.dtype)
    for dx, dy, dz, axis in EDGE_CELL_AXIS:
        i, j, k = ci + dx, cj + dy, ck + dz
        step = [int(axis == a) for a in range(3)]
        f0 = field[i, j, k]
        f1 = field[i + step[0], j + step[1], k + step[2]]
        cross = jax.lax.stop_gradient((f0 < threshold) != (f1 < threshold))
        t = (threshold - f0) / jnp.where(cross, f1 - f0, 1.0)
        t = jnp.where(t < 0.0, 0.0, jnp.where(t > 1.0, 1.0, t))
        coords = []
        for a, idx in enumerate((i, j, k)):
            base = idx.astype(jnp.float32) + (t if step[a] else 0.0)
            coords.append(lower[a] + fmul(base, delta[a]))
        p = jnp.stack(coords, -1)
        total = total + jnp.where(cross[:, None], p, 0.0)
        count = count + cross.astype(field.dtype)
    return total / jnp.maximum(count, 1.0)[:, None]


@functools.partial(jax.jit, static_argnames=("vert_capacity", "quad_capacity"))
def _emit(field: Any, threshold: Any, lower: Any, delta: Any, quads: Any, inside: Any, vert_sum: Any,
          vert_capacity: int, quad_capacity: int) -> tuple:
    nx, ny, nz = field.shape
    cell = jnp.searchsorted(vert_sum, jnp.arange(1, vert_capacity + 1, dtype=jnp.int32), side="left")
    cell = jnp.minimum(cell, vert_sum.shape[0] - 1).astype(jnp.int32)
    verts = cell_vertex_positions(field, cell, threshold, lower, delta)

    edge = jnp.nonzero(quads, size=quad_capacity, fill_value=0)[0].astype(jnp.int32)
    axis = edge % 3
    node = edge // 3
    i, j, k = node // (ny * nz), (node // nz) % ny, node % nz
    b, c = (axis + 1) % 3, (axis + 2) % 3
    ijk = jnp.stack([i, j, k], -1)
    corners = []
    for db, dc in ((0, 0), (-1, 0), (-1, -1), (0, -1)):  # counter-clockwise seen from +axis
        at = ijk + jax.nn.one_hot(b, 3, dtype=jnp.int32) * db + jax.nn.one_hot(c, 3, dtype=jnp.int32) * dc
        flat = (at[:, 0] * (ny - 1) + at[:, 1]) * (nz - 1) + at[:, 2]
        flat = jnp.clip(flat, 0, vert_sum.shape[0] - 1)
        corners.append(vert_sum[flat] - 1)
    v0, v1, v2, v3 = corners
    outward = inside[node]  # inside at the lower end: the surface faces +axis
    # Warp's first corner (it fixes the triangles' diagonal): the edge's own cell, except for
    # z edges facing +z; the winding is reversed where the surface faces -axis
    first = jnp.where((axis == 2)[:, None], jnp.where(outward[:, None], jnp.stack([v1, v2, v3, v0], -1),
                                           jnp.stack([v0, v3, v2, v1], -1)),
                      jnp.where(outward[:, None], jnp.stack([v0, v1, v2, v3], -1), jnp.stack([v3, v2, v1, v0], -1)))
    quad = first
    return verts, cell, quad


def _capacity(n: int) -> int:
    return 1 << max(int(n) - 1, 0).bit_length()


def extract_buffers(field: Any, threshold: float, lower: Any, delta: Any) -> tuple:
    """Surface nets on a field ``(nx, ny, nz)``: ``(verts (n, 3), cells (n,), quads (q, 4))`` as jax
    arrays (the vertices' cells are for :func:`cell_vertex_positions`)."""
    field = jnp.asarray(field, jnp.float32)
    threshold = jnp.float32(threshold)
    lower = jnp.asarray(lower, jnp.float32)
    delta = jnp.asarray(delta, jnp.float32)
    quads, inside, vert_sum = _classify(field, threshold)
    n_verts, n_quads = (int(x) for x in jax.device_get((vert_sum[-1], quads.sum())))
    verts, cells, quad = _emit(field, threshold, lower, delta, quads, inside, vert_sum,
                               vert_capacity=_capacity(n_verts), quad_capacity=_capacity(n_quads))
    return verts[:n_verts], cells[:n_verts], quad[:n_quads]


@jax.jit
def positions_vjp(field: Any, cells: Any, threshold: Any, lower: Any, delta: Any, cotangent: Any) -> Any:
    """The field gradient of ``sum(cell_vertex_positions(...) * cotangent)``."""
    _, pullback = jax.vjp(lambda f: cell_vertex_positions(f, cells, threshold, lower, delta), field)
    return pullback(cotangent)[0]


__all__ = ["cell_vertex_positions", "extract_buffers", "positions_vjp"]
