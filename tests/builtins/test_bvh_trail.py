"""The heap and in-order numberings of halving trees (bvh_trail) against the pre-order trees bvh_build makes,
and the trail walk over a refilled lane pool."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jwarp  # noqa: F401  (float64, which the triangle test uses)
from jwarp.builtins import mesh_ray_queries as mrq
from jwarp.builtins import triangle_math as tm
from jwarp.builtins.bvh_trail import heap_order, inorder_order, node_rows, root_slot, supported, walk_trail
from jwarp.builtins.bvh_walk import Tree
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


@pytest.mark.parametrize("n", [1, 2, 3, 7, 100])
def test_inorder_slots_match_the_heap(n):
    """In-order slots: a slot's lowest set bit is its height, its children are slot -+ height / 2."""
    heap, levels = heap_order(n)
    pre, kids, lv = inorder_order(n)
    assert lv == levels and pre.shape == heap.shape
    assert np.array_equal(np.sort(pre[pre >= 0]), np.sort(heap[heap >= 0]))
    root = root_slot(n)
    assert pre[root] == 0
    for slot in np.flatnonzero(pre >= 0):
        half = (slot & -slot) >> 1
        for j, child in enumerate((slot - half, slot + half)):
            if half and pre[child] >= 0:
                assert kids[slot, j] == pre[child]
            else:
                assert kids[slot, j] == -1


@pytest.mark.parametrize("parallel", [False, True])
def test_walk_trail_over_a_refilled_pool_finds_the_nearest_hit(parallel):
    """More rays than the pool (refills, then smaller pools), with or without rays parallel to an
    axis (the general box test, else the plain slab test): nearest hits against testing every
    triangle."""
    rng = np.random.default_rng(3)
    faces = 300
    corners = (rng.random((faces, 1, 3)) * 2 - 1 + rng.normal(size=(faces, 3, 3)) * 0.2).astype(np.float32)
    tree = bvh_build.build(corners.min(1), corners.max(1))
    n = 9000
    origin = (rng.random((n, 3)) * 4 - 2).astype(np.float32)
    direction = (rng.random((n, 3)) * 2 - 1 - origin + rng.normal(size=(n, 3))).astype(np.float32)
    if parallel:
        direction[::7, 0] = 0.0
        direction[::11, 2] = 0.0
    flat = jnp.asarray(corners.reshape(faces, 9))

    def run(bounds, links, o, d):
        start, dirs = tuple(o[:, k] for k in range(3)), tuple(d[:, k] for k in range(3))
        robust = (dirs[0] == 0) | (dirs[1] == 0) | (dirs[2] == 0)
        rcp = mrq._safe_rcp(dirs)
        state = {"t": jnp.full((n,), 10.0, jnp.float32), "face": jnp.zeros((n,), jnp.int32),
                 **mrq._ray_state(start, dirs, rcp), "robust": robust}

        def enter(s, lower, upper):
            hit, t = tm.ray_box_entry(*mrq._ray_of(s), lower, upper, s["robust"])
            return hit & (t < s["t"]), t

        def enter_fast(s, lower, upper):
            start_, _, rcp_ = mrq._ray_of(s)
            hit, t = tm.ray_box_entry_fast(start_, rcp_, lower, upper)
            return hit & (t < s["t"]), t

        def tested(s, prim, cols):
            hit, t, _, _, _ = mrq._hit(s, cols[0:3], cols[3:6], cols[6:9])
            return jnp.where(hit & (t >= 0), t, jnp.inf)

        rows = node_rows(Tree(bounds, links, int(links.shape[0])), faces, lambda p: list(flat[p].T))
        def derive(lanes):  # the reciprocal direction and triangle-test constants, made in the pool
            d = tuple(lanes[k] for k in ("dx", "dy", "dz"))
            return {**dict(zip(("rx", "ry", "rz"), mrq._safe_rcp(d))),
                    **dict(zip(mrq._SETUP_KEYS, tm.ray_setup(d)))}

        lean = {k: v for k, v in state.items() if k not in ("rx", "ry", "rz") + mrq._SETUP_KEYS}
        out = walk_trail(rows, faces, lean, jnp.ones((n,), bool), enter, tested, fast=(enter_fast, "robust"),
                         derive=derive)
        # every ray against every face
        c = [tuple(flat[None, :, 3 * j + k] for k in range(3)) for j in range(3)]
        ray = {k: v[:, None] for k, v in state.items()}
        hit, t, _, _, _ = mrq._hit(ray, *c)
        t_all = jnp.where(hit & (t >= 0) & (t < 10.0), t, jnp.inf)
        return out["t"], out["face"], t_all

    t, face, t_all = (np.asarray(x) for x in jax.jit(run)(jnp.asarray(tree.bounds), jnp.asarray(tree.links),
                                                          jnp.asarray(origin), jnp.asarray(direction)))
    best = t_all.min(axis=1)
    found = np.isfinite(best)
    assert found.sum() > 1000 and (~found).sum() > 1000
    np.testing.assert_array_equal(t[found], best[found])
    np.testing.assert_array_equal(t[~found], 10.0)
    unique = found & ((t_all == best[:, None]).sum(axis=1) == 1)
    np.testing.assert_array_equal(face[unique], t_all[unique].argmin(axis=1))
