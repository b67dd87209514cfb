"""First launch of a freshly defined kernel: trace + compile + run, synchronized.

Every timed call defines the kernel anew through a factory whose closure constant (the ground
stiffness) is unique, so no in-memory cache hits, and the constants start from a random base so
real Warp's on-disk kernel cache does not hit either. The kernel is a small particle update
(vec3 math, a branch, a short loop) on 1024 particles. The jnp counterpart times the first call
of a freshly ``jax.jit``-ed function with its own unique constant.
"""

# No ``from __future__ import annotations``: kernel annotations name the ``wp`` parameter and must be
# evaluated where the kernel is defined.
import itertools
import random

import jax
import jax.numpy as jnp
import numpy as np

from benchmarks.harness import Case, Context, Program

NAME = "first_launch"
N = 1024
DT = 0.01
_BASE = 1000.0 + random.SystemRandom().uniform(1.0, 1000.0)  # per-process: defeats on-disk caches
# used by the step right after reset() (the correctness check, then the warm-up), the same for every
# implementation; the timed steps use _BASE, _BASE + 1, ...
CHECK_STIFFNESS = _BASE - 0.5


def make_warp_kernel(wp, stiffness: float):
    """A new kernel object whose closure constant is ``stiffness``."""

    @wp.kernel(module="unique")
    def particle_update(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float,
                        x_out: wp.array(dtype=wp.vec3), v_out: wp.array(dtype=wp.vec3)):
        i = wp.tid()
        p = x[i]
        vel = v[i]
        for _ in range(2):
            f = wp.vec3(0.0, -9.8, 0.0)
            if p[1] < 0.0:
                f = f + wp.vec3(0.0, -stiffness * p[1], 0.0) - vel * 2.0
            vel = vel + f * dt
            p = p + vel * dt
        x_out[i] = p
        v_out[i] = vel

    return particle_update


def warp_program(wp, device: str, x_host: np.ndarray, v_host: np.ndarray) -> Program:
    """The workload in Warp's API; ``wp`` is ``jwarp`` or ``warp``."""
    x = wp.array(x_host, dtype=wp.vec3, device=device)
    v = wp.array(v_host, dtype=wp.vec3, device=device)
    x_out = wp.zeros(N, dtype=wp.vec3, device=device)
    v_out = wp.zeros(N, dtype=wp.vec3, device=device)
    constants = {"next": iter([CHECK_STIFFNESS])}
    fresh = (_BASE + k for k in itertools.count())

    def reset():
        constants["next"] = iter([CHECK_STIFFNESS])

    def step():
        stiffness = next(constants["next"], None) or next(fresh)
        kernel = make_warp_kernel(wp, stiffness)
        wp.launch(kernel, N, inputs=[x, v, DT], outputs=[x_out, v_out], device=device)

    return Program(step, wp.synchronize, lambda: {"x": x_out.numpy(), "v": v_out.numpy()}, reset)


def make_jnp_function(stiffness: float):
    """A newly jitted function whose closure constant is ``stiffness``."""

    def particle_update(x, v):
        gravity = jnp.asarray([0.0, -9.8, 0.0], x.dtype)
        for _ in range(2):
            below = x[:, 1:2] < 0.0
            contact = jnp.concatenate([jnp.zeros_like(x[:, :1]), -stiffness * x[:, 1:2], jnp.zeros_like(x[:, :1])], 1)
            f = jnp.where(below, gravity + contact - v * 2.0, gravity)
            v = v + f * DT
            x = x + v * DT
        return x, v

    return jax.jit(particle_update)


def jax_program(jax_device, x_host: np.ndarray, v_host: np.ndarray) -> Program:
    x = jax.device_put(x_host, jax_device)
    v = jax.device_put(v_host, jax_device)
    constants = {"next": iter([CHECK_STIFFNESS])}
    fresh = (_BASE + k for k in itertools.count())
    state = {}

    def reset():
        constants["next"] = iter([CHECK_STIFFNESS])

    def step():
        stiffness = next(constants["next"], None) or next(fresh)
        state["out"] = make_jnp_function(stiffness)(x, v)

    return Program(
        step,
        lambda: jax.block_until_ready(state["out"]),
        lambda: {"x": np.asarray(state["out"][0]), "v": np.asarray(state["out"][1])},
        reset,
    )


def cases(ctx: Context) -> list[Case]:
    rng = np.random.default_rng(5)
    x_host = rng.uniform(-0.5, 1.0, (N, 3)).astype(np.float32)
    v_host = rng.uniform(-1.0, 1.0, (N, 3)).astype(np.float32)
    programs = {name: warp_program(wp, ctx.wp_device(name), x_host, v_host) for name, wp in ctx.libs.items()}
    programs["jnp"] = jax_program(ctx.jax_device, x_host, v_host)
    return [
        Case(
            name="first launch (trace+compile+run)",
            programs=programs,
            repeats=3 if ctx.quick else 21,
            warmup=1,
            rtol=1e-5,
            atol=1e-5,
        )
    ]
