"""Query loops that stop at their first hit (jwarp/compiler/pair_exit.py): the pass over pairs
finds the same first hit, in the loop's order, as the masked while loop (the reference kernels
below store into an array in the prelude, which keeps them on the while loop), for ``return``
and ``break`` exits, on BVH and hash-grid queries; loops that do not qualify keep the while loop."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp
from jwarp.compiler import pair_exit


@wp.kernel(module="unique")
def first_return(bvh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3), m: int,
                 out: wp.array(dtype=int), scratch: wp.array(dtype=int)):
    i = wp.tid()
    for b in wp.bvh_query_aabb(bvh, lowers[i], uppers[i]):
        k = (b * 7 + i) % m
        if k == 3:
            out[i] = b * 10 + k
            return
    out[i] = -2


@wp.kernel(module="unique")
def first_return_ref(bvh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3), m: int,
                     out: wp.array(dtype=int), scratch: wp.array(dtype=int)):
    i = wp.tid()
    for b in wp.bvh_query_aabb(bvh, lowers[i], uppers[i]):
        scratch[i] = b  # a store: not a pure prelude
        k = (b * 7 + i) % m
        if k == 3:
            out[i] = b * 10 + k
            return
    out[i] = -2


@wp.kernel(module="unique")
def first_break(bvh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3), m: int,
                out: wp.array(dtype=int), scratch: wp.array(dtype=int)):
    i = wp.tid()
    found = int(-1)
    steps = int(0)
    for b in wp.bvh_query_aabb(bvh, lowers[i], uppers[i]):
        if (b + i) % m == 1:
            found = b
            steps = steps + 1
            break
    out[i] = found * 100 + steps


@wp.kernel(module="unique")
def first_break_ref(bvh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3), m: int,
                    out: wp.array(dtype=int), scratch: wp.array(dtype=int)):
    i = wp.tid()
    found = int(-1)
    steps = int(0)
    for b in wp.bvh_query_aabb(bvh, lowers[i], uppers[i]):
        scratch[i] = b
        if (b + i) % m == 1:
            found = b
            steps = steps + 1
            break
    out[i] = found * 100 + steps


@wp.kernel(module="unique")
def while_return(bvh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3), m: int,
                 out: wp.array(dtype=int), scratch: wp.array(dtype=int)):
    i = wp.tid()
    b = int(0)
    query = wp.bvh_query_aabb(bvh, lowers[i], uppers[i])
    while wp.bvh_query_next(query, b):
        k = (b * 7 + i) % m
        if k == 3:
            out[i] = b * 10 + k
            return
    out[i] = -2


@wp.func
def first_multiple(bvh: wp.uint64, lo: wp.vec3, hi: wp.vec3, m: int, i: int) -> int:
    for b in wp.bvh_query_aabb(bvh, lo, hi):
        if (b + i) % m == 2:
            return b  # the function's value
    return -1


@wp.func
def first_multiple_ref(bvh: wp.uint64, lo: wp.vec3, hi: wp.vec3, m: int, i: int, scratch: wp.array(dtype=int)) -> int:
    for b in wp.bvh_query_aabb(bvh, lo, hi):
        scratch[i] = b
        if (b + i) % m == 2:
            return b
    return -1


@wp.kernel(module="unique")
def in_func_and_loop(bvh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3), m: int,
                     out: wp.array(dtype=int), scratch: wp.array(dtype=int)):
    i = wp.tid()
    total = int(0)
    for r in range(3):  # the query loop inside a function, inside a loop
        total = total * 1000 + first_multiple(bvh, lowers[i], uppers[i], m + r, i) + 1
    out[i] = total


@wp.kernel(module="unique")
def in_func_and_loop_ref(bvh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3), m: int,
                         out: wp.array(dtype=int), scratch: wp.array(dtype=int)):
    i = wp.tid()
    total = int(0)
    for r in range(3):
        total = total * 1000 + first_multiple_ref(bvh, lowers[i], uppers[i], m + r, i, scratch) + 1
    out[i] = total


@wp.kernel(module="unique")
def near_return(grid: wp.uint64, x: wp.array(dtype=wp.vec3), r: float, out: wp.array(dtype=int),
                scratch: wp.array(dtype=int)):
    i = wp.tid()
    for j in wp.hash_grid_query(grid, x[i], r):
        d = wp.length(x[j] - x[i])
        if j > i and d < r * 0.5:
            out[i] = j
            return
    out[i] = -1


@wp.kernel(module="unique")
def near_return_ref(grid: wp.uint64, x: wp.array(dtype=wp.vec3), r: float, out: wp.array(dtype=int),
                    scratch: wp.array(dtype=int)):
    i = wp.tid()
    for j in wp.hash_grid_query(grid, x[i], r):
        scratch[i] = j
        d = wp.length(x[j] - x[i])
        if j > i and d < r * 0.5:
            out[i] = j
            return
    out[i] = -1


@wp.kernel(module="unique")
def not_qualifying(bvh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3), m: int,
                   out: wp.array(dtype=int), scratch: wp.array(dtype=int)):
    i = wp.tid()
    last = int(-1)
    for b in wp.bvh_query_aabb(bvh, lowers[i], uppers[i]):
        last = b  # the prelude changes a variable of the enclosing scope
        if b % m == 3:
            out[i] = b
            return
    out[i] = last


def _spy(monkeypatch) -> list:
    taken = []
    real = pair_exit.lower_first_hit

    def spy(*args, **kwargs):
        done = real(*args, **kwargs)
        taken.append(done)
        return done

    monkeypatch.setattr(pair_exit, "lower_first_hit", spy)
    return taken


def _bvh_case(n: int = 600) -> tuple:
    rng = np.random.default_rng(5)
    lo = (rng.random((300, 3)) * 4.0).astype(np.float32)
    hi = lo + (rng.random((300, 3)) * 1.0).astype(np.float32)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3))
    c = rng.random((n, 3)).astype(np.float32) * 4.0
    half = rng.random((n, 1)).astype(np.float32) * 1.2
    return bvh, wp.array(c - half, dtype=wp.vec3), wp.array(c + half, dtype=wp.vec3)


@pytest.mark.parametrize("kernel,reference", [(first_return, first_return_ref), (first_break, first_break_ref),
                                              (while_return, first_return_ref),
                                              (in_func_and_loop, in_func_and_loop_ref)])
def test_first_hit_matches_the_while_loop(monkeypatch, kernel, reference):
    from jwarp.runtime.kernel import forget_compiled

    taken = _spy(monkeypatch)
    forget_compiled()
    bvh, lowers, uppers = _bvh_case()
    results = {}
    for k in (kernel, reference):
        for m in (5, 40):  # most lanes hit early / many lanes run out of results first
            out = wp.full(600, 7, dtype=int)
            wp.launch(k, dim=600, inputs=[bvh.id, lowers, uppers, m, out, wp.zeros(600, dtype=int)])
            results[k, m] = out.numpy()
    assert taken and all(taken)  # (the reference never qualifies)
    for m in (5, 40):
        np.testing.assert_array_equal(results[kernel, m], results[reference, m])
        values = results[kernel, m]
        if kernel is in_func_and_loop:
            values = values % 1000 - 1  # the last call's value
        assert (values < 0).any() and (values >= 0).any()  # lanes with a hit and lanes without


def test_first_hit_over_a_hash_grid_matches_the_while_loop(monkeypatch):
    taken = _spy(monkeypatch)
    x = wp.array(np.random.default_rng(2).random((400, 3)).astype(np.float32), dtype=wp.vec3)
    grid = wp.HashGrid(8, 8, 8)
    grid.build(x, 0.2)
    outs = {}
    for k in (near_return, near_return_ref):
        outs[k] = wp.full(400, 7, dtype=int)
        wp.launch(k, dim=400, inputs=[grid.id, x, 0.2, outs[k], wp.zeros(400, dtype=int)])
    assert True in taken
    np.testing.assert_array_equal(outs[near_return].numpy(), outs[near_return_ref].numpy())
    assert (outs[near_return].numpy() >= 0).any() and (outs[near_return].numpy() < 0).any()


def test_a_prelude_that_changes_an_outer_variable_keeps_the_while_loop(monkeypatch):
    taken = _spy(monkeypatch)
    bvh, lowers, uppers = _bvh_case(64)
    out = wp.zeros(64, dtype=int)
    wp.launch(not_qualifying, dim=64, inputs=[bvh.id, lowers, uppers, 9, out, wp.zeros(64, dtype=int)])
    assert taken == []
