"""Node tables of halving trees (bvh_layout): the heap-built table reads, at every in-order slot a walk
can stand on, the row the pre-order-built one holds there."""

import jax.numpy as jnp
import numpy as np
import pytest

import jwarp  # noqa: F401
from jwarp.builtins.bvh_layout import FLAG, PRIM, heap_rows, heap_slot_rows, inorder_order, node_rows
from jwarp.builtins.bvh_walk import Tree
from jwarp.runtime.geometry import bvh_build, bvh_refit


def _tree(n: int, seed: int = 0):
    rng = np.random.default_rng(seed + n)
    lo = rng.random((n, 3)).astype(np.float32)
    hi = lo + rng.random((n, 3)).astype(np.float32) * 0.1
    tree = bvh_build.build(lo, hi, bounds=False)
    nodes, heap = bvh_refit.DeviceRefit(tree).bounds(jnp.asarray(lo), jnp.asarray(hi), heap=True)
    return tree, lo, nodes, heap


@pytest.mark.parametrize("n", [1, 2, 3, 5, 11, 100, 1000])
def test_heap_rows_match_node_rows_at_every_slot(n):
    tree, lo, nodes, heap = _tree(n)
    data = jnp.asarray(lo * 3.0 + 1.0)  # three leaf columns per primitive
    walked = node_rows(Tree(nodes, jnp.asarray(tree.links), tree.node_count), n,
                       lambda prim: [data[prim, k] for k in range(3)])
    table = heap_rows(heap, data[jnp.asarray(tree.order)], jnp.asarray(tree.order))
    pre, _, _ = inorder_order(n)
    slots = np.flatnonzero(pre >= 0)
    got, want = np.asarray(table.at(jnp.asarray(slots, jnp.int32))), np.asarray(walked)[slots]
    leaf = want[:, FLAG] != 0
    assert np.array_equal(got[:, FLAG], want[:, FLAG])
    assert np.array_equal(got[leaf][:, :3], want[leaf][:, :3])
    assert np.array_equal(got[leaf][:, PRIM].view(np.int32), want[leaf][:, PRIM].view(np.int32))
    assert np.array_equal(got[~leaf][:, :12], want[~leaf][:, :12])  # both children's boxes (empty: inf, -inf)


def test_heap_slot_rows_number_internal_nodes_then_leaves_in_the_trees_order():
    rows = heap_slot_rows(1000)
    pre, _, levels = inorder_order(1000)
    used = rows[pre >= 0]
    assert np.array_equal(np.sort(used), np.unique(used))  # no two slots share a row
    leaves = used[used >= 1 << (levels - 1)] - (1 << (levels - 1))
    assert np.array_equal(np.sort(leaves), np.arange(1000))  # each primitive's leaf once
