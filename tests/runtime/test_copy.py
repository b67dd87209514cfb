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


@wp.kernel
def _add_one(a: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    a[i] = a[i] + wp.vec3(1.0, 1.0, 1.0)


def test_whole_array_copy_is_unaffected_by_later_writes():
    """A whole-array copy shares the source's (immutable) buffer: later launches on either array,
    which may not then write that buffer in place, leave the other as it was."""
    src = wp.array(np.arange(12, dtype=np.float32).reshape(4, 3), dtype=wp.vec3)
    dest = wp.zeros(4, dtype=wp.vec3)
    for _ in range(3):  # (repeats: the launches' plans and programs are made by then)
        wp.launch(_add_one, 4, [src])
    wp.copy(dest, src)
    before = src.numpy().copy()
    wp.launch(_add_one, 4, [src])
    np.testing.assert_array_equal(dest.numpy(), before)
    wp.launch(_add_one, 4, [dest])
    wp.launch(_add_one, 4, [dest])
    np.testing.assert_array_equal(src.numpy(), before + 1.0)
    np.testing.assert_array_equal(dest.numpy(), before + 2.0)


def test_partial_copies_reuse_their_compiled_copy():
    """Copies with offsets or between dtypes of one size run one compiled program per layout."""
    from jwarp.runtime import copying

    src = wp.array(np.arange(8, dtype=np.float32))
    dest = wp.zeros(8, dtype=wp.float32)
    copying._mover.cache_clear()
    for k in range(3):
        wp.copy(dest, src, dest_offset=2, src_offset=1, count=4)
        wp.copy(wp.zeros(8, dtype=wp.int32), src)
    np.testing.assert_array_equal(dest.numpy(), [0, 0, 1, 2, 3, 4, 0, 0])
    assert copying._mover.cache_info().misses == 2
