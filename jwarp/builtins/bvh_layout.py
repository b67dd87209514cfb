"""Node layouts of halving trees for the stackless walks: heap and in-order numberings, node tables.

A tree built by :func:`jwarp.runtime.geometry.bvh_build.build` without groups has a shape that
depends on its primitive count only (every node splits its range in half), so it can be numbered
as a complete binary tree: as a heap (:func:`heap_order`: the children of slot ``k`` are ``2k`` and
``2k + 1``; some slots of the last levels stay empty) and *in order* (:func:`inorder_order`: a
slot's lowest set bit is its height bit, its children are ``slot -+ height / 2``), which the walks
of :mod:`jwarp.builtins.bvh_trail` step through.

A walk step reads one 16-float row per lane: for an internal node the boxes of both children,
for a leaf its primitive's data, flag and index. :func:`node_rows` lays them out in in-order slots
from the pre-order node arrays (a gather per element: any tree); :func:`heap_rows` builds a
:class:`Table` from the node boxes in heap order, which a device refit computes anyway
(:mod:`jwarp.runtime.geometry.bvh_refit`): an internal node's row is then the pair of its
children's boxes, adjacent in the heap (a reshape), and the leaves' rows follow in the tree's
primitive order, so the build gathers nothing but the leaves' own data. A small static index maps
in-order slots to rows (:func:`heap_slot_rows`). Warp's bunny (12,200 faces), the sign-normal table
alone: 0.65-0.76 -> 0.30 ms; 1,000 queries a launch (in-process A/B, one core): sign-normal
0.93-0.97x, closest point 0.96-0.97x, rays 0.81-0.86x the time with the pre-order-built table.

Example (inside a builtin):
    >>> table = heap_rows(heap_boxes, leaf_columns, prims)  # doctest: +SKIP
    >>> rows = table.at(slots)  # (lanes, 16)  # doctest: +SKIP
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, NamedTuple

import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.builtins.bvh_walk import Tree
from jwarp.builtins.lane_pool import gather_rows
from jwarp.compiler.selects import where

# columns of a row: 12 for two child boxes (or up to 12 of leaf data), then the leaf flag and the
# primitive index (bit pattern of an int32); padded to 16 floats (one 64-byte cache line)
WIDTH = 16
FLAG, PRIM = 12, 13


@lru_cache(maxsize=64)
def _halving_heap(count: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``(pre, first, levels)``: each heap slot's pre-order node and the first primitive (in the
    tree's order) of its range (-1 for an empty slot and slot 0), and the level count."""
    levels = max(int(count - 1).bit_length(), 0) + 1
    pre = np.full(1 << levels, -1, np.int64)
    first = np.full(1 << levels, -1, np.int64)
    slot, node = np.array([1]), np.array([0])
    start, end = np.array([0]), np.array([count])
    while slot.size:
        pre[slot], first[slot] = node, start
        inner = end - start > 1
        s, n, b, e = slot[inner], node[inner], start[inner], end[inner]
        mid = b + (e - b) // 2
        slot = np.concatenate([2 * s, 2 * s + 1])
        node = np.concatenate([n + 1, n + 2 * (mid - b)])
        start, end = np.concatenate([b, mid]), np.concatenate([mid, e])
    return pre.astype(np.int32), first.astype(np.int32), levels


def heap_order(count: int) -> tuple[np.ndarray, int]:
    """``(pre, levels)`` of the halving tree over ``count`` primitives: ``pre[k]`` is the
    pre-order node number of heap node ``k`` (-1 for an empty slot and for slot 0).

    Example:
        >>> pre, levels = heap_order(3)
        >>> pre.tolist(), levels
        ([-1, 0, 1, 2, -1, -1, 3, 4], 3)
    """
    pre, _, levels = _halving_heap(count)
    return pre, levels


def _inorder_slots(levels: int) -> np.ndarray:
    """The in-order slot of each heap node ``k`` in ``[1, 2^levels)``: at level ``L`` it is
    ``(2 (k - 2^L) + 1) 2^(levels - 1 - L)``."""
    k = np.arange(1, 1 << levels, dtype=np.int64)
    level = np.floor(np.log2(k)).astype(np.int64)
    level -= (np.left_shift(1, level) > k).astype(np.int64)  # exact floor(log2) against rounding
    level += (np.left_shift(1, level + 1) <= k).astype(np.int64)
    return (2 * (k - np.left_shift(1, level)) + 1) << (levels - 1 - level)


@lru_cache(maxsize=64)
def inorder_order(count: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``(pre, kids, levels)``: the halving tree over ``count`` primitives numbered *in order* as a
    complete tree of ``levels`` levels (padded with empty slots): heap node ``k`` at level ``L``
    becomes slot ``(2 (k - 2^L) + 1) 2^(levels - 1 - L)``, so a slot's lowest set bit ``h`` is its
    height bit and its children are ``slot -+ h / 2``. ``pre[slot]``: the pre-order node (-1: empty
    or slot 0); ``kids[slot]``: the pre-order nodes of its two children (-1: none)."""
    heap, levels = heap_order(count)
    size = heap.shape[0]
    k = np.arange(1, size, dtype=np.int64)
    slot = _inorder_slots(levels)
    pre = np.full(size, -1, np.int64)
    pre[slot] = heap[1:]
    kids = np.full((size, 2), -1, np.int64)
    inner = 2 * k < size
    kids[slot[inner], 0] = heap[2 * k[inner]]
    kids[slot[inner], 1] = heap[2 * k[inner] + 1]
    return pre.astype(np.int32), kids.astype(np.int32), levels


@lru_cache(maxsize=64)
def heap_slot_rows(count: int) -> np.ndarray:
    """The row of each in-order slot in a :func:`heap_rows` table of the tree over ``count``
    primitives: heap node ``k`` for an internal node, ``2^(levels-1) + i`` for the leaf of the
    ``i``-th primitive in the tree's order (0 for empty slots, which no walk enters).

    Example:
        >>> heap_slot_rows(3).tolist()  # in-order slots: 2 leaf 0, 4 the root, 5 leaf 1, 6 node 3, 7 leaf 2
        [0, 0, 4, 0, 1, 5, 3, 6]
    """
    pre, first, levels = _halving_heap(count)
    half = 1 << (levels - 1)
    k = np.arange(1, 1 << levels, dtype=np.int64)
    leaf = (pre[1:] >= 0) & ((2 * k >= (1 << levels)) | (pre[np.minimum(2 * k, (1 << levels) - 1)] < 0))
    rows = np.where(pre[1:] < 0, 0, np.where(leaf, half + first[1:], k))
    out = np.zeros(1 << levels, np.int32)
    out[_inorder_slots(levels)] = rows
    return out


class Table(NamedTuple):
    """A walk's node table: ``rows`` ``(n, 16)`` float32 and ``slot_rows``, the row of each in-order
    slot (None: the rows are in slot order, as :func:`node_rows` lays them out)."""

    rows: Any
    slot_rows: Any = None

    def at(self, slot: Any) -> Any:
        """The rows of in-order slots ``slot`` (lane array) as ``(lanes, 16)``."""
        index = slot if self.slot_rows is None else gather_rows(self.slot_rows, slot)
        return gather_rows(self.rows, index)


def as_table(rows: Any) -> Table:
    """``rows`` as a :class:`Table` (a bare array is in slot order)."""
    return rows if isinstance(rows, Table) else Table(rows)


def heap_rows(heap: Any, leaves: Any, prims: Any) -> Table:
    """The table of a halving tree from its node boxes in heap order (``heap``: ``(2^levels, 6)``,
    lower xyz and upper xyz, empty slots with empty boxes) and its leaves' data: ``leaves``, a
    float32 ``(count, k)`` array (``k <= 12``) of the primitives in the tree's order, whose indices
    are ``prims`` (int32 ``(count,)``)."""
    size = heap.shape[0]
    half, count = size // 2, prims.shape[0]
    inner = jnp.concatenate([heap.reshape(half, 12), jnp.zeros((half, WIDTH - 12), jnp.float32)], axis=1)
    flag = jnp.ones((count, 1), jnp.float32)
    bits = lax.bitcast_convert_type(prims, jnp.float32)[:, None]
    pad = lambda k: jnp.zeros((count, k), jnp.float32)  # noqa: E731
    rows = jnp.concatenate([leaves.astype(jnp.float32), pad(12 - leaves.shape[1]), flag, bits, pad(WIDTH - 14)], axis=1)
    return Table(jnp.concatenate([inner, rows], axis=0), jnp.asarray(heap_slot_rows(count)))


def node_rows(tree: Tree, count: int, leaf_data: Callable[[Any], Any]) -> Any:
    """The ``(2^levels, 16)`` float32 table of rows in in-order slots (:func:`inorder_order`): an
    internal node's two child boxes (lower xyz, upper xyz each; an empty child has an empty box), or
    a leaf's ``leaf_data(prim)`` (a list of at most 12 lane arrays), flag 1 and primitive index."""
    pre, kids, _ = inorder_order(count)
    slots = pre.shape[0]
    pre_j = jnp.asarray(pre)
    present = pre_j >= 0
    node = jnp.maximum(pre_j, 0)
    prim = gather_rows(tree.links, node)[:, 1]
    leaf = present & (prim >= 0)
    empty = jnp.asarray([jnp.inf] * 3 + [-jnp.inf] * 3, jnp.float32)
    kids = jnp.asarray(kids)
    boxes = gather_rows(tree.bounds, jnp.maximum(kids, 0))  # (slots, 2, 6)
    boxes = where((kids >= 0)[..., None], boxes, empty).reshape(slots, 12)
    # the leaf data once per primitive (fewer than the slots: a tree of 12,200 faces has 32,768),
    # then a row gather into the leaves' slots
    data = leaf_data(lax.iota(jnp.int32, count))
    data = jnp.stack(list(data) + [jnp.zeros_like(data[0])] * (12 - len(data)), axis=1)
    body = where(leaf[:, None], gather_rows(data, prim), boxes)
    flag = leaf.astype(jnp.float32)[:, None]
    bits = lax.bitcast_convert_type(jnp.maximum(prim, 0), jnp.float32)[:, None]
    pad = jnp.zeros((slots, WIDTH - 14), jnp.float32)
    return jnp.concatenate([body, flag, bits, pad], axis=1)


__all__ = ["FLAG", "PRIM", "WIDTH", "Table", "as_table", "heap_order", "heap_rows", "heap_slot_rows", "inorder_order",
           "node_rows"]
