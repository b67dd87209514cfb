"""Marching cubes over a dense float32 field, in two jitted passes (Warp's output order).

Pass 1 (:func:`_classify`) marks every grid edge whose end values straddle the threshold (one end
``>= threshold``, the other ``< threshold``), numbers those edges by an inclusive prefix sum in
(i, j, k, axis) order (the output vertex order), and gives every cell its case code (bit ``c`` set
when corner ``c`` is ``>= threshold``) and a prefix sum of its triangle counts. The host reads the
two totals (a synchronisation point, as in Warp).

Pass 2 (:func:`_emit`) writes ``capacity`` outputs (capacities are powers of two, so repeated calls
with changing surface sizes compile a handful of variants): output vertex ``v`` is the edge whose
prefix sum first reaches ``v + 1``, placed by linear interpolation between the edge's end nodes;
output triangle ``t`` belongs to the cell whose triangle prefix sum first reaches ``t + 1``, and its
corners are the vertex numbers of the edges the case table names (``-1`` where an edge made no
vertex, as Warp). Vertex positions are a differentiable function of the field
(:func:`vertex_positions`), which :mod:`jwarp.runtime.geometry.iso_surface` uses for ``wp.Tape``.

Example:
    >>> import numpy as np
    >>> f = np.linalg.norm(np.indices((8, 8, 8)).T - 3.5, axis=-1).astype(np.float32) - 2.0
    >>> verts, tris = extract(f, 0.0, (0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
    >>> verts.shape[1], tris.shape[0] % 3
    (3, 0)
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jwarp.builtins.random import fmul
from jwarp.runtime.geometry.marching_cubes_tables import (
    CASE_TO_TRI_RANGE,
    CUBE_CORNER_OFFSETS,
    EDGE_CELL_AXIS,
    TRI_LOCAL_INDICES,
)

_RANGE = np.asarray(CASE_TO_TRI_RANGE, np.int32)
_TRI_COUNT = (_RANGE[1:] - _RANGE[:-1]) // 3
_LOCAL = np.asarray(TRI_LOCAL_INDICES, np.int32)
_EDGE_CELL_AXIS = np.asarray(EDGE_CELL_AXIS, np.int32)


def _shifted(x: Any, axis: int) -> tuple[Any, Any]:
    """``x`` without its last / first slice along ``axis`` (the two ends of that axis' edges)."""
    n = x.shape[axis]
    return _slice(x, axis, 0, n - 1), _slice(x, axis, 1, n)


def _slice(x: Any, axis: int, start: int, stop: int) -> Any:
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, stop)
    return x[tuple(index)]


@jax.jit
def _classify(field: Any, threshold: Any) -> tuple:
    """Edge vertex numbering (inclusive prefix sum over ``(nx, ny, nz, 3)`` edges), cell case
    codes and the inclusive prefix sum of the cells' triangle counts."""
    above = field >= threshold
    below = field < threshold
    planes = []
    for axis in range(3):
        a_lo, a_hi = _shifted(above, axis)
        b_lo, b_hi = _shifted(below, axis)
        cross = (a_lo & b_hi) | (b_lo & a_hi)
        pad = [(0, 0)] * 3
        pad[axis] = (0, 1)
        planes.append(jnp.pad(cross, pad))
    edges = jnp.stack(planes, axis=-1).reshape(-1).astype(jnp.int32)
    nx, ny, nz = field.shape
    case = jnp.zeros((nx - 1, ny - 1, nz - 1), jnp.int32)
    for bit, (dx, dy, dz) in enumerate(CUBE_CORNER_OFFSETS):
        corner = above[dx:dx + nx - 1, dy:dy + ny - 1, dz:dz + nz - 1]
        case = case | (corner.astype(jnp.int32) << bit)
    case = case.reshape(-1)
    return jnp.cumsum(edges), case, jnp.cumsum(jnp.asarray(_TRI_COUNT)[case])


def _edge_nodes(edge: Any, shape: tuple) -> tuple:
    """Grid node (i, j, k) and axis of flat edge numbers ``((i * ny + j) * nz + k) * 3 + axis``."""
    _, ny, nz = shape
    axis = edge % 3
    node = edge // 3
    return node // (ny * nz), (node // nz) % ny, node % nz, axis


def vertex_positions(field: Any, edge: Any, threshold: Any, lower: Any, delta: Any) -> Any:
    """Positions ``(n, 3)`` of the vertices on flat edges ``edge`` (differentiable in ``field``):
    ``lerp(p_i, p_j, clamp((threshold - f_i) / (f_j - f_i), 0, 1))``."""
    i, j, k, axis = _edge_nodes(edge, field.shape)
    step = [(axis == a).astype(jnp.int32) for a in range(3)]
    i2, j2, k2 = i + step[0], j + step[1], k + step[2]
    this_val = field[i, j, k]
    opp_val = field[i2, j2, k2]
    t = (threshold - this_val) / (opp_val - this_val)
    t = jnp.where(t < 0.0, 0.0, jnp.where(t > 1.0, 1.0, t))  # gradient passes at the bounds, as Warp's clamp
    # products rounded before the sums they feed, as Warp's CPU build (no fused multiply-adds)
    this_pos = jnp.stack([lower[a] + fmul(idx.astype(jnp.float32), delta[a]) for a, idx in enumerate((i, j, k))], -1)
    opp_pos = jnp.stack([lower[a] + fmul(idx.astype(jnp.float32), delta[a]) for a, idx in enumerate((i2, j2, k2))], -1)
    t = t[:, None]
    return fmul(this_pos, 1.0 - t) + fmul(opp_pos, t)


@functools.partial(jax.jit, static_argnames=("vert_capacity", "tri_capacity"))
def _emit(field: Any, threshold: Any, lower: Any, delta: Any, vert_sum: Any, case: Any, tri_sum: Any,
          vert_capacity: int, tri_capacity: int) -> tuple:
    """``vert_capacity`` vertex positions and edge numbers, ``tri_capacity`` triangles ``(t, 3)``."""
    nx, ny, nz = field.shape
    edge = jnp.searchsorted(vert_sum, jnp.arange(1, vert_capacity + 1, dtype=jnp.int32), side="left")
    edge = jnp.minimum(edge, vert_sum.shape[0] - 1).astype(jnp.int32)
    verts = vertex_positions(field, edge, threshold, lower, delta)

    tri = jnp.arange(tri_capacity, dtype=jnp.int32)
    cell = jnp.minimum(jnp.searchsorted(tri_sum, tri + 1, side="left"), tri_sum.shape[0] - 1).astype(jnp.int32)
    cell_case = case[cell]
    counts = jnp.asarray(_TRI_COUNT)[cell_case]
    local = tri - (tri_sum[cell] - counts)
    ci, cj, ck = cell // ((ny - 1) * (nz - 1)), (cell // (nz - 1)) % (ny - 1), cell % (nz - 1)
    first = jnp.asarray(_RANGE)[cell_case] + 3 * local
    slots = jnp.clip(first[:, None] + jnp.arange(3, dtype=jnp.int32), 0, _LOCAL.shape[0] - 1)
    local_edge = jnp.asarray(_LOCAL)[slots]
    offset = jnp.asarray(_EDGE_CELL_AXIS)[local_edge]  # (t, 3, 4): dx, dy, dz, axis
    flat = (((ci[:, None] + offset[..., 0]) * ny + cj[:, None] + offset[..., 1]) * nz
            + ck[:, None] + offset[..., 2]) * 3 + offset[..., 3]
    flat = jnp.clip(flat, 0, vert_sum.shape[0] - 1)
    made = vert_sum[flat] - jnp.where(flat > 0, vert_sum[jnp.maximum(flat - 1, 0)], 0)
    tris = jnp.where(made > 0, vert_sum[flat] - 1, -1)
    return verts, edge, tris


def _capacity(n: int) -> int:
    return 1 << max(int(n) - 1, 0).bit_length()


def extract_buffers(field: Any, threshold: float, lower: Any, delta: Any) -> tuple:
    """Marching cubes on a jax/numpy field ``(nx, ny, nz)`` (at least 2 nodes per axis).

    Returns ``(verts (n, 3) float32, edges (n,) int32, tris (3 t,) int32)`` as jax arrays: the
    vertices' positions and flat edge numbers (for :func:`vertex_positions`), and the flat triangle
    corner list."""
    field = jnp.asarray(field, jnp.float32)
    threshold = jnp.float32(threshold)
    lower = jnp.asarray(lower, jnp.float32)
    delta = jnp.asarray(delta, jnp.float32)
    vert_sum, case, tri_sum = _classify(field, threshold)
    n_verts, n_tris = (int(x) for x in jax.device_get((vert_sum[-1], tri_sum[-1])))
    verts, edges, tris = _emit(field, threshold, lower, delta, vert_sum, case, tri_sum,
                               vert_capacity=_capacity(n_verts), tri_capacity=_capacity(n_tris))
    return verts[:n_verts], edges[:n_verts], tris[:n_tris].reshape(-1)


def extract(field: Any, threshold: float, lower: Any, delta: Any) -> tuple[np.ndarray, np.ndarray]:
    """:func:`extract_buffers` as numpy ``(verts (n, 3), tris (3 t,))``."""
    verts, _, tris = extract_buffers(field, threshold, lower, delta)
    return np.asarray(verts), np.asarray(tris)


@functools.partial(jax.jit, static_argnames=())
def positions_vjp(field: Any, edge: Any, threshold: Any, lower: Any, delta: Any, cotangent: Any) -> Any:
    """The field gradient of ``sum(vertex_positions(...) * cotangent)``."""
    _, pullback = jax.vjp(lambda f: vertex_positions(f, edge, threshold, lower, delta), field)
    return pullback(cotangent)[0]


__all__ = ["extract", "extract_buffers", "positions_vjp", "vertex_positions"]
