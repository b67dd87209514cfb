"""Small CUDA correctness check: jwarp kernels launched on ``cuda:0`` against the hand-written jnp
versions on the GPU, using the benchmark workloads at small, odd sizes (plus checks that the jwarp
arrays really live on the GPU). Prints one PASS/FAIL line per comparison; exit status 1 on failure.

    python benchmarks/gpu_correctness.py                 # needs JAX with CUDA
    python benchmarks/gpu_correctness.py --simulate-cuda # no GPU: jwarp's simulated cuda:0 on the host
"""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def comparisons(wp, device: str, jax_device) -> list:
    """(name, Case) pairs: every workload at a small size, Warp-API on ``device`` vs jnp."""
    import numpy as np

    from benchmarks.harness import Case
    from benchmarks.workloads import cloth, first_launch, launch, nbody, saxpy, stencil, tape

    rng = np.random.default_rng(11)
    out = []

    x, y = rng.standard_normal((2, 1000)).astype(np.float32)
    out.append(Case("saxpy n=1000", {"jwarp": saxpy.warp_program(wp, device, x, y),
                                     "jnp": saxpy.jax_program(jax_device, x, y)}))

    out.append(Case("launch dim=1024 x3 (wp.launch)", {"jwarp": launch.warp_program(wp, device, 1024, 3, "launch"),
                                                       "jnp": launch.jax_program(jax_device, 1024, 3)}))
    out.append(Case("launch dim=1 x3 (Launch object)", {"jwarp": launch.warp_program(wp, device, 1, 3, "command"),
                                                        "jnp": launch.jax_program(jax_device, 1, 3)}))
    out.append(Case("launch dim=1024 x3 (captured)", {"jwarp": launch.warp_program(wp, device, 1024, 3, "capture"),
                                                      "jnp": launch.jax_program(jax_device, 1024, 3, fused=True)}))

    u = rng.uniform(0.0, 1.0, (65, 67)).astype(np.float32)
    out.append(Case("stencil 65x67", {"jwarp": stencil.warp_program(wp, device, u),
                                      "jnp": stencil.jax_program(jax_device, u)}))

    pos = rng.uniform(-1.0, 1.0, (257, 3)).astype(np.float32)
    mass = rng.uniform(0.5, 1.5, 257).astype(np.float32) / 257
    out.append(Case("nbody n=257", {"jwarp": nbody.warp_program(wp, device, pos, mass),
                                    "jnp": nbody.jax_program(jax_device, pos, mass)}, rtol=1e-3, atol=1e-4))

    setup = cloth.cloth_setup(17)
    out.append(Case("cloth 17x17 (atomic scatter)", {"jwarp": cloth.warp_program(wp, device, setup),
                                                     "jnp": cloth.jax_program(jax_device, setup)},
                    tolerance={"x": (1e-4, 1e-5), "v": (1e-3, 1e-3)}))

    xs = rng.standard_normal(4099).astype(np.float32)
    out.append(Case("tape chain n=4099 (fwd+bwd)", {"jwarp": tape.warp_program(wp, device, xs),
                                                    "jnp": tape.jax_program(jax_device, xs)},
                    tolerance={"loss": (1e-4, 0.0), "grad": (1e-4, 1e-4)}))

    xp = rng.uniform(-0.5, 1.0, (first_launch.N, 3)).astype(np.float32)
    vp = rng.uniform(-1.0, 1.0, (first_launch.N, 3)).astype(np.float32)
    out.append(Case("fresh kernel (closure constant)", {"jwarp": first_launch.warp_program(wp, device, xp, vp),
                                                        "jnp": first_launch.jax_program(jax_device, xp, vp)},
                    atol=1e-5))
    return out


def run_checks(wp, device: str, jax_device, expect_platform: str) -> int:
    import numpy as np

    from benchmarks.harness import check_outputs

    failures = 0
    probe = wp.array(np.arange(3, dtype=np.float32), device=device)
    platforms = {d.platform for d in wp.to_jax(probe).devices()}
    placed = "PASS" if platforms == {expect_platform} else f"FAIL: jwarp {device} arrays live on {platforms}"
    failures += placed != "PASS"
    print(f"{placed:5s} jwarp device {device!r} -> {wp.get_device(device).jax_device} ({expect_platform} expected)")
    for case in comparisons(wp, device, jax_device):
        result = check_outputs(case)
        failures += result.startswith("FAIL")
        print(f"{'PASS' if result == 'PASS' else 'FAIL'}  {case.name}" + ("" if result == "PASS" else f": {result}"))
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--simulate-cuda", action="store_true", help="no GPU: use jwarp's simulated cuda:0")
    args = parser.parse_args()
    if args.simulate_cuda:
        os.environ["JAX_PLATFORMS"] = "cpu"
    sys.path.insert(0, ROOT)

    import jax

    import jwarp as wp

    print("jax", jax.__version__, "devices:", jax.devices())
    if args.simulate_cuda:
        from jwarp.runtime.device import simulated_cuda_devices

        with simulated_cuda_devices(1):
            failures = run_checks(wp, "cuda:0", jax.devices("cpu")[0], "cpu")
    else:
        gpus = [d for d in jax.devices() if d.platform == "gpu"]
        if not gpus:
            print("FAIL  JAX sees no GPU")
            return 1
        failures = run_checks(wp, "cuda:0", gpus[0], "gpu")
    print("all checks PASS" if not failures else f"{failures} check(s) FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
