"""Scaling of a sharded jwarp simulation from 1 to 2 processes (``jax.distributed``, CPU collectives).

The workload is ``examples/distributed_diffusion.py``: a 2-D diffusion grid whose rows are split
over every device of every process, one halo row exchanged with each neighbour per step
(``ppermute``), the ``diffuse`` jwarp kernel on each block. Each configuration runs in fresh
processes and times, on process 0, the median of:

- ``forward``: ``steps`` steps (one jitted ``shard_map`` with a ``fori_loop`` inside);
- ``value_and_grad``: the loss and its gradient with respect to the field and the rate.

Configurations: 1 process with 1 device (the baseline); 2 processes with 1 device each, joined
by ``jax.distributed`` on localhost (gloo); 1 process with 2 XLA host devices. Strong scaling:
the grid is the same in every configuration. On a host with fewer free cores than processes the
processes share cores, so the figures measure overhead rather than speed-up there.

Plain script (not collected by pytest); prints a table and one JSON line.

    python benchmarks/bench_distributed.py [--ny 1024] [--nx 1024] [--steps 20] [--reps 10] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "examples"))

CONFIGS = (  # name, processes, devices per process
    ("1 process x 1 device", 1, 1),
    ("2 processes x 1 device", 2, 1),
    ("1 process x 2 devices", 1, 2),
)


def median_ms(fn, reps: int) -> float:
    fn()  # compile
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def worker(args) -> None:
    """One process of one configuration: time the workload, print a JSON line on process 0."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P

    import jwarp.distributed as wpd

    if wpd.COORDINATOR_ENV in os.environ:
        wpd.initialize()
    import distributed_diffusion as model

    mesh = wpd.mesh((model.ROWS,))
    u0 = wpd.shard(model.initial_field(args.ny, args.nx), mesh, P(model.ROWS))
    alpha = jnp.float32(0.2)
    run = model.simulation(mesh, args.steps)
    grads = model.loss_and_grads(mesh, args.steps)
    forward_ms = median_ms(lambda: jax.block_until_ready(run(u0, alpha)), args.reps)
    grad_ms = median_ms(lambda: jax.block_until_ready(grads(u0, alpha)), args.reps)
    loss = float(grads(u0, alpha)[0])
    if jax.process_index() == 0:
        print(json.dumps({"processes": jax.process_count(), "devices": len(jax.devices()),
                          "forward_ms": forward_ms, "value_and_grad_ms": grad_ms, "loss": loss}))


def run_config(processes: int, devices: int, args) -> dict:
    import jwarp.distributed as wpd

    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    if devices > 1:
        env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={devices}"
    argv = [str(Path(__file__).resolve()), "--worker", "--ny", str(args.ny), "--nx", str(args.nx),
            "--steps", str(args.steps), "--reps", str(args.reps)]
    if processes > 1:
        results = wpd.launch_local(argv, processes, timeout=args.timeout, env=env)
    else:
        proc = subprocess.run([sys.executable, *argv], env=env, capture_output=True, text=True, timeout=args.timeout)
        results = [wpd.ProcessResult(0, proc.returncode, proc.stdout, proc.stderr)]
    for r in results:
        if r.returncode != 0:
            raise RuntimeError(f"process {r.process_id} of {processes} failed:\n{r.stderr[-3000:]}")
    return json.loads(results[0].stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ny", type=int, default=1024)
    parser.add_argument("--nx", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--json", default="")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args)
        return {}
    rows = []
    for name, processes, devices in CONFIGS:
        result = run_config(processes, devices, args)
        rows.append(dict(config=name, **result))
    base = rows[0]
    print(f"diffusion {args.ny}x{args.nx}, {args.steps} steps, median of {args.reps} (ms; ratio to 1 process)")
    print(f"{'configuration':<26}{'forward':>10}{'ratio':>8}{'value_and_grad':>16}{'ratio':>8}")
    for row in rows:
        row["forward_ratio"] = row["forward_ms"] / base["forward_ms"]
        row["value_and_grad_ratio"] = row["value_and_grad_ms"] / base["value_and_grad_ms"]
        row["loss_matches"] = abs(row["loss"] - base["loss"]) <= 1e-4 * abs(base["loss"])
        print(f"{row['config']:<26}{row['forward_ms']:>10.2f}{row['forward_ratio']:>7.2f}x"
              f"{row['value_and_grad_ms']:>16.2f}{row['value_and_grad_ratio']:>7.2f}x")
    report = {"ny": args.ny, "nx": args.nx, "steps": args.steps, "reps": args.reps, "cores": os.cpu_count(),
              "results": rows}
    print(json.dumps(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    if not all(row["loss_matches"] for row in rows):
        raise SystemExit("the configurations disagree on the loss")
    return report


if __name__ == "__main__":
    main()
