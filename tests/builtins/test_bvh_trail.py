"""The heap numbering of halving trees (bvh_trail) against the pre-order trees bvh_build makes."""

import numpy as np
import pytest

from jwarp.builtins.bvh_trail import heap_order, supported
from jwarp.runtime.geometry import bvh_build


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 64, 100, 1000])
def test_heap_order_matches_built_tree(n):
    rng = np.random.default_rng(n)
    lo = rng.random((n, 3)).astype(np.float32)
    tree = bvh_build.build(lo, lo + 0.05)
    assert np.array_equal(np.sort(tree.order), np.arange(n))  # the SAH-axis halving order is a permutation
    pre, levels = heap_order(n)
    assert levels == tree.depth
    used = pre[pre >= 0]
    assert np.array_equal(np.sort(used), np.arange(tree.node_count))  # every node numbered once
    for k in np.flatnonzero(pre >= 0):
        node = pre[k]
        skip, prim = tree.links[node]
        if prim >= 0:  # a leaf has no children in the heap
            assert 2 * k >= pre.size or (pre[2 * k] < 0 and pre[2 * k + 1] < 0)
        else:
            left, right = pre[2 * k], pre[2 * k + 1]
            assert left == node + 1 and right == tree.links[left, 0]


def test_supported_rejects_groups_and_empty_trees():
    assert supported(10, False) and not supported(10, True) and not supported(0, False)
