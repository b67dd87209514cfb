"""Progress guarantee: threads that wait on each other complete with Warp's CPU results (threads
serialised in thread order once a lockstep while loop stalls), and a loop that can never finish
raises an error naming kernel, file and line. Each case runs in a child process with a timeout
(``progress_cases.py``): a regression fails here instead of hanging the suite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = ["spin_lock_two_threads", "spin_lock_repeated", "lock_inside_loop", "infinite_loop_raises",
         "lockstep_loops_unchanged"]


@pytest.mark.parametrize("case", CASES)
def test_case_finishes(case):
    try:
        done = subprocess.run([sys.executable, "-m", "tests.runtime.progress_cases", case], cwd=ROOT,
                              capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case}: the launch did not finish within 240 s")
    assert done.returncode == 0 and done.stdout.strip().endswith("OK"), done.stderr[-3000:]
