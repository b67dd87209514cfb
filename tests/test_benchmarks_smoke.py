"""The benchmark suite runs: ``benchmarks/run.py --quick`` on its cheapest workloads exits 0, every
case prints PASS, and the JSON report has the expected shape. No timing assertions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SMALL_WORKLOADS = "launch,stencil,tape,first_launch"


def test_quick_suite_passes(tmp_path):
    out_json = tmp_path / "bench.json"
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--only", SMALL_WORKLOADS,
         "--max-repeats", "1", "--max-warmup", "0", "--json", str(out_json)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=180,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert "PASS" in proc.stdout and "FAIL" not in proc.stdout, proc.stdout[-4000:]
    report = json.loads(out_json.read_text())
    cases = {r["case"]: r for r in report["results"]}
    assert len(cases) == 9  # 6 launch cases (wp.launch, Launch.launch, captured; 2 sizes), stencil, tape, first launch
    for name, result in cases.items():
        assert result["check"] == "PASS", (name, result["check"])
        assert {"jwarp", "jnp"} <= set(result["stats"]), name
        assert result["ratio_jwarp_jnp"] is not None and result["ratio_jwarp_jnp"] > 0, name
        stats = result["stats"]["jwarp"]
        assert stats["min"] <= stats["median"] <= stats["max"], name


def test_unknown_workload_is_rejected():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--only", "no_such_workload"],
        cwd=ROOT, env=dict(os.environ, JAX_PLATFORMS="cpu"), capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2 and "no_such_workload" in proc.stderr


def test_gpu_correctness_script_runs_on_simulated_cuda():
    """The GPU check's correctness part, on jwarp's simulated cuda:0 (so it cannot rot between the
    sessions that have a GPU)."""
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu_correctness.py"), "--simulate-cuda"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert "all checks PASS" in proc.stdout and "FAIL" not in proc.stdout, proc.stdout[-4000:]


def test_memory_benchmark_reports_peak_and_second_launch():
    """``bench_memory.py`` on a small grid: both figures come back, the launch result is right."""
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_memory.py"), "--log2", "20", "--skip-warp",
                           "--json"], cwd=ROOT, env=dict(os.environ, JAX_PLATFORMS="cpu"), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    report = json.loads(proc.stdout)
    peak = report["peak"]["jwarp"]
    assert peak["correct"] and peak["peak"] >= peak["before"] > 0, peak
    assert {row["kernel"] for row in report["second_launch"]} == {"saxpy", "springs", "noise"}


def test_gpu_pallas_script_runs_on_simulated_cuda():
    """The Pallas part of the GPU check (correctness against the XLA path and jnp in interpret mode, and
    the Triton lowering of every workload kernel), on jwarp's simulated cuda:0."""
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu_pallas.py"), "--simulate-cuda", "--no-timings"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert "all checks PASS" in proc.stdout and "FAIL" not in proc.stdout, proc.stdout[-4000:]
    assert "lowers to a Triton kernel" in proc.stdout


def test_pallas_eligibility_survey_reports_each_kernel(tmp_path):
    """The survey lowers every launch of a program for CUDA (no GPU needed) and reports tile kernels apart."""
    out_json = tmp_path / "survey.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "pallas_eligibility.py"), "--programs", "^(core_saxpy|tile_basics)$",
         "--json", str(out_json)],
        cwd=ROOT, env=dict(os.environ, JAX_PLATFORMS="cpu"), capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    table = json.loads(out_json.read_text())
    assert set(table["core_saxpy"].values()) == {"triton"}, table["core_saxpy"]
    assert table["tile_basics"] and set(table["tile_basics"].values()) == {"tiles (XLA path)"}, table
