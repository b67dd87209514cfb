"""Differential programs through the Pallas target (docs/launch.md, "The Pallas path").

The programs are classified in ``tests/differential/pallas_programs.py`` (``test_every_program_is_classified``
fails for a new program until it is). With ``wp.config.pallas = "always"`` each program of
``TRITON_PROGRAMS`` and ``INTERPRET_PROGRAMS`` runs once in interpret mode on the CPU and its results
must match real Warp's (run at the same time in the session's Warp worker); during that run each launch
signature is also lowered for the CUDA platform on this machine (``lowering_platforms=("cuda",)``, no
GPU needed) and must become a Triton kernel (a ``__gpu$xla.gpu.triton`` custom call), or fail with the
listed reason. ``TRITON_ONLY_PROGRAMS`` are lowered during their XLA-path run in ``test_programs.py``
(``launch_memory_chunks``, whose run is isolated in a child process there, here).
"""

from __future__ import annotations

import pytest

import jwarp
from tests.differential.harness import (PROGRAMS, compare, load_program, optimization_level, warp_installed,
                                        warp_worker)
from tests.differential.pallas_programs import (
    INTERPRET_PROGRAMS,
    KEEPS_XLA,
    NOT_ELIGIBLE,
    TRITON_ONLY_PROGRAMS,
    TRITON_PROGRAMS,
    check_lowerings,
    lowering_hook,
)

WARP_TIMEOUT = 600


def _program_names() -> set[str]:
    return {p.stem for p in PROGRAMS.glob("*.py") if not p.name.startswith("_")}


def test_every_program_is_classified():
    lists = [set(TRITON_PROGRAMS), set(INTERPRET_PROGRAMS), set(TRITON_ONLY_PROGRAMS), set(NOT_ELIGIBLE)]
    assert sum(len(s) for s in lists) == len(set().union(*lists)), "a program is listed twice"
    assert set().union(*lists) == _program_names()


@pytest.mark.parametrize("name", TRITON_PROGRAMS + sorted(INTERPRET_PROGRAMS))
def test_program_through_pallas_matches_warp_and_lowers_to_triton(name, monkeypatch):
    monkeypatch.setattr(jwarp.config, "pallas", "always")
    monkeypatch.setattr(jwarp.config, "optimization_level", optimization_level())  # (as Warp's side)
    path = PROGRAMS / f"{name}.py"
    worker = None
    if warp_installed():
        worker = warp_worker()
        worker.submit(path)  # real Warp runs meanwhile
    triton, kept_xla = lowering_hook(monkeypatch)
    try:
        ours_module = load_program(path, jwarp, "jwarp_pallas")
        ours = ours_module.run()
    finally:
        theirs = (False, None)
        if worker is not None:  # always read the reply: the next test's must not get this one
            try:
                theirs = (True, worker.result(WARP_TIMEOUT))
            except Exception as exc:  # noqa: BLE001 - re-raised below
                theirs = (False, exc)
    assert set(kept_xla) <= KEEPS_XLA.get(name, set()), f"{name}: launches kept the XLA path: {kept_xla}"
    check_lowerings(name, triton, INTERPRET_PROGRAMS.get(name, {}))
    if worker is None:
        pytest.skip("warp-lang is not installed")
    if not theirs[0]:
        raise theirs[1]
    rtol = getattr(ours_module, "RTOL", 1e-5)
    atol = getattr(ours_module, "ATOL", 1e-6)
    compare(theirs[1], ours, rtol, atol, getattr(ours_module, "TOLERANCE", {}), f"{name} (pallas, interpret)")


def test_isolated_large_program_lowers_to_triton(monkeypatch):
    # test_programs.py runs this one in a child process (its TIMEOUT), out of reach of the hook
    triton, _ = lowering_hook(monkeypatch, xla_launches=True)
    load_program(PROGRAMS / "launch_memory_chunks.py", jwarp, "jwarp_triton").run()
    check_lowerings("launch_memory_chunks", triton, {})
