"""The examples run, and the optimisation example follows real Warp's loss trajectory."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_particles_example_runs(capsys):
    _load("particles").main(n=256, frames=40)
    out = capsys.readouterr().out
    assert "frame   40" in out and "energy/particle" in out


def test_optimize_throw_loss_falls_and_matches_warp(tmp_path):
    history = _load("optimize_throw").main(["--iterations", "12", "--balls", "16", "--plot", str(tmp_path / "t.png")])
    assert history[-1] < 0.2 * history[0]
    pytest.importorskip("warp")
    warp_history = _load("optimize_throw").main(["--iterations", "12", "--balls", "16", "--plot", "",
                                                 "--backend", "warp"])
    np.testing.assert_allclose(history, warp_history, rtol=2e-3)
