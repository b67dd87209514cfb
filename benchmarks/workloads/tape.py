"""Reverse mode: a 3-kernel chain on 2^20 elements recorded on a ``wp.Tape``, then
``tape.backward(loss)``; one timed call is forward + backward (and zeroing the gradients of the
previous call). Compared with ``jax.jit(jax.value_and_grad(f))`` of the same function in jnp.

Chain: ``y = 2x + 1``; ``z = sin(y) * y``; ``loss = sum(z^2)`` (``wp.atomic_add`` into one element).
"""

# No ``from __future__ import annotations``: kernel annotations name the ``wp`` parameter and must be
# evaluated where the kernel is defined.
import jax
import jax.numpy as jnp
import numpy as np

from benchmarks.harness import Case, Context, Program

NAME = "tape"


def chain_kernels(wp) -> tuple:
    """The chain's three kernels, ``(scale_shift, smooth, sum_squares)``, for ``wp`` (jwarp or warp)."""

    @wp.kernel
    def scale_shift(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = 2.0 * x[i] + 1.0

    @wp.kernel
    def smooth(y: wp.array(dtype=float), z: wp.array(dtype=float)):
        i = wp.tid()
        z[i] = wp.sin(y[i]) * y[i]

    @wp.kernel
    def sum_squares(z: wp.array(dtype=float), loss: wp.array(dtype=float)):
        i = wp.tid()
        wp.atomic_add(loss, 0, z[i] * z[i])

    return scale_shift, smooth, sum_squares


def warp_program(wp, device: str, x_host: np.ndarray, backward: bool = True) -> Program:
    """The workload in Warp's API; ``wp`` is ``jwarp`` or ``warp``. ``backward=False``: the forward
    launches only, no Tape (a reference for the cost of reverse mode; its output is empty)."""
    scale_shift, smooth, sum_squares = chain_kernels(wp)
    n = x_host.shape[0]
    x = wp.array(x_host, dtype=float, device=device, requires_grad=True)
    y = wp.zeros(n, dtype=float, device=device, requires_grad=True)
    z = wp.zeros(n, dtype=float, device=device, requires_grad=True)
    loss = wp.zeros(1, dtype=float, device=device, requires_grad=True)
    state = {"tape": None}

    def reset():
        if state["tape"] is not None:
            state["tape"].zero()
        state["tape"] = None

    def forward():
        loss.zero_()
        wp.launch(scale_shift, n, inputs=[x], outputs=[y], device=device)
        wp.launch(smooth, n, inputs=[y], outputs=[z], device=device)
        wp.launch(sum_squares, n, inputs=[z], outputs=[loss], device=device)

    if not backward:
        return Program(forward, wp.synchronize, lambda: {})

    def step():
        if state["tape"] is not None:
            state["tape"].zero()
        tape = wp.Tape()
        with tape:
            forward()
        tape.backward(loss=loss)
        state["tape"] = tape

    return Program(step, wp.synchronize, lambda: {"loss": loss.numpy(), "grad": x.grad.numpy()}, reset)


def loss_jnp(x):
    y = 2.0 * x + 1.0
    z = jnp.sin(y) * y
    return jnp.sum(z * z)


def jax_program(jax_device, x_host: np.ndarray) -> Program:
    """Hand-written jnp: ``jax.jit(jax.value_and_grad(loss))``."""
    value_and_grad = jax.jit(jax.value_and_grad(loss_jnp))
    x = jax.device_put(x_host, jax_device)
    state = {}

    def step():
        state["out"] = value_and_grad(x)

    def output():
        value, grad = state["out"]
        return {"loss": np.asarray(value).reshape(1), "grad": np.asarray(grad)}

    return Program(step, lambda: jax.block_until_ready(state["out"]), output)


def cases(ctx: Context) -> list[Case]:
    n = 1 << 20
    x_host = np.random.default_rng(4).standard_normal(n).astype(np.float32)
    programs = {name: warp_program(wp, ctx.wp_device(name), x_host) for name, wp in ctx.libs.items()}
    programs["jnp"] = jax_program(ctx.jax_device, x_host)
    return [
        Case(
            name="tape 3-kernel chain 2^20 fwd+bwd",
            programs=programs,
            references={"jwarp fwd": warp_program(ctx.libs["jwarp"], ctx.wp_device("jwarp"), x_host, backward=False)},
            notes=lambda s: f"jwarp forward only {s['jwarp fwd'].median:.3g} ms "
            f"(fwd+bwd = {s['jwarp'].median / s['jwarp fwd'].median:.1f}x fwd)",
            repeats=5 if ctx.quick else 100,
            warmup=2,
            # real Warp's CPU atomic_add sums the 2^20 terms serially in float32: ~1e-3 relative error
            tolerance={"loss": (1e-2, 0.0), "grad": (1e-4, 1e-4)},
        )
    ]
