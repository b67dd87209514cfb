"""Buffered BVH queries (``jwarp.builtins.bvh_queries``): a query collects up to ``BUFFER`` results
per walk and hands them out one per ``*_next`` call. Checked against a brute-force box test for
result counts around multiples of the buffer, a loop that breaks and a second loop that goes on
with the same query, and ``max_dist`` calls after buffered ones (which rewind the walk)."""

import numpy as np
import pytest

import jwarp as wp
from jwarp.builtins.bvh_queries import BUFFER

N_BOXES = 400
MOST = 64


@wp.kernel
def take_then_rest(bvh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3), first: int,
                   found: wp.array2d(dtype=int), counts: wp.array2d(dtype=int)):
    i = wp.tid()
    q = wp.bvh_query_aabb(bvh, lowers[i], uppers[i])
    b = int(0)
    k = int(0)
    while wp.bvh_query_next(q, b):
        found[i, k] = b
        k += 1
        if k == first:
            break
    counts[i, 0] = k
    while wp.bvh_query_next(q, b):  # the same query goes on where the first loop stopped
        found[i, k] = b
        k += 1
    counts[i, 1] = k
    counts[i, 2] = int(wp.bvh_query_next(q, b))  # exhausted: stays so


@wp.kernel
def ray_then_limit(bvh: wp.uint64, starts: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3), first: int,
                   limit: float, unbuffered: bool, found: wp.array2d(dtype=int), counts: wp.array(dtype=int)):
    i = wp.tid()
    q = wp.bvh_query_ray(bvh, starts[i], dirs[i])
    b = int(0)
    k = int(0)
    more = bool(True)
    while k < first and more:
        if unbuffered:
            more = wp.bvh_query_next(q, b, 1.0e30)
        else:
            more = wp.bvh_query_next(q, b)
        if more:
            found[i, k] = b
            k += 1
    while wp.bvh_query_next(q, b, limit):
        found[i, k] = b
        k += 1
    counts[i] = k


def _boxes(seed: int = 3, size: float = 0.3) -> tuple:
    rng = np.random.default_rng(seed)
    lo = (rng.random((N_BOXES, 3)) * 4.0).astype(np.float32)
    hi = lo + (rng.random((N_BOXES, 3)) * size).astype(np.float32)
    return lo, hi


def _queries(lo: np.ndarray, hi: np.ndarray) -> tuple:
    """Query boxes whose result counts cover 0, around each multiple of BUFFER, and many."""
    rng = np.random.default_rng(7)
    centers = rng.random((96, 3)).astype(np.float32) * 4.0
    qlo, qhi = [], []
    for c in centers:
        for half in (0.01, 0.2, 0.35, 0.5, 0.7, 0.9, 1.2):
            qlo.append(c - half)
            qhi.append(c + half)
    qlo, qhi = np.array(qlo, np.float32), np.array(qhi, np.float32)
    hits = [set(np.nonzero(np.all(lo <= b, axis=1) & np.all(a <= hi, axis=1))[0]) for a, b in zip(qlo, qhi)]
    keep = [j for j, h in enumerate(hits) if len(h) <= MOST]
    return qlo[keep], qhi[keep], [hits[j] for j in keep]


@pytest.mark.parametrize("first", [3, BUFFER, BUFFER + 2])
def test_results_match_a_brute_force_test_across_buffer_refills(first):
    lo, hi = _boxes()
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3))
    qlo, qhi, expected = _queries(lo, hi)
    sizes = np.array([len(h) for h in expected])
    assert {0, BUFFER - 1, BUFFER, BUFFER + 1, 2 * BUFFER}.issubset(set(sizes)) or sizes.max() > 3 * BUFFER
    n = len(expected)
    found = wp.full((n, MOST), -1, dtype=int)
    counts = wp.zeros((n, 3), dtype=int)
    wp.launch(take_then_rest, dim=n, inputs=[bvh.id, wp.array(qlo, dtype=wp.vec3), wp.array(qhi, dtype=wp.vec3), first,
                                             found, counts])
    got, c = found.numpy(), counts.numpy()
    np.testing.assert_array_equal(c[:, 0], np.minimum(sizes, first))
    np.testing.assert_array_equal(c[:, 1], sizes)
    np.testing.assert_array_equal(c[:, 2], 0)
    for i, h in enumerate(expected):
        assert sorted(got[i, : sizes[i]]) == sorted(h), i  # each result once, none missing


def test_queries_that_miss_the_root_box_beside_ones_that_refill():
    """Lanes whose box misses the whole tree (done before the walk's lane pool) interleaved with lanes
    whose results take several buffer refills: each lane's results as a brute-force test gives them."""
    lo, hi = _boxes()
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3))
    qlo, qhi, expected = _queries(lo, hi)
    far = np.float32([100.0, 0.0, 0.0])
    qlo = np.stack([qlo, qlo + far], axis=1).reshape(-1, 3)  # every other lane far away
    qhi = np.stack([qhi, qhi + far], axis=1).reshape(-1, 3)
    expected = [h for pair in zip(expected, [set()] * len(expected)) for h in pair]
    n = len(expected)
    found = wp.full((n, MOST), -1, dtype=int)
    counts = wp.zeros((n, 3), dtype=int)
    wp.launch(take_then_rest, dim=n, inputs=[bvh.id, wp.array(qlo, dtype=wp.vec3), wp.array(qhi, dtype=wp.vec3), 3,
                                             found, counts])
    got, c = found.numpy(), counts.numpy()
    sizes = np.array([len(h) for h in expected])
    assert sizes[1::2].max() == 0 and sizes[::2].max() > 2 * BUFFER
    np.testing.assert_array_equal(c[:, 1], sizes)
    np.testing.assert_array_equal(c[:, 2], 0)
    for i, h in enumerate(expected):
        assert sorted(got[i, : sizes[i]]) == sorted(h), i


def test_a_limit_after_buffered_results_rewinds_to_the_first_not_handed_out():
    lo, hi = _boxes(5, size=1.2)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3))
    rng = np.random.default_rng(11)
    n = 256
    starts = wp.array(rng.random((n, 3)).astype(np.float32) * 4.0 - 1.0, dtype=wp.vec3)
    d = rng.normal(size=(n, 3)).astype(np.float32)
    dirs = wp.array(d / np.linalg.norm(d, axis=1, keepdims=True), dtype=wp.vec3)
    runs = {}
    for unbuffered in (False, True):
        found = wp.full((n, MOST), -1, dtype=int)
        counts = wp.zeros(n, dtype=int)
        wp.launch(ray_then_limit, dim=n, inputs=[bvh.id, starts, dirs, BUFFER + 3, 3.0, unbuffered, found, counts])
        runs[unbuffered] = (found.numpy(), counts.numpy())
    # the same results in the same order: the buffered calls hand out what a walk call by call finds,
    # and the limited calls go on from the first result not handed out
    np.testing.assert_array_equal(runs[False][1], runs[True][1])
    np.testing.assert_array_equal(runs[False][0], runs[True][0])
    counts = runs[False][1]
    assert counts.max() > BUFFER + 3 and counts.max() < MOST  # some lanes go on past the rewind


@wp.kernel
def accumulate(bvh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3), first: int,
               out: wp.array(dtype=wp.vec3i)):
    i = wp.tid()
    q = wp.bvh_query_aabb(bvh, lowers[i], uppers[i])
    b = int(0)
    n = int(0)
    total = int(0)
    squares = int(0)
    for _ in range(first):  # results handed out before the loop (and buffered ones it must give back)
        if wp.bvh_query_next(q, b):
            n += 1
            total += b
            if b % 2 == 0:
                squares += b * b
    for c in q:
        n += 1
        total += c
        if c % 2 == 0:
            squares += c * c
    out[i] = wp.vec3i(n, total, squares)


@pytest.fixture(params=["dense", "walked"])
def results_by(request, monkeypatch):
    """Box-query loops over pairs, with results found by testing every leaf (small trees), or by
    walks."""
    from jwarp.builtins import bvh_dense
    from jwarp.runtime.kernel import forget_compiled

    if request.param == "walked":
        monkeypatch.setattr(bvh_dense, "DENSE_LEAVES", 0)
    forget_compiled()
    return request.param


def test_an_accumulating_loop_takes_the_pair_pass_and_matches_brute_force(monkeypatch, results_by):
    from jwarp.builtins.bvh_pairs import PER_STEP
    from jwarp.compiler import pair_loop
    from jwarp.runtime.kernel import forget_compiled

    taken = []
    real = pair_loop.lower_pairs

    def spy(lw, node, *args, **kwargs):
        done = real(lw, node, *args, **kwargs)
        taken.append(done)
        return done

    monkeypatch.setattr(pair_loop, "lower_pairs", spy)
    forget_compiled()  # (the kernel is lowered again here, whatever ran before)
    lo, hi = _boxes(9, size=0.9)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3))
    qlo, qhi, expected = _queries(lo, hi)
    sizes = np.array([len(h) for h in expected])
    assert sizes.max() > PER_STEP + BUFFER and (sizes == 0).any()  # several steps for some lanes, none for others
    want = np.array([[len(h), sum(h), sum(c * c for c in h if c % 2 == 0)] for h in expected])
    for first in (0, 3, BUFFER + 1):  # results handed out before the loop: the pass starts after them
        out = wp.zeros(len(expected), dtype=wp.vec3i)
        wp.launch(accumulate, dim=len(expected), inputs=[bvh.id, wp.array(qlo, dtype=wp.vec3),
                                                         wp.array(qhi, dtype=wp.vec3), first, out])
        np.testing.assert_array_equal(out.numpy(), want, err_msg=f"first={first}")
    assert taken == [True]


@wp.kernel
def accumulate_either(bvh0: wp.uint64, bvh1: wp.uint64, lowers: wp.array(dtype=wp.vec3),
                      uppers: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec2i)):
    i = wp.tid()
    b = bvh0
    if i % 3 == 1:  # the tree is chosen per lane at run time: the pass walks both trees' lanes
        b = bvh1
    n = int(0)
    total = int(0)
    for c in wp.bvh_query_aabb(b, lowers[i], uppers[i]):
        n += 1
        total += c
    out[i] = wp.vec2i(n, total)


def test_lanes_of_two_trees_match_brute_force(results_by):
    lo0, hi0 = _boxes(9, size=0.9)
    lo1, hi1 = _boxes(4, size=0.5)
    lo1, hi1 = lo1[:150], hi1[:150]  # another tree size
    qlo, qhi, _ = _queries(lo0, hi0)
    trees = [wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3)) for lo, hi in ((lo0, hi0), (lo1, hi1))]
    out = wp.zeros(len(qlo), dtype=wp.vec2i)
    wp.launch(accumulate_either, dim=len(qlo), inputs=[trees[0].id, trees[1].id, wp.array(qlo, dtype=wp.vec3),
                                                        wp.array(qhi, dtype=wp.vec3), out])
    want = []
    for i, (a, b) in enumerate(zip(qlo, qhi)):
        lo, hi = (lo1, hi1) if i % 3 == 1 else (lo0, hi0)
        hits = np.nonzero(np.all(lo <= b, axis=1) & np.all(a <= hi, axis=1))[0]
        want.append((len(hits), int(hits.sum())))
    assert max(n for n, _ in want) > 32  # some lanes need several steps of the pass
    np.testing.assert_array_equal(out.numpy(), np.array(want))


@wp.func
def _weight(c: int, d: float):
    x = float(c % 7) * 0.25 + d
    return (1.0 - x) * (1.0 - x) * (1.0 + 2.0 * x) * wp.exp(-x) / (1.0 + x * x) + x * x * x


@wp.kernel
def guarded_sum(bvh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3),
                centers: wp.array(dtype=wp.vec3), limit: float, out: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    mid = (lowers[i] + uppers[i]) * 0.5
    n = float(0.0)
    s = float(0.0)
    for c in wp.bvh_query_aabb(bvh, lowers[i], uppers[i]):
        d = wp.length(centers[c] - mid)
        if d < limit:  # few results pass: the pass over pairs runs filtered
            n += 1.0
            s += _weight(c, d)
    out[i] = wp.vec2(n, s)


@pytest.mark.parametrize("most", [None, -1, 1000], ids=["as chosen", "unfiltered", "filtered"])
def test_a_guarded_accumulation_over_several_steps_matches_brute_force(monkeypatch, most, results_by):
    """BVH query loops take the filtered pass too, over a plan of several steps (results found a
    step at a time): forced either way and as chosen, the sums match brute force."""
    from jwarp.compiler import pair_loop
    from jwarp.runtime.kernel import forget_compiled

    if most is not None:
        monkeypatch.setattr(pair_loop, "SPARSE_PER_ROUND", most)
    forget_compiled()
    lo, hi = _boxes(9, size=0.9)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3))
    qlo, qhi, expected = _queries(lo, hi)
    centers = (lo + hi) * 0.5
    mids = (qlo + qhi) * 0.5
    limit = 0.6
    out = wp.zeros(len(expected), dtype=wp.vec2)
    queries = [wp.array(a, dtype=wp.vec3) for a in (qlo, qhi, centers)]
    wp.launch(guarded_sum, dim=len(expected), inputs=[bvh.id, *queries, limit, out])
    want = []
    for m, hits in zip(mids, expected):
        hits = np.array(sorted(hits), dtype=np.int64)
        d = np.linalg.norm(centers[hits] - m, axis=1) if len(hits) else np.zeros(0)
        near = d < limit
        x = (hits[near] % 7) * 0.25 + d[near]
        w = (1 - x) ** 2 * (1 + 2 * x) * np.exp(-x) / (1 + x * x) + x ** 3
        want.append((near.sum(), w.sum()))
    np.testing.assert_allclose(out.numpy(), np.array(want), rtol=1e-4, atol=1e-4)


@wp.kernel
def keep_while(bvh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3),
               out: wp.array(dtype=wp.vec4i)):
    i = wp.tid()
    q = wp.bvh_query_aabb(bvh, lowers[i], uppers[i])
    c = int(0)
    best = float(1.0e9)
    best_c = int(-1)
    top = int(-1)
    last = int(-1)
    while wp.bvh_query_next(q, c):
        key = float((c * 7919) % 1009)  # distinct keys for fewer than 1009 boxes
        if key < best:
            best = key
            best_c = c
        top = wp.max(top, c)
        if c % 3 == 0:
            last = c
    out[i] = wp.vec4i(best_c, top, last, int(best))


@wp.kernel
def keep_while_mesh(mesh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3),
                    out: wp.array(dtype=wp.vec4i)):
    i = wp.tid()
    q = wp.mesh_query_aabb(mesh, lowers[i], uppers[i])
    f = int(0)
    best = float(1.0e9)
    best_f = int(-1)
    top = int(-1)
    last = int(-1)
    while wp.mesh_query_aabb_next(q, f):
        key = float((f * 7919) % 1009)
        if key < best:
            best = key
            best_f = f
        top = wp.max(top, f)
        if f % 3 == 0:
            last = f
    out[i] = wp.vec4i(best_f, top, last, int(best))


def test_while_loops_keeping_the_best_take_the_pair_pass(monkeypatch, results_by):
    """``while wp.bvh_query_next`` / ``wp.mesh_query_aabb_next`` loops keeping the best key with its
    index, a maximum and the last index passing a test take the pass over pairs and give what the
    per-lane loop gives (the last index depends on the walk's order) and what brute force gives."""
    from tests.differential.meshes import torus
    from jwarp.compiler import pair_analysis, pair_loop
    from jwarp.runtime.kernel import forget_compiled

    taken = []
    real = pair_loop.lower_pairs

    def spy(lw, node, *args, **kwargs):
        done = real(lw, node, *args, **kwargs)
        taken.append(done)
        return done

    lo, hi = _boxes(9, size=0.9)
    qlo, qhi, expected = _queries(lo, hi)
    points, tris = torus(16, 12)
    corners = points[tris.reshape(-1, 3)]
    mesh_hits = [set(np.nonzero(np.all(corners.min(1) <= b, axis=1) & np.all(a <= corners.max(1), axis=1))[0])
                 for a, b in zip(qlo, qhi)]
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3))
    mesh = wp.Mesh(points=wp.array(points, dtype=wp.vec3), indices=wp.array(tris, dtype=int))
    inputs = [wp.array(qlo, dtype=wp.vec3), wp.array(qhi, dtype=wp.vec3)]

    def run(kernel, owner):
        out = wp.zeros(len(qlo), dtype=wp.vec4i)
        wp.launch(kernel, dim=len(qlo), inputs=[owner.id, *inputs, out])
        return out.numpy()

    monkeypatch.setattr(pair_loop, "lower_pairs", spy)
    forget_compiled()
    paired = {"bvh": run(keep_while, bvh), "mesh": run(keep_while_mesh, mesh)}
    assert taken == [True, True]
    monkeypatch.setattr(pair_analysis, "accumulators", lambda *args: None)  # the per-lane loops
    forget_compiled()
    for name, kernel, owner, hits in (("bvh", keep_while, bvh, expected), ("mesh", keep_while_mesh, mesh, mesh_hits)):
        np.testing.assert_array_equal(paired[name], run(kernel, owner), err_msg=name)
        keys = [{c: (c * 7919) % 1009 for c in h} for h in hits]
        best = np.array([min(k, key=k.get) if k else -1 for k in keys])
        np.testing.assert_array_equal(paired[name][:, 0], best, err_msg=name)
        np.testing.assert_array_equal(paired[name][:, 1], [max(h) if h else -1 for h in hits], err_msg=name)
        assert (paired[name][:, 2] >= 0).sum() > 20
