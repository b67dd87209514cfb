"""Warp's shipped examples (from the installed warp-lang) run unchanged with jwarp as ``warp``
and end with the arrays real Warp ends with.

Each example runs in two fresh interpreters (real Warp, then jwarp through ``jwarp.as_warp``) on
the CPU with a few steps; every array attribute of the ``Example`` object is compared.
Skipped where warp-lang is not installed.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.differential.harness import optimization_level

warp_spec = pytest.importorskip("warp")
EXAMPLES = Path(warp_spec.__file__).parent / "examples"
ROOT = Path(__file__).resolve().parents[2]

# (example file, constructor kwargs, methods to call, rtol, atol); rtol None: an image compared by
# pixels (see _assert_image_close)
CASES = [
    ("core/example_raymarch.py", {"height": 24, "width": 48}, ["render"], None, 0.05),
    ("core/example_wave.py", {"stage_path": None}, ["step", "step"], 1e-4, 1e-4),
    ("core/example_fluid.py", {}, ["step"], 1e-3, 1e-3),
    ("core/example_graph_capture.py", {}, ["step", "step"], 1e-4, 1e-5),
    ("core/example_sample_mesh.py", {"stage_path": None}, ["step", "step"], 1e-5, 1e-5),
    ("core/example_nvdb.py", {"stage_path": None}, ["step", "step"], 1e-3, 1e-3),
    ("core/example_sph.py", {"stage_path": None}, ["step"], 1e-3, 1e-3),
    # a frame of 64 captured substeps (a loop, see runtime/capture_loops.py) with filtered contact passes
    # (compiler/pair_loop.py): 13 s alone (it compiled as one unrolled program for 27 s before)
    ("core/example_dem.py", {"stage_path": None}, ["step"], 1e-3, 1e-3),
]
# arrays compared, where not all: DEM's contact forces (and, less, its velocities) after 64 stiff substeps
# amplify last-bit differences (real Warp itself, its initial positions moved by 1e-5 relative, ends with
# 1.8% of positions off by more than 1e-3); its positions are compared (jwarp: all within 7e-4)
COMPARED = {"core/example_dem.py": ("x",)}
# examples that import OpenUSD (`pxr`, from usd-core in the test extras) to read their meshes
_USD = pytest.mark.skipif(importlib.util.find_spec("pxr") is None, reason="usd-core (pxr) is not installed")
CASES += [
    pytest.param("core/example_mesh.py", {"stage_path": None}, ["step", "step"], 1e-4, 1e-4, marks=_USD,
                 id="core/example_mesh.py"),
    pytest.param("core/example_mesh_intersect.py", {"stage_path": None}, ["step"], 1e-5, 1e-6, marks=_USD,
                 id="core/example_mesh_intersect.py"),
    pytest.param("core/example_raycast.py", {"height": 48, "width": 64}, ["render"], 1e-4, 1e-4, marks=_USD,
                 id="core/example_raycast.py"),
    # the rendered rays, pixels and loss (its gradients are not Warp's: see docs/autodiff.md)
    pytest.param("optim/example_diffray.py", {"height": 32}, ["forward"], 1e-4, 1e-4, marks=_USD,
                 id="optim/example_diffray.py"),
]


# Both libraries compile the examples at the differential programs' optimisation level (0: faster builds,
# slower code; see tests/differential/harness.py), except these, whose runs outweigh their builds (measured
# cold, CPU seconds for Warp + jwarp at Warp's default level -> level 0: SPH 24.8 -> 132.8, fluid 8.7 -> 9.4,
# graph capture 7.3 -> 7.9; the others gain, e.g. the mesh example 10.4 -> 6.4, diffray 9.4 -> 6.4)
RUN_BOUND = {"core/example_sph.py", "core/example_fluid.py", "core/example_graph_capture.py", "core/example_dem.py"}


def _start(impl: str, example: str, kwargs: dict, calls: list[str], out: Path) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "tests.warp_examples.driver", impl, str(EXAMPLES / example), str(out),
           json.dumps(calls), json.dumps(kwargs)]
    level = None if example in RUN_BOUND else optimization_level()
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               JWARP_EXAMPLE_OPT_LEVEL="" if level is None else str(level))
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@contextlib.contextmanager
def _reaped(*procs: subprocess.Popen):
    """Kill the children still running when the block is left (a failure in one of them)."""
    try:
        yield
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


def _finish(proc: subprocess.Popen, what: str) -> str:
    """Wait for ``proc`` (killed after 600 s); its stdout, after checking that it exited 0."""
    try:
        stdout, stderr = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
        raise AssertionError(f"{what} timed out:\n{stdout[-2000:]}\n{stderr[-4000:]}") from None
    assert proc.returncode == 0, f"{what} failed:\n{stdout[-2000:]}\n{stderr[-4000:]}"
    return stdout


@pytest.mark.parametrize("example,kwargs,calls,rtol,atol", CASES,
                         ids=[c[0] if isinstance(c, tuple) else c.id for c in CASES])
def test_example_matches_warp(tmp_path, example, kwargs, calls, rtol, atol):
    # the two interpreters run side by side (each is mostly one busy thread)
    procs = {impl: _start(impl, example, kwargs, calls, tmp_path / f"{impl}.npz") for impl in ("warp", "jwarp")}
    with _reaped(*procs.values()):
        for impl, proc in procs.items():
            _finish(proc, f"{example} with {impl}")
    expected, got = np.load(tmp_path / "warp.npz"), np.load(tmp_path / "jwarp.npz")
    assert sorted(got.files) == sorted(expected.files)
    assert expected.files, f"{example} keeps no arrays to compare"
    for name in COMPARED.get(example, expected.files):
        if rtol is None:
            _assert_image_close(got[name], expected[name], atol, f"{example}: {name}")
        else:
            np.testing.assert_allclose(got[name], expected[name], rtol=rtol, atol=atol, err_msg=f"{example}: {name}")


def _assert_image_close(got: np.ndarray, expected: np.ndarray, atol: float, what: str) -> None:
    """Ray marching (128 float32 steps, finite-difference normals with eps 1e-5) amplifies last-bit
    differences at a few silhouette pixels: nearly all pixels agree tightly, none is far off."""
    close = np.isclose(got, expected, rtol=1e-3, atol=1e-3).all(axis=-1)
    assert close.mean() > 0.995, f"{what}: {(~close).sum()} of {close.size} pixels differ"
    np.testing.assert_allclose(got, expected, atol=atol, err_msg=what)


# examples without an Example class: run as scripts through `python -m jwarp.as_warp`; each prints
# its results after a line of "=": the labels must equal real Warp's and the numbers match closely
# (Warp's start-up banner and module-load lines come before the first "=" line)
SCRIPTS = ["interop/example_jax_kernel.py", "interop/example_jax_callable.py"]


def _start_script(args: list[str]) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, *args], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("example", SCRIPTS)
def test_example_script_prints_what_warp_prints(example):
    path = str(EXAMPLES / example)
    warp_proc, jwarp_proc = _start_script([path]), _start_script(["-m", "jwarp.as_warp", path])  # side by side
    with _reaped(warp_proc, jwarp_proc):
        expected = _finish(warp_proc, f"{example} with warp")
        got = _finish(jwarp_proc, f"{example} with jwarp")
    expected, got = _results_part(expected), _results_part(got)
    assert expected, f"{example} printed no results under Warp"
    assert re.sub(_NUMBER, "#", got).split() == re.sub(_NUMBER, "#", expected).split()
    np.testing.assert_allclose(_numbers(got), _numbers(expected), rtol=1e-5, atol=1e-6)


_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def _results_part(text: str) -> str:
    start = text.find("=====")
    return text[start:] if start >= 0 else ""


def _numbers(text: str) -> np.ndarray:
    return np.array([float(x) for x in re.findall(_NUMBER, text)])
