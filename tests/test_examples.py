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


def test_particles_example_runs_and_matches_warp_unchanged_but_the_import(capsys, tmp_path):
    ours = _load("particles").main(n=256, frames=40)
    out = capsys.readouterr().out
    assert "frame   40" in out and "energy/particle" in out
    warp = pytest.importorskip("warp")
    warp.config.quiet = True
    source = (EXAMPLES / "particles.py").read_text()
    assert source.count("import jwarp as wp") == 1
    ported = tmp_path / "particles_on_warp.py"  # the same script for real Warp: only the import differs
    ported.write_text(source.replace("import jwarp as wp", "import warp as wp"))
    spec = importlib.util.spec_from_file_location("particles_on_warp", ported)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    theirs = module.main(n=256, frames=40)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)


def test_optimize_throw_loss_falls_and_matches_warp(tmp_path):
    history = _load("optimize_throw").main(["--iterations", "12", "--balls", "16", "--plot", str(tmp_path / "t.png")])
    assert history[-1] < 0.2 * history[0]
    pytest.importorskip("warp")
    warp_history = _load("optimize_throw").main(["--iterations", "12", "--balls", "16", "--plot", "",
                                                 "--backend", "warp"])
    np.testing.assert_allclose(history, warp_history, rtol=2e-3)
