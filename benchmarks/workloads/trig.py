"""Trigonometry per element: 2^20 particles on a travelling wave, each rotated about z by its polar
angle and given its elevation (``sin``, ``cos``, ``atan2``, ``acos`` per particle), the arithmetic of
rotations, waves and spherical coordinates in simulation and rendering code.

On the CPU, XLA evaluates these functions with one C library call per element, and Warp's CPU build
calls the C library per thread; jwarp computes them as vector code (``jwarp/builtins/trig.py``,
``inverse_trig.py``). This kernel stores ``vec3``/``vec2`` elements, so each of those results is computed
apart, in a loop of its own, before the loop that interleaves the components (see ``trig.apart``); the
row shows that case. The jnp version is the same expression jitted.
"""

# No ``from __future__ import annotations``: kernel annotations name the ``wp`` parameter and must be
# evaluated where the kernel is defined.
import jax
import jax.numpy as jnp
import numpy as np

from benchmarks.harness import Case, Context, Program

NAME = "trig"
TIME = 0.35


def warp_program(wp, device: str, p_host: np.ndarray) -> Program:
    """The workload in Warp's API; ``wp`` is ``jwarp`` or ``warp``."""

    @wp.kernel
    def wave(t: float, p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3), angles: wp.array(dtype=wp.vec2)):
        i = wp.tid()
        q = p[i]
        phase = 3.0 * q[0] + 2.0 * q[2] - 4.0 * t
        h = q[1] + 0.1 * wp.sin(phase) * wp.cos(0.5 * phase)
        theta = wp.atan2(q[1], q[0])
        c = wp.cos(theta)
        s = wp.sin(theta)
        out[i] = wp.vec3(c * q[0] - s * q[2], h, s * q[0] + c * q[2])
        r = wp.length(q) + 1.0e-6
        angles[i] = wp.vec2(theta, wp.acos(q[2] / r))

    n = p_host.shape[0]
    p = wp.array(p_host, dtype=wp.vec3, device=device)
    out = wp.zeros(n, dtype=wp.vec3, device=device)
    angles = wp.zeros(n, dtype=wp.vec2, device=device)
    return Program(
        step=lambda: wp.launch(wave, n, inputs=[TIME, p], outputs=[out, angles], device=device),
        sync=wp.synchronize,
        output=lambda: {"out": out.numpy(), "angles": angles.numpy()},
    )


def wave_jnp(t, p):
    x, y, z = p[:, 0], p[:, 1], p[:, 2]
    phase = 3.0 * x + 2.0 * z - 4.0 * t
    h = y + 0.1 * jnp.sin(phase) * jnp.cos(0.5 * phase)
    theta = jnp.arctan2(y, x)
    c, s = jnp.cos(theta), jnp.sin(theta)
    r = jnp.sqrt(x * x + y * y + z * z) + 1.0e-6
    return jnp.stack([c * x - s * z, h, s * x + c * z], axis=1), jnp.stack([theta, jnp.arccos(z / r)], axis=1)


def jax_program(jax_device, p_host: np.ndarray) -> Program:
    """Hand-written jnp: the same expression, jitted."""
    wave = jax.jit(wave_jnp)
    p = jax.device_put(p_host, jax_device)
    t = jax.device_put(np.float32(TIME), jax_device)
    state = {}

    def step():
        state["out"] = wave(t, p)

    def output():
        out, angles = state["out"]
        return {"out": np.asarray(out), "angles": np.asarray(angles)}

    return Program(step, lambda: jax.block_until_ready(state["out"]), output)


def cases(ctx: Context) -> list[Case]:
    n = 1 << 20
    p_host = np.random.default_rng(9).uniform(-2.0, 2.0, (n, 3)).astype(np.float32)
    programs = {name: warp_program(wp, ctx.wp_device(name), p_host) for name, wp in ctx.libs.items()}
    programs["jnp"] = jax_program(ctx.jax_device, p_host)
    return [
        Case(
            name="trig per particle 2^20 (sin cos atan2 acos)",
            programs=programs,
            repeats=5 if ctx.quick else 40,
            warmup=2,
            # (acos near +-1 turns a 1-ulp difference of z / r into 1e-4)
            tolerance={"out": (1e-5, 1e-5), "angles": (1e-5, 1e-4)},
        )
    ]
