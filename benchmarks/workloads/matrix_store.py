"""Per-lane matrices: ``u[i] = outer(v, v) * sin(v.x)`` (a ``mat33`` per thread) over 2^20 lanes.

Every thread writes nine components of one array element, as deformation gradients, stresses and
inertia tensors are written in simulation code. jwarp computes the components as nine planes and
interleaves them into the array in one fused pass (jwarp/compiler/output_interleave.py); the jnp
version is the idiomatic broadcast ``v[:, :, None] * v[:, None, :]``, into a donated output.
"""

# No ``from __future__ import annotations``: kernel annotations name the ``wp`` parameter and must be
# evaluated where the kernel is defined.
import jax
import jax.numpy as jnp
import numpy as np

from benchmarks.harness import Case, Context, Program

NAME = "matrix_store"


def warp_program(wp, device: str, x_host: np.ndarray) -> Program:
    """The workload in Warp's API; ``wp`` is ``jwarp`` or ``warp``."""

    @wp.kernel
    def scaled_outer(x: wp.array(dtype=wp.vec3), u: wp.array(dtype=wp.mat33)):
        i = wp.tid()
        v = x[i]
        u[i] = wp.outer(v, v) * wp.sin(v[0])

    x = wp.array(x_host, dtype=wp.vec3, device=device)
    u = wp.zeros(len(x_host), dtype=wp.mat33, device=device)

    def step():
        wp.launch(scaled_outer, len(x_host), inputs=[x], outputs=[u], device=device)

    return Program(step, wp.synchronize, lambda: {"u": u.numpy()}, lambda: None)


def jax_program(jax_device, x_host: np.ndarray) -> Program:
    """Hand-written jnp, the output buffer donated each call."""

    def scaled_outer(x, u):
        del u  # donated: its buffer holds the result
        return x[:, :, None] * x[:, None, :] * jnp.sin(x[:, 0])[:, None, None]

    fn = jax.jit(scaled_outer, donate_argnums=1, keep_unused=True)
    x = jax.device_put(x_host, jax_device)
    state = {"u": jax.device_put(np.zeros((len(x_host), 3, 3), np.float32), jax_device)}

    def step():
        state["u"] = fn(x, state["u"])

    return Program(step, lambda: state["u"].block_until_ready(), lambda: {"u": np.asarray(state["u"])},
                   lambda: None)


def cases(ctx: Context) -> list[Case]:
    n = 1 << (16 if ctx.quick else 20)
    x_host = np.random.default_rng(5).uniform(-1.0, 1.0, (n, 3)).astype(np.float32)
    programs = {name: warp_program(wp, ctx.wp_device(name), x_host) for name, wp in ctx.libs.items()}
    programs["jnp"] = jax_program(ctx.jax_device, x_host)
    return [Case(name=f"mat33 per lane, {n} lanes", programs=programs, repeats=10 if ctx.quick else 100, warmup=2)]
