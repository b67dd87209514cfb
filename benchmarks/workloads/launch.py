"""Small-launch overhead: microseconds per launch of ``a[i] = a[i] + s`` at dim=1 and dim=1024.

Three Warp-API launch styles — ``wp.launch``, a ``Launch`` object (``wp.launch(...,
record_cmd=True)`` then ``cmd.launch()``) and a graph capture of the whole batch replayed with
``wp.capture_launch`` — against a jitted jnp call of the same update (``a = f(a, s)``; for the
capture, one jitted ``fori_loop`` over the batch). One step is a batch of launches ending with one synchronize; the figure is
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


def warp_program(wp, device: str, n: int, batch: int, style: str) -> Program:
    """The workload in Warp's API; ``wp`` is ``jwarp`` or ``warp``."""

    @wp.kernel
    def bump(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] + s

    a = wp.zeros(n, dtype=float, device=device)
    if style == "capture":
        wp.launch(bump, n, inputs=[a, S], device=device)  # load the module before capturing
        with wp.ScopedCapture(device=device) as capture:
            for _ in range(batch):
                wp.launch(bump, n, inputs=[a, S], device=device)
        graph = capture.graph

        def step():
            wp.capture_launch(graph)

        return Program(step, wp.synchronize, lambda: {"a": a.numpy()}, reset=a.zero_)
    if style == "command":
        cmd = wp.launch(bump, n, inputs=[a, S], device=device, record_cmd=True)
        launch = cmd.launch
    else:

        def launch():
            wp.launch(bump, n, inputs=[a, S], device=device)

    def step():
        for _ in range(batch):
            launch()

    return Program(step, wp.synchronize, lambda: {"a": a.numpy()}, reset=a.zero_)


def jax_program(jax_device, n: int, batch: int, fused: bool = False) -> Program:
    """Hand-written jnp: a jitted ``a + s`` called ``batch`` times (``fused``: one jitted loop)."""
    if fused:
        loop = jax.jit(lambda a, s: jax.lax.fori_loop(0, batch, lambda _, x: x + s, a))
    else:
        bump = jax.jit(lambda a, s: a + s)
    s = jax.device_put(np.float32(S), jax_device)
    state = {}

    def reset():
        state["a"] = jax.device_put(np.zeros(n, np.float32), jax_device)

    def step():
        if fused:
            state["a"] = loop(state["a"], s)
            return
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
        for style, label in (("launch", "wp.launch"), ("command", "Launch.launch()"), ("capture", "captured")):
            programs = {name: warp_program(wp, ctx.wp_device(name), n, batch, style) for name, wp in ctx.libs.items()}
            programs["jnp"] = jax_program(ctx.jax_device, n, batch, fused=style == "capture")
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
