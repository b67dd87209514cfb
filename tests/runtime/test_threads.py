"""Thread safety: launches, copies and reads from several Python threads give the result of some
serial order, and a buffer one thread reads is never donated (freed) by another thread's launch.
Threads are joined with a timeout: a deadlock fails the test instead of hanging the suite."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import jwarp as wp


@wp.kernel
def _bump(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


@wp.kernel
def _count(total: wp.array(dtype=int)):
    wp.atomic_add(total, 0, 1)


def _run_threads(work, n: int = 4, timeout: float = 120.0) -> list:
    errors: list = []

    def guarded(k):
        try:
            work(k)
        except BaseException as exc:  # reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(k,), daemon=True) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    assert not any(t.is_alive() for t in threads), "threads did not finish (deadlock?)"
    return errors


@pytest.fixture
def donate():
    saved = wp.config.donate_buffers
    wp.config.donate_buffers = True
    yield
    wp.config.donate_buffers = saved


@pytest.mark.parametrize("use_command", [False, True])
def test_concurrent_launches_lose_no_update(donate, use_command):
    a = wp.zeros(64)
    total = wp.zeros(1, dtype=int)
    wp.launch(_bump, dim=64, inputs=[wp.zeros(64)])  # compile before the threads start

    def work(_):
        cmd = wp.launch(_bump, dim=64, inputs=[a], record_cmd=True) if use_command else None
        for _ in range(50):
            if cmd is not None:
                cmd.launch()
            else:
                wp.launch(_bump, dim=64, inputs=[a])
            wp.launch(_count, dim=3, inputs=[total])

    assert _run_threads(work) == []
    np.testing.assert_array_equal(a.numpy(), np.full(64, 200.0, np.float32))
    assert total.numpy()[0] == 4 * 50 * 3


def test_reads_never_see_a_donated_buffer(donate):
    a = wp.zeros(1 << 12)
    stop = threading.Event()
    seen: list = []

    def work(k):
        if k == 0:
            for _ in range(300):
                wp.launch(_bump, dim=a.shape[0], inputs=[a])
            stop.set()
        else:
            while not stop.is_set():
                seen.append(float(a.numpy()[0]))
                b = wp.empty_like(a)
                wp.copy(b, a)
                seen.append(float(b.numpy()[-1]))

    assert _run_threads(work, n=3) == []
    assert all(0.0 <= v <= 300.0 for v in seen)
    np.testing.assert_array_equal(a.numpy(), np.full(1 << 12, 300.0, np.float32))


def test_copies_and_launches_interleave_serially(donate):
    a = wp.zeros(16)
    b = wp.zeros(16)

    def work(k):
        for _ in range(40):
            if k % 2:
                wp.launch(_bump, dim=16, inputs=[a])
            else:
                wp.copy(b, a)

    assert _run_threads(work) == []
    np.testing.assert_array_equal(a.numpy(), np.full(16, 80.0, np.float32))
    assert np.all(b.numpy() == b.numpy()[0]) and 0.0 <= b.numpy()[0] <= 80.0
