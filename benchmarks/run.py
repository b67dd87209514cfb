"""jwarp benchmark suite: every workload written once in Warp's API (run with ``jwarp`` and, when
installed, with real ``warp`` on the CPU) and once as hand-written jitted jnp code.

    python benchmarks/run.py [--quick] [--only NAME[,NAME...]] [--json out.json] [--device cpu|cuda]
                             [--max-repeats N] [--max-warmup N]

Workloads (``--only`` names): saxpy, launch, stencil, matrix_store, nbody, cloth, tape, first_launch, tile_gemm, trig,
geometry.
Each case first checks that the implementations agree (PASS/FAIL), then times them interleaved
(A B C A B C ...) after a warm-up, and reports median [min-max] per implementation and the
jwarp/jnp and jwarp/warp ratios of the medians. Exit status 1 when a check fails.
See docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller n-body (~10 s on 2 CPU cores)")
    parser.add_argument("--only", action="append", default=[], help="workload name(s), comma-separated or repeated")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--no-warp", action="store_true", help="leave real Warp out even when it is installed")
    parser.add_argument("--max-repeats", type=int, metavar="N",
                        help="at most N timed repeats per case (a smoke run: figures are not meaningful)")
    parser.add_argument("--max-warmup", type=int, metavar="N", help="at most N warm-up rounds per case")
    return parser.parse_args(argv)


def configure_jax(device: str) -> None:
    """Must run before jax is imported: pin the CPU platform for --device cpu."""
    if device == "cpu":
        os.environ["JAX_PLATFORMS"] = "cpu"


def import_real_warp(device: str, disabled: bool):
    """Real Warp (CPU only here), quiet; None when not installed, disabled, or for --device cuda."""
    if disabled or device != "cpu":
        return None
    try:
        import warp
    except ImportError:
        return None
    if hasattr(warp, "LOG_WARNING"):
        warp.config.log_level = warp.LOG_WARNING
    warp.config.quiet = True
    warp.init()
    return warp


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    configure_jax(args.device)
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)

    import jax

    import jwarp
    from benchmarks.harness import IMPLEMENTATIONS, Context, format_table, measure
    from benchmarks.workloads import WORKLOADS

    selected = [name for item in args.only for name in item.split(",") if name] or list(WORKLOADS)
    unknown = [name for name in selected if name not in WORKLOADS]
    if unknown:
        print(f"unknown workload(s) {unknown}; choose from {list(WORKLOADS)}", file=sys.stderr)
        return 2

    if args.device == "cuda":
        gpus = [d for d in jax.devices() if d.platform == "gpu"]
        if not gpus:
            print("--device cuda: JAX sees no GPU", file=sys.stderr)
            return 2
        jax_device = gpus[0]
    else:
        jax_device = jax.devices("cpu")[0]

    libs = {"jwarp": jwarp}
    warp = import_real_warp(args.device, args.no_warp)
    if warp is not None:
        libs["warp"] = warp
    ctx = Context(device=args.device, quick=args.quick, libs=libs, jax_device=jax_device)
    columns = tuple(c for c in IMPLEMENTATIONS if c == "jnp" or c in libs)

    print(
        f"jwarp benchmarks: device={args.device} ({jax_device}), jax {jax.__version__}, "
        f"warp {warp.__version__ if warp else 'not used'}, {os.cpu_count()} CPUs, quick={args.quick}",
        flush=True,
    )
    results = []
    start = time.perf_counter()
    for name in selected:
        t0 = time.perf_counter()
        for case in WORKLOADS[name].cases(ctx):
            if args.max_repeats is not None:
                case.repeats = max(1, min(case.repeats, args.max_repeats))
            if args.max_warmup is not None:
                case.warmup = max(0, min(case.warmup, args.max_warmup))
            result = measure(case)
            results.append(result)
            medians = ", ".join(f"{k} {s.median:.4g}" for k, s in result.stats.items())
            print(f"  {result.case}: {result.check} ({medians} {result.unit})", flush=True)
        print(f"[{name} done in {time.perf_counter() - t0:.1f} s]", flush=True)

    print()
    print(format_table(results, columns))
    print(f"\ntotal {time.perf_counter() - start:.1f} s; figures are per operation, median [min-max] "
          f"over interleaved repeats; ratios are of medians (< 1 means jwarp is faster)")

    if args.json:
        payload = {
            "device": args.device,
            "jax_device": str(jax_device),
            "jax_version": jax.__version__,
            "warp_version": warp.__version__ if warp else None,
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
            "quick": args.quick,
            "results": [r.as_dict() for r in results],
        }
        with open(args.json, "w") as f:
            json.dump(payload, f, indent=1)
        print(f"wrote {args.json}")
    return 1 if any(r.check.startswith("FAIL") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
