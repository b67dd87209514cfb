"""The Pallas path on a GPU: correctness against the XLA path, in-place proof, and timings.

1. correctness: saxpy, stencil, histogram and cloth launched on ``cuda:0`` through the Pallas path
   (``wp.config.pallas = "always"``, with and without ``max_blocks``) against the XLA path
   (``"never"``) and hand-written jnp; every kernel must really have gone through ``pallas_call``;
2. every kernel compiled through ``pallas_call`` lowers to a Triton kernel for CUDA (also without a GPU);
3. in place: a repeated saxpy launch whose output nobody else holds keeps its buffer's address
   (the written planes are ``input_output_aliases`` of a donated buffer);
4. timings: Pallas vs XLA vs jnp for the four workloads at 2^16 .. 2^24 elements (medians [min-max]).

    python benchmarks/gpu_pallas.py                          # needs JAX with CUDA
    python benchmarks/gpu_pallas.py --simulate-cuda --max-log2 12   # no GPU: interpret mode, tiny sizes
"""

import argparse
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINS = 64


def _with_mode(wp, program, mode: str, max_blocks: int = 0):
    """``program`` with every step run under ``wp.config.pallas = mode``."""
    from benchmarks.harness import Program

    def step():
        previous = wp.config.pallas
        wp.config.pallas = mode
        try:
            program.step()
        finally:
            wp.config.pallas = previous

    return Program(step, program.sync, program.output, program.reset)


def histogram_programs(wp, device: str, jax_device, values):
    """Atomic histogram of ``values`` in [0, 1) into BINS bins: Warp API and jnp."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    from benchmarks.harness import Program

    @wp.kernel
    def histogram(x: wp.array(dtype=float), bins: wp.array(dtype=int)):
        i = wp.tid()
        b = wp.min(int(x[i] * float(BINS)), BINS - 1)
        wp.atomic_add(bins, b, 1)

    x = wp.array(values, dtype=float, device=device)
    bins = wp.zeros(BINS, dtype=int, device=device)
    warp_program = Program(
        step=lambda: wp.launch(histogram, len(values), inputs=[x], outputs=[bins], device=device),
        sync=wp.synchronize, output=lambda: {"bins": bins.numpy()}, reset=bins.zero_)
    xs = jax.device_put(values, jax_device)
    hist = jax.jit(lambda v: jnp.zeros(BINS, jnp.int32).at[jnp.minimum((v * BINS).astype(jnp.int32), BINS - 1)].add(1))
    state = {}

    def step():
        state["bins"] = hist(xs)

    jnp_program = Program(step, lambda: state["bins"].block_until_ready(), lambda: {"bins": np.asarray(state["bins"])})
    return warp_program, jnp_program, histogram


def workloads(wp, device: str, jax_device, n: int):
    """(name, warp Program, jnp Program, tolerance, kernels) per workload of about ``n`` elements."""
    import numpy as np

    from benchmarks.workloads import cloth, saxpy, stencil

    rng = np.random.default_rng(5)
    x, y = rng.standard_normal((2, n)).astype(np.float32)
    side = max(3, int(math.isqrt(n)))
    u = rng.uniform(0.0, 1.0, (side, side)).astype(np.float32)
    cloth_side = max(3, int(math.isqrt(max(n // 4, 9))))
    setup = cloth.cloth_setup(cloth_side)
    hist_warp, hist_jnp, _ = histogram_programs(wp, device, jax_device, rng.uniform(0, 1, n).astype(np.float32))
    return [
        (f"saxpy n={n}", saxpy.warp_program(wp, device, x, y), saxpy.jax_program(jax_device, x, y), {}),
        (f"stencil {side}x{side}", stencil.warp_program(wp, device, u), stencil.jax_program(jax_device, u), {}),
        (f"histogram n={n}", hist_warp, hist_jnp, {}),
        (f"cloth {cloth_side}x{cloth_side}", cloth.warp_program(wp, device, setup), cloth.jax_program(jax_device, setup),
         {"x": (1e-4, 1e-5), "v": (1e-3, 1e-3)}),
    ]


def _pallas_kernels(wp) -> list:
    """Names of the kernels compiled so far that went through ``pallas_call``."""
    from jwarp.runtime.kernel import _KERNELS

    return sorted({k.key.split("__")[-1] for k in list(_KERNELS) for c in k._cache.values()
                   if "pallas_call" in str(c.closed_jaxpr)})


def correctness(wp, device: str, jax_device, n: int) -> int:
    from benchmarks.harness import Case, check_outputs

    failures = 0
    for max_blocks in (0, 7):
        for name, warp_program, jnp_program, tolerance in workloads(wp, device, jax_device, n):
            pallas = _with_mode(wp, warp_program, "always")
            if max_blocks:
                pallas = _max_blocks(wp, pallas, max_blocks)
            case = Case(f"{name} max_blocks={max_blocks}", {"pallas": pallas, "jnp": jnp_program},
                        references={"xla": _with_mode(wp, warp_program, "never")}, tolerance=tolerance,
                        rtol=1e-4, atol=1e-5)
            result = check_outputs(case)
            failures += result != "PASS"
            print(f"{'PASS' if result == 'PASS' else 'FAIL'}  {case.name}" + ("" if result == "PASS" else f": {result}"))
    kernels = _pallas_kernels(wp)
    expected = {"saxpy", "heat_step", "histogram", "spring_forces", "integrate"}
    missing = expected - set(kernels)
    failures += bool(missing)
    print(("PASS" if not missing else "FAIL") + f"  kernels through pallas_call: {kernels}"
          + (f" (missing {sorted(missing)})" if missing else ""))
    return failures


def triton_lowering(wp) -> int:
    """Every kernel compiled through ``pallas_call`` so far also lowers to a Triton kernel for the CUDA
    platform (checked on any machine: the lowering needs no GPU)."""
    import jax

    from jwarp.compiler.pallas_lower import lower_for_cuda_platform, plan_of
    from jwarp.runtime.kernel import _KERNELS
    from jwarp.runtime.pallas_select import triton_plan

    failures = 0
    for kernel in list(_KERNELS):
        for compiled in list(kernel._cache.values()):
            sig = compiled.signature
            plan = plan_of(sig)
            if plan is None or "pallas_call" not in str(compiled.closed_jaxpr):
                continue
            operands = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in compiled.closed_jaxpr.in_avals]
            name = kernel.key.split("__")[-1]
            try:
                ok = "xla.gpu.triton" in lower_for_cuda_platform(
                    kernel.source, kernel.arg_names, sig, triton_plan(256, plan.programs or 7), operands)
                detail = ""
            except Exception as exc:  # noqa: BLE001 - reported
                ok, detail = False, f": {str(exc).splitlines()[0][:200]}"
            failures += not ok
            print(f"{'PASS' if ok else 'FAIL'}  {name} grid={sig.grid} lowers to a Triton kernel{detail}")
    return failures


def _max_blocks(wp, program, max_blocks: int):
    """``program`` whose ``wp.launch`` calls pass ``max_blocks`` (the grid-stride Pallas grid)."""
    from benchmarks.harness import Program

    launch = wp.launch

    def step():
        wp.launch = lambda *a, **k: launch(*a, **{**k, "max_blocks": max_blocks})
        try:
            program.step()
        finally:
            wp.launch = launch

    return Program(step, program.sync, program.output, program.reset)


def in_place(wp, device: str) -> int:
    """A repeated launch writes its output's buffer in place (same device address)."""
    import numpy as np

    @wp.kernel
    def scale(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] * s

    previous = wp.config.pallas
    wp.config.pallas = "always"
    try:
        a = wp.array(np.ones(1 << 16, np.float32), device=device)
        wp.launch(scale, a.shape[0], inputs=[a, 2.0], device=device)
        wp.launch(scale, a.shape[0], inputs=[a, 2.0], device=device)
        before = a._buffer.unsafe_buffer_pointer()
        wp.launch(scale, a.shape[0], inputs=[a, 2.0], device=device)
        after = a._buffer.unsafe_buffer_pointer()
        ok = before == after and float(a.numpy()[0]) == 8.0
    finally:
        wp.config.pallas = previous
    print(f"{'PASS' if ok else 'FAIL'}  in place: buffer address {'kept' if before == after else 'changed'} "
          f"({before:#x} -> {after:#x}), value {float(a.numpy()[0])}")
    return 0 if ok else 1


def timings(wp, device: str, jax_device, sizes: list) -> None:
    from benchmarks.harness import Case, format_table, measure

    results = []
    for n in sizes:
        for name, warp_program, jnp_program, tolerance in workloads(wp, device, jax_device, n):
            case = Case(name, {"jwarp": _with_mode(wp, warp_program, "always"), "jnp": jnp_program},
                        references={"xla": _with_mode(wp, warp_program, "never")}, tolerance=tolerance,
                        rtol=1e-4, atol=1e-5, repeats=10, warmup=2,
                        notes=lambda s: f"pallas/xla {s['jwarp'].median / s['xla'].median:.2f}x")
            results.append(measure(case))
            print(f"  {name}: done", flush=True)
    print("jwarp = the Pallas path (wp.config.pallas='always'); xla = the XLA path ('never')")
    print(format_table(results, ("jwarp", "xla", "jnp")))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--simulate-cuda", action="store_true", help="no GPU: jwarp's simulated cuda:0 (interpret)")
    parser.add_argument("--min-log2", type=int, default=16)
    parser.add_argument("--max-log2", type=int, default=24)
    parser.add_argument("--no-timings", action="store_true")
    args = parser.parse_args()
    if args.simulate_cuda:
        os.environ["JAX_PLATFORMS"] = "cpu"
    sys.path.insert(0, ROOT)

    import contextlib

    import jax

    import jwarp as wp

    print("jax", jax.__version__, "devices:", jax.devices())
    if args.simulate_cuda:
        from jwarp.runtime.device import simulated_cuda_devices

        scope, jax_device = simulated_cuda_devices(1), jax.devices("cpu")[0]
    else:
        gpus = [d for d in jax.devices() if d.platform == "gpu"]
        if not gpus:
            print("FAIL  JAX sees no GPU")
            return 1
        scope, jax_device = contextlib.nullcontext(), gpus[0]
    with scope:
        failures = correctness(wp, "cuda:0", jax_device, 1000 if args.simulate_cuda else 100_003)
        failures += triton_lowering(wp)
        failures += in_place(wp, "cuda:0") if not args.simulate_cuda else 0
        if not args.no_timings:
            timings(wp, "cuda:0", jax_device, [1 << k for k in range(args.min_log2, args.max_log2 + 1, 2)])
    print("all checks PASS" if not failures else f"{failures} check(s) FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
