"""Shared check for builtins called in Python scope: evaluate one expression with jwarp and with
real Warp and compare the results (tuples element by element)."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp


def flat(x):
    if isinstance(x, tuple):
        return [flat(v) for v in x]
    return np.asarray(x, dtype=np.float64).reshape(-1)


def assert_matches_warp(expr: str, rtol: float = 1e-6, atol: float = 1e-6, **names) -> None:
    """``expr`` (using ``wp``) gives the same values with jwarp and with real Warp."""
    warp = pytest.importorskip("warp")
    warp.config.quiet = True
    ours = flat(eval(expr, {"wp": jwarp, "np": np, **names}))
    theirs = flat(eval(expr, {"wp": warp, "np": np, **names}))
    if isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), expr
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=expr)
    else:
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, err_msg=expr)
