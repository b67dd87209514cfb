"""Donating programs compiled with XLA:CPU's older emitters are compiled again with its default
emitters once hot (jwarp/compiler/ahead_programs.py): one more compile at the TIER_AFTER-th run,
the same results before and after, none at optimisation level 0 (its older emitters are chosen)."""

from __future__ import annotations

import jax
import jax.monitoring
import numpy as np
import pytest

import jwarp as wp
from jwarp.compiler.ahead_programs import TIER_AFTER, Tiered

_EVENT = "/jax/core/compile/backend_compile_duration"
_compiles = [0]
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: _compiles.__setitem__(0, _compiles[0] + (event == _EVENT)))


@wp.kernel
def _axpy(y: wp.array(dtype=float), x: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@pytest.fixture(autouse=True)
def _direct_donating_launches():
    saved = (wp.config.donate_buffers, wp.config.fuse_launch_chains)
    wp.config.donate_buffers, wp.config.fuse_launch_chains = True, False
    yield
    wp.config.donate_buffers, wp.config.fuse_launch_chains = saved


def _donating_program(kernel):
    compiled = next(c for c in kernel._cache.values() if hasattr(c, "closed_jaxpr"))
    return compiled._executables.get(True)


def _run(kernel, runs: int) -> tuple[np.ndarray, list]:
    n = 4096
    x = wp.array(np.linspace(0.0, 1.0, n, dtype=np.float32))
    y = wp.zeros(n, dtype=float)
    per_run = []
    for _ in range(runs):
        jax.effects_barrier()
        before = _compiles[0]
        wp.launch(kernel, n, inputs=[y, x, 0.5])
        wp.synchronize()
        per_run.append(_compiles[0] - before)
    return y.numpy(), per_run


def test_hot_donating_program_is_compiled_again_once_and_agrees():
    kernel = wp.Kernel(_axpy.func, key=f"axpy_tiered_{id(object())}")
    y, per_run = _run(kernel, TIER_AFTER + 4)
    program = _donating_program(kernel)
    assert isinstance(program, Tiered)
    assert program.runs >= TIER_AFTER + 3  # (the first launch may run the plain program)
    assert per_run[1:TIER_AFTER - 1] == [0] * (TIER_AFTER - 2)  # nothing compiles between
    assert sum(per_run[1:]) == 1  # one more compile, at the TIER_AFTER-th run of the donating program
    expect = np.float32(0.5) * np.linspace(0.0, 1.0, 4096, dtype=np.float32) * (TIER_AFTER + 4)
    np.testing.assert_allclose(y, expect, rtol=1e-5)


def test_level_zero_keeps_its_older_emitters():
    saved = wp.config.optimization_level
    wp.config.optimization_level = 0
    try:
        kernel = wp.Kernel(_axpy.func, key=f"axpy_level0_{id(object())}")
        y, per_run = _run(kernel, TIER_AFTER + 2)
    finally:
        wp.config.optimization_level = saved
    assert _donating_program(kernel) is not None and not isinstance(_donating_program(kernel), Tiered)
    assert sum(per_run[1:]) == 0
