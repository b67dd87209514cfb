"""2-D 5-point stencil: one explicit heat-equation step on a 1024x1024 float32 grid per call.

Interior cells get ``u + alpha * laplacian(u)``, boundary cells are copied. The Warp-API version
ping-pongs between two arrays; the jnp version is the idiomatic slicing plus ``.at[1:-1, 1:-1].set``.
A second jnp formulation, ``jnp.where(interior, jnp.pad(new_interior, 1), u)`` — the shape of
program jwarp's lowering produces (shifted planes and a select) — is timed alongside as a
reference and shown in the notes column.
"""

# No ``from __future__ import annotations``: kernel annotations name the ``wp`` parameter and must be
# evaluated where the kernel is defined.
import jax
import jax.numpy as jnp
import numpy as np

from benchmarks.harness import Case, Context, Program

NAME = "stencil"
ALPHA = 0.2


def warp_program(wp, device: str, u_host: np.ndarray) -> Program:
    """The workload in Warp's API; ``wp`` is ``jwarp`` or ``warp``."""

    @wp.kernel
    def heat_step(u: wp.array2d(dtype=float), alpha: float, out: wp.array2d(dtype=float)):
        i, j = wp.tid()
        c = u[i, j]
        if i > 0 and j > 0 and i < u.shape[0] - 1 and j < u.shape[1] - 1:
            lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * c
            out[i, j] = c + alpha * lap
        else:
            out[i, j] = c

    grids = [wp.zeros(u_host.shape, dtype=float, device=device) for _ in range(2)]
    state = {"cur": 0}

    def reset():
        grids[0].assign(u_host)
        state["cur"] = 0

    def step():
        cur = state["cur"]
        wp.launch(heat_step, u_host.shape, inputs=[grids[cur], ALPHA], outputs=[grids[1 - cur]], device=device)
        state["cur"] = 1 - cur

    reset()
    return Program(step, wp.synchronize, lambda: {"u": grids[state["cur"]].numpy()}, reset)


def heat_step_update(u):
    """Idiomatic jnp: slices of the grid and an indexed update of the interior."""
    c = u[1:-1, 1:-1]
    lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * c
    return u.at[1:-1, 1:-1].set(c + ALPHA * lap)


def heat_step_select(u):
    """The same step as a padded interior and a select over the whole grid."""
    c = u[1:-1, 1:-1]
    lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * c
    interior = jnp.pad(jnp.ones(c.shape, bool), 1)
    return jnp.where(interior, jnp.pad(c + ALPHA * lap, 1), u)


def jax_program(jax_device, u_host: np.ndarray, step_fn=heat_step_update) -> Program:
    """Hand-written jnp, one jitted step per call."""
    heat_step = jax.jit(step_fn)

    state = {}

    def reset():
        state["u"] = jax.device_put(u_host, jax_device)

    def step():
        state["u"] = heat_step(state["u"])

    reset()
    return Program(step, lambda: state["u"].block_until_ready(), lambda: {"u": np.asarray(state["u"])}, reset)


def cases(ctx: Context) -> list[Case]:
    n = 1024
    u_host = np.random.default_rng(2).uniform(0.0, 1.0, (n, n)).astype(np.float32)
    programs = {name: warp_program(wp, ctx.wp_device(name), u_host) for name, wp in ctx.libs.items()}
    programs["jnp"] = jax_program(ctx.jax_device, u_host)
    return [
        Case(
            name=f"stencil {n}x{n}",
            programs=programs,
            references={"jnp pad+where": jax_program(ctx.jax_device, u_host, heat_step_select)},
            repeats=10 if ctx.quick else 200,
            warmup=2,
            notes=lambda stats: f"jnp pad+where: {stats['jnp pad+where'].median:.3g} ms",
        )
    ]
