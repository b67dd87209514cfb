"""Dense box queries of small trees (``jwarp.builtins.bvh_dense``): the leaves a lane's bit words
hold are the ones a walk from its node accepts, in the walk's order, and ``select`` finds each of
them; query loops run over them (``bvh_pairs.DensePlan``) find what walked loops find, in the same
order (a loop that stops at its first hit returns the same result)."""

import jax.numpy as jnp
import numpy as np
import pytest

import jwarp as wp
from jwarp.builtins import bvh_dense
from jwarp.builtins.bvh_walk import Tree
from jwarp.runtime.geometry import bvh_build

DENSE_LEAVES = bvh_dense.DENSE_LEAVES


def _walk(tree: bvh_build.FlatTree, lo: np.ndarray, hi: np.ndarray, node: int, end: int) -> list:
    """The leaf nodes a stackless walk from ``node`` to ``end`` accepts, in order (the reference)."""
    out = []
    while node < min(end, tree.node_count):
        box = tree.bounds[node]
        enter = bool(np.all(lo <= box[3:]) and np.all(hi >= box[:3]))
        skip, prim = tree.links[node]
        if enter and prim >= 0:
            out.append(node)
        node = node + 1 if enter and prim < 0 else int(skip)
    return out


def _device(tree: bvh_build.FlatTree) -> Tree:
    return Tree(jnp.asarray(tree.bounds), jnp.asarray(tree.links), tree.node_count)


def test_select_finds_each_set_bit():
    rng = np.random.default_rng(1)
    rows = []
    for density in (0.0, 0.03, 0.3, 0.9, 1.0):
        bits = rng.random((40, 5 * 32)) < density
        bits[::7, :64] = False  # leading empty words
        bits[::5, 31] = True  # the top bit of a word
        rows.append(bits)
    bits = np.concatenate(rows)
    words = np.packbits(bits.reshape(len(bits), 5, 32)[:, :, ::-1], axis=2).view(">u4")[..., 0].astype(np.uint32)
    words = jnp.asarray(words)
    through = bvh_dense.running_counts(words)
    most = int(bits.sum(axis=1).max())
    k = jnp.broadcast_to(jnp.arange(most, dtype=jnp.int32), (len(bits), most))
    got = np.asarray(bvh_dense.select(words, through, k))
    for lane, row in enumerate(bits):
        want = np.nonzero(row)[0]
        np.testing.assert_array_equal(got[lane, :len(want)], want, err_msg=f"lane {lane}")
    one = np.asarray(bvh_dense.select(words, through, jnp.zeros(len(bits), jnp.int32)))  # one k per row
    firsts = [np.nonzero(row)[0][0] for row in bits if row.any()]
    np.testing.assert_array_equal(one[bits.any(axis=1)], firsts)


@pytest.mark.parametrize("boxes", [0, 1, 2, 37, 300])
def test_leaf_words_hold_what_a_walk_accepts(boxes):
    rng = np.random.default_rng(boxes)
    lo = (rng.random((boxes, 3)) * 4.0).astype(np.float32)
    hi = lo + (rng.random((boxes, 3)) * 0.8).astype(np.float32)
    groups = rng.integers(0, 4, boxes) if boxes > 2 else None
    tree = bvh_build.build(lo, hi, groups)
    lanes = 200
    qlo = (rng.random((lanes, 3)) * 4.6 - 0.3).astype(np.float32)
    qhi = qlo + (rng.random((lanes, 3)) * 1.5).astype(np.float32)
    qlo[:10] = qhi[:10] = np.float32(2.0)  # points
    count = tree.node_count
    node = rng.integers(0, count + 1, lanes).astype(np.int32)  # resumed walks, and ones already done
    node[:lanes // 2] = 0
    roots = np.concatenate([tree.group_roots, [0]])
    end = tree.links[rng.choice(roots, lanes), 0].astype(np.int32)  # subtrees of a group, or the whole tree
    end[::3] = count
    run = rng.random(lanes) < 0.9
    words, nodes = bvh_dense.leaf_words(_device(tree), tuple(jnp.asarray(qlo[:, k]) for k in range(3)),
                                        tuple(jnp.asarray(qhi[:, k]) for k in range(3)), jnp.asarray(run),
                                        jnp.asarray(node), jnp.asarray(end))
    words, nodes = np.asarray(words), np.asarray(nodes)
    bits = ((words[:, :, None] >> np.arange(32, dtype=np.uint32)) & 1).reshape(lanes, -1).astype(bool)
    for lane in range(lanes):
        want = _walk(tree, qlo[lane], qhi[lane], int(node[lane]), int(end[lane])) if run[lane] else []
        np.testing.assert_array_equal(nodes[np.nonzero(bits[lane])[0]], want, err_msg=f"lane {lane}")
    if boxes >= 37:  # (queries that find some)
        assert sum(len(_walk(tree, a, b, 0, count)) for a, b in zip(qlo, qhi)) > lanes // 4


@wp.kernel
def first_passing(bvh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3),
                  keys: wp.array(dtype=float), limit: float, out: wp.array(dtype=wp.vec2i)):
    i = wp.tid()
    n = int(0)
    for b in wp.bvh_query_aabb(bvh, lowers[i], uppers[i]):
        if keys[b] > limit:  # the first result in the walk's order that passes
            out[i] = wp.vec2i(1, b)
            return
    out[i] = wp.vec2i(n, -1)


@wp.kernel
def count_and_sum(bvh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3),
                  out: wp.array(dtype=wp.vec2i)):
    i = wp.tid()
    n = int(0)
    s = int(0)
    for b in wp.bvh_query_aabb(bvh, lowers[i], uppers[i]):
        n += 1
        s += b * b
    out[i] = wp.vec2i(n, s)


def _run_both(monkeypatch, kernel, inputs: list, lanes: int) -> list:
    from jwarp.builtins import bvh_pairs
    from jwarp.runtime.kernel import forget_compiled

    taken = []
    real = bvh_pairs._dense_plan
    monkeypatch.setattr(bvh_pairs, "_dense_plan", lambda *a: taken.append(real(*a)) or taken[-1])
    outs = []
    for leaves in (DENSE_LEAVES, 0):
        monkeypatch.setattr(bvh_dense, "DENSE_LEAVES", leaves)
        forget_compiled()
        out = wp.zeros(lanes, dtype=wp.vec2i)
        wp.launch(kernel, dim=lanes, inputs=[*inputs, out])
        outs.append(out.numpy())
    assert isinstance(taken[0], bvh_pairs.DensePlan) and taken[-1] is None  # dense, then walked
    return outs


def test_loops_over_dense_results_match_walked_loops_and_brute_force(monkeypatch):
    rng = np.random.default_rng(5)
    lo = (rng.random((500, 3)) * 4.0).astype(np.float32)
    hi = lo + (rng.random((500, 3)) * 0.6).astype(np.float32)
    tree = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3))
    lanes = 3000
    qlo = (rng.random((lanes, 3)) * 4.0).astype(np.float32)
    qhi = qlo + (rng.random((lanes, 3)) * rng.choice([0.05, 0.5, 2.5], (lanes, 1))).astype(np.float32)
    keys = rng.random(500).astype(np.float32)
    queries = [wp.array(qlo, dtype=wp.vec3), wp.array(qhi, dtype=wp.vec3)]

    dense, walked = _run_both(monkeypatch, count_and_sum, [tree.id, *queries], lanes)
    np.testing.assert_array_equal(dense, walked)
    hits = [np.nonzero(np.all(lo <= b, axis=1) & np.all(a <= hi, axis=1))[0] for a, b in zip(qlo, qhi)]
    np.testing.assert_array_equal(dense, [(len(h), int((h.astype(np.int64) ** 2).sum())) for h in hits])
    assert max(len(h) for h in hits) > 64 and min(len(h) for h in hits) == 0

    dense, walked = _run_both(monkeypatch, first_passing, [tree.id, *queries, wp.array(keys), 0.8], lanes)
    np.testing.assert_array_equal(dense, walked)  # the same first result: the same order
    flat = tree._tree
    order = flat.links[:, 1][[n for n in range(flat.node_count) if flat.links[n, 1] >= 0]]  # leaves by node
    rank = np.empty(500, np.int64)
    rank[order] = np.arange(500)
    for lane, h in enumerate(hits):
        passing = h[keys[h] > 0.8]
        want = (1, int(passing[np.argmin(rank[passing])])) if len(passing) else (0, -1)
        assert tuple(dense[lane]) == want, lane
    assert 0 < (dense[:, 0] == 1).sum() < lanes


def test_launches_with_too_many_words_walk(monkeypatch):
    """A dense plan keeps two words arrays of lanes x words: past ``_DENSE_WORDS`` the loop walks."""
    from jwarp.builtins import bvh_pairs
    from jwarp.runtime.kernel import forget_compiled

    rng = np.random.default_rng(2)
    lo = (rng.random((100, 3)) * 2.0).astype(np.float32)
    hi = lo + np.float32(0.3)
    tree = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3))
    lanes = 400
    qlo = (rng.random((lanes, 3)) * 2.0).astype(np.float32)
    qhi = qlo + np.float32(0.5)
    plans = []
    real = bvh_pairs._dense_plan
    monkeypatch.setattr(bvh_pairs, "_dense_plan", lambda *a: plans.append(real(*a)) or plans[-1])
    monkeypatch.setattr(bvh_pairs, "_DENSE_WORDS", lanes * 4 - 1)  # 100 leaves: 4 words a lane
    forget_compiled()
    out = wp.zeros(lanes, dtype=wp.vec2i)
    wp.launch(count_and_sum, dim=lanes, inputs=[tree.id, wp.array(qlo, dtype=wp.vec3), wp.array(qhi, dtype=wp.vec3),
                                                 out])
    assert plans == [None]
    hits = [np.nonzero(np.all(lo <= b, axis=1) & np.all(a <= hi, axis=1))[0] for a, b in zip(qlo, qhi)]
    np.testing.assert_array_equal(out.numpy(), [(len(h), int((h.astype(np.int64) ** 2).sum())) for h in hits])


_NEXT_CALLS = r"""
import json, sys
import numpy as np
import jwarp as wp
from jwarp.builtins import bvh_queries
from jwarp.runtime.kernel import forget_compiled


@wp.kernel
def take_limit_rest(bvh0: wp.uint64, bvh1: wp.uint64, lowers: wp.array(dtype=wp.vec3),
                    uppers: wp.array(dtype=wp.vec3), first: int, found: wp.array2d(dtype=int),
                    counts: wp.array2d(dtype=int)):
    i = wp.tid()
    bvh = bvh0
    if i % 3 == 1:  # the tree chosen per lane at run time
        bvh = bvh1
    q = wp.bvh_query_aabb(bvh, lowers[i], uppers[i])
    b = int(0)
    k = int(0)
    while wp.bvh_query_next(q, b):
        found[i, k] = b
        k += 1
        if k == first:
            break
    counts[i, 0] = k
    if wp.bvh_query_next(q, b, 1.0e30):  # a call with a limit: goes on from the first not handed out
        found[i, k] = b
        k += 1
    counts[i, 1] = k
    while wp.bvh_query_next(q, b):  # buffered again
        found[i, k] = b
        k += 1
    counts[i, 2] = k
    counts[i, 3] = int(wp.bvh_query_next(q, b))  # exhausted: stays so


data = np.load(sys.argv[1])
trees = [wp.Bvh(wp.array(data[f"lo{t}"], dtype=wp.vec3), wp.array(data[f"hi{t}"], dtype=wp.vec3)) for t in (0, 1)]
taken = []
real = bvh_queries._words_next
bvh_queries._words_next = lambda *a: taken.append(1) or real(*a)
out = {}
for leaves in (bvh_queries.WORDS_LEAVES, 0):  # bit words, then walks
    bvh_queries.WORDS_LEAVES = leaves
    forget_compiled()
    taken.clear()
    lanes = data["qlo"].shape[0]
    found = wp.full((lanes, 300), -1, dtype=int)
    counts = wp.zeros((lanes, 4), dtype=int)
    queries = [wp.array(data["qlo"], dtype=wp.vec3), wp.array(data["qhi"], dtype=wp.vec3)]
    wp.launch(take_limit_rest, dim=lanes, inputs=[trees[0].id, trees[1].id, *queries, int(data["first"]), found,
                                                  counts])
    out[str(leaves)] = {"found": found.numpy().tolist(), "counts": counts.numpy().tolist(), "words": bool(taken)}
print(json.dumps(out))
"""


@pytest.mark.parametrize("first", [1, 8, 9, 40])
def test_next_calls_on_small_trees_hand_out_the_walks_results_in_order(tmp_path, first):
    """``*_next`` calls of box queries of trees of at most 256 leaves keep their results as bit words
    (``bvh_queries._words_next``): the same results in the same order as the walked buffers, through a
    ``break``, a call with a limit (a rewind) and a second loop, for lanes of two trees. In a
    subprocess with a timeout: a query that never ran out would loop forever."""
    import json
    import subprocess
    import sys

    rng = np.random.default_rng(8)
    boxes = {}
    for t, count in enumerate((256, 77)):
        lo = (rng.random((count, 3)) * 3.0).astype(np.float32)
        boxes[f"lo{t}"], boxes[f"hi{t}"] = lo, lo + (rng.random((count, 3)) * 0.7).astype(np.float32)
    lanes = 600
    qlo = (rng.random((lanes, 3)) * 3.0).astype(np.float32)
    qhi = qlo + (rng.random((lanes, 3)) * rng.choice([0.05, 0.6, 1.5], (lanes, 1))).astype(np.float32)
    qlo[::7] += 50.0  # boxes that miss every tree
    qhi[::7] += 50.0
    np.savez(tmp_path / "data.npz", qlo=qlo, qhi=qhi, first=first, **boxes)
    script = tmp_path / "next_calls.py"
    script.write_text(_NEXT_CALLS)
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "data.npz")], capture_output=True, text=True,
                          timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    runs = json.loads(done.stdout.strip().splitlines()[-1])
    words, walked = runs[str(256)], runs["0"]
    assert words["words"] and not walked["words"]
    np.testing.assert_array_equal(words["counts"], walked["counts"])
    np.testing.assert_array_equal(words["found"], walked["found"])  # the same order
    got, counts = np.array(words["found"]), np.array(words["counts"])
    for i in range(lanes):
        lo, hi = (boxes["lo1"], boxes["hi1"]) if i % 3 == 1 else (boxes["lo0"], boxes["hi0"])
        want = np.nonzero(np.all(lo <= qhi[i], axis=1) & np.all(qlo[i] <= hi, axis=1))[0]
        assert counts[i, 2] == len(want) and counts[i, 3] == 0, i
        assert counts[i, 0] == min(first, len(want)) and counts[i, 1] == min(first + 1, len(want)), i
        assert sorted(got[i, :len(want)]) == sorted(want), i
    assert counts[:, 2].max() > 3 * 8 and (counts[:, 2] == 0).any()
