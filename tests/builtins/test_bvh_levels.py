"""Box queries searched level by level (``jwarp.builtins.bvh_levels``): each lane's results are the
leaves a walk from its node accepts, consecutive and in the walk's order; a frontier without room
leaves lanes incomplete from one lane on; query loops over such results (``bvh_pairs.LevelPlan``)
find what walked loops find, in the same order, also when lanes are left to the walk."""

import jax.numpy as jnp
import numpy as np
import pytest

import jwarp as wp
from jwarp.builtins import bvh_levels, bvh_pairs, bvh_trail
from jwarp.builtins import triangle_math as tm
from jwarp.builtins.bvh_walk import Tree
from jwarp.runtime.geometry import bvh_build
from tests.builtins.test_bvh_dense import _walk


def _search(tree, lo, hi, live, node, end, capacity):
    count = (tree.node_count + 1) // 2
    t = Tree(jnp.asarray(tree.bounds), jnp.asarray(tree.links), tree.node_count)
    rows = bvh_trail.node_rows(t, count, lambda prim: [prim.astype(jnp.float32)])
    lanes = tuple(jnp.asarray(lo[:, k]) for k in range(3)) + tuple(jnp.asarray(hi[:, k]) for k in range(3))

    def overlap(q, lower, upper):
        return tm.boxes_overlap(q[:3], q[3:], lower, upper)

    found = bvh_levels.search(rows, count, lanes, overlap, jnp.asarray(live), jnp.asarray(node), jnp.asarray(end),
                              t.bounds[0], capacity)
    return tuple(np.asarray(x) for x in (found.prims, found.first, found.count, found.complete))


@pytest.mark.parametrize("boxes", [1, 2, 3, 37, 1500])
def test_results_are_a_walks_in_order(boxes):
    rng = np.random.default_rng(boxes)
    lo = (rng.random((boxes, 3)) * 4.0).astype(np.float32)
    hi = lo + (rng.random((boxes, 3)) * 0.8).astype(np.float32)
    tree = bvh_build.build(lo, hi)
    lanes = 300
    qlo = (rng.random((lanes, 3)) * 4.6 - 0.3).astype(np.float32)
    qhi = qlo + (rng.random((lanes, 3)) * 1.5).astype(np.float32)
    qlo[:10] = qhi[:10] = np.float32(2.0)  # points
    count = tree.node_count
    node = rng.integers(0, count + 1, lanes).astype(np.int32)  # resumed walks, and ones already done
    node[: lanes // 2] = 0
    subtree = rng.integers(0, count, lanes)
    end = np.where(rng.random(lanes) < 0.3, tree.links[subtree, 0], count).astype(np.int32)  # some subtrees
    node = np.where(end < count, np.minimum(node, subtree), node).astype(np.int32)
    live = rng.random(lanes) < 0.9
    prims, first, n, complete = _search(tree, qlo, qhi, live, node, end, 1 << 16)
    assert complete.all()
    total = 0
    for lane in range(lanes):
        want = _walk(tree, qlo[lane], qhi[lane], int(node[lane]), int(end[lane])) if live[lane] else []
        got = prims[first[lane]:first[lane] + n[lane]]
        np.testing.assert_array_equal(got, tree.links[want, 1].reshape(-1), err_msg=f"lane {lane}")
        total += len(want)
    if boxes >= 37:
        assert total > lanes // 4


def test_lanes_without_room_are_left_incomplete_from_one_lane_on():
    rng = np.random.default_rng(5)
    lo = (rng.random((3000, 3)) * 4.0).astype(np.float32)
    hi = lo + np.float32(0.3)
    tree = bvh_build.build(lo, hi)
    lanes = 400
    qlo = (rng.random((lanes, 3)) * 3.0).astype(np.float32)
    qhi = qlo + np.float32(1.0)
    live = np.ones(lanes, bool)
    node, end = np.zeros(lanes, np.int32), np.full(lanes, tree.node_count, np.int32)
    full = _search(tree, qlo, qhi, live, node, end, 1 << 18)
    assert full[3].all() and full[2].sum() > 4 * lanes
    for room in (2 * lanes, lanes // 2):  # (the second: fewer pairs than lanes from the start)
        prims, first, n, complete = _search(tree, qlo, qhi, live, node, end, room)
        cut = int(np.argmin(complete)) if not complete.all() else lanes
        assert 0 < cut < lanes and not complete[cut:].any()  # complete: the lanes before one lane
        for lane in range(cut):
            got = prims[first[lane]:first[lane] + n[lane]]
            np.testing.assert_array_equal(got, full[0][full[1][lane]:full[1][lane] + full[2][lane]])


@wp.kernel
def keep_order(mesh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3), first: int,
               out: wp.array(dtype=wp.vec4i)):
    i = wp.tid()
    q = wp.mesh_query_aabb(mesh, lowers[i], uppers[i])
    f = int(0)
    n = int(0)
    for _ in range(first):  # results handed out before the loop: the pass starts after them
        if wp.mesh_query_aabb_next(q, f):
            n += 1
    total = int(0)
    last = int(-1)
    checksum = int(0)
    for g in q:
        n += 1
        total += g
        if g % 5 == 0:
            last = g  # the last in the walk's order
        checksum = wp.max(checksum, g * 7 % 1000)
    out[i] = wp.vec4i(n, total, last, checksum)


@pytest.mark.parametrize("room", ["enough", "little", "too little"])
def test_loops_over_level_results_match_walked_loops(monkeypatch, room):
    """A mesh of 2,048 faces (more than dense plans take): the level search's results give what
    walks give, also with room for few pairs (searches step by step, a few lanes each) and with room
    for fewer pairs than some lane has results (then walks take over)."""
    from jwarp.runtime.kernel import forget_compiled

    rng = np.random.default_rng(11)
    faces = 2048
    corners = (rng.random((faces, 1, 3)) * 4.0 + rng.normal(size=(faces, 3, 3)) * 0.1).astype(np.float32)
    mesh = wp.Mesh(points=wp.array(corners.reshape(-1, 3), dtype=wp.vec3),
                   indices=wp.array(np.arange(3 * faces, dtype=np.int32), dtype=int))
    lanes = 1500
    qlo = (rng.random((lanes, 3)) * 4.0).astype(np.float32)
    qhi = qlo + (rng.random((lanes, 3)) * 0.8).astype(np.float32)
    inputs = [mesh.id, wp.array(qlo, dtype=wp.vec3), wp.array(qhi, dtype=wp.vec3)]
    plans = []
    real = bvh_pairs.pair_plan

    def spy(*args):
        plans.append(type(real(*args)).__name__)
        return real(*args)

    monkeypatch.setattr(bvh_pairs.bq.MeshQuery, "_jwarp_query_pairs_", spy)
    if room != "enough":
        monkeypatch.setattr(bvh_pairs, "MOST_LEVEL_PAIRS", 3 * lanes if room == "little" else 12)
        monkeypatch.setattr(bvh_levels, "CHUNK", 256)
    outs = []
    for level_plans in (True, False):
        if not level_plans:
            monkeypatch.setattr(bvh_pairs.bvh_trail, "supported", lambda *a: False)  # walked plans only
        forget_compiled()
        for first in (0, 2):
            out = wp.zeros(lanes, dtype=wp.vec4i)
            wp.launch(keep_order, dim=lanes, inputs=[*inputs, first, out])
            outs.append(out.numpy())
    assert plans == ["LevelPlan", "BvhPlan"]
    np.testing.assert_array_equal(outs[0], outs[2])
    np.testing.assert_array_equal(outs[1], outs[3])
    assert outs[0][:, 0].max() > 20 and (outs[0][:, 2] >= 0).sum() > lanes // 4


@wp.kernel
def other_kinds(bvh: wp.uint64, starts: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3),
                out: wp.array(dtype=wp.vec4i)):
    i = wp.tid()
    n = int(0)
    total = int(0)
    for a in wp.bvh_query_ray(bvh, starts[i], dirs[i]):
        n += 1
        total += a
    last = int(-1)
    for b in wp.bvh_query_sphere(bvh, starts[i], 0.4):
        if b % 3 == 0:
            last = b  # the last in the walk's order
    top = int(-1)
    for c in wp.bvh_query_capsule(bvh, starts[i], dirs[i], 0.1):
        top = wp.max(top, c)
    out[i] = wp.vec4i(n, total, last, top)


def test_ray_sphere_and_capsule_loops_match_walked_loops(monkeypatch):
    """Ray, sphere and capsule queries of a 3,000-box tree: searched level by level (the walk's own node
    tests), the same results in the same order as walked (rays along axes included)."""
    from jwarp.runtime.kernel import forget_compiled

    rng = np.random.default_rng(13)
    lo = (rng.random((3000, 3)) * 4.0).astype(np.float32)
    hi = lo + (rng.random((3000, 3)) * 0.2).astype(np.float32)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3))
    lanes = 1000
    starts = (rng.random((lanes, 3)) * 4.0).astype(np.float32)
    dirs = rng.normal(size=(lanes, 3)).astype(np.float32)
    dirs[::5, 0] = 0.0
    dirs[::7, 2] = 0.0
    inputs = [bvh.id, wp.array(starts, dtype=wp.vec3), wp.array(dirs, dtype=wp.vec3)]
    plans = []
    real = bvh_pairs.pair_plan

    def spy(*args):
        plans.append(type(real(*args)).__name__)
        return real(*args)

    monkeypatch.setattr(bvh_pairs.bq.BvhQuery, "_jwarp_query_pairs_", spy)
    outs = []
    for level_plans in (True, False):
        if not level_plans:
            monkeypatch.setattr(bvh_pairs.bvh_trail, "supported", lambda *a: False)  # walked plans only
        forget_compiled()
        out = wp.zeros(lanes, dtype=wp.vec4i)
        wp.launch(other_kinds, dim=lanes, inputs=[*inputs, out])
        outs.append(out.numpy())
    assert plans == ["LevelPlan"] * 3 + ["BvhPlan"] * 3
    np.testing.assert_array_equal(outs[0], outs[1])
    assert (outs[0][:, 0] > 0).sum() > lanes // 2 and (outs[0][:, 2] >= 0).sum() > lanes // 4
