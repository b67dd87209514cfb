"""``wp.copy`` argument checks and messages against real Warp: offsets/count validation, element
sizes, shapes on the non-contiguous path, offsets refused on N-d strided and indexed arrays.
Copied values (bit reinterpretation, strided ranges, adjoints): tests/differential/programs/core_copy_ranges.py."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp


def _warp():
    warp = pytest.importorskip("warp")
    warp.config.quiet = True
    return warp


def _message(lib, case: str) -> str:
    src = lib.array([1, 2, 3, 4], dtype=lib.int32)
    dest = lib.zeros_like(src)
    scope = {"wp": lib, "np": np, "src": src, "dest": dest}
    try:
        exec(case, scope)
    except RuntimeError as exc:
        return str(exc)
    return "no error"


CASES = [
    "wp.copy(dest, src, src_offset=-1)",
    "wp.copy(dest, src, dest_offset=-1)",
    "wp.copy(dest, src, count=-1)",
    "wp.copy(dest, src, src_offset=1.5)",
    "wp.copy(dest, src, count=np.int64(2))",
    "wp.copy(dest, src, src_offset=2, count=3)",
    "wp.copy(dest, src, dest_offset=3, count=2)",
    "wp.copy(wp.zeros(4, dtype=wp.float64), wp.zeros(4, dtype=wp.float32))",
    "wp.copy(dest, np.zeros(4))",
    # non-contiguous: shapes must match, offsets only on 1-D strided arrays
    "wp.copy(wp.zeros((6, 2), dtype=float)[::2, :], wp.zeros((6, 3), dtype=float)[::3, :])",
    "a = wp.zeros((10, 10), dtype=float)[1::2, 1::2]; wp.copy(wp.zeros_like(a), a, count=2)",
    "wp.copy(wp.zeros(3, dtype=wp.int32), src[wp.array([0, 2, 3], dtype=wp.int32)], src_offset=1, count=1)",
    "wp.copy(wp.zeros(2, dtype=wp.int32), src[::2], count=5)",
    "wp.copy(wp.zeros(4, dtype=wp.int32)[::2], src[::2], dest_offset=1, count=2)",
]


@pytest.mark.parametrize("case", CASES)
def test_copy_checks_match_warp(case):
    assert _message(wp, case) == _message(_warp(), case)
