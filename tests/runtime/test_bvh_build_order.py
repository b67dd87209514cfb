"""The halving tree's primitive order (jwarp/runtime/geometry/bvh_build.py ``_halving_order``)
against a straightforward reference of the same split rule: the tree must be identical (the ray
traversal is tuned on its shape), for every size and for inputs full of ties."""

import numpy as np
import pytest

from jwarp.runtime.geometry import bvh_build


def _reference_order(lowers: np.ndarray, uppers: np.ndarray) -> np.ndarray:
    """The split rule node by node: sort the node's primitives by each centroid axis (stable, by
    global rank, so ties keep the index order), cost each axis's median split as the float32 half
    areas of the halves' boxes times their counts (float64), take the cheapest (first on ties)."""
    n = lowers.shape[0]
    centers = (lowers.astype(np.float64) + uppers) * 0.5
    rank = np.empty((3, n), np.int64)
    for a in range(3):
        rank[a, np.argsort(centers[:, a], kind="stable")] = np.arange(n)

    def area(idx: np.ndarray) -> np.float32:
        ext = np.maximum(uppers[idx].max(axis=0) - lowers[idx].min(axis=0), np.float32(0.0))
        return ext[0] * ext[1] + ext[1] * ext[2] + ext[2] * ext[0]

    order = []
    stack = [np.argsort(rank[0], kind="stable")]
    while stack:
        node = stack.pop()
        if node.size == 1:
            order.append(int(node[0]))
            continue
        half = node.size // 2
        best, best_cost = None, None
        for a in range(3):
            sorted_node = node[np.argsort(rank[a][node], kind="stable")]
            cost = (np.float64(area(sorted_node[:half])) * half
                    + np.float64(area(sorted_node[half:])) * (node.size - half))
            if best_cost is None or cost < best_cost:
                best, best_cost = sorted_node, cost
        stack += [best[half:], best[:half]]  # left first
    return np.asarray(order, np.int32)


def _boxes(rng: np.random.Generator, n: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    lo = rng.uniform(-5.0, 5.0, (n, 3)).astype(np.float32)
    size = rng.uniform(0.0, 1.0, (n, 3)).astype(np.float32)
    if kind == "grid":  # many equal centroids and equal costs
        lo = np.floor(lo).astype(np.float32)
        size[:] = 1.0
    elif kind == "flat":  # one axis without extent: zero areas
        lo[:, 1] = 0.0
        size[:, 1] = 0.0
    return lo, lo + size


@pytest.mark.parametrize("kind", ["random", "grid", "flat"])
def test_halving_order_matches_reference_for_every_small_size(kind):
    rng = np.random.default_rng(7)
    for n in list(range(1, 130)) + [int(m) for m in rng.integers(130, 3000, 12)]:
        lo, hi = _boxes(rng, n, kind)
        np.testing.assert_array_equal(bvh_build._halving_order(lo, hi), _reference_order(lo, hi), err_msg=f"n={n}")


@pytest.mark.parametrize("n", [4096, 4097, 20000])
def test_halving_order_matches_reference_on_larger_trees(n):
    lo, hi = _boxes(np.random.default_rng(n), n, "random")
    np.testing.assert_array_equal(bvh_build._halving_order(lo, hi), _reference_order(lo, hi))


def test_halving_order_is_a_permutation():
    lo, hi = _boxes(np.random.default_rng(1), 1000, "grid")
    assert sorted(bvh_build._halving_order(lo, hi).tolist()) == list(range(1000))
