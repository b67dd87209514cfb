"""Small-launch overhead: microseconds per launch of ``a[i] = a[i] + s`` at dim=1 and dim=1024.

Two Warp-API launch styles — ``wp.launch`` and a ``Launch`` object (``wp.launch(...,
record_cmd=True)`` then ``cmd.launch()``) — against a jitted jnp call of the same update
(``a = f(a, s)``). One step is a batch of launches ending with one synchronize; the figure is
per launch. jwarp launches are asynchronous (the batch pipelines), real Warp's CPU launches run
the kernel before returning.
"""

# No ``from __future__ import annotations``: kernel annotations name the ``wp`` parameter and must be
# evaluated where the kernel is defined.
import jax
import numpy as np

from benchmarks.harness import Case, Context, Program

NAME = "launch"
S = 1.0


def warp_program(wp, device: str, n: int, batch: int, use_command: bool) -> Program:
    """The workload in Warp's API; ``wp`` is ``jwarp`` or ``warp``."""

    @wp.kernel
    def bump(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] + s

    a = wp.zeros(n, dtype=float, device=device)
    if use_command:
        cmd = wp.launch(bump, n, inputs=[a, S], device=device, record_cmd=True)
        launch = cmd.launch
    else:

        def launch():
            wp.launch(bump, n, inputs=[a, S], device=device)

    def step():
        for _ in range(batch):
            launch()

    return Program(step, wp.synchronize, lambda: {"a": a.numpy()}, reset=a.zero_)


def jax_program(jax_device, n: int, batch: int) -> Program:
    """Hand-written jnp: a jitted ``a + s`` called ``batch`` times."""
    bump = jax.jit(lambda a, s: a + s)
    s = jax.device_put(np.float32(S), jax_device)
    state = {}

    def reset():
        state["a"] = jax.device_put(np.zeros(n, np.float32), jax_device)

    def step():
        a = state["a"]
        for _ in range(batch):
            a = bump(a, s)
        state["a"] = a

    reset()
    return Program(step, lambda: state["a"].block_until_ready(), lambda: {"a": np.asarray(state["a"])}, reset)


def cases(ctx: Context) -> list[Case]:
    batch = 100 if ctx.quick else 200
    out = []
    for n in (1, 1024):
        for use_command, label in ((False, "wp.launch"), (True, "Launch.launch()")):
            programs = {
                name: warp_program(wp, ctx.wp_device(name), n, batch, use_command) for name, wp in ctx.libs.items()
            }
            programs["jnp"] = jax_program(ctx.jax_device, n, batch)
            out.append(
                Case(
                    name=f"launch dim={n} {label}",
                    programs=programs,
                    unit="us",
                    per_step=batch,
                    repeats=7 if ctx.quick else 101,
                    warmup=2,
                )
            )
    return out
