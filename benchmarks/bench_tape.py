"""``wp.Tape`` cost: forward vs forward + ``tape.backward``, next to ``jax.value_and_grad``.

1. A 3-kernel chain on 2^20 elements ending in an ``atomic_add`` scalar loss:
   forward launches, forward + backward under a Tape (target <= 3x forward), and the same
   workload written by hand in jnp under ``jax.jit(jax.value_and_grad)``.
2. A 100-step particle simulation (semi-implicit Euler with ground contact, new state arrays
   per step as in Warp's examples) under one Tape: ``tape.backward`` vs its forward.

Plain script (not collected by pytest); prints medians in milliseconds and one JSON line.

    python benchmarks/bench_tape.py [--n 1048576] [--reps 15] [--particles 4096] [--steps 100]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import jwarp as wp  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchmarks.workloads.tape import chain_kernels  # noqa: E402


scale_shift, smooth, sum_squares = chain_kernels(wp)  # the same chain as run.py's tape workload


@wp.kernel
def integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float,
              x_out: wp.array(dtype=wp.vec3), v_out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    f = wp.vec3(0.0, -9.8, 0.0)
    p = x[i]
    if p[1] < 0.0:
        f = f + wp.vec3(0.0, -1000.0 * p[1], 0.0) - v[i] * 2.0
    vel = v[i] + f * dt
    v_out[i] = vel
    x_out[i] = p + vel * dt


@wp.kernel
def height_loss(x: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, x[i][1] * x[i][1])


def median_ms(fn, reps: int) -> float:
    fn()
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def chain_benchmark(n: int, reps: int) -> dict:
    rng = np.random.default_rng(0)
    x = wp.array(rng.standard_normal(n).astype(np.float32), requires_grad=True)
    y = wp.zeros(n, requires_grad=True)
    z = wp.zeros(n, requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)

    def forward():
        loss.zero_()
        wp.launch(scale_shift, n, inputs=[x], outputs=[y])
        wp.launch(smooth, n, inputs=[y], outputs=[z])
        wp.launch(sum_squares, n, inputs=[z, loss])

    def run_forward():
        forward()
        wp.synchronize()
        loss.numpy()

    def run_both():
        tape = wp.Tape()
        with tape:
            forward()
        tape.backward(loss=loss)
        x.grad.numpy()
        tape.zero()

    def reference(xs):
        zs = jnp.sin(2.0 * xs + 1.0) * (2.0 * xs + 1.0)
        return jnp.sum(zs * zs)

    vg = jax.jit(jax.value_and_grad(reference))
    xs = jnp.asarray(x.numpy())

    def run_jnp():
        value, grad = vg(xs)
        jax.block_until_ready(grad)

    fwd = median_ms(run_forward, reps)
    both = median_ms(run_both, reps)
    jnp_ms = median_ms(run_jnp, reps)
    return {"n": n, "forward_ms": fwd, "forward_backward_ms": both, "ratio": both / fwd,
            "jnp_value_and_grad_ms": jnp_ms, "ratio_vs_jnp": both / jnp_ms}


def simulation_benchmark(particles: int, steps: int, reps: int) -> dict:
    rng = np.random.default_rng(1)
    start = rng.uniform(0.0, 1.0, (particles, 3)).astype(np.float32)
    xs = [wp.array(start, dtype=wp.vec3, requires_grad=True)]
    vs = [wp.zeros(particles, dtype=wp.vec3, requires_grad=True)]
    for _ in range(steps):
        xs.append(wp.zeros(particles, dtype=wp.vec3, requires_grad=True))
        vs.append(wp.zeros(particles, dtype=wp.vec3, requires_grad=True))
    loss = wp.zeros(1, requires_grad=True)

    def forward():
        loss.zero_()
        for k in range(steps):
            wp.launch(integrate, particles, inputs=[xs[k], vs[k], 0.01], outputs=[xs[k + 1], vs[k + 1]])
        wp.launch(height_loss, particles, inputs=[xs[-1], loss])

    def run_forward():
        forward()
        loss.numpy()

    state = {}

    def record():
        tape = wp.Tape()
        with tape:
            forward()
        loss.numpy()
        state["tape"] = tape

    def run_backward():
        tape = state["tape"]
        tape.backward(loss=loss)
        xs[0].grad.numpy()
        tape.zero()

    fwd = median_ms(run_forward, reps)
    times = []
    for _ in range(reps + 2):
        record()
        t0 = time.perf_counter()
        run_backward()
        times.append(time.perf_counter() - t0)
    bwd = 1e3 * statistics.median(times[2:])
    return {"particles": particles, "steps": steps, "forward_ms": fwd, "backward_ms": bwd, "ratio": bwd / fwd}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1 << 20)
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--particles", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    chain = chain_benchmark(args.n, args.reps)
    print(f"3-kernel chain, n={chain['n']}:")
    print(f"  forward                 {chain['forward_ms']:8.2f} ms")
    print(f"  forward + backward      {chain['forward_backward_ms']:8.2f} ms   ({chain['ratio']:.2f}x forward)")
    print(f"  jnp value_and_grad      {chain['jnp_value_and_grad_ms']:8.2f} ms   "
          f"(tape is {chain['ratio_vs_jnp']:.2f}x)")
    sim = simulation_benchmark(args.particles, args.steps, max(3, args.reps // 3))
    print(f"{sim['steps']}-step particle simulation, {sim['particles']} particles:")
    print(f"  forward                 {sim['forward_ms']:8.2f} ms")
    print(f"  tape.backward           {sim['backward_ms']:8.2f} ms   ({sim['ratio']:.2f}x forward)")
    print(json.dumps({"chain": chain, "simulation": sim}))


if __name__ == "__main__":
    main()
