"""Launch overhead: µs per launch of a tiny kernel, jwarp vs real Warp (CPU), medians.

Rows: ``wp.launch`` and ``Launch.launch()`` (``record_cmd=True``) for jwarp and for real Warp
(when ``warp-lang`` is installed), plus the floor of a bare ``jax.jit`` call of the same update.
Each figure is the median over ``--repeats`` timed batches of ``--launches`` launches, each batch
ending with a synchronize (jwarp launches are asynchronous, Warp's CPU launches are not).

Targets: jwarp ``Launch.launch()`` <= Warp ``wp.launch``; jwarp ``wp.launch`` <= 2x Warp ``wp.launch``.

Usage: ``python benchmarks/bench_launch.py [--dims 1 1024] [--launches 2000] [--repeats 9] [--json]``
"""

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def _median_us(fn, sync, launches: int, repeats: int) -> float:
    for _ in range(min(200, launches)):
        fn()
    sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(launches):
            fn()
        sync()
        times.append((time.perf_counter() - start) / launches * 1e6)
    return statistics.median(times)


def _library_rows(wp, name: str, n: int, launches: int, repeats: int) -> dict:
    @wp.kernel
    def bump(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] + s

    a = wp.zeros(n, dtype=float, device="cpu")
    rows = {f"{name} wp.launch": _median_us(lambda: wp.launch(bump, n, inputs=[a, 1.0], device="cpu"),
                                            wp.synchronize, launches, repeats)}
    cmd = wp.launch(bump, n, inputs=[a, 1.0], device="cpu", record_cmd=True)
    rows[f"{name} Launch.launch()"] = _median_us(cmd.launch, wp.synchronize, launches, repeats)
    return rows


def _jax_floor(n: int, launches: int, repeats: int) -> dict:
    import jax
    import jax.numpy as jnp
    import numpy as np

    f = jax.jit(lambda a, s: a + s)
    state = [jnp.zeros(n, jnp.float32)]
    s = jax.device_put(np.float32(1.0))

    def step():
        state[0] = f(state[0], s)

    return {"jax.jit call (floor)": _median_us(step, lambda: state[0].block_until_ready(), launches, repeats)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[1, 1024])
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()

    import jwarp

    try:
        import warp

        warp.config.quiet = True
        warp.init()
    except ImportError:
        warp = None

    results: dict[int, dict] = {}
    for n in args.dims:
        rows = _jax_floor(n, args.launches, args.repeats)
        rows.update(_library_rows(jwarp, "jwarp", n, args.launches, args.repeats))
        if warp is not None:
            rows.update(_library_rows(warp, "warp", n, args.launches, args.repeats))
        results[n] = rows

    if args.json:
        print(json.dumps({str(n): rows for n, rows in results.items()}, indent=2))
        return
    for n, rows in results.items():
        print(f"dim={n}: µs per launch (median of {args.repeats} x {args.launches})")
        for label, us in rows.items():
            print(f"  {label:28s} {us:8.2f}")
        if "warp wp.launch" in rows:
            ref = rows["warp wp.launch"]
            print(f"  ratios vs warp wp.launch: jwarp wp.launch {rows['jwarp wp.launch'] / ref:.2f}x (target <= 2), "
                  f"jwarp Launch.launch() {rows['jwarp Launch.launch()'] / ref:.2f}x (target <= 1)")


if __name__ == "__main__":
    main()
