"""Repeated operations of a captured graph replayed as a loop (jwarp/runtime/capture_loops.py): which
runs repeat, and replays that loop, stay unrolled or fall back give the results of running the same
operations one by one."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime import capture_loops
from jwarp.runtime.capture_loops import repeated_run


@pytest.mark.parametrize("keys, expected", [
    ("abababab", (0, 2, 4)),
    ("xabababy", (1, 2, 3)),
    ("aaaaab", (0, 1, 5)),
    ("abcabcabcab", (0, 3, 3)),  # a partial last period stays outside the loop
    ("aab", None),  # saves one operation
    ("abcd", None),
    ("", None),
    ("abababxcxcxcxcxc", (6, 2, 5)),  # the run that saves the most
])
def test_repeated_runs(keys, expected):
    assert repeated_run(list(keys)) == expected


@wp.kernel
def _forces(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), f: wp.array(dtype=wp.vec3), k: float):
    i = wp.tid()
    j = (i + 1) % x.shape[0]
    f[i] = (x[j] - x[i]) * k - v[i] * 0.1


@wp.kernel
def _integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), f: wp.array(dtype=wp.vec3),
               g: wp.vec3, dt: float):
    i = wp.tid()
    v[i] = v[i] + (f[i] + g) * dt
    x[i] = x[i] + v[i] * dt


def _simulate(x, v, f, times, substeps=12):
    """A prefix (a scratch array zero-filled and a copy), ``substeps`` repeated pairs of launches, a
    suffix; ``times``: the ``dt`` of each substep (a value that changes breaks the repeats)."""
    scratch = wp.zeros_like(f)
    wp.copy(scratch, x)
    for s in range(substeps):
        wp.launch(_forces, len(x), [x, v, f, 2.0])
        wp.launch(_integrate, len(x), [x, v, f, (0.0, -1.0, 0.0), times[s]])
    wp.launch(_forces, len(x), [scratch, v, f, 1.0])


def _arrays():
    rng = np.random.default_rng(3)
    return (wp.array(rng.random((50, 3)).astype(np.float32), dtype=wp.vec3),
            wp.array(rng.random((50, 3)).astype(np.float32), dtype=wp.vec3), wp.zeros(50, dtype=wp.vec3))


@pytest.mark.parametrize("threshold, times, loops", [
    (0, [0.01] * 12, True),
    (10**9, [0.01] * 12, False),  # small repeats stay unrolled
    (0, [0.01 * (s + 1) for s in range(12)], False),  # a different dt at each substep: nothing repeats
])
def test_a_replay_that_loops_gives_the_results_of_the_launches(monkeypatch, threshold, times, loops):
    expected = _arrays()
    _simulate(*expected, times)
    expected = [a.numpy() for a in expected]

    monkeypatch.setattr(capture_loops, "LOOP_EQUATIONS", threshold)
    looped = []
    real = jax.lax.fori_loop
    monkeypatch.setattr(jax.lax, "fori_loop", lambda *a, **k: looped.append(a[:2]) or real(*a, **k))
    arrays = _arrays()
    with wp.ScopedCapture() as capture:
        _simulate(*arrays, times)
    wp.capture_launch(capture.graph)
    assert looped == ([(1, 12)] if loops else [])
    for got, want in zip(arrays, expected):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-6)


def test_a_period_whose_buffers_change_type_runs_unrolled(monkeypatch):
    """A step that replaces a buffer with one of another type cannot be a loop's body: the replay
    runs the repeats one by one instead."""
    from jwarp.runtime import capture

    monkeypatch.setattr(capture_loops, "LOOP_EQUATIONS", 0)
    x = wp.zeros(4, dtype=float)

    def step():
        root = x.root
        root._buffer = (root._buffer + 1).astype(jax.numpy.float32 if root._buffer.dtype != jax.numpy.float32
                                                  else jax.numpy.float16)

    with wp.ScopedCapture() as cap:
        for _ in range(6):
            capture.record(step, [x], key="same")
    roots = cap.graph.roots()
    before = [r._buffer for r in roots]
    capture_loops.run_steps(cap.graph._steps, cap.graph._keys, roots)
    assert roots[0]._buffer.dtype == jax.numpy.float32 and float(roots[0]._buffer[0]) == 6.0
    for r, b in zip(roots, before):
        r._buffer = b


@wp.kernel
def _density(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, rho: wp.array(dtype=float)):
    i = wp.tid()
    p = x[i]
    s = float(0.0)
    for j in wp.hash_grid_query(grid, p, h):
        r = wp.length(x[j] - p)
        if r < h:
            s += (h - r) * (h - r)
    rho[i] = s


@wp.kernel
def _push(x: wp.array(dtype=wp.vec3), rho: wp.array(dtype=float), dt: float):
    i = wp.tid()
    x[i] = x[i] + wp.vec3(rho[i] * dt, -dt, 0.5 * dt)


def _grid_substeps(grid, x, rho, saved, substeps=6):
    for _ in range(substeps):
        grid.build(x, 0.2)
        wp.launch(_density, len(x), [grid.id, x, 0.2, rho])
        wp.launch(_push, len(x), [x, rho, 0.01])
        wp.copy(saved, x)
        rho.zero_()
        rho.fill_(0.25)
        saved.assign(x)


def test_grid_builds_copies_and_fills_repeat_too(monkeypatch):
    """Substeps that rebuild a hash grid, copy, assign, fill and zero arrays besides their launches repeat
    (those operations have keys too): the replay loops and matches the operations run one by one."""
    monkeypatch.setattr(capture_loops, "LOOP_EQUATIONS", 0)
    looped = []
    real = jax.lax.fori_loop
    monkeypatch.setattr(jax.lax, "fori_loop", lambda *a, **k: looped.append(a[:2]) or real(*a, **k))

    def arrays():
        pts = np.random.default_rng(8).random((300, 3)).astype(np.float32)
        return (wp.HashGrid(8, 8, 8), wp.array(pts, dtype=wp.vec3), wp.zeros(300, dtype=float),
                wp.zeros(300, dtype=wp.vec3))

    expected = arrays()
    _grid_substeps(*expected)
    looped.clear()
    got = arrays()
    with wp.ScopedCapture() as capture:
        _grid_substeps(*got)
    wp.capture_launch(capture.graph)
    assert (1, 6) in looped
    for a, b in zip(got[1:], expected[1:]):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
