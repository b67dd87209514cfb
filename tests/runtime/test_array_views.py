"""Array views against real Warp: contiguity, strides and contents of views (slices, integer
indices, transposes, reshapes, flatten), and wp.copy between views. Kernel writes through views:
tests/differential/programs/core_views.py."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp

VIEWS = [
    "a[1]", "a[1:3]", "a[:, 1]", "a[:, 1:3]", "a[::2]", "a.transpose()", "a[1:3].reshape((8,))",
    "a[:1][:, 1:3]", "a.flatten()", "a[2][1:3]", "a[:, 0:4]",
]


def _warp():
    warp = pytest.importorskip("warp")
    warp.config.quiet = True
    return warp


def _make(lib):
    return lib.array(np.arange(16, dtype=np.float32).reshape(4, 4), dtype=float)


@pytest.mark.parametrize("expr", VIEWS)
def test_views_match_warp(expr):
    warp = _warp()
    ours, theirs = eval(expr, {"a": _make(wp)}), eval(expr, {"a": _make(warp)})
    assert ours.is_contiguous == theirs.is_contiguous, expr
    assert ours.shape == theirs.shape and ours.strides == theirs.strides, expr
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("dest_expr, src_expr", [("a[1]", "b[2]"), ("a[:, 1]", "b[0]"), ("a[1:3]", "b[0:2]")])
def test_copy_between_views_like_warp(dest_expr, src_expr):
    warp = _warp()
    out = []
    for lib in (wp, warp):
        a = _make(lib)
        b = lib.array(-np.arange(16, dtype=np.float32).reshape(4, 4), dtype=float)
        dest, src = eval(dest_expr, {"a": a}), eval(src_expr, {"b": b})
        try:
            lib.copy(dest, src)
            out.append(a.numpy())
        except Exception as exc:  # noqa: BLE001 - both libraries must agree on refusing
            out.append(type(exc).__name__)
    if isinstance(out[1], str):
        assert isinstance(out[0], str), f"Warp refused ({out[1]}) but jwarp copied"
    else:
        np.testing.assert_array_equal(out[0], out[1])
