"""Deferred launch chains (jwarp/runtime/chain.py): recurring sequences of ``wp.launch`` calls run
as one program, with every observable result equal (up to float rounding of fused arithmetic) to
running each launch at once."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime import chain, deferred


@wp.kernel
def _springs(x: wp.array(dtype=wp.vec3), idx: wp.array(dtype=int), k: float, f: wp.array(dtype=wp.vec3)):
    s = wp.tid()
    i = idx[2 * s]
    j = idx[2 * s + 1]
    d = x[j] - x[i]
    wp.atomic_add(f, i, d * k)
    wp.atomic_sub(f, j, d * k)


@wp.kernel
def _integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), f: wp.array(dtype=wp.vec3), dt: float):
    i = wp.tid()
    v[i] = v[i] + f[i] * dt
    x[i] = x[i] + v[i] * dt
    f[i] = wp.vec3(0.0, 0.0, 0.0)


@wp.kernel
def _loss(x: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, wp.dot(x[i], x[i]))


@wp.kernel
def _bump(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] + s


@wp.kernel
def _talk(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0
    print(a[i])


N = 16
_RNG = np.random.default_rng(3)
_X0 = _RNG.standard_normal((N, 3)).astype(np.float32)
_PAIRS = np.stack([np.arange(N - 1), np.arange(1, N)], axis=1).reshape(-1).astype(np.int32)
_PAIRS2 = _RNG.permutation(N)[: 2 * 6].astype(np.int32)


@pytest.fixture(autouse=True)
def _restore():
    saved = wp.config.fuse_launch_chains
    chain.reset()
    yield
    wp.config.fuse_launch_chains = saved
    chain.reset()


def _simulate(fuse: bool, steps: int, change_at: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    wp.config.fuse_launch_chains = fuse
    x = wp.array(_X0, dtype=wp.vec3)
    v = wp.zeros(N, dtype=wp.vec3)
    f = wp.zeros(N, dtype=wp.vec3)
    idx = wp.array(_PAIRS, dtype=int)
    n_springs = len(_PAIRS) // 2
    for step in range(steps):
        if step == change_at:  # the index array changes between steps (same shape, other springs)
            idx.assign(np.resize(_PAIRS2, _PAIRS.shape).astype(np.int32))
        for _ in range(3):
            wp.launch(_springs, n_springs, inputs=[x, idx, 0.5], outputs=[f])
            wp.launch(_integrate, N, inputs=[x, v, f, 0.01])
        wp.synchronize()
    return x.numpy(), v.numpy()


def _fused_programs() -> int:
    return sum(info.program is not None for info in chain._table.values())


def test_fused_chain_equals_launches_run_at_once():
    want = _simulate(False, 8)
    got = _simulate(True, 8)
    assert _fused_programs() == 1  # the 6-launch step recurred: it ran as one program
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_index_array_changed_between_steps():
    want = _simulate(False, 8, change_at=5)
    got = _simulate(True, 8, change_at=5)
    assert _fused_programs() == 1
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    unchanged = _simulate(True, 8)
    assert not np.allclose(unchanged[0], got[0])  # the change took effect


def test_launches_wait_until_observed():
    wp.config.fuse_launch_chains = True
    x = wp.array(_X0, dtype=wp.vec3)
    v = wp.zeros(N, dtype=wp.vec3)
    f = wp.array(np.ones((N, 3), np.float32), dtype=wp.vec3)
    wp.launch(_integrate, N, inputs=[wp.zeros_like(x), wp.zeros_like(v), wp.zeros_like(f), 0.5])  # (its plan)
    wp.synchronize()
    wp.launch(_integrate, N, inputs=[x, v, f, 0.5])
    wp.launch(_integrate, N, inputs=[x, v, f, 0.5])
    assert chain.pending_length() == 2
    np.testing.assert_allclose(v.numpy(), np.full((N, 3), 0.5, np.float32))  # the read ran both
    assert chain.pending_length() == 0
    np.testing.assert_allclose(x.numpy(), _X0 + 0.5, rtol=1e-6)  # (the first cleared f)


def test_one_kernel_repeated_is_not_fused():
    wp.config.fuse_launch_chains = True
    x = wp.array(_X0, dtype=wp.vec3)
    v = wp.zeros(N, dtype=wp.vec3)
    f = wp.zeros(N, dtype=wp.vec3)
    for _ in range(chain.FUSE_AFTER + 3):
        for _ in range(3):
            wp.launch(_integrate, N, inputs=[x, v, f, 0.5])
        wp.synchronize()
    assert _fused_programs() == 0


def test_chained_launches_donate_their_buffers():
    from jwarp.runtime.execution import program_of

    wp.config.fuse_launch_chains = True
    a = wp.zeros(1024)
    for _ in range(2 * chain.MAX_LENGTH + 3):  # full chains run while the next launch is being added
        wp.launch(_bump, 1024, inputs=[a, 1.5])
    wp.synchronize()
    programs = [program_of(p.compiled) for p in _bump._launch_plans.values()]
    assert programs and all(p.donates and p.copied_runs == 0 for p in programs)
    np.testing.assert_array_equal(a.numpy(), np.full(1024, 1.5 * (2 * chain.MAX_LENGTH + 3), np.float32))


def test_disabled_runs_at_once():
    wp.config.fuse_launch_chains = False
    x = wp.array(_X0, dtype=wp.vec3)
    v = wp.zeros(N, dtype=wp.vec3)
    f = wp.zeros(N, dtype=wp.vec3)
    for _ in range(2):
        wp.launch(_integrate, N, inputs=[x, v, f, 0.5])
    assert chain.pending_length() == 0


def test_print_kernel_is_not_deferred(capfd):
    wp.config.fuse_launch_chains = True
    a = wp.zeros(1)
    for _ in range(3):
        wp.launch(_talk, 1, inputs=[a])
        assert chain.pending_length() == 0


def test_buffer_held_elsewhere_keeps_its_contents():
    wp.config.fuse_launch_chains = True
    x = wp.array(_X0, dtype=wp.vec3)
    v = wp.zeros(N, dtype=wp.vec3)
    f = wp.array(np.ones((N, 3), np.float32), dtype=wp.vec3)
    idx = wp.array(_PAIRS, dtype=int)
    views = []
    for _ in range(chain.FUSE_AFTER + 3):  # the same 2-launch chain recurs: fused from the FUSE_AFTER + 1st
        views.append((np.asarray(wp.to_jax(x)).copy(), wp.to_jax(x)))
        wp.launch(_springs, len(_PAIRS) // 2, inputs=[x, idx, 0.5], outputs=[f])
        wp.launch(_integrate, N, inputs=[x, v, f, 0.5])
        wp.synchronize()
    assert _fused_programs() == 1
    for snapshot, view in views:  # donation never took a buffer someone else still holds
        np.testing.assert_array_equal(np.asarray(jax.device_get(view)), snapshot)


def test_tape_gradients_after_fused_chains():
    def run(fuse: bool) -> tuple[np.ndarray, float]:
        wp.config.fuse_launch_chains = fuse
        x = wp.array(_X0, dtype=wp.vec3, requires_grad=True)
        v = wp.zeros(N, dtype=wp.vec3, requires_grad=True)
        f = wp.zeros(N, dtype=wp.vec3, requires_grad=True)
        idx = wp.array(_PAIRS, dtype=int)
        loss = wp.zeros(1, requires_grad=True)
        for _ in range(4):  # chained (and fused) steps before the taped one
            wp.launch(_springs, len(_PAIRS) // 2, inputs=[x, idx, 0.5], outputs=[f])
            wp.launch(_integrate, N, inputs=[x, v, f, 0.01])
        tape = wp.Tape()
        with tape:
            wp.launch(_springs, len(_PAIRS) // 2, inputs=[x, idx, 0.5], outputs=[f])
            wp.launch(_integrate, N, inputs=[x, v, f, 0.01])
            wp.launch(_loss, N, inputs=[x], outputs=[loss])
        tape.backward(loss)
        return x.grad.numpy(), float(loss.numpy()[0])

    want_grad, want_loss = run(False)
    for _ in range(chain.FUSE_AFTER + 2):  # the chained steps recur: fused from the FUSE_AFTER + 1st run
        got_grad, got_loss = run(True)
    assert _fused_programs() >= 1
    np.testing.assert_allclose(got_loss, want_loss, rtol=1e-5)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-4, atol=1e-5)


def test_synchronize_runs_the_chain():
    wp.config.fuse_launch_chains = True
    x = wp.array(_X0, dtype=wp.vec3)
    v = wp.zeros(N, dtype=wp.vec3)
    f = wp.zeros(N, dtype=wp.vec3)
    wp.launch(_integrate, N, inputs=[x, v, f, 0.5])
    assert deferred.pending is not None
    wp.synchronize()
    assert deferred.pending is None and chain.pending_length() == 0
    np.testing.assert_allclose(x.numpy(), _X0, rtol=1e-6)


@wp.kernel
def _smooth(src: wp.array(dtype=float), dst: wp.array(dtype=float)):
    i = wp.tid()
    n = src.shape[0]
    dst[i] = (src[wp.max(i - 1, 0)] + src[i] + src[wp.min(i + 1, n - 1)]) / 3.0


@wp.kernel
def _lean(src: wp.array(dtype=float), dst: wp.array(dtype=float)):
    i = wp.tid()
    dst[i] = 0.5 * (src[i] + src[wp.min(i + 1, src.shape[0] - 1)])


def _record(monkeypatch, name: str) -> list:
    """What ``chain.<name>`` returns from now on, call by call."""
    out, real = [], getattr(chain, name)

    def spy(*args):
        out.append(real(*args))
        return out[-1]

    monkeypatch.setattr(chain, name, spy)
    return out


def test_kernels_reading_what_they_gather_from(monkeypatch):
    """The springs gather and scatter, the integration reads and writes lane by lane: no step needs
    anything materialised first (XLA fuses across the chain, where its gain is)."""
    profiles, feeds = _record(monkeypatch, "access_profile"), _record(monkeypatch, "materialised_before")
    _simulate(True, 8)
    assert len(profiles) == 2  # one per kernel of the chain
    (gathered, scattered, _), (gathered_i, scattered_i, costs_i) = profiles
    assert gathered == (True, False, False, False)  # the springs gather x only (the index pairs are lane reads)
    assert scattered == (True,)  # f
    assert gathered_i == (False,) * 4 and scattered_i == (False,) * 3
    assert 0 < max(costs_i) < chain.RECOMPUTE_LIMIT / 2  # cheap enough to recompute per gathered read
    assert feeds == [[[]] * 6]


def test_a_chain_of_stencils_is_materialised_between_them(monkeypatch):
    """Each stencil step gathers from the previous one's output: fused as they are, XLA would
    recompute every earlier step per neighbour read. The chain materialises the array before each
    step, and the results stay those of the launches run one by one."""
    feeds = _record(monkeypatch, "materialised_before")
    start = np.random.default_rng(5).random(64).astype(np.float32)
    results = []
    for fuse in (False, True):
        wp.config.fuse_launch_chains = fuse
        a, b = wp.array(start), wp.zeros(64, dtype=float)
        for _ in range(chain.FUSE_AFTER + 2):
            for _ in range(3):
                wp.launch(_smooth, 64, inputs=[a, b])
                wp.launch(_lean, 64, inputs=[b, a])
            wp.synchronize()
        results.append(a.numpy())
    assert _fused_programs() == 1
    assert feeds == [[[], [1], [0], [1], [0], [1]]]  # slot 0: a, slot 1: b
    np.testing.assert_allclose(results[1], results[0], rtol=1e-5)
    expect = start.astype(np.float64)
    for _ in range(3 * (chain.FUSE_AFTER + 2)):
        right = np.concatenate([expect[1:], expect[-1:]])
        expect = (np.concatenate([expect[:1], expect[:-1]]) + expect + right) / 3
        expect = 0.5 * (expect + np.concatenate([expect[1:], expect[-1:]]))
    np.testing.assert_allclose(results[1], expect, rtol=1e-4)


@wp.kernel
def _displace(a: wp.array(dtype=float), b: wp.array(dtype=float), width: int, cx: float, h: float):
    tid = wp.tid()
    x = float(tid % width) - cx
    y = float(tid // width) - cx
    if x * x + y * y < 9.0:
        a[tid] = h
        b[tid] = h


@wp.kernel
def _wave(prev: wp.array(dtype=float), cur: wp.array(dtype=float), width: int):
    tid = wp.tid()
    x = tid % width
    y = tid // width
    left = cur[y * width + wp.max(x - 1, 0)]
    right = cur[y * width + wp.min(x + 1, width - 1)]
    up = cur[wp.max(y - 1, 0) * width + x]
    down = cur[wp.min(y + 1, width - 1) * width + x]
    prev[tid] = 2.0 * cur[tid] - prev[tid] + 0.1 * (left + right + up + down - 4.0 * cur[tid])


def test_costly_values_are_materialised_before_a_gather(monkeypatch):
    """Warp's wave example: a displacement (an integer division, a distance test) writes the array
    the next stencil gathers from. Fused into the stencil's gathers, XLA would recompute it per
    neighbour read; the chain materialises it first, and the results stay those of the launches run
    one by one."""
    feeds = _record(monkeypatch, "materialised_before")
    width = 12
    start = np.random.default_rng(2).random(width * width).astype(np.float32)
    results = []
    for fuse in (False, True):
        wp.config.fuse_launch_chains = fuse
        g0, g1 = wp.array(start), wp.array(start[::-1].copy())
        for step in range(chain.FUSE_AFTER + 2):
            for sub in range(2):
                wp.launch(_displace, width * width, inputs=[g0, g1, width, 3.0 + sub, 0.5])
                wp.launch(_wave, width * width, inputs=[g0, g1, width])
                g0, g1 = g1, g0
            wp.synchronize()
        results.append((g0.numpy(), g1.numpy()))
    assert _fused_programs() == 1
    # slot 0: g0, slot 1: g1 of the step's start; the displacements are costly, the stencils gather
    assert feeds == [[[], [1], [], [0]]]
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@wp.kernel
def _scale(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s


def _steps_of_33_launches(start: np.ndarray, steps: int) -> tuple:
    """``steps`` steps of Warp's wave example's shape (16 substeps of two kernels, then one more), no
    synchronisation; returns the arrays ``a`` (from ``start``) and ``b`` and what they should hold."""
    a, b = wp.array(start), wp.array(np.ones(8, dtype=np.float32))
    expect_a, expect_b = start.astype(np.float64), np.ones(8)
    for _ in range(steps):
        for _ in range(16):
            wp.launch(_bump, dim=8, inputs=[a, 0.5])
            wp.launch(_scale, dim=8, inputs=[b, 0.5])
        wp.launch(_bump, dim=8, inputs=[b, 1.0])
        expect_a += 8.0
        expect_b = expect_b * 0.5**16 + 1.0
    return a, b, expect_a, expect_b


def test_sequence_longer_than_a_chain_is_cut_at_its_period():
    """33 launches per step (Warp's wave example: 16 substeps of two kernels, then one more) and no
    synchronisation: cut every MAX_LENGTH launches, each chain would start one launch further into
    the step, a new key every step. Once the period shows, chains cut at one phase of it: one
    program, run at every step from then on; the results are those of launching one by one."""
    assert chain.MAX_LENGTH == 32
    steps = (chain.FUSE_AFTER + 2) * chain.MAX_LENGTH
    a, b, expect_a, expect_b = _steps_of_33_launches(np.arange(8, dtype=np.float32), steps)
    built = [info for info in chain._table.values() if info.program is not None]
    assert len(built) == 1, len(built)
    assert built[0].seen >= steps - 8, (built[0].seen, steps)  # (the first steps find the period)
    np.testing.assert_allclose(a.numpy(), expect_a, rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), expect_b, rtol=1e-6)


def test_a_broken_period_is_forgotten():
    """Chains cut at a period (above) until a launch breaks it: from there chains cut every
    MAX_LENGTH launches again, and every result is still that of launching one by one."""
    wp.config.fuse_launch_chains = True
    a, b, expect_a, expect_b = _steps_of_33_launches(np.zeros(8, dtype=np.float32), 6)
    assert chain._stream.period == 33
    for k in range(40):  # another pattern: the period breaks at its first launch
        wp.launch(_scale, dim=8, inputs=[a, 0.5 if k % 3 else 2.0])
        expect_a *= 0.5 if k % 3 else 2.0
    assert chain._stream.period != 33
    np.testing.assert_allclose(a.numpy(), expect_a, rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), expect_b, rtol=1e-6)
    wp.launch(_bump, dim=8, inputs=[a, 0.0])  # the first launch after a synchronisation
    assert chain._stream.recording is False  # (a.numpy() ran the chain: its next launch stops the recording)


def test_scalars_that_change_at_every_launch_fuse_and_replay():
    """A value that changes at every launch (a simulation's time) is passed to the executable as a
    numpy scalar, one seen again as a device constant: the chain still fuses once (the two make
    the same operand), a plan's cache holds device constants only for values seen twice, and every
    result equals launching one by one."""
    wp.config.fuse_launch_chains = True
    a = wp.zeros(8, dtype=float)
    b = wp.array(np.ones(8, dtype=np.float32))
    expect_a, expect_b = np.zeros(8), np.ones(8)
    wp.launch(_bump, dim=8, inputs=[a, 0.0])  # (the kernels' first launches make their plans: the
    wp.launch(_scale, dim=8, inputs=[b, 1.0])  # values below all go through them, run alone or not)
    wp.synchronize()
    for step in range(chain.FUSE_AFTER + 4):
        for k in range(3):
            t = 0.25 * (3 * step + k) + 0.125  # never the same twice
            wp.launch(_bump, dim=8, inputs=[a, t])
            wp.launch(_scale, dim=8, inputs=[b, 0.5 if k % 2 else 2.0])  # values that recur
            expect_a += t
            expect_b *= 0.5 if k % 2 else 2.0
        wp.synchronize()
    assert _fused_programs() == 1
    np.testing.assert_allclose(a.numpy(), expect_a, rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), expect_b, rtol=1e-6)
    def cached(kernel):  # the values cached by the kernel's plans for 8-lane launches (plans may share caches)
        caches = {id(cache): cache for plan in kernel._launch_plans.values() if plan.dim == (8,)
                  for _, _, _, cache in plan.values if cache is not None}
        return [c for cache in caches.values() for c in cache.values()]

    bumps = [c for c in cached(_bump) if float(c) % 0.25 == 0.125]
    assert len(bumps) == 3 * (chain.FUSE_AFTER + 4) and all(isinstance(c, np.ndarray) for c in bumps)  # each seen once
    scales = [c for c in cached(_scale) if float(c) in (0.5, 2.0)]
    assert len(scales) == 2 and all(isinstance(c, jax.Array) for c in scales)


@wp.kernel
def _shift(a: wp.array(dtype=wp.vec3), s: wp.vec3):
    i = wp.tid()
    a[i] = a[i] + s


def test_composite_values_that_change_are_right_and_staged():
    """A vec3 argument that changes at every launch (cached by its bytes, not by a plan's value
    cache) reaches the kernel right whether it is new (a numpy value) or seen before (a device array)."""
    from jwarp.runtime import binding

    a = wp.zeros(4, dtype=wp.vec3)
    expect = np.zeros((4, 3))
    for k in range(12):
        s = (0.5 * k + 0.25, -1.0, float(k % 3))  # the first two components never repeat, so neither does s
        wp.launch(_shift, dim=4, inputs=[a, wp.vec3(*s)])
        wp.launch(_shift, dim=4, inputs=[a, wp.vec3(1.0, 2.0, 3.0)])  # the same at every launch
        expect += np.array(s) + np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(a.numpy(), expect, rtol=1e-6)
    kept = {k[2]: v for k, v in binding._constants.items() if k[0] == "<f4" and k[1] == (3,)}
    repeated = kept[np.float32([1.0, 2.0, 3.0]).tobytes()]
    once = kept[np.float32([0.5 * 11 + 0.25, -1.0, 2.0]).tobytes()]
    assert isinstance(repeated, jax.Array) and isinstance(once, np.ndarray)
