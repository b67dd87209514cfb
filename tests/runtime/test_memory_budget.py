"""Bounded launch memory (``jwarp/runtime/memory_budget.py``): launches over budget run in chunks
with the one-pass results, ``max_blocks`` bounds memory on the CPU, out-of-memory errors name kernel,
dim and setting. Huge-grid cases run in a child process with a timeout (``memory_cases.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import jwarp as wp
from jwarp.compiler.kernel_compile import CompiledKernel
from jwarp.runtime import memory_budget

ROOT = Path(__file__).resolve().parents[2]
CASES = ["small_budget_matches_unchunked", "max_blocks_bounds_cpu_memory", "huge_atomic_launch_peak_memory"]


@pytest.mark.parametrize("case", CASES)
def test_case_in_child_process(case):
    try:
        done = subprocess.run([sys.executable, "-m", "tests.runtime.memory_cases", case], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case}: did not finish within 300 s")
    assert done.returncode == 0 and done.stdout.strip().endswith("OK"), done.stderr[-3000:]


@pytest.mark.skipif(not os.environ.get("JWARP_SLOW_TESTS"), reason="2^31 threads: about a minute on 2 cores; "
                    "set JWARP_SLOW_TESTS=1")
def test_more_threads_than_int32_in_child_process():
    test_case_in_child_process("more_threads_than_int32")


def test_chunk_for_fits_the_budget():
    assert memory_budget.chunk_for(1 << 20, 1 << 20, 1 << 21) == 0  # fits: one pass
    chunk = memory_budget.chunk_for(1 << 28, 1 << 31, 1 << 28)  # 8 bytes per thread, 256 MiB
    assert chunk * 8 <= 1 << 28 and chunk & (chunk - 1) == 0
    assert memory_budget.chunk_for(1 << 20, 1 << 40, 1) == memory_budget.MIN_CHUNK
    assert memory_budget.chunk_for(1 << 20, 1 << 30, 1 << 20, block_dim=96) % 96 == 0


def test_budget_setting_validated_and_used():
    device = wp.get_device("cpu")
    assert 0 < memory_budget.budget_bytes(device) <= memory_budget.DEFAULT_CAP
    for bad in (-1, 0, 1.5, "1G", True):
        with pytest.raises(ValueError, match="launch_memory_budget"):
            wp.config.launch_memory_budget = bad
    wp.config.launch_memory_budget = 12345
    try:
        assert memory_budget.budget_bytes(device) == 12345
    finally:
        wp.config.launch_memory_budget = None


@wp.kernel
def scale(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    b[i] = a[i] * 2.0
    a[i] = 0.0


def test_out_of_memory_names_kernel_dim_and_setting(monkeypatch):
    a, b = wp.array(np.arange(8, dtype=np.float32)), wp.ones(8)

    def exhausted(self, donate=False, operands=None):
        def run(*args):
            raise RuntimeError("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 68719476736 bytes.")
        return run

    monkeypatch.setattr(CompiledKernel, "executable", exhausted)
    with pytest.raises(RuntimeError) as info:
        wp.launch(scale, dim=8, inputs=[a, b])
    message = str(info.value)
    assert "'scale'" in message and "dim=(8,)" in message and "wp.config.launch_memory_budget" in message
    assert "RESOURCE_EXHAUSTED" in message
    np.testing.assert_array_equal(a.numpy(), np.arange(8))  # the failed launch changed no array
    np.testing.assert_array_equal(b.numpy(), np.ones(8))


def test_other_errors_pass_through():
    assert not memory_budget.is_out_of_memory(RuntimeError("INVALID_ARGUMENT: bad"))
    memory_budget.raise_if_out_of_memory(scale, (4,), wp.get_device("cpu"), ValueError("x"))  # no raise
