"""Kernels whose threads wait on each other, run by ``test_progress.py`` in a child process each
(``python -m tests.runtime.progress_cases CASE``), so that a launch that never finishes fails its
test after a timeout instead of hanging the suite. A case raises on a wrong result."""

from __future__ import annotations

import sys
import traceback

import numpy as np

import jwarp as wp


@wp.kernel
def locked_increment(counter: wp.array(dtype=int), lock: wp.array(dtype=int)):
    while wp.atomic_cas(lock, 0, 0, 1) == 1:
        pass
    counter[0] = counter[0] + 1
    wp.atomic_exch(lock, 0, 0)


@wp.kernel
def never_done(a: wp.array(dtype=int), b: wp.array(dtype=float)):
    i = wp.tid()
    b[i] = 7.0
    x = a[i]
    while x < 10:
        x = x * 1
    a[i] = x + 1


@wp.kernel
def never_done_alone(a: wp.array(dtype=int), b: wp.array(dtype=int)):
    # no thread reads what another writes: a stall is a hang without a serial rerun
    i = wp.tid()
    x = a[i]
    while x < 10:
        x = x * 1
    b[i] = x + 1


@wp.kernel
def wait_for_store(flag: wp.array(dtype=int), out: wp.array(dtype=int)):
    # thread 1 waits for thread 0's plain store (Warp's CPU backend runs thread 0 first)
    i = wp.tid()
    if i == 0:
        flag[0] = 5
    while flag[0] == 0:
        pass
    out[i] = flag[0] + i


@wp.kernel
def wait_for_atomic_add(flag: wp.array(dtype=int), out: wp.array(dtype=int)):
    # the same through an atomic whose result is discarded: the waiting thread reads the flag
    i = wp.tid()
    if i == 0:
        wp.atomic_add(flag, 0, 3)
    while flag[0] == 0:
        pass
    out[i] = flag[0] + i


@wp.kernel
def lock_per_round(counter: wp.array(dtype=int), lock: wp.array(dtype=int), rounds: int):
    for _ in range(rounds):
        while wp.atomic_cas(lock, 0, 0, 1) == 1:
            pass
        counter[0] = counter[0] + 1
        wp.atomic_exch(lock, 0, 0)


def case_spin_lock_two_threads() -> None:
    counter, lock = wp.zeros(1, dtype=int), wp.zeros(1, dtype=int)
    wp.launch(locked_increment, dim=2, inputs=[counter, lock])
    assert counter.numpy()[0] == 2 and lock.numpy()[0] == 0, (counter.numpy(), lock.numpy())


def case_spin_lock_repeated() -> None:
    counter, lock = wp.zeros(1, dtype=int), wp.zeros(1, dtype=int)
    for _ in range(3):
        wp.launch(locked_increment, dim=50, inputs=[counter, lock])
    cmd = wp.launch(locked_increment, dim=50, inputs=[counter, lock], record_cmd=True)
    cmd.launch()
    cmd.launch()
    assert counter.numpy()[0] == 250, counter.numpy()


def case_lock_inside_loop() -> None:
    counter, lock = wp.zeros(1, dtype=int), wp.zeros(1, dtype=int)
    wp.launch(lock_per_round, dim=8, inputs=[counter, lock, 3])
    assert counter.numpy()[0] == 24, counter.numpy()


def case_infinite_loop_raises() -> None:
    a = wp.array(np.array([20, 3, 30], dtype=np.int32))
    b = wp.zeros(3, dtype=float)
    try:
        wp.launch(never_done, dim=3, inputs=[a, b])
    except RuntimeError as exc:
        message = str(exc)
    else:
        raise AssertionError("no error for a loop that never ends")
    line = next(n for n, text in enumerate(open(__file__).read().splitlines(), 1) if "while x < 10" in text)
    assert "never_done" in message and f"progress_cases.py:{line}" in message and "while x < 10" in message, message
    # the failed launch changed no array
    assert a.numpy().tolist() == [20, 3, 30] and b.numpy().tolist() == [0.0, 0.0, 0.0], (a.numpy(), b.numpy())


def case_infinite_loop_alone_raises() -> None:
    a = wp.array(np.array([20, 3, 30], dtype=np.int32))
    b = wp.zeros(3, dtype=int)
    try:
        wp.launch(never_done_alone, dim=3, inputs=[a, b])
    except RuntimeError as exc:
        message = str(exc)
    else:
        raise AssertionError("no error for a loop that never ends")
    line = [n for n, text in enumerate(open(__file__).read().splitlines(), 1) if "while x < 10" in text][1]
    assert "never_done_alone" in message and f"progress_cases.py:{line}" in message, message
    assert b.numpy().tolist() == [0, 0, 0], b.numpy()


def case_wait_for_plain_store() -> None:
    flag, out = wp.zeros(1, dtype=int), wp.zeros(2, dtype=int)
    wp.launch(wait_for_store, dim=2, inputs=[flag, out])
    assert out.numpy().tolist() == [5, 6] and flag.numpy()[0] == 5, (out.numpy(), flag.numpy())


def case_wait_for_atomic_add() -> None:
    flag, out = wp.zeros(1, dtype=int), wp.zeros(2, dtype=int)
    wp.launch(wait_for_atomic_add, dim=2, inputs=[flag, out])
    assert out.numpy().tolist() == [3, 4] and flag.numpy()[0] == 3, (out.numpy(), flag.numpy())


def case_lockstep_loops_unchanged() -> None:
    """A while loop whose lanes keep changing state stays a lockstep loop (no serial rerun needed)."""
    a = wp.array(np.array([1, 5, 9], dtype=np.int32))
    b = wp.zeros(3, dtype=float)
    a.assign(np.array([12, 15, 19], dtype=np.int32))
    wp.launch(never_done, dim=3, inputs=[a, b])
    assert a.numpy().tolist() == [13, 16, 20] and b.numpy().tolist() == [7.0, 7.0, 7.0]


if __name__ == "__main__":
    # one case by name, or "all": each prints "<case> OK" when it is done (one process saves imports)
    names = [n[len("case_"):] for n in globals() if n.startswith("case_")] if sys.argv[1] == "all" else sys.argv[1:]
    failed = False
    for name in names:
        print(f"{name} START", flush=True)
        try:
            globals()["case_" + name]()
        except Exception:  # report it and go on with the next case
            traceback.print_exc()
            print(f"{name} FAIL", flush=True)
            failed = True
        else:
            print(f"{name} OK", flush=True)
    sys.exit(1 if failed else 0)
