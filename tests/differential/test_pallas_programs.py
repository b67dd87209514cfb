"""Differential programs through the Pallas target (docs/launch.md, "The Pallas path").

With ``wp.config.pallas = "always"`` every launch of these programs runs as a ``pallas_call`` in
interpret mode on the CPU (an ineligible kernel would raise), and the results must match real Warp.
A second test lowers every launch of the Triton-eligible programs for the CUDA platform on this
machine and checks that each became a Triton kernel.

Interpret mode is slow: the programs here are the quick ones (small launches).
"""

from __future__ import annotations

import pytest

import jwarp
from jwarp.compiler.pallas_lower import lower_for_cuda_platform, plan_of
from jwarp.runtime import preparation
from jwarp.runtime.pallas_select import triton_plan
from tests.differential.harness import PROGRAMS, compare, load_program, real_warp

# eligible on the interpret backend, and quick there
PALLAS_PROGRAMS = [
    "array_operators",
    "core_arrays_nd",
    "core_atomics",
    "core_closures",
    "core_component_stores",
    "core_composite_constructors",
    "core_control_flow",
    "core_loops_nested",
    "core_saxpy",
    "core_strided",
    "core_vectors_basic",
    "grad_adjoint_launch",
    "grad_call",
    "grad_struct_tape",
    "lang_empty_slices",
    "launch_blocks",
    "launch_capture",
    "launch_struct_params",
]

# every launch of these also lowers to a Triton kernel
TRITON_PROGRAMS = [
    "core_arrays_nd",
    "core_atomics",
    "core_closures",
    "core_component_stores",
    "core_control_flow",
    "core_saxpy",
    "launch_blocks",
]


@pytest.fixture
def pallas_always(monkeypatch):
    monkeypatch.setattr(jwarp.config, "pallas", "always")


@pytest.mark.parametrize("name", PALLAS_PROGRAMS)
def test_program_matches_warp_through_pallas(name, pallas_always):
    path = PROGRAMS / f"{name}.py"
    ours_module = load_program(path, jwarp, "jwarp_pallas")
    ours = ours_module.run()
    warp = real_warp()
    if warp is None:
        pytest.skip("warp-lang is not installed")
    theirs = load_program(path, warp, "warp").run()
    rtol = getattr(ours_module, "RTOL", 1e-5)
    atol = getattr(ours_module, "ATOL", 1e-6)
    compare(theirs, ours, rtol, atol, getattr(ours_module, "TOLERANCE", {}), f"{name} (pallas)")


@pytest.mark.parametrize("name", TRITON_PROGRAMS)
def test_program_lowers_to_triton_kernels(name, pallas_always, monkeypatch):
    lowered: list[tuple[str, bool]] = []
    compile_kernel = preparation.compile_kernel

    def compile_and_lower(source, arg_names, sig, example_args):
        compiled = compile_kernel(source, arg_names, sig, example_args)
        plan = plan_of(sig)
        if plan is not None and "pallas_call" in str(compiled.closed_jaxpr):
            text = lower_for_cuda_platform(source, arg_names, sig, triton_plan(sig.block_dim, plan.programs),
                                           list(example_args))
            lowered.append((source.name, "xla.gpu.triton" in text))
        return compiled

    monkeypatch.setattr(preparation, "compile_kernel", compile_and_lower)
    load_program(PROGRAMS / f"{name}.py", jwarp, "jwarp_triton").run()
    assert lowered, f"{name}: no launch went through the Pallas path"
    assert all(ok for _, ok in lowered), [kernel for kernel, ok in lowered if not ok]
