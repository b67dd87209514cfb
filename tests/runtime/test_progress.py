"""Progress guarantee: threads that wait on each other complete with Warp's CPU results (threads
serialised in thread order once a lockstep while loop stalls), and a loop that can never finish
raises an error naming kernel, file and line. Each case runs in a child process with a timeout
(``progress_cases.py``): a regression fails here instead of hanging the suite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.runtime import progress_cases

ROOT = Path(__file__).resolve().parents[2]
CASES = ["spin_lock_two_threads", "spin_lock_repeated", "lock_inside_loop", "infinite_loop_raises",
         "infinite_loop_alone_raises", "wait_for_plain_store", "wait_for_atomic_add", "lockstep_loops_unchanged"]


TIMEOUT = 240


@pytest.fixture(scope="module")
def progress_log() -> tuple[str, str, bool]:
    """(stdout, stderr, timed out) of one child process running every case in turn."""
    try:
        done = subprocess.run([sys.executable, "-m", "tests.runtime.progress_cases", "all"], cwd=ROOT,
                              capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as exc:  # the child is killed; keep what it printed
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        return out, err, True
    return done.stdout, done.stderr, False


def test_every_case_is_run():
    assert [n[len("case_"):] for n in vars(progress_cases) if n.startswith("case_")] == CASES


@pytest.mark.parametrize("case", CASES)
def test_case_finishes(case, progress_log):
    out, err, timed_out = progress_log
    if f"{case} OK" in out:
        return
    if timed_out and out.strip().splitlines()[-1:] == [f"{case} START"]:
        pytest.fail(f"{case}: the launch did not finish within {TIMEOUT} s")
    assert f"{case} START" in out, f"{case} did not run\n{err[-3000:]}"
    pytest.fail(f"{case} failed (the child's stderr has each failing case's traceback):\n{err[-3000:]}")
