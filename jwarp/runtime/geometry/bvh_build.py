"""A bounding volume hierarchy built on the host, stored as flat arrays for stackless traversal.

The tree is built in numpy: every node splits its range of primitives in half (one primitive per
leaf), so the tree's shape depends on the primitive count only. Without groups, each node's half
is the median split of its primitives' centroids along the axis the surface area heuristic
prefers (:func:`_halving_order`; this halved the nodes a ray visits compared with splitting a
Morton order); grouped trees split a Morton order of the centroids. Nodes are stored in depth-first
pre-order, so an internal node's first child is the next node, and every node keeps a *skip*
index: the node that follows its whole subtree. A traversal then needs one integer of state per
lane (the current node): descend to ``node + 1`` when the node is entered, jump to ``skip`` when it
is rejected or is a leaf; the walk ends at ``skip == node_count``.

Grouped trees (Warp's ``groups=``): primitives are ordered by group first, and a node whose range
spans several groups splits at the boundary of its median group (Warp's group-level split), so every
group is one subtree; ``group_keys`` (sorted group ids) and ``group_roots`` (their subtree roots)
answer ``bvh_get_group_root``. A tree without groups has one group, 0, rooted at node 0.
Since nodes are in pre-order, the subtree of node ``r`` is the node range ``[r, skip[r])``.

Layout (``FlatTree``):
    bounds: float32 ``(nodes, 6)``: lower xyz, upper xyz of each node.
    links: int32 ``(nodes, 2)``: skip index, primitive index (-1 for an internal node).
    first, last: int32 ``(nodes,)``: the node's primitives are ``order[first:last]`` (for refits).
    group_keys, group_roots: int32 ``(groups,)``: each group id and its subtree's root node.

Example:
    >>> import numpy as np
    >>> lo = np.array([[0, 0, 0], [2, 0, 0], [4, 0, 0]], np.float32)
    >>> tree = build(lo, lo + 1)
    >>> tree.links.shape, int(tree.links[0, 0])
    ((5, 2), 5)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class FlatTree:
    bounds: np.ndarray
    links: np.ndarray
    first: np.ndarray
    last: np.ndarray
    order: np.ndarray
    depth: int
    group_keys: np.ndarray
    group_roots: np.ndarray

    @property
    def node_count(self) -> int:
        return int(self.links.shape[0])


def _morton_order(centers: np.ndarray) -> np.ndarray:
    """Primitive indices sorted along a 30-bit Morton (Z-order) curve of their centroids."""
    lo = centers.min(axis=0)
    span = np.maximum(centers.max(axis=0) - lo, 1e-30)
    q = np.clip(((centers - lo) / span * 1023.0).astype(np.int64), 0, 1023)
    codes = np.zeros(centers.shape[0], np.int64)
    for bit in range(10):
        for axis in range(3):
            codes |= ((q[:, axis] >> bit) & 1) << (3 * bit + (2 - axis))
    return np.argsort(codes, kind="stable")


def _areas(boxes: np.ndarray) -> np.ndarray:
    """Half surface areas (float32) of boxes ``(k, 6)`` stored as (lower xyz, -upper xyz)."""
    ext = np.maximum(-boxes[:, 3:] - boxes[:, :3], np.float32(0.0))
    return ext[:, 0] * ext[:, 1] + ext[:, 1] * ext[:, 2] + ext[:, 2] * ext[:, 0]


def _column_min(x: np.ndarray) -> np.ndarray:
    """The minimum over the first axis of ``x`` (+inf where it is empty). A long, narrow ``x``
    is folded first so that numpy reduces over wide contiguous rows instead of one short row at
    a time (min is exact, so the folding does not change the result)."""
    rows = x.shape[0]
    if rows == 0:
        return np.full(x.shape[1:], np.inf, x.dtype)
    flat = x.reshape(rows, -1)
    fold = 1
    while flat.shape[1] * fold < 512 and rows // (2 * fold) >= 2:
        fold *= 2
    if fold == 1:
        return np.minimum.reduce(x, axis=0)
    body = rows - rows % fold
    part = np.minimum.reduce(flat[:body].reshape(body // fold, fold * flat.shape[1]), axis=0)
    part = np.minimum.reduce(part.reshape(fold, -1), axis=0)
    if body < rows:
        part = np.minimum(part, np.minimum.reduce(flat[body:], axis=0))
    return part.reshape(x.shape[1:])


_WIDE = 16  # node width from which the boxes are gathered node-major


def _row_min(x: np.ndarray) -> np.ndarray:
    """The minimum over axis 1 of ``x`` ``(nodes, k, 6)`` (+inf where ``k == 0``), by halving the
    rows (elementwise minima over contiguous blocks; exact, so the order does not matter)."""
    if x.shape[1] == 0:
        return np.full((x.shape[0], x.shape[2]), np.inf, x.dtype)
    while x.shape[1] > 1:
        half = x.shape[1] // 2
        y = np.minimum(x[:, :half], x[:, half:2 * half])
        if x.shape[1] % 2:
            np.minimum(y[:, 0], x[:, 2 * half], out=y[:, 0])
        x = y
    return x[:, 0]


def _halving_order(lowers: np.ndarray, uppers: np.ndarray) -> np.ndarray:
    """Primitive order of a halving tree with SAH-chosen axes: every node's range is split in half
    at the median of its primitives' centroids along the axis (x, y or z) whose two halves have
    the smallest summed ``area * count`` (the surface area heuristic, among the three medians;
    ties go to the first axis).

    Works level by level on three lists of the primitives, each sorted by one centroid axis within
    every node (a stable argsort, then stable partitions). The lists are dense ``(nodes, width)``
    arrays padded with ``n``: a level's nodes hold ``q`` or ``q + 1`` primitives, so the padding
    is at most one column, and a node's halves are columns ``[0, half)`` and ``[half, count)``.
    The halves' boxes are then plain reductions of one gather of the boxes per list (node by node
    while the nodes are wide, so that the gather reads nearby rows), and a partition is two
    boolean compressions into masks that depend on the level only."""
    n = lowers.shape[0]
    centers = (lowers.astype(np.float64) + uppers) * 0.5
    # boxes as (lower, -upper), so that a union is one elementwise minimum; row n: the empty box
    table = np.empty((n + 1, 6), np.float32)
    table[:n, :3], table[:n, 3:] = lowers, -uppers
    table[n] = np.inf
    lists = np.empty((3, 1, n), np.int32)  # (axis, node, column)
    for a in range(3):
        lists[a, 0] = np.argsort(centers[:, a], kind="stable")
    count = np.full(1, n, np.int64)  # primitives per node (its first columns)
    left_of = np.zeros(n + 1, bool)  # by primitive: goes to the left half
    while lists.shape[2] > 1:
        nodes, width = lists.shape[1], lists.shape[2]
        half = count // 2
        h0 = int(half.min())
        longer = (half > h0)[:, None]  # the left half also holds column h0 (else the right one)
        cost = np.empty((3, nodes))
        for a in range(3):
            if width >= _WIDE:  # gathered node by node (cache-friendly), reduced along the rows
                boxes = np.take(table, lists[a], axis=0)  # (nodes, width, 6)
                head, mid, tail = _row_min(boxes[:, :h0]), boxes[:, h0], _row_min(boxes[:, h0 + 1:])
            else:  # short rows: gathered column by column, reduced over whole columns
                boxes = np.take(table, lists[a].T, axis=0)  # (width, nodes, 6)
                head, mid, tail = _column_min(boxes[:h0]), boxes[h0], _column_min(boxes[h0 + 1:])
            left = np.where(longer, np.minimum(head, mid), head)
            right = np.where(longer, tail, np.minimum(tail, mid))
            cost[a] = _areas(left) * half + _areas(right) * (count - half)
        axis = np.argmin(cost, axis=0)
        chosen = np.take_along_axis(lists, axis[None, :, None], axis=0)[0]  # (nodes, width)
        columns = np.arange(width)
        left_of[:] = False
        left_of[chosen[columns < half[:, None]]] = True
        filled = columns < count[:, None]
        new_width = (width + 1) // 2
        new_columns = np.arange(new_width)
        to_left, to_right = new_columns < half[:, None], new_columns < (count - half)[:, None]
        split = np.full((3, nodes, 2, new_width), n, np.int32)  # node k's halves: nodes 2k, 2k + 1
        for a in range(3):
            goes_left = np.take(left_of, lists[a])
            split[a, :, 0][to_left] = lists[a][goes_left]  # boolean compressions keep the order
            split[a, :, 1][to_right] = lists[a][np.greater(filled, goes_left)]
        lists = split.reshape(3, 2 * nodes, new_width)
        count = np.stack([half, count - half], axis=1).reshape(-1)
    order = lists[0, :, 0]
    return order[order < n]


def build(lowers: np.ndarray, uppers: np.ndarray, groups: np.ndarray | None = None, bounds: bool = True) -> FlatTree:
    """A tree over the boxes ``[lowers[i], uppers[i]]`` (arrays ``(n, 3)``); ``n == 0`` gives one
    empty leaf that no query enters. ``groups``: optional int group id per box. ``bounds=False``:
    leave the node boxes zero (the caller computes them, e.g. with a device refit).

    Every node splits its range of primitives in half (without groups, the tree's shape depends
    on ``n`` only: :mod:`jwarp.builtins.bvh_trail` numbers it as a heap); the tree is built level by
    level with array operations (no per-node Python work)."""
    lowers = np.asarray(lowers, np.float32).reshape(-1, 3)
    uppers = np.asarray(uppers, np.float32).reshape(-1, 3)
    n = lowers.shape[0]
    if n == 0:
        empty = np.array([[np.inf] * 3 + [-np.inf] * 3], np.float32)
        return FlatTree(empty, np.array([[1, -1]], np.int32), np.zeros(1, np.int32), np.zeros(1, np.int32),
                        np.zeros(0, np.int32), 1, np.zeros(1, np.int32), np.full(1, -1, np.int32))
    if groups is None:
        order = _halving_order(lowers, uppers)
    else:
        order = _morton_order((lowers.astype(np.float64) + uppers) * 0.5)
    if groups is not None:
        groups = np.asarray(groups, np.int64).reshape(-1)
        order = order[np.argsort(groups[order], kind="stable")]
        keys, group_starts = np.unique(groups[order], return_index=True)
        group_of = np.searchsorted(group_starts, np.arange(n), side="right") - 1  # group number by position
        group_bounds = np.append(group_starts, n)
    count = 2 * n - 1
    first = np.zeros(count, np.int32)
    last = np.zeros(count, np.int32)
    prim = np.full(count, -1, np.int32)
    slot = np.zeros(1, np.int64)
    start = np.zeros(1, np.int64)
    end = np.full(1, n, np.int64)
    depth = 0
    while slot.size:
        depth += 1
        first[slot], last[slot] = start, end
        size = end - start
        leaf = size == 1
        prim[slot[leaf]] = order[start[leaf]]
        inner = ~leaf
        s, b, e = slot[inner], start[inner], end[inner]
        mid = b + (e - b) // 2
        if groups is not None:  # ranges over several groups split at their median group's start
            ga, gb = group_of[b], group_of[e - 1]
            mid = np.where(ga != gb, group_bounds[ga + (gb - ga + 1) // 2], mid)
        left, right = s + 1, s + 2 * (mid - b)  # a subtree over k primitives has 2k - 1 nodes
        slot = np.concatenate([left, right])
        start = np.concatenate([b, mid])
        end = np.concatenate([mid, e])
    skip = np.arange(count, dtype=np.int64) + 2 * (last.astype(np.int64) - first) - 1
    links = np.stack([skip, prim], axis=1).astype(np.int32)
    if groups is None:
        keys, roots = np.zeros(1, np.int32), np.zeros(1, np.int32)
    else:  # a group's root is the one node whose range is exactly the group's
        span = first.astype(np.int64) * (n + 1) + last
        by_span = np.argsort(span, kind="stable")
        wanted = group_bounds[:-1] * (n + 1) + group_bounds[1:]
        roots = by_span[np.searchsorted(span[by_span], wanted)].astype(np.int32)
    tree = FlatTree(np.zeros((count, 6), np.float32), links, first, last, order.astype(np.int32), depth,
                    np.asarray(keys, np.int32), roots)
    if bounds:
        refit(tree, lowers, uppers)
    return tree


def refit(tree: FlatTree, lowers: np.ndarray, uppers: np.ndarray) -> None:
    """Recompute every node's box from new primitive boxes (same primitives, same tree)."""
    lowers = np.asarray(lowers, np.float32).reshape(-1, 3)
    uppers = np.asarray(uppers, np.float32).reshape(-1, 3)
    if lowers.shape[0] == 0:
        return
    lo = lowers[tree.order]
    hi = uppers[tree.order]
    # a node's box is the min/max over its contiguous range of leaf-ordered primitives: a sparse
    # table of power-of-two range minima answers every range in two lookups
    lo_levels, hi_levels = [lo], [hi]
    width = 1
    while 2 * width <= lo.shape[0]:
        a, b = lo_levels[-1], hi_levels[-1]
        lo_levels.append(np.minimum(a[:-width], a[width:]))
        hi_levels.append(np.maximum(b[:-width], b[width:]))
        width *= 2
    length = (tree.last - tree.first).astype(np.int64)
    level = np.floor(np.log2(np.maximum(length, 1))).astype(np.int64)
    out = np.empty((tree.node_count, 6), np.float32)
    for k in np.unique(level):
        sel = np.nonzero(level == k)[0]
        s = tree.first[sel]
        e = tree.last[sel] - (1 << int(k))
        out[sel, :3] = np.minimum(lo_levels[k][s], lo_levels[k][e])
        out[sel, 3:] = np.maximum(hi_levels[k][s], hi_levels[k][e])
    tree.bounds = out


__all__ = ["FlatTree", "build", "refit"]
