"""Differential suite: every program under ``programs/`` gives the same results with real
Warp and with jwarp (skipped only where warp-lang cannot be imported).

Real Warp's run happens in a worker process (:class:`~tests.differential.harness.WarpWorker`) while
jwarp's runs in the test: on two cores a pair costs about as long as its slower side.
"""

from __future__ import annotations

import pytest

import jwarp
from tests.differential.harness import (PROGRAMS, compare, load_program, optimization_level, run_isolated,
                                        warp_installed, warp_worker)
from tests.differential.pallas_programs import TRITON_ONLY_PROGRAMS, check_lowerings, lowering_hook

WARP_TIMEOUT = 600  # seconds real Warp's side may take

PROGRAM_FILES = sorted(p for p in PROGRAMS.glob("*.py") if not p.name.startswith("_"))


@pytest.mark.parametrize("path", PROGRAM_FILES, ids=[p.stem for p in PROGRAM_FILES])
def test_program_matches_warp(path, monkeypatch):
    monkeypatch.setattr(jwarp.config, "optimization_level", optimization_level())  # (as Warp's side)
    ours_module = load_program(path, jwarp, "jwarp")
    expected_error = getattr(ours_module, "EXPECT_ERROR", None)
    timeout = getattr(ours_module, "TIMEOUT", None)
    worker = None
    if not getattr(ours_module, "SKIP_WARP", None) and warp_installed():
        worker = warp_worker()
        worker.submit(path)  # real Warp runs meanwhile
    theirs: tuple = (False, None)
    lower_for_cuda = path.stem in TRITON_ONLY_PROGRAMS and timeout is None  # shares this run (pallas_programs.py)
    triton = lowering_hook(monkeypatch, xla_launches=True)[0] if lower_for_cuda else None
    try:
        if timeout is not None:
            ours = run_isolated(path, timeout)
        elif expected_error is not None:
            with pytest.raises(expected_error):
                ours_module.run()
        else:
            ours = ours_module.run()
    finally:
        if worker is not None:  # (always read the reply: the next test's must not get this one)
            try:
                theirs = (True, worker.result(WARP_TIMEOUT))
            except Exception as exc:  # noqa: BLE001 - re-raised below, after jwarp's outcome
                theirs = (False, exc)
    if lower_for_cuda:  # every launch must also lower to a Triton kernel (checked without a GPU)
        check_lowerings(path.stem, triton, {})
    if getattr(ours_module, "SKIP_WARP", None):
        return
    if worker is None:
        pytest.skip("warp-lang is not installed")
    if expected_error is not None:
        with pytest.raises(expected_error):
            if not theirs[0]:
                raise theirs[1]
        return
    if not theirs[0]:
        raise theirs[1]
    theirs = theirs[1]
    rtol = getattr(ours_module, "RTOL", 1e-5)
    atol = getattr(ours_module, "ATOL", 1e-6)
    compare(theirs, ours, rtol, atol, getattr(ours_module, "TOLERANCE", {}), path.stem)
