"""jax.jit of a function calling a jwarp kernel (wp.jax_kernel) vs the hand-written jnp function
on the same workload, forward and jax.grad: saxpy and a spring-force scatter.

Plain script (not collected by pytest). Prints a table of medians and the jwarp/jnp ratio
(target <= 1.15x), then one JSON line.

    python benchmarks/bench_jax_interop.py [--n 1048576] [--reps 30]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import jwarp as wp  # noqa: E402


@wp.kernel
def saxpy_kernel(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a * x[i] + y[i]


@wp.kernel
def spring_kernel(x: wp.array(dtype=wp.vec3), springs: wp.array(dtype=int), rest: wp.array(dtype=float), k: float,
                  f: wp.array(dtype=wp.vec3)):
    s = wp.tid()
    i = springs[2 * s]
    j = springs[2 * s + 1]
    d = x[j] - x[i]
    length = wp.length(d)
    force = k * (length - rest[s]) * d / length
    wp.atomic_add(f, i, force)
    wp.atomic_sub(f, j, force)


def spring_jnp(x, springs, rest, k):
    i, j = springs[0::2], springs[1::2]
    d = x[j] - x[i]
    length = jnp.sqrt(jnp.sum(d * d, axis=1))
    force = (k * (length - rest) / length)[:, None] * d
    return jnp.zeros_like(x).at[i].add(force).at[j].add(-force)


def timeit(fn, args, reps: int) -> float:
    jax.block_until_ready(fn(*args))
    jax.block_until_ready(fn(*args))
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def compare(name: str, ours, theirs, args, reps: int) -> dict:
    # interleave the two so load changes hit both alike
    a, b = [], []
    for _ in range(3):
        a.append(timeit(ours, args, reps))
        b.append(timeit(theirs, args, reps))
    t_ours, t_theirs = min(a), min(b)
    return {"case": name, "jwarp_ms": t_ours * 1e3, "jnp_ms": t_theirs * 1e3, "ratio": t_ours / t_theirs}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1 << 20)
    parser.add_argument("--reps", type=int, default=20)
    opts = parser.parse_args()
    n, reps = opts.n, opts.reps
    rng = np.random.default_rng(0)
    results = []

    # saxpy
    saxpy = wp.jax_kernel(saxpy_kernel)
    x = jnp.asarray(rng.normal(size=n), jnp.float32)
    y = jnp.asarray(rng.normal(size=n), jnp.float32)
    fwd_w = jax.jit(lambda x, y: saxpy(2.0, x, y)[0])
    fwd_j = jax.jit(lambda x, y: 2.0 * x + y)
    results.append(compare("saxpy forward", fwd_w, fwd_j, (x, y), reps))
    grad_w = jax.jit(jax.grad(lambda x, y: jnp.sum(saxpy(2.0, x, y)[0] ** 2), argnums=(0, 1)))
    grad_j = jax.jit(jax.grad(lambda x, y: jnp.sum((2.0 * x + y) ** 2), argnums=(0, 1)))
    results.append(compare("saxpy grad", grad_w, grad_j, (x, y), reps))

    # spring-force scatter
    particles = n // 16
    n_springs = 2 * particles
    pos = jnp.asarray(rng.normal(size=(particles, 3)), jnp.float32)
    i = rng.integers(0, particles, n_springs)
    j = (i + rng.integers(1, particles, n_springs)) % particles
    springs = jnp.asarray(np.stack([i, j], axis=1).reshape(-1), jnp.int32)
    rest = jnp.asarray(rng.uniform(0.5, 1.5, n_springs), jnp.float32)
    forces = wp.jax_kernel(spring_kernel, launch_dims=n_springs, output_dims=particles)
    fwd_w = jax.jit(lambda x: forces(x, springs, rest, 10.0)[0])
    fwd_j = jax.jit(lambda x: spring_jnp(x, springs, rest, 10.0))
    results.append(compare(f"springs forward ({n_springs} springs)", fwd_w, fwd_j, (pos,), reps))
    w = jnp.asarray(rng.normal(size=(particles, 3)), jnp.float32)
    grad_w = jax.jit(jax.grad(lambda x: jnp.sum(forces(x, springs, rest, 10.0)[0] * w)))
    grad_j = jax.jit(jax.grad(lambda x: jnp.sum(spring_jnp(x, springs, rest, 10.0) * w)))
    results.append(compare(f"springs grad ({n_springs} springs)", grad_w, grad_j, (pos,), reps))

    print(f"{'case':36s} {'jwarp ms':>10s} {'jnp ms':>10s} {'ratio':>7s}")
    for r in results:
        print(f"{r['case']:36s} {r['jwarp_ms']:10.3f} {r['jnp_ms']:10.3f} {r['ratio']:7.2f}x")
    print(json.dumps({"n": n, "backend": jax.default_backend(), "results": results}))


if __name__ == "__main__":
    main()
