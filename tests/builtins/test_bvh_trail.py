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


LIMIT = 9.0  # the squared distance within which the walks look


def _corner_walks(levels, stop_after=None, share=False, shared_corners=False):
    """Nearest first corners of faces around a unit sphere to points (some at its centre, where every
    face is at a similar distance: long walks), walked with ``levels`` tree levels a step in refilled
    pools of 64: (best squared distance, face) of a candidate walk, and of an update walk that also
    hashes the sequence of leaves it scores (and, with ``stop_after``, stops after that many).
    Coordinates are multiples of 1/16, so every distance is exact (no rounding for XLA's fused
    multiply-adds to change) and the walks can be compared bit for bit; ties between faces are common."""
    rng = np.random.default_rng(5)
    faces = 400
    centre = rng.normal(size=(faces, 1, 3))
    centre /= np.linalg.norm(centre, axis=2, keepdims=True)
    corners = centre + rng.normal(size=(faces, 3, 3)) * 0.1
    corners = corners / np.linalg.norm(corners, axis=2, keepdims=True)
    corners = (np.round(corners * 16) / 16).astype(np.float32)
    if shared_corners:  # first corners shared by faces far apart: ties between the pieces of a shared walk
        corners[::2, 0] = np.round(corners[::2, 0] * 2) / 2
    tree = bvh_build.build(corners.min(1), corners.max(1))
    n = 3000
    points = rng.random((n, 3)) * 3 - 1.5
    points[::5] *= 0.1  # near the centre
    points[::11] *= 6.0  # beyond the limit: nothing found
    points = (np.round(points * 16) / 16).astype(np.float32)
    flat = jnp.asarray(corners.reshape(faces, 9))

    def near(s, lower, upper):
        d = tm.distance_to_box_sq((s["px"], s["py"], s["pz"]), lower, upper)
        return d <= s["best"], d

    def distance(s, cols):
        d = tm.sub(cols[0:3], (s["px"], s["py"], s["pz"]))
        return tm.dot(d, d)

    def update(s, prim, cols):
        d = distance(s, cols)
        better = d < s["best"]
        return {"best": jnp.where(better, d, s["best"]), "face": jnp.where(better, prim, s["face"]),
                "hash": s["hash"] * 1000003 + prim + 1, "count": s["count"] + 1}

    def run(bounds, links, p):
        rows = node_rows(Tree(bounds, links, int(links.shape[0])), faces, lambda q: list(flat[q].T))
        state = {"best": jnp.full((n,), LIMIT, jnp.float32), "face": jnp.zeros((n,), jnp.int32),
                 "px": p[:, 0], "py": p[:, 1], "pz": p[:, 2]}
        active = jnp.arange(n) % 7 != 3
        found = walk_trail(rows, faces, state, active, near, lambda s, prim, cols: distance(s, cols), best="best",
                           pool=64, levels=levels, share=share)
        state = dict(state, hash=jnp.zeros((n,), jnp.int32), count=jnp.zeros((n,), jnp.int32))
        stop = None if stop_after is None else (lambda s: s["count"] >= stop_after)
        seen = walk_trail(rows, faces, state, active, near, None, best="best", update=update,
                          changes=("hash", "count"), stop=stop, pool=64, levels=levels)
        return found["best"], found["face"], seen["best"], seen["face"], seen["hash"], seen["count"]

    # the tree's boxes are the corners' exact minima and maxima
    out = jax.jit(run)(jnp.asarray(tree.bounds), jnp.asarray(tree.links), jnp.asarray(points))
    return [np.asarray(x) for x in out], corners, points


@pytest.mark.parametrize("stop_after", [None, 3])
def test_lookahead_steps_visit_the_same_leaves_in_the_same_order(stop_after):
    """Walks taking one, two or three tree levels a step score the same leaves in the same order (a
    hash of the sequence), find the same faces (ties: the first visited), and the same distances as
    testing every face."""
    (best, face, best_u, face_u, hashed, count), corners, points = _corner_walks(1, stop_after)
    assert (count == 0).sum() > 100  # lanes that score nothing
    assert count.max() > 50 if stop_after is None else count.max() == stop_after  # long walks, or stopped ones
    for levels in (2, 3):
        again, _, _ = _corner_walks(levels, stop_after)
        for x, y in zip((best, face, best_u, face_u, hashed, count), again):
            np.testing.assert_array_equal(x, y)
    if stop_after is None:
        d2 = ((points[:, None, :] - corners[None, :, 0, :]) ** 2).sum(-1)  # exact in float32
        active = np.arange(len(points)) % 7 != 3
        nearest = d2.min(1)
        within = active & (nearest < LIMIT)
        np.testing.assert_array_equal(best[within], nearest[within])
        np.testing.assert_array_equal(best[~within & active], LIMIT)
        assert np.all(d2[within, face[within]] == nearest[within])  # a nearest face (ties: see above)
        tied = within & ((d2 == nearest[:, None]).sum(1) > 1)
        assert tied.sum() > 50
        np.testing.assert_array_equal(face_u, face)


@pytest.mark.parametrize("levels", [1, 2])
def test_shared_walks_find_what_one_lane_finds(levels):
    """Idle pool slots that take pieces of long walks (``share``) find the same faces and distances as
    walks that are not shared, ties included (the face visited first in one walk's order)."""
    (best, face, *_), _, _ = _corner_walks(levels, shared_corners=True)
    (best_s, face_s, *_), corners, points = _corner_walks(levels, share=True, shared_corners=True)
    d2 = ((points[:, None, :] - corners[None, :, 0, :]) ** 2).sum(-1)
    assert ((d2 == d2.min(1)[:, None]).sum(1) > 1).sum() > 1000  # lanes with tied faces
    np.testing.assert_array_equal(best_s, best)
    np.testing.assert_array_equal(face_s, face)


@pytest.mark.parametrize("faces", [2, 3, 5, 9, 17, 40])
def test_lanes_left_out_before_the_pool_could_reach_nothing(faces):
    """Lanes that enter no box a few levels below the root (fewer on small trees) skip the pool: the
    nearest first corners within a limit match brute force, for trees of every depth."""
    rng = np.random.default_rng(faces)
    corners = (np.round((rng.random((faces, 3, 3)) * 2 - 1) * 16) / 16).astype(np.float32)
    tree = bvh_build.build(corners.min(1), corners.max(1))
    n = 700
    points = (np.round((rng.random((n, 3)) * 5 - 2.5) * 16) / 16).astype(np.float32)
    flat = jnp.asarray(corners.reshape(faces, 9))

    def near(s, lower, upper):
        d = tm.distance_to_box_sq((s["px"], s["py"], s["pz"]), lower, upper)
        return d <= s["best"], d

    def distance(s, prim, cols):
        d = tm.sub(cols[0:3], (s["px"], s["py"], s["pz"]))
        return tm.dot(d, d)

    def run(bounds, links, p):
        rows = node_rows(Tree(bounds, links, int(links.shape[0])), faces, lambda q: list(flat[q].T))
        state = {"best": jnp.full((n,), 1.5, jnp.float32), "face": jnp.zeros((n,), jnp.int32),
                 "px": p[:, 0], "py": p[:, 1], "pz": p[:, 2]}
        return walk_trail(rows, faces, state, jnp.ones((n,), bool), near, distance, best="best", pool=64)["best"]

    best = np.asarray(jax.jit(run)(jnp.asarray(tree.bounds), jnp.asarray(tree.links), jnp.asarray(points)))
    d2 = ((points[:, None, :] - corners[None, :, 0, :]) ** 2).sum(-1).min(1)
    expected = np.where(d2 < 1.5, d2, 1.5).astype(np.float32)
    assert (d2 < 1.5).sum() > 20 and (d2 >= 1.5).sum() > 20
    np.testing.assert_array_equal(best, expected)


def test_share_needs_a_candidate_walk():
    rows = jnp.zeros((4, 16), jnp.float32)
    state = {"t": jnp.zeros(3, jnp.float32), "n": jnp.zeros(3, jnp.int32)}
    with pytest.raises(ValueError, match="share needs a candidate walk"):
        walk_trail(rows, 2, state, jnp.ones(3, bool), None, None, best="t", best_prim=None,
                   update=lambda s, p, c: {"t": s["t"], "n": s["n"] + 1}, changes=("n",), share=True)
