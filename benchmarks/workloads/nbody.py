"""All-pairs n-body accelerations (softened gravity), n = 4096 bodies (1024 with --quick), as a plain
kernel and in Warp's tile style (``tile_load`` of 64 bodies at a time, as ``example_tile_nbody``).

The Warp-API kernel has one thread per body and an in-kernel loop over all bodies; the jnp
version broadcasts per coordinate (``x[None, :] - x[:, None]``, n x n planes) and reduces over
axis 1, which XLA fuses. (The shorter ``pos[None] - pos[:, None]`` form with an (n, n, 3)
intermediate is about 5x slower on XLA:CPU, so it would be a weak baseline.)
"""

# No ``from __future__ import annotations``: kernel annotations name the ``wp`` parameter and must be
# evaluated where the kernel is defined.
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from benchmarks.harness import Case, Context, Program

NAME = "nbody"
EPS2 = 0.01


def warp_program(wp, device: str, pos_host: np.ndarray, mass_host: np.ndarray) -> Program:
    """The workload in Warp's API; ``wp`` is ``jwarp`` or ``warp``."""

    @wp.kernel
    def accelerations(
        pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float), eps2: float, acc: wp.array(dtype=wp.vec3)
    ):
        i = wp.tid()
        p = pos[i]
        a = wp.vec3(0.0, 0.0, 0.0)
        for j in range(pos.shape[0]):
            d = pos[j] - p
            inv_r = 1.0 / wp.sqrt(wp.dot(d, d) + eps2)
            a = a + d * (mass[j] * inv_r * inv_r * inv_r)
        acc[i] = a

    n = pos_host.shape[0]
    pos = wp.array(pos_host, dtype=wp.vec3, device=device)
    mass = wp.array(mass_host, dtype=float, device=device)
    acc = wp.zeros(n, dtype=wp.vec3, device=device)
    return Program(
        step=lambda: wp.launch(accelerations, n, inputs=[pos, mass, EPS2], outputs=[acc], device=device),
        sync=wp.synchronize,
        output=lambda: {"acc": acc.numpy()},
    )


def tiled_program(wp, device: str, pos_host: np.ndarray, mass_host: np.ndarray, tile: int) -> Program:
    """The same accelerations in Warp's tile style (as its ``example_tile_nbody``): each block of
    ``tile`` threads loads the other bodies ``tile`` at a time with ``wp.tile_load`` and every
    thread loops over the loaded tile."""
    TILE = wp.constant(tile)

    @wp.kernel(module="unique")
    def accelerations_tiled(
        pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float), eps2: float, acc: wp.array(dtype=wp.vec3)
    ):
        i = wp.tid()
        p = pos[i]
        a = wp.vec3(0.0, 0.0, 0.0)
        for k in range(pos.shape[0] // TILE):
            others = wp.tile_load(pos, shape=TILE, offset=k * TILE)
            masses = wp.tile_load(mass, shape=TILE, offset=k * TILE)
            for j in range(TILE):
                d = others[j] - p
                inv_r = 1.0 / wp.sqrt(wp.dot(d, d) + eps2)
                a = a + d * (masses[j] * inv_r * inv_r * inv_r)
        acc[i] = a

    n = pos_host.shape[0]
    pos = wp.array(pos_host, dtype=wp.vec3, device=device)
    mass = wp.array(mass_host, dtype=float, device=device)
    acc = wp.zeros(n, dtype=wp.vec3, device=device)
    return Program(
        step=lambda: wp.launch(accelerations_tiled, n, inputs=[pos, mass, EPS2], outputs=[acc], device=device,
                               block_dim=tile),
        sync=wp.synchronize,
        output=lambda: {"acc": acc.numpy()},
    )


def jax_program(jax_device, pos_host: np.ndarray, mass_host: np.ndarray) -> Program:
    """Hand-written jnp: pairwise differences per coordinate and fused row reductions."""

    @jax.jit
    def accelerations(pos, mass):
        d = [c[None, :] - c[:, None] for c in (pos[:, 0], pos[:, 1], pos[:, 2])]
        inv_r = lax.rsqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + EPS2)
        w = mass[None, :] * inv_r * inv_r * inv_r
        return jnp.stack([jnp.sum(c * w, axis=1) for c in d], axis=1)

    pos = jax.device_put(pos_host, jax_device)
    mass = jax.device_put(mass_host, jax_device)
    state = {}

    def step():
        state["acc"] = accelerations(pos, mass)

    return Program(step, lambda: state["acc"].block_until_ready(), lambda: {"acc": np.asarray(state["acc"])})


def cases(ctx: Context) -> list[Case]:
    n = 1024 if ctx.quick else 4096
    rng = np.random.default_rng(3)
    pos_host = rng.uniform(-1.0, 1.0, (n, 3)).astype(np.float32)
    mass_host = rng.uniform(0.5, 1.5, n).astype(np.float32) / n
    programs = {name: warp_program(wp, ctx.wp_device(name), pos_host, mass_host) for name, wp in ctx.libs.items()}
    programs["jnp"] = jax_program(ctx.jax_device, pos_host, mass_host)
    tiled = {name: tiled_program(wp, ctx.wp_device(name), pos_host, mass_host, 64) for name, wp in ctx.libs.items()}
    tiled["jnp"] = programs["jnp"]
    return [
        Case(name=f"nbody n={n}", programs=programs, repeats=5 if ctx.quick else 41, warmup=1, rtol=1e-3, atol=1e-4),
        Case(name=f"nbody n={n}, tiles of 64 (tile_load)", programs=tiled, repeats=5 if ctx.quick else 21, warmup=1,
             rtol=1e-3, atol=1e-4),
    ]
