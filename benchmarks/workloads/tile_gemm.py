"""Tiled GEMM ``C = A @ B`` (float32, 1024x1024 with 64x64 tiles, and 256x256 with 32x32 tiles) in
Warp's tile API — each block loads a row of A tiles and a column of B tiles, accumulates with
``wp.tile_matmul`` and stores its C tile — against ``jnp.matmul`` (the roofline jwarp's dense tile
lowering aims at) and, on the CPU, real Warp's tile kernel. Reports GFLOP/s.
"""

# No ``from __future__ import annotations``: kernel annotations name the ``wp`` parameter and must be
# evaluated where the kernel is defined.
import jax
import jax.numpy as jnp
import numpy as np

from benchmarks.harness import Case, Context, Program

NAME = "tile_gemm"


def warp_program(wp, device: str, a_host: np.ndarray, b_host: np.ndarray, tile: int) -> Program:
    """The workload in Warp's API; ``wp`` is ``jwarp`` or ``warp``."""
    TILE = wp.constant(tile)

    @wp.kernel(module="unique")
    def gemm(A: wp.array2d(dtype=float), B: wp.array2d(dtype=float), C: wp.array2d(dtype=float)):
        i, j = wp.tid()
        acc = wp.tile_zeros(shape=(TILE, TILE), dtype=float)
        count = A.shape[1] // TILE
        for k in range(count):
            a = wp.tile_load(A, shape=(TILE, TILE), offset=(i * TILE, k * TILE))
            b = wp.tile_load(B, shape=(TILE, TILE), offset=(k * TILE, j * TILE))
            wp.tile_matmul(a, b, acc)
        wp.tile_store(C, acc, offset=(i * TILE, j * TILE))

    n = a_host.shape[0]
    a = wp.array(a_host, dtype=float, device=device)
    b = wp.array(b_host, dtype=float, device=device)
    c = wp.zeros((n, n), dtype=float, device=device)
    blocks = (n // tile, n // tile)
    return Program(
        step=lambda: wp.launch_tiled(gemm, dim=blocks, inputs=[a, b, c], block_dim=64, device=device),
        sync=wp.synchronize,
        output=lambda: {"C": c.numpy()},
    )


def jax_program(jax_device, a_host: np.ndarray, b_host: np.ndarray) -> Program:
    matmul = jax.jit(lambda a, b: jnp.matmul(a, b, precision="highest"))
    a = jax.device_put(a_host, jax_device)
    b = jax.device_put(b_host, jax_device)
    state = {"out": None}

    def step():
        state["out"] = matmul(a, b)

    return Program(step, lambda: state["out"].block_until_ready(), lambda: {"C": np.asarray(state["out"])})


def cases(ctx: Context) -> list[Case]:
    out = []
    rng = np.random.default_rng(0)
    for n, tile in ((256, 32), (1024, 64)):
        a_host = rng.standard_normal((n, n)).astype(np.float32)
        b_host = rng.standard_normal((n, n)).astype(np.float32)
        programs = {name: warp_program(wp, ctx.wp_device(name), a_host, b_host, tile) for name, wp in ctx.libs.items()}
        programs["jnp"] = jax_program(ctx.jax_device, a_host, b_host)
        flops = 2.0 * n**3

        def notes(stats, flops=flops):
            return "GFLOP/s: " + ", ".join(f"{k} {flops / (s.median * 1e-3) / 1e9:.1f}" for k, s in stats.items())

        out.append(
            Case(
                name=f"gemm {n}^2 tiles {tile}",
                programs=programs,
                repeats=3 if ctx.quick else (20 if n == 256 else 8),
                warmup=1,
                rtol=1e-3,
                atol=1e-3,
                notes=notes,
            )
        )
    return out
