"""BVH refits on the device: one XLA program recomputes every node's box from the primitives.

A tree built without groups is a *halving tree* (:mod:`jwarp.runtime.geometry.bvh_build`), which
:func:`jwarp.builtins.bvh_trail.heap_order` numbers as a heap: the children of slot ``k`` are
slots ``2k`` and ``2k + 1``, and a level of the tree is a contiguous run of slots. A refit is then
a bottom-up pass of ``levels`` vectorised steps, each the union of pairs of boxes of the level
below (a leaf slot takes its primitive's box), followed by one gather into the pre-order node
layout that queries read: O(primitives) work, in one program, with no copy of the points to the
host. A mesh also keeps the boxes in heap order, from which its walks' node tables are built
without a gather (:func:`jwarp.builtins.bvh_layout.heap_rows`). ``Mesh.refit`` also recomputes the
mesh's average edge length there, as Warp does.

Trees built with groups are not halving trees; they refit on the host
(:func:`jwarp.runtime.geometry.bvh_build.refit`).

Example:
    >>> import numpy as np, jax.numpy as jnp
    >>> from jwarp.runtime.geometry import bvh_build
    >>> lo = np.array([[0, 0, 0], [2, 0, 0], [4, 0, 0]], np.float32)
    >>> tree = bvh_build.build(lo, lo + 1)
    >>> refit = DeviceRefit(tree)
    >>> np.asarray(refit.bounds(jnp.asarray(lo + 1), jnp.asarray(lo + 2)))[0].tolist()
    [1.0, 1.0, 1.0, 6.0, 2.0, 2.0]
"""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.builtins import bvh_trail
from jwarp.builtins.trig import apart
from jwarp.runtime.geometry.bvh_build import FlatTree


def supported(tree: FlatTree, grouped: bool) -> bool:
    """Whether ``tree`` refits on the device (a halving tree of at least one primitive)."""
    return not grouped and tree.order.shape[0] >= 1


def for_tree(tree: FlatTree, grouped: bool, device: Any = None) -> DeviceRefit | None:
    """The device refit of ``tree`` (built with groups when ``grouped``), or None where it refits on
    the host (:func:`supported`)."""
    return DeviceRefit(tree, device) if supported(tree, grouped) else None


def heap_primitives(tree: FlatTree) -> tuple[np.ndarray, np.ndarray, int]:
    """``(pre, slot_prim, levels)`` of a halving tree: each heap slot's pre-order node (-1: none) and
    primitive (-1 for internal nodes and empty slots), and the heap's level count."""
    pre, levels = bvh_trail.heap_order(int(tree.order.shape[0]))
    used = pre >= 0
    slot_prim = np.full(pre.shape[0], -1, np.int32)
    slot_prim[used] = tree.links[pre[used], 1]
    return pre, slot_prim, levels


class DeviceRefit:
    """The device refit of one tree (its slot tables are made once, at build time)."""

    def __init__(self, tree: FlatTree, device: Any = None):
        pre, slot_prim, levels = heap_primitives(tree)
        used = pre >= 0
        node_slot = np.zeros(tree.node_count, np.int32)  # the heap slot of each pre-order node
        node_slot[pre[used]] = np.flatnonzero(used)
        put = partial(jax.device_put, device=device)
        self.slot_prim, self.node_slot, self.levels = put(slot_prim), put(node_slot), levels

    def bounds(self, lowers: Any, uppers: Any, heap: bool = False) -> Any:
        """Node boxes ``(nodes, 6)`` float32 (lower xyz, upper xyz) for primitive boxes ``(n, 3)``;
        with ``heap``, ``(node boxes, heap boxes)``: the boxes of every heap slot too ``(2^levels, 6)``
        (empty slots empty)."""
        return _node_bounds(lowers, uppers, self.slot_prim, self.node_slot, self.levels, heap)

    def mesh(self, points: Any, tris: Any) -> tuple[Any, Any, Any]:
        """``(node boxes, heap boxes, average edge length)`` of the triangles ``tris`` ``(faces, 3)``
        over ``points`` ``(n, 3)``."""
        return _mesh_refit(points, tris, self.slot_prim, self.node_slot, self.levels)


def _heap_bounds(lowers: Any, uppers: Any, slot_prim: Any, node_slot: Any, levels: int) -> tuple[Any, Any]:
    """(pre-order node boxes, heap slot boxes), lower xyz then upper xyz."""
    # a box as (lower, -upper): the union of two boxes is then one elementwise minimum
    boxes = jnp.concatenate([lowers, -uppers], axis=1)
    leaf = slot_prim >= 0
    leaf_box = jnp.where(leaf[:, None], boxes[jnp.maximum(slot_prim, 0)], jnp.inf)  # empty slots: empty box
    box = leaf_box[1 << (levels - 1):]
    runs = [box]
    for level in range(levels - 2, -1, -1):
        a, b = 1 << level, 1 << (level + 1)
        # each level is materialised (the barrier): fused into the next one, XLA would recompute it
        # for both children, and so every level below once per node
        box = lax.optimization_barrier(box)
        box = jnp.minimum(box[0::2], box[1::2])  # children 2k, 2k + 1
        if level == levels - 2:  # a halving tree's leaves are on its last two levels only
            box = jnp.where(leaf[a:b, None], leaf_box[a:b], box)
        runs.append(box)
    heap = jnp.concatenate([jnp.full((1, 6), jnp.inf, boxes.dtype), *runs[::-1]])  # slot 0 is unused: empty
    heap = jnp.concatenate([heap[:, :3], -heap[:, 3:]], axis=1)
    return heap[node_slot], heap


@partial(jax.jit, static_argnums=(4, 5))
def _node_bounds(lowers: Any, uppers: Any, slot_prim: Any, node_slot: Any, levels: int, heap: bool) -> Any:
    nodes, heap_boxes = _heap_bounds(lowers.astype(jnp.float32), uppers.astype(jnp.float32), slot_prim, node_slot,
                                     levels)
    return (nodes, heap_boxes) if heap else nodes


@partial(jax.jit, static_argnums=(4,))
def _mesh_refit(points: Any, tris: Any, slot_prim: Any, node_slot: Any, levels: int) -> tuple[Any, Any, Any]:
    # the corners coordinate-major, (3, faces) each: XLA's CPU code for reductions and strided
    # columns over a minor axis of 3 was several times slower than these row operations. The
    # corners are gathered once, in a loop of their own (``apart``: else XLA gathers them again in
    # each fusion that reads them, and a fusion with a gather is not vectorised), and so are the
    # faces' edge lengths before their sum (a reduction's own loop is scalar code): Warp's bunny,
    # 12,200 faces, 0.44-0.49 -> 0.35 ms a refit.
    a, b, c = apart(jnp.stack([jnp.take(points.astype(jnp.float32), tris[:, k], axis=0).T for k in range(3)]))
    length = lambda d: jnp.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])  # noqa: E731
    average = jnp.sum(apart(length(a - b) + length(a - c) + length(c - b))) / (3 * tris.shape[0])
    lowers, uppers = jnp.minimum(jnp.minimum(a, b), c).T, jnp.maximum(jnp.maximum(a, b), c).T
    return (*_heap_bounds(lowers, uppers, slot_prim, node_slot, levels), average)


__all__ = ["DeviceRefit", "for_tree", "heap_primitives", "supported"]
