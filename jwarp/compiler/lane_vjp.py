"""A launch whose reverse-mode derivative is a loop over chunks of its grid (lane-chunked vjp).

``jax.vjp`` of a kernel over its whole grid keeps every per-thread intermediate value of the
forward alive until the transpose consumes it: for a kernel like the renderer of Warp's
``example_diffray`` (a BVH walk, gathers, a texture lookup, a light loop), hundreds of grid-sized
buffers. The signature option ``("lane_chunk", (chunk, diff))`` lowers the kernel as a
``jax.custom_vjp`` over the arrays' scalar planes instead:

- forward: the kernel over the whole grid, as usual;
- backward: for each chunk of ``chunk`` threads, last to first, that chunk's forward at the
  entering contents and its vjp, carrying only the gradient planes of the arrays marked in
  ``diff`` (a flag per launch base). Intermediates are O(chunk).

The planes are split from and joined into the arrays' buffers outside the custom derivative, so
a chunk's stores and loads touch only its own elements (the transpose of a vector array's split
would otherwise cost a pass over the whole array per chunk).

Exact when no thread reads an element another thread writes (Warp's rule for differentiable
kernels; atomic accumulation is fine): then each chunk sees the same values at the entering
contents as after the chunks before it. Kernels whose results depend on the order threads run
(:attr:`KernelContext.lane_order`) are not lowered this way (see ``runtime/lane_chunks.py``).
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
from jax import lax

from jwarp.compiler.context import KernelContext, SlotState


def _is_float(x: Any) -> bool:
    return jnp.issubdtype(jnp.result_type(x), jnp.inexact)


def lower_with_chunked_vjp(
    slots: list[SlotState],
    diff_slots: list[bool],
    args: tuple,
    run_on_planes: Callable[[tuple, list, Any], KernelContext],
    total: int,
    chunk: int,
    known: list | None = None,
) -> KernelContext:
    """The launch over the whole grid, whose derivative with respect to the float planes of the
    slots marked in ``diff_slots`` runs chunk by chunk. ``run_on_planes(args, planes, index)``
    traces the kernel on the slots' ``planes`` given the launch arguments ``args``, over the whole
    grid (``index`` None) or over chunk ``index``; the custom derivative receives ``args``
    explicitly, so it closes over no traced value. ``slots`` are updated in place (final planes,
    ``written``/``read`` flags); returns the traced context with its accumulators. ``known``: per
    slot, the planes the launch is known to have produced (the tape's record of it), or None: the
    forward returns those instead of computing them (XLA drops the dead whole-grid computation),
    and no accumulators (the backward pass reports nothing)."""
    n_slots = len(slots)
    n_chunks = -(-total // chunk)
    traced: dict[str, Any] = {}
    entry = [list(s.planes) for s in slots]
    # (slot, plane) positions whose gradient the backward carries
    carried = [(i, k) for i, (planes, d) in enumerate(zip(entry, diff_slots)) if d
               for k, p in enumerate(planes) if _is_float(p)]

    @jax.custom_vjp
    def launch(planes: list, args: tuple, known: list | None) -> tuple[list, dict]:
        ctx = run_on_planes(args, planes, None)
        traced["ctx"] = ctx
        if known is None:
            return [s.planes for s in ctx.slots[:n_slots]], dict(ctx.accumulators)
        return [list(k) if k is not None and s.written else s.planes
                for s, k in zip(ctx.slots[:n_slots], known)], {}

    def forward(planes: list, args: tuple, known: list | None) -> tuple:
        return launch(planes, args, known), (planes, args)

    def backward(saved: tuple, cts: tuple) -> tuple:
        planes, args = saved
        ct_planes, _ = cts

        def chunk_step(k: Any, grads: list) -> list:
            index = n_chunks - 1 - k

            def carried_out(values: list) -> list:
                current = [list(p) for p in planes]
                for (i, j), v in zip(carried, values):
                    current[i][j] = v
                ctx = run_on_planes(args, current, index)
                return [ctx.slots[i].planes[j] for i, j in carried]

            _, pull = jax.vjp(carried_out, [planes[i][j] for i, j in carried])
            return list(pull(grads)[0])

        grads = lax.fori_loop(0, n_chunks, chunk_step, [ct_planes[i][j] for i, j in carried])
        out: list = [[None] * len(p) for p in planes]
        for (i, j), g in zip(carried, grads):
            out[i][j] = g
        return out, None, None

    launch.defvjp(forward, backward)
    final, accumulators = launch(entry, tuple(args), known)
    ctx = traced["ctx"]
    for slot, seen, planes in zip(slots, ctx.slots, final):
        slot.planes = list(planes)
        slot.written = seen.written
        slot.read = seen.read
    ctx.slots = slots
    ctx.accumulators = accumulators
    return ctx


__all__ = ["lower_with_chunked_vjp"]
