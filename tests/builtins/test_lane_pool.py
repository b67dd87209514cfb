"""Lane pools (jwarp.builtins.lane_pool) and the nearest-first BVH walk built on them."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jwarp.builtins import bvh_walk
from jwarp.builtins.lane_pool import Sharing, barrier, pooled_loop
from jwarp.runtime.geometry import bvh_build


def _countdown(trips: np.ndarray, active: np.ndarray, width: int, chunk: int) -> dict:
    state = {"x": jnp.asarray(trips, jnp.int32), "steps": jnp.zeros(trips.shape, jnp.int32),
             "tag": jnp.arange(trips.size, dtype=jnp.int32)}

    def step(s: dict, go: jax.Array) -> dict:
        run = s["x"] > 0
        scratch = barrier(go, lambda a: a + 1, s["scratch"])
        return dict(s, x=jnp.where(run, s["x"] - 1, s["x"]), steps=s["steps"] + run.astype(jnp.int32),
                    scratch=jnp.where(run[:, None], scratch, s["scratch"]))

    fn = jax.jit(lambda st, act: pooled_loop(st, act, lambda s: s["x"] > 0, step, width=width, chunk=chunk,
                                             scratch={"scratch": ((2,), jnp.int32)}, smallest=8))
    return {k: np.asarray(v) for k, v in fn(state, jnp.asarray(active)).items()}


def test_pooled_loop_runs_each_lane_its_own_trip_count():
    rng = np.random.default_rng(1)
    trips = rng.integers(0, 40, 1000)
    trips[::97] = 300  # a few slow lanes: the pool shrinks around them
    active = rng.random(1000) < 0.8
    out = _countdown(trips, active, width=64, chunk=3)  # pooled: refills, then packs into 8-lane pools
    np.testing.assert_array_equal(out["steps"], np.where(active, trips, 0))
    np.testing.assert_array_equal(out["x"], np.where(active, 0, trips))
    np.testing.assert_array_equal(out["tag"], np.arange(1000))
    assert "scratch" not in out


def test_pooled_loop_with_fewer_lanes_than_the_pool():
    out = _countdown(np.array([5, 0, 2]), np.array([True, True, False]), width=64, chunk=4)
    np.testing.assert_array_equal(out["steps"], [5, 0, 0])


def _ray_setup(n: int, seed: int):
    rng = np.random.default_rng(seed)
    lo = rng.random((200, 3)).astype(np.float32)
    hi = lo + rng.random((200, 3)).astype(np.float32) * 0.1
    tree = bvh_build.build(lo, hi)
    origin = rng.random((n, 3)).astype(np.float32) * 2 - 0.5
    direction = rng.normal(size=(n, 3)).astype(np.float32)
    return lo, hi, tree, origin, direction


def _entry(o, rcp, lo, hi):
    t1, t2 = (lo - o) * rcp, (hi - o) * rcp
    tmin = np.minimum(t1, t2).max(-1)
    tmax = np.maximum(t1, t2).min(-1)
    return (tmax >= 0) & (tmax >= tmin), tmin


def test_walk_nearest_finds_the_nearest_box_entry():
    """Closest box (by entry distance, ties to the lower index) of rays, against brute force."""
    lo, hi, tree, origin, direction = _ray_setup(300, 2)
    rcp = 1.0 / direction

    def run(bounds, links, o, r):
        t = bvh_walk.Tree(bounds, links, int(links.shape[0]))
        state = {"node": jnp.zeros(o.shape[0], jnp.int32), "t": jnp.full(o.shape[0], jnp.inf, jnp.float32),
                 "face": jnp.full(o.shape[0], -1, jnp.int32),
                 **{f"o{k}": o[:, k] for k in range(3)}, **{f"r{k}": r[:, k] for k in range(3)}}

        def box(s, lower, upper):
            t_lo = [(lower[k] - s[f"o{k}"]) * s[f"r{k}"] for k in range(3)]
            t_hi = [(upper[k] - s[f"o{k}"]) * s[f"r{k}"] for k in range(3)]
            tmin = jnp.maximum(jnp.maximum(jnp.minimum(t_lo[0], t_hi[0]), jnp.minimum(t_lo[1], t_hi[1])),
                               jnp.minimum(t_lo[2], t_hi[2]))
            tmax = jnp.minimum(jnp.minimum(jnp.maximum(t_lo[0], t_hi[0]), jnp.maximum(t_lo[1], t_hi[1])),
                               jnp.maximum(t_lo[2], t_hi[2]))
            return (tmax >= 0) & (tmax >= tmin), tmin

        def enter(s, lower, upper):
            hit, t = box(s, lower, upper)
            return hit & (t < s["t"]), t

        def candidate(s, prim, data):
            lower, upper = data
            hit, t = box(s, lower, upper)
            return jnp.where(hit, t, jnp.inf)

        table_lo, table_hi = jnp.asarray(lo), jnp.asarray(hi)

        def fetch(prim):
            rows_lo, rows_hi = table_lo[prim], table_hi[prim]
            return tuple(rows_lo[:, k] for k in range(3)), tuple(rows_hi[:, k] for k in range(3))

        s = bvh_walk.walk_nearest(t, state, jnp.ones(o.shape[0], bool), enter, candidate, fetch=fetch,
                                  depth=tree.depth)
        return s["t"], s["face"]

    t, face = jax.jit(run)(jnp.asarray(tree.bounds), jnp.asarray(tree.links), jnp.asarray(origin), jnp.asarray(rcp))
    hit, tmin = _entry(origin[:, None, :], rcp[:, None, :], lo[None], hi[None])
    dist = np.where(hit, tmin, np.inf)
    want = dist.min(axis=1)
    np.testing.assert_array_equal(np.asarray(t), want.astype(np.float32))
    found = np.isfinite(want)
    np.testing.assert_array_equal(dist[found, np.asarray(face)[found]], want[found])


def test_pooled_loop_rejects_a_step_that_changes_an_input():
    """With ``pack_inputs``, keys outside ``outputs`` are read-only inputs (kept packed): changing one
    in the step would be lost, so tracing refuses it (such state belongs in ``scratch``)."""
    state = {"x": jnp.arange(100, dtype=jnp.int32) % 7, "k": jnp.zeros(100, jnp.int32)}

    def step(s, go):
        return dict(s, x=s["x"] - 1, k=s["k"] + 1)

    try:
        jax.jit(lambda st: pooled_loop(st, jnp.ones(100, bool), lambda s: s["x"] > 0, step, width=16, chunk=2,
                                       smallest=4, outputs=("x",), pack_inputs=True))(state)
    except ValueError as err:
        assert "'k'" in str(err)
    else:
        raise AssertionError("a changed input was accepted")


def test_idle_slots_take_pieces_of_long_lanes():
    """Sharing: each lane sums ``lo + (lo + 1) + ... + (hi - 1)``; a lane with more than 16 terms left
    gives the upper half of its range to an idle slot, and the pieces' sums add up at write-back. A
    few lanes are far longer than the rest (the tail that sharing spreads over the pool); inactive
    lanes keep their state; the input ``scale`` travels with each piece."""
    rng = np.random.default_rng(2)
    n = 300
    hi = rng.integers(0, 40, n).astype(np.int32)
    hi[[3, 77, 200]] = [5000, 3000, 4000]
    active = rng.random(n) > 0.1
    scale = rng.integers(1, 4, n).astype(np.int32)
    state = {"lo": jnp.zeros(n, jnp.int32), "hi": jnp.asarray(hi), "acc": jnp.zeros(n, jnp.int32),
             "scale": jnp.asarray(scale)}

    def step(s, go):
        run = s["lo"] < s["hi"]
        return dict(s, acc=s["acc"] + jnp.where(run, s["lo"] * s["scale"], 0), lo=s["lo"] + run.astype(jnp.int32))

    def give(s):
        mid = (s["lo"] + s["hi"]) // 2
        return s["hi"] - s["lo"] > 16, {"lo": mid, "acc": jnp.zeros_like(mid)}, {"hi": mid}

    def merge(home, rows, values):
        return {"acc": home["acc"].at[rows].add(values["acc"], mode="drop"), "lo": home["lo"], "hi": home["hi"]}

    steps = []

    def run(st, act, sharing):
        def counted(s, go):
            jax.debug.callback(lambda: steps.append(1))
            return step(s, go)
        return pooled_loop(st, act, lambda s: s["lo"] < s["hi"], counted, width=64, chunk=4,
                           outputs=("lo", "hi", "acc"), sharing=sharing)

    out = jax.jit(run, static_argnums=2)(state, jnp.asarray(active), Sharing(give, merge))
    shared_steps, steps[:] = len(steps), []
    plain = jax.jit(run, static_argnums=2)(state, jnp.asarray(active), None)
    expected = np.where(active, scale * (hi.astype(np.int64) * (hi - 1) // 2), 0)
    np.testing.assert_array_equal(np.asarray(out["acc"]), expected)
    np.testing.assert_array_equal(np.asarray(plain["acc"]), expected)
    assert shared_steps * 4 < len(steps)  # the longest lane no longer sets the loop's length
