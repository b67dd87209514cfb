"""Differential suite: every program under ``programs/`` gives the same results with real
Warp and with jwarp (skipped only where warp-lang cannot be imported)."""

from __future__ import annotations

import pytest

import jwarp
from tests.differential.harness import PROGRAMS, compare, load_program, real_warp, run_isolated

PROGRAM_FILES = sorted(p for p in PROGRAMS.glob("*.py") if not p.name.startswith("_"))


@pytest.mark.parametrize("path", PROGRAM_FILES, ids=[p.stem for p in PROGRAM_FILES])
def test_program_matches_warp(path):
    ours_module = load_program(path, jwarp, "jwarp")
    expected_error = getattr(ours_module, "EXPECT_ERROR", None)
    timeout = getattr(ours_module, "TIMEOUT", None)
    if timeout is not None:
        ours = run_isolated(path, timeout)
    elif expected_error is not None:
        with pytest.raises(expected_error):
            ours_module.run()
    else:
        ours = ours_module.run()
    if getattr(ours_module, "SKIP_WARP", None):
        return
    warp = real_warp()
    if warp is None:
        pytest.skip("warp-lang is not installed")
    theirs_module = load_program(path, warp, "warp")
    if expected_error is not None:
        with pytest.raises(expected_error):
            theirs_module.run()
        return
    theirs = theirs_module.run()
    rtol = getattr(ours_module, "RTOL", 1e-5)
    atol = getattr(ours_module, "ATOL", 1e-6)
    compare(theirs, ours, rtol, atol, getattr(ours_module, "TOLERANCE", {}), path.stem)
