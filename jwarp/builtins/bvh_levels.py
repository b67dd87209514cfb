"""BVH queries of large trees searched level by level over (lane, node) pairs, results in walk order.

A walk (:mod:`jwarp.builtins.bvh_walk`) takes one node per lane a step; on the CPU a step of a pool
costs XLA's fixed work per operation whatever the pool's width, and a box query of a 16k-triangle
mesh walked 3,336 steps for 32,768 lanes. Here every lane's search advances one tree level at a
time over a flat *frontier* of (lane, in-order slot) pairs (:func:`jwarp.builtins.bvh_trail.node_rows`:
a slot's row holds both children's boxes): each pair is replaced by its children whose boxes the
lane's query enters (its box overlaps them, its ray hits them, ...; a leaf stays as it is), in
chunks of at most :data:`CHUNK` pairs, so the work follows the pairs alive at each level. The
frontier starts in lane order and each pair's children keep its place, left child first; in-order
slots rank leaves as the walk meets them, so once every pair is a leaf the frontier holds each
lane's results contiguous and in the walk's order.

A lane resumed at a node (results already handed out) or limited to a subtree keeps the leaves in
``[node, end)`` of the pre-order numbering: a walk from ``node`` meets exactly the leaves there whose
boxes pass (a node's box holds its children's and the tests are monotone, so a leaf's ancestors pass
when it does), and they are consecutive in the frontier. The frontier holds at most ``capacity``
pairs: the lanes from the first pair that found no room on are *incomplete*
(:class:`jwarp.builtins.bvh_pairs.LevelPlan` searches them again in its next step, or walks them once
a search completes no lane).

Example (inside a builtin):
    >>> found = search(rows, count, (ax, ay, az, bx, by, bz), overlap, live, node, end, root_box,
    ...                capacity)  # doctest: +SKIP
    >>> found.first, found.count, found.complete  # per lane  # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.builtins import bvh_trail
from jwarp.builtins.lane_pool import gather_rows
from jwarp.compiler.prefix_sums import running_total
from jwarp.compiler.selects import where

CHUNK = 4096
"""Frontier pairs expanded at once, at most (a prototype on 32,768 box queries of a 16k-triangle
sphere: chunks of 2,048-8,192 within noise of each other, 18-20 ms a search)."""


def chunk_for(lanes: int) -> int:
    """The chunk of a search of ``lanes`` lanes: about two frontier pairs a lane, a power of two in
    [256, :data:`CHUNK`] (a level costs at least one chunk)."""
    size = 256
    while size < 2 * lanes and size < CHUNK:
        size *= 2
    return size


@dataclass
class Found:
    """Each lane's results: ``prims`` ``(capacity + 2 chunk,)`` (the frontier's primitives), and per
    lane its first position there, its number of results and whether the search completed it."""

    prims: Any
    first: Any
    count: Any
    complete: Any


def search(rows: Any, count: int, lanes: tuple, test: Callable[[tuple, tuple, tuple], Any], live: Any, node: Any,
           end: Any, root_box: Any, capacity: int, chunk: int = CHUNK) -> Found:
    """The leaves of each ``live`` lane whose boxes pass its ``test`` and whose pre-order numbers lie
    in ``[node, end)``, in the walk's order. ``lanes``: the lane arrays the test reads (a query's
    box, or ray, ...); ``test(lanes, lower, upper)``: whether those lanes' queries enter the boxes
    ``[lower, upper]`` (xyz arrays), true for a node's box wherever it is for one of its children's.
    ``rows``: the in-order table of the tree over ``count`` primitives; ``root_box``: the root's
    ``(6,)`` box (lower, upper). ``capacity``: the most frontier pairs; ``chunk``: pairs expanded at once."""
    n = live.shape[0]
    pre, _, levels = bvh_trail.inorder_order(count)
    size = capacity + 2 * chunk  # (a chunk's children are written past the count, at most 2 chunk)
    table = jnp.stack(lanes, axis=1)  # a row per lane: what its test reads
    lo, hi = tuple(root_box[k] for k in range(3)), tuple(root_box[k] for k in range(3, 6))
    start = live & test(lanes, lo, hi)
    placed = running_total(start.astype(jnp.int32), n)
    at = where(start, placed - 1, size)
    pairs = jnp.full((size, 2), n, jnp.int32).at[at].set(
        jnp.stack([lax.iota(jnp.int32, n), jnp.full(n, bvh_trail.root_slot(count), jnp.int32)], axis=1), mode="drop")

    def expand(pairs: Any, out: Any, alive: Any, cut: Any) -> tuple:
        """One level: each pair's children (a leaf stays), written over ``out`` (a buffer of the
        frontier's size whose contents are not needed). Returns the next frontier, its size and the
        first incomplete lane."""
        def one(c: tuple) -> tuple:
            begin, out, filled, cut = c
            here = lax.dynamic_slice(pairs, (begin, jnp.int32(0)), (chunk, 2))
            lane, slot = here[:, 0], here[:, 1]
            valid = (begin + lax.iota(jnp.int32, chunk) < alive) & (lane < cut)
            row = gather_rows(rows, slot)
            mine = gather_rows(table, lane)
            query = tuple(mine[:, k] for k in range(table.shape[1]))
            leaf = row[:, bvh_trail.FLAG] != 0
            inner = valid & ~leaf
            left = (valid & leaf) | (inner & test(query, tuple(row[:, k] for k in range(3)),
                                                  tuple(row[:, k] for k in range(3, 6))))
            right = inner & test(query, tuple(row[:, k] for k in range(6, 9)), tuple(row[:, k] for k in range(9, 12)))
            kids = left.astype(jnp.int32) + right.astype(jnp.int32)
            through = running_total(kids, 2 * chunk)
            first = filled + through - kids  # each pair's children keep its place, left first
            half = jnp.right_shift(slot & -slot, 1)
            out = out.at[where(left, first, size)].set(jnp.stack([lane, where(leaf, slot, slot - half)], axis=1),
                                                       mode="drop")
            out = out.at[where(right, first + left.astype(jnp.int32), size)].set(
                jnp.stack([lane, slot + half], axis=1), mode="drop")
            total = filled + through[-1]
            # no room from the pair at `capacity` on: its lane and those after it are left to a walk
            cut = where(total > capacity, jnp.minimum(cut, out[capacity, 0]), cut)
            return begin + chunk, out, jnp.minimum(total, capacity), cut

        _, out, filled, cut = lax.while_loop(lambda c: c[0] < alive, one, (jnp.int32(0), out, jnp.int32(0), cut))
        return out, filled, cut

    def two_levels(_: Any, carry: tuple) -> tuple:
        # two levels per iteration, so that each buffer stays in its place in the loop's carry (two
        # buffers swapped there were copied at every level); an extra level moves only leaves
        pairs, spare, alive, cut = carry
        spare, alive, cut = expand(pairs, spare, alive, cut)
        pairs, alive, cut = expand(spare, pairs, alive, cut)
        return pairs, spare, alive, cut

    alive = jnp.sum(start, dtype=jnp.int32)
    cut = where(alive > capacity, pairs[capacity, 0], n)  # (more lanes than room: the first without)
    carry = (pairs, jnp.zeros_like(pairs), jnp.minimum(alive, capacity), cut)
    pairs, _, alive, cut = lax.fori_loop(0, levels // 2, two_levels, carry)
    return _tally(rows, pairs, alive, cut, node, end, jnp.asarray(pre), n, size, chunk)


def _tally(rows: Any, pairs: Any, alive: Any, cut: Any, node: Any, end: Any, pre: Any, n: int, size: int,
           chunk: int) -> Found:
    """Each complete lane's first position and number of results in ``[node, end)`` (consecutive in the
    frontier), and the frontier's primitives, chunk by chunk over the pairs alive."""
    def one(c: tuple) -> tuple:
        begin, prims, first, count = c
        here = lax.dynamic_slice(pairs, (begin, jnp.int32(0)), (chunk, 2))
        lane, slot = here[:, 0], here[:, 1]
        position = begin + lax.iota(jnp.int32, chunk)
        p = gather_rows(pre, slot)
        keep = (position < alive) & (lane < cut) & (gather_rows(node, lane) <= p) & (p < gather_rows(end, lane))
        target = where(keep, lane, n)
        count = count.at[target].add(1, mode="drop")
        first = first.at[target].min(position, mode="drop")
        prim = lax.bitcast_convert_type(gather_rows(rows, slot)[:, bvh_trail.PRIM], jnp.int32)
        return begin + chunk, lax.dynamic_update_slice(prims, prim, (begin,)), first, count

    start = (jnp.int32(0), jnp.zeros(size, jnp.int32), jnp.full(n, np.iinfo(np.int32).max, jnp.int32),
             jnp.zeros(n, jnp.int32))
    _, prims, first, count = lax.while_loop(lambda c: c[0] < alive, one, start)
    complete = lax.iota(jnp.int32, n) < cut
    return Found(prims, where(count > 0, first, 0), count, complete)


__all__ = ["CHUNK", "Found", "chunk_for", "search"]
