"""Triangle adjacency and parallel Delaunay edge flips (``wp.geometry.tri_tri_adjacency``,
``wp.geometry.delaunay_edge_flip``), as jitted JAX programs.

Adjacency: every triangle's three edges (edge ``j`` joins local vertices ``j+1`` and ``j+2``, i.e.
lies opposite vertex ``j``) are sorted by their (smaller, larger) vertex pair; two equal neighbours
in that order are the two sides of an interior edge.

Flips: a ``lax.while_loop`` of passes. A pass rebuilds the adjacency from the current triangles,
marks every interior edge whose opposite vertex lies strictly inside the circumcircle of the other
triangle (in-circle determinant in float64) and whose flip leaves both new triangles with signed
area above ``area_epsilon`` (and above ``ref_area_epsilon`` at ``ref_positions``), then flips an
independent set at once: each triangle claims its marked edge of highest priority (a hash of the
edge, so that claims do not cascade along rows of a regular mesh), and an edge flips when both of
its triangles claimed it. The highest-priority marked edge always flips, so every pass progresses;
the loop stops after a pass without flips or after ``max_passes``.

Example:
    >>> import numpy as np, jwarp as wp
    >>> import jwarp.geometry
    >>> p = wp.array(np.array([[-3, 0], [3, 0], [0, 1], [0, -1]], np.float32), dtype=wp.vec2)
    >>> t = wp.array(np.array([[0, 1, 2], [1, 0, 3]], np.int32), dtype=wp.int32)
    >>> int(wp.geometry.delaunay_edge_flip(p, t).numpy()[0])
    1
"""

from __future__ import annotations

import functools
import math
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from jwarp.lang import composites, scalars
from jwarp.runtime import capture, storage
from jwarp.runtime.array import array


def _check_indices(indices: Any) -> None:
    if not isinstance(indices, array) or indices.ndim != 2 or indices.shape[1] != 3 or indices.dtype != scalars.int32:
        raise ValueError(f"Expected 'indices' to be a (num_tris, 3) wp.int32 array, got "
                         f"{getattr(indices, 'shape', indices)} of {getattr(indices, 'dtype', type(indices))}")


def _adjacency(tris: Any) -> tuple[Any, Any]:
    """``(neighbour triangle, neighbour's local edge)``, each ``(T, 3)`` (-1 on boundary edges)."""
    n = tris.shape[0] * 3
    a = jnp.roll(tris, -1, axis=1).reshape(-1)  # edge j: local vertices j+1, j+2
    b = jnp.roll(tris, -2, axis=1).reshape(-1)
    lo, hi = jnp.minimum(a, b), jnp.maximum(a, b)
    order = jnp.lexsort((hi, lo))
    slo, shi = lo[order], hi[order]
    pair = (slo[:-1] == slo[1:]) & (shi[:-1] == shi[1:])  # sorted half-edges k, k+1 share an edge
    first, second = order[:-1], order[1:]
    drop = jnp.int32(n)  # scatter target past the end: dropped
    neighbour = jnp.full(n, -1, jnp.int32)
    neighbour = neighbour.at[jnp.where(pair, first, drop)].set(second, mode="drop")
    neighbour = neighbour.at[jnp.where(pair, second, drop)].set(first, mode="drop")
    tri = jnp.where(neighbour >= 0, neighbour // 3, -1).reshape(-1, 3)
    edge = jnp.where(neighbour >= 0, neighbour % 3, -1).reshape(-1, 3)
    return tri.astype(jnp.int32), edge.astype(jnp.int32)


adjacency = jax.jit(_adjacency)


def _area(p: Any, q: Any, r: Any) -> Any:
    return (q[..., 0] - p[..., 0]) * (r[..., 1] - p[..., 1]) - (q[..., 1] - p[..., 1]) * (r[..., 0] - p[..., 0])


def _in_circle(a: Any, b: Any, c: Any, d: Any) -> Any:
    """Positive when ``d`` is inside the circumcircle of the counter-clockwise triangle ``abc``."""
    ad, bd, cd = a - d, b - d, c - d
    ad2, bd2, cd2 = (ad * ad).sum(-1), (bd * bd).sum(-1), (cd * cd).sum(-1)
    return (ad[..., 0] * (bd[..., 1] * cd2 - cd[..., 1] * bd2) - ad[..., 1] * (bd[..., 0] * cd2 - cd[..., 0] * bd2)
            + ad2 * (bd[..., 0] * cd[..., 1] - bd[..., 1] * cd[..., 0]))


def _priority(t: Any, j: Any, n: Any, k: Any) -> Any:
    """A hash of the undirected edge (same from both sides), as a non-negative int32."""
    x = jnp.minimum(t * 3 + j, n * 3 + k).astype(jnp.uint32)
    x = (x ^ (x >> 16)) * jnp.uint32(0x7FEB352D)
    x = (x ^ (x >> 15)) * jnp.uint32(0x846CA68B)
    x = x ^ (x >> 16)
    return (x >> 1).astype(jnp.int32)


def _pass(tris: Any, pos: Any, ref: Any, area_eps: Any, ref_eps: Any) -> tuple[Any, Any]:
    """One pass of independent flips; returns the new triangles and the number of flips."""
    count = tris.shape[0]
    ntri, nedge = _adjacency(tris)
    t = jnp.arange(count, dtype=jnp.int32)[:, None] * jnp.ones((1, 3), jnp.int32)
    j = jnp.arange(3, dtype=jnp.int32)[None, :] * jnp.ones((count, 1), jnp.int32)
    inner = ntri >= 0
    n, k = jnp.maximum(ntri, 0), jnp.maximum(nedge, 0)
    a_i = tris[t, j]
    b_i = tris[t, (j + 1) % 3]
    c_i = tris[t, (j + 2) % 3]
    d_i = tris[n, k]
    a, b, c, d = pos[a_i], pos[b_i], pos[c_i], pos[d_i]
    want = inner & (_in_circle(a, b, c, d) > 0)
    can = (_area(a, b, d) > area_eps) & (_area(a, d, c) > area_eps)
    if ref is not None:
        ra, rb, rc, rd = ref[a_i], ref[b_i], ref[c_i], ref[d_i]
        can = can & (_area(ra, rb, rd) > ref_eps) & (_area(ra, rd, rc) > ref_eps)
    marked = want & can
    prio = jnp.where(marked, _priority(t, j, n, k), -1)
    best = prio.max(axis=1)  # each triangle's claim
    claimed = marked & (prio == best[:, None])
    mutual = claimed & (best[n] == prio) & (t < n)  # both triangles claimed this edge; once per edge
    flip_t = jnp.where(mutual, t, count)
    flip_n = jnp.where(mutual, n, count)
    new_t = jnp.stack([a_i, b_i, d_i], -1)
    new_n = jnp.stack([a_i, d_i, c_i], -1)
    out = tris.at[flip_t.reshape(-1)].set(new_t.reshape(-1, 3), mode="drop")
    out = out.at[flip_n.reshape(-1)].set(new_n.reshape(-1, 3), mode="drop")
    return out, mutual.sum().astype(jnp.int32)


@functools.partial(jax.jit, static_argnames=("max_passes", "has_ref"))
def _flip_all(tris: Any, pos: Any, ref: Any, area_eps: Any, ref_eps: Any, max_passes: int, has_ref: bool) -> tuple:
    if tris.shape[0] == 0:
        return tris, jnp.zeros(1, jnp.int32)
    pos = pos.astype(jnp.float64)
    ref = ref.astype(jnp.float64) if has_ref else None

    def cond(state: tuple) -> Any:
        _, passes, last, _ = state
        return (passes < max_passes) & (last > 0)

    def body(state: tuple) -> tuple:
        tris, passes, _, total = state
        tris, flips = _pass(tris, pos, ref, area_eps, ref_eps)
        return tris, passes + 1, flips, total + flips

    tris, _, _, total = lax.while_loop(cond, body, (tris, jnp.int32(0), jnp.int32(1), jnp.int32(0)))
    return tris, total.reshape(1)


def tri_tri_adjacency(indices: array, vertex_count: int | None = None,
                      return_neighbor_edge_indices: bool = True) -> Any:
    """Triangle-triangle adjacency of a ``(num_tris, 3)`` ``wp.int32`` triangle array.

    Returns ``(triangle_neighbors, neighbor_edge_indices)`` (``(num_tris, 3)`` int32 arrays), or
    only ``triangle_neighbors`` with ``return_neighbor_edge_indices=False``:
    ``triangle_neighbors[t, j]`` is the triangle across the edge opposite local vertex ``j`` (-1 on
    the boundary), ``neighbor_edge_indices[t, j]`` that edge's local index in the neighbour.
    ``vertex_count`` may be omitted (inferred, a host synchronisation), except during a capture.
    """
    _check_indices(indices)
    if vertex_count is None and capture.recording(indices.device):
        raise RuntimeError("tri_tri_adjacency(): vertex_count must be given during graph capture "
                           "(inferring it reads the indices back to the host)")
    shape = tuple(indices.shape)
    neighbors = array(shape=shape, dtype=scalars.int32, device=indices.device)
    edges = array(shape=shape, dtype=scalars.int32, device=indices.device)

    def run() -> None:
        with storage.x64():
            tri, edge = adjacency(indices.buffer.reshape(shape))
        neighbors._set_buffer(tri)
        edges._set_buffer(edge)

    if shape[0] and not capture.deferred(indices.device, run, [indices, neighbors, edges]):
        run()
    return (neighbors, edges) if return_neighbor_edge_indices else neighbors


def _check_epsilon(value: float, name: str) -> float:
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"delaunay_edge_flip(): {name} must be finite and non-negative, got {value}")
    return float(value)


def delaunay_edge_flip(positions: array, indices: array, ref_positions: array | None = None, max_passes: int = 1000,
                       area_epsilon: float = 0.0, ref_area_epsilon: float = 1e-10) -> array:
    """Flip non-Delaunay interior edges of a counter-clockwise 2-D triangulation in place.

    Args:
        positions: ``wp.vec2`` vertex positions (unchanged).
        indices: ``(num_tris, 3)`` ``wp.int32`` triangles, rewritten with the flipped connectivity.
        ref_positions: optional reference positions; flips that would make a triangle of area
            ``<= ref_area_epsilon`` there are rejected.
        max_passes: most passes of parallel flips (at least 1).
        area_epsilon: smallest signed area a triangle made by a flip may have (exclusive).
        ref_area_epsilon: the same threshold at ``ref_positions``.

    Returns:
        A ``(1,)`` ``wp.int32`` array with the number of flips (filled at replay under a capture).
    """
    _check_indices(indices)
    if int(max_passes) < 1:
        raise ValueError(f"delaunay_edge_flip(): max_passes must be at least 1, got {max_passes}")
    area_eps = _check_epsilon(area_epsilon, "area_epsilon")
    ref_eps = _check_epsilon(ref_area_epsilon, "ref_area_epsilon")
    for name, p in (("positions", positions), ("ref_positions", ref_positions)):
        if p is not None and (not isinstance(p, array) or composites.canonical(p.dtype) is not composites.vec2):
            raise ValueError(f"delaunay_edge_flip(): {name} must be a wp.vec2 array")
    total = array(shape=(1,), dtype=scalars.int32, device=indices.device)
    shape = tuple(indices.shape)

    def run() -> None:
        ref = ref_positions.buffer.reshape(-1, 2) if ref_positions is not None else jnp.zeros((1, 2), jnp.float32)
        with storage.x64():
            tris, count = _flip_all(indices.buffer.reshape(shape), positions.buffer.reshape(-1, 2), ref,
                                    jnp.float64(area_eps), jnp.float64(ref_eps), max_passes=int(max_passes),
                                    has_ref=ref_positions is not None)
        indices._set_buffer(tris.reshape(indices.buffer.shape))
        total._set_buffer(count)

    operands = [positions, indices, total] + ([ref_positions] if ref_positions is not None else [])
    if not capture.deferred(indices.device, run, operands):
        run()
    return total


__all__ = ["adjacency", "delaunay_edge_flip", "tri_tri_adjacency"]
