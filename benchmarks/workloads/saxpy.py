"""saxpy ``out = a * x + y`` on float32 arrays of 2^20, 2^22 and 2^24 elements: a bandwidth-bound kernel.

Reports GB/s (12 bytes moved per element: read x and y, write out) next to the bandwidth of device
copies of the same number of bytes (one allocating its output like jnp, one writing a donated
buffer in place like a Warp-style launch), measured in the same interleaved run.
"""

# No ``from __future__ import annotations``: kernel annotations name the ``wp`` parameter and must be
# evaluated where the kernel is defined.
import jax
import jax.numpy as jnp
import numpy as np

from benchmarks.harness import Case, Context, Program, gb_per_s

NAME = "saxpy"
A = 2.0


def warp_program(wp, device: str, x_host: np.ndarray, y_host: np.ndarray) -> Program:
    """The workload in Warp's API; ``wp`` is ``jwarp`` or ``warp``."""

    @wp.kernel
    def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = a * x[i] + y[i]

    n = x_host.shape[0]
    x = wp.array(x_host, dtype=float, device=device)
    y = wp.array(y_host, dtype=float, device=device)
    out = wp.zeros(n, dtype=float, device=device)
    return Program(
        step=lambda: wp.launch(saxpy, n, inputs=[A, x, y], outputs=[out], device=device),
        sync=wp.synchronize,
        output=lambda: {"out": out.numpy()},
    )


def jax_program(jax_device, x_host: np.ndarray, y_host: np.ndarray) -> Program:
    """Hand-written jnp: one jitted expression."""
    saxpy = jax.jit(lambda a, x, y: a * x + y)
    x = jax.device_put(x_host, jax_device)
    y = jax.device_put(y_host, jax_device)
    a = jax.device_put(np.float32(A), jax_device)
    state = {"out": None}

    def step():
        state["out"] = saxpy(a, x, y)

    return Program(step, lambda: state["out"].block_until_ready(), lambda: {"out": np.asarray(state["out"])})


def copy_program(jax_device, n_floats: int, in_place: bool = False) -> Program:
    """Device copy of ``n_floats`` float32: moves ``8 * n_floats`` bytes (read + write). With
    ``in_place`` the destination buffer is donated, so the copy writes memory that is already mapped
    (the roofline for an in-place launch); otherwise every call allocates its output, as jnp does."""
    src = jax.device_put(np.ones(n_floats, np.float32), jax_device)
    state = {"out": jax.device_put(np.zeros(n_floats, np.float32), jax_device)}
    if in_place:
        copy = jax.jit(lambda s, d: s + 0.0, donate_argnums=1, keep_unused=True)  # d: the output buffer
        step = lambda: state.update(out=copy(src, state["out"]))  # noqa: E731
    else:
        copy = jax.jit(jnp.copy)
        step = lambda: state.update(out=copy(src))  # noqa: E731
    return Program(step, lambda: state["out"].block_until_ready(), lambda: {})


def cases(ctx: Context) -> list[Case]:
    out = []
    rng = np.random.default_rng(0)
    for log2 in (20, 22, 24):
        n = 1 << log2
        x_host = rng.standard_normal(n).astype(np.float32)
        y_host = rng.standard_normal(n).astype(np.float32)
        programs = {name: warp_program(wp, ctx.wp_device(name), x_host, y_host) for name, wp in ctx.libs.items()}
        programs["jnp"] = jax_program(ctx.jax_device, x_host, y_host)
        nbytes = 12 * n

        def notes(stats, nbytes=nbytes):
            parts = [f"{k} {gb_per_s(nbytes, s):.1f}" for k, s in stats.items()]
            return "GB/s: " + ", ".join(parts)

        small = log2 == 20
        out.append(
            Case(
                name=f"saxpy 2^{log2}",
                programs=programs,
                references={  # 12n bytes too
                    "copy": copy_program(ctx.jax_device, 3 * n // 2),
                    "copy in place": copy_program(ctx.jax_device, 3 * n // 2, in_place=True),
                },
                repeats=(15 if small else 5) if ctx.quick else (200 if small else 100 if log2 == 22 else 60),
                warmup=2,
                notes=notes,
            )
        )
    return out
