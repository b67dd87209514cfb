"""Launch overhead: µs per launch of a tiny kernel, jwarp vs real Warp (CPU), medians.

Rows: ``wp.launch``, ``Launch.launch()`` (``record_cmd=True``) and ``wp.launch`` followed by
``wp.synchronize()`` each time, for jwarp and for real Warp (when ``warp-lang`` is installed), plus the floor of a bare ``jax.jit`` call of the same update.
Each figure is the median over ``--repeats`` timed batches of ``--launches`` launches, each batch
ending with a synchronize (jwarp launches are asynchronous, Warp's CPU launches are not). The rows'
batches are interleaved (one batch of each row per round), so load on a shared machine affects every
row alike and the ratios stay comparable.

Targets: jwarp ``Launch.launch()`` <= Warp ``wp.launch`` and <= 2x Warp ``Launch.launch()``; jwarp
``wp.launch`` <= 2x Warp ``wp.launch``.

Usage: ``python benchmarks/bench_launch.py [--dims 1 1024] [--launches 2000] [--repeats 9] [--clock cpu] [--json]``
"""

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def _interleaved_medians(rows: dict, launches: int, repeats: int, clock=time.perf_counter) -> dict:
    """``rows``: label -> (launch function, synchronize). Median µs per launch of each row, its timed
    batches taken in rounds (one batch per row per round)."""
    for fn, sync in rows.values():
        for _ in range(min(200, launches)):
            fn()
        sync()
    times: dict = {label: [] for label in rows}
    for _ in range(repeats):
        for label, (fn, sync) in rows.items():
            start = clock()
            for _ in range(launches):
                fn()
            sync()
            times[label].append((clock() - start) / launches * 1e6)
    return {label: statistics.median(t) for label, t in times.items()}


def _library_rows(wp, name: str, n: int) -> dict:
    @wp.kernel
    def bump(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] + s

    a = wp.zeros(n, dtype=float, device="cpu")
    cmd = wp.launch(bump, n, inputs=[a, 1.0], device="cpu", record_cmd=True)

    def launch_and_sync() -> None:  # a notebook cell's or a one-launch step's pattern
        wp.launch(bump, n, inputs=[a, 1.0], device="cpu")
        wp.synchronize()

    return {
        f"{name} wp.launch": (lambda: wp.launch(bump, n, inputs=[a, 1.0], device="cpu"), wp.synchronize),
        f"{name} Launch.launch()": (cmd.launch, wp.synchronize),
        f"{name} wp.launch + sync": (launch_and_sync, wp.synchronize),
    }


def _jax_floor(n: int) -> dict:
    import jax
    import jax.numpy as jnp
    import numpy as np

    f = jax.jit(lambda a, s: a + s)
    state = [jnp.zeros(n, jnp.float32)]
    s = jax.device_put(np.float32(1.0))

    def step():
        state[0] = f(state[0], s)

    return {"jax.jit call (floor)": (step, lambda: state[0].block_until_ready())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[1, 1024])
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="cpu: process CPU time (steadier than wall time on a loaded machine)")
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
        rows = _jax_floor(n)
        rows.update(_library_rows(jwarp, "jwarp", n))
        if warp is not None:
            rows.update(_library_rows(warp, "warp", n))
        clock = time.process_time if args.clock == "cpu" else time.perf_counter
        results[n] = _interleaved_medians(rows, args.launches, args.repeats, clock)

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
            alone = rows["jwarp wp.launch + sync"] / rows["warp wp.launch + sync"]
            print(f"  jwarp wp.launch + sync / warp wp.launch + sync: {alone:.2f}x")
            cmd_ratio = rows["jwarp Launch.launch()"] / rows["warp Launch.launch()"]
            print(f"  jwarp Launch.launch() / warp Launch.launch(): {cmd_ratio:.2f}x (target <= 2)")


if __name__ == "__main__":
    main()
