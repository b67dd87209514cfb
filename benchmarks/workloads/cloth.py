"""Spring-mass cloth: a 141x141 particle grid (19,881 particles, ~79k structural + shear springs),
10 semi-implicit Euler substeps per timed call.

Each substep is two kernels: ``spring_forces`` (one thread per spring, ``wp.atomic_add`` /
``wp.atomic_sub`` scatter of the force onto both particles) and ``integrate`` (one thread per
particle; gravity, pinned corners, clears the force accumulator). The jnp version is one jitted
function with a ``lax.fori_loop`` over the substeps and ``.at[].add`` scatters.
"""

# No ``from __future__ import annotations``: kernel annotations name the ``wp`` parameter and must be
# evaluated where the kernel is defined.
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from benchmarks.harness import Case, Context, Program

NAME = "cloth"
SIDE = 141
SPACING = 0.01
KE = 1.0e4  # spring stiffness
KD = 1.0  # spring damping
GRAVITY = -9.8
DT = 5.0e-4
SUBSTEPS = 10


def cloth_setup(side: int) -> dict[str, np.ndarray]:
    """Initial positions (horizontal sheet), spring index pairs, rest lengths, inverse masses."""
    gx, gz = np.meshgrid(np.arange(side), np.arange(side), indexing="ij")
    pos = np.stack([gx * SPACING, np.ones_like(gx, dtype=float), gz * SPACING], axis=-1).reshape(-1, 3)
    index = np.arange(side * side).reshape(side, side)
    pairs = [
        (index[:-1, :], index[1:, :]),  # structural
        (index[:, :-1], index[:, 1:]),
        (index[:-1, :-1], index[1:, 1:]),  # shear
        (index[1:, :-1], index[:-1, 1:]),
    ]
    springs = np.concatenate([np.stack([a.ravel(), b.ravel()], axis=1) for a, b in pairs])
    rest = np.linalg.norm(pos[springs[:, 1]] - pos[springs[:, 0]], axis=1)
    inv_mass = np.ones(side * side)
    inv_mass[[index[0, 0], index[0, -1]]] = 0.0  # two pinned corners
    return {
        "pos": pos.astype(np.float32),
        "springs": springs.reshape(-1).astype(np.int32),
        "rest": rest.astype(np.float32),
        "inv_mass": inv_mass.astype(np.float32),
    }


def warp_program(wp, device: str, setup: dict[str, np.ndarray]) -> Program:
    """The workload in Warp's API; ``wp`` is ``jwarp`` or ``warp``."""

    @wp.kernel
    def spring_forces(
        x: wp.array(dtype=wp.vec3),
        v: wp.array(dtype=wp.vec3),
        springs: wp.array(dtype=int),
        rest: wp.array(dtype=float),
        ke: float,
        kd: float,
        f: wp.array(dtype=wp.vec3),
    ):
        s = wp.tid()
        i = springs[2 * s]
        j = springs[2 * s + 1]
        d = x[j] - x[i]
        length = wp.length(d)
        direction = d / length
        stretch_rate = wp.dot(v[j] - v[i], direction)
        force = direction * (ke * (length - rest[s]) + kd * stretch_rate)
        wp.atomic_add(f, i, force)
        wp.atomic_sub(f, j, force)

    @wp.kernel
    def integrate(
        x: wp.array(dtype=wp.vec3),
        v: wp.array(dtype=wp.vec3),
        f: wp.array(dtype=wp.vec3),
        inv_mass: wp.array(dtype=float),
        gravity: float,
        dt: float,
    ):
        i = wp.tid()
        w = inv_mass[i]
        vel = v[i]
        if w > 0.0:
            vel = vel + (f[i] * w + wp.vec3(0.0, gravity, 0.0)) * dt
        v[i] = vel
        x[i] = x[i] + vel * dt
        f[i] = wp.vec3(0.0, 0.0, 0.0)

    n_particles = setup["pos"].shape[0]
    n_springs = setup["rest"].shape[0]
    x = wp.array(setup["pos"], dtype=wp.vec3, device=device)
    v = wp.zeros(n_particles, dtype=wp.vec3, device=device)
    f = wp.zeros(n_particles, dtype=wp.vec3, device=device)
    springs = wp.array(setup["springs"], dtype=int, device=device)
    rest = wp.array(setup["rest"], dtype=float, device=device)
    inv_mass = wp.array(setup["inv_mass"], dtype=float, device=device)

    def reset():
        x.assign(setup["pos"])
        v.zero_()
        f.zero_()

    def step():
        for _ in range(SUBSTEPS):
            wp.launch(spring_forces, n_springs, inputs=[x, v, springs, rest, KE, KD], outputs=[f], device=device)
            wp.launch(integrate, n_particles, inputs=[x, v, f, inv_mass, GRAVITY, DT], device=device)

    return Program(step, wp.synchronize, lambda: {"x": x.numpy(), "v": v.numpy()}, reset)


def jax_program(jax_device, setup: dict[str, np.ndarray]) -> Program:
    """Hand-written jnp: gathers, ``.at[].add`` scatters, a fori_loop over the substeps."""
    put = lambda a: jax.device_put(a, jax_device)  # noqa: E731
    pairs = setup["springs"].reshape(-1, 2)
    i, j = put(pairs[:, 0]), put(pairs[:, 1])
    rest, inv_mass = put(setup["rest"]), put(setup["inv_mass"])
    gravity = jnp.asarray([0.0, GRAVITY, 0.0], jnp.float32)

    def substep(_, state):
        x, v = state
        d = x[j] - x[i]
        length = jnp.linalg.norm(d, axis=1)
        direction = d / length[:, None]
        stretch_rate = jnp.sum((v[j] - v[i]) * direction, axis=1)
        force = direction * (KE * (length - rest) + KD * stretch_rate)[:, None]
        f = jnp.zeros_like(x).at[i].add(force).at[j].add(-force)
        w = inv_mass[:, None]
        v = jnp.where(w > 0.0, v + (f * w + gravity) * DT, v)
        return x + v * DT, v

    simulate = jax.jit(lambda x, v: lax.fori_loop(0, SUBSTEPS, substep, (x, v)))
    state = {}

    def reset():
        state["xv"] = (put(setup["pos"]), put(np.zeros_like(setup["pos"])))

    def step():
        state["xv"] = simulate(*state["xv"])

    reset()
    return Program(
        step,
        lambda: jax.block_until_ready(state["xv"]),
        lambda: {"x": np.asarray(state["xv"][0]), "v": np.asarray(state["xv"][1])},
        reset,
    )


def cases(ctx: Context) -> list[Case]:
    setup = cloth_setup(SIDE)
    programs = {name: warp_program(wp, ctx.wp_device(name), setup) for name, wp in ctx.libs.items()}
    programs["jnp"] = jax_program(ctx.jax_device, setup)
    n_springs = setup["rest"].shape[0]
    return [
        Case(
            name=f"cloth {SIDE}x{SIDE}, {n_springs} springs, {SUBSTEPS} substeps",
            programs=programs,
            repeats=5 if ctx.quick else 100,
            # jwarp runs a launch sequence seen FUSE_AFTER (3) times before as one fused program,
            # compiled at its next run: with the check's step and 2 warm-up steps that compile fell
            # into the first timed repeats (a 150-300 ms sample); 5 warm-up steps reach the steady state
            warmup=5,
            tolerance={"x": (1e-4, 1e-5), "v": (1e-3, 1e-3)},
        )
    ]
