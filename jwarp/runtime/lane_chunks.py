"""When the tape differentiates a launch chunk by chunk over its grid (the lowering is
``jwarp/compiler/lane_vjp.py``).

``jax.vjp`` of a kernel over its whole grid keeps every per-thread intermediate value alive until
the transpose consumes it: hundreds of grid-sized buffers for the renderer of Warp's
``example_diffray``. The tape differentiates a launch over at least ``MIN_CHUNKS * LANE_CHUNK``
threads whose traced intermediates exceed the launch memory budget (``wp.config.launch_memory_budget``,
as for chunking a forward launch) in chunks of :data:`LANE_CHUNK` threads instead, except kernels
whose results depend on the order threads run (``KernelContext.lane_order``) and tile kernels.

Example (what the tape does with a large launch; nothing to call by hand):
    >>> import jwarp as wp
    >>> @wp.kernel
    ... def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    ...     i = wp.tid()
    ...     y[i] = x[i] * x[i]
    >>> wp.config.launch_memory_budget = 1 << 20   # a small budget: this small kernel is chunked too
    >>> x = wp.full(1 << 18, 3.0, dtype=float, requires_grad=True)
    >>> y = wp.zeros_like(x, requires_grad=True)
    >>> with wp.Tape() as tape:
    ...     wp.launch(square, x.shape, inputs=[x], outputs=[y])
    >>> tape.backward(grads={y: wp.ones_like(y)})   # four chunks of 65536 threads
    >>> float(x.grad.numpy()[-1])
    6.0
    >>> wp.config.launch_memory_budget = None
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from jwarp.compiler.chunking import intermediate_bytes
from jwarp.compiler.kernel_compile import CompiledKernel
from jwarp.compiler.pallas_lower import without_plan
from jwarp.compiler.signature import runtime_lanes
from jwarp.runtime.differentiable import compiled_variant

LANE_CHUNK = 1 << 16
"""Threads per chunk of a lane-chunked backward pass (measured on diffray's renderer: 2^14 to 2^18
within 10%, the whole grid 4x slower at 1.9M threads)."""
MIN_CHUNKS = 4
"""Fewest chunks for which a launch is differentiated in chunks (a smaller one: over the whole grid)."""


def lane_chunk_kernel(kernel: Any, compiled: CompiledKernel, in_bufs: list, values: list, out_bufs: dict,
                      diff_mask: tuple[bool, ...], budget: int) -> tuple[CompiledKernel, list] | None:
    """``compiled`` lowered with a chunk-by-chunk vjp with respect to the bases ``diff_mask`` marks,
    and the extra values it takes: what the recorded launch wrote (``out_bufs``, by base), which its
    forward then returns instead of recomputing it. None when the launch is differentiated over its
    whole grid: small, its traced intermediates within ``budget`` bytes (the launch memory budget:
    XLA fuses such a vjp over the whole grid, and a loop over chunks only slows it, 3.1x for the
    3-kernel chain of ``benchmarks/run.py``), tiles, or results that depend on the thread order."""
    sig = compiled.signature
    lanes = math.prod(sig.grid)
    if (not any(diff_mask) or lanes < MIN_CHUNKS * LANE_CHUNK or compiled.lane_order or runtime_lanes(sig)
            or getattr(kernel, "uses_tiles", False)
            or any(key in ("tile_lanes", "tile_blocks") for key, _ in sig.extra)
            or intermediate_bytes(compiled.closed_jaxpr) <= budget):
        return None
    written = tuple(compiled.written) if set(compiled.written) == set(out_bufs) else ()
    known = [out_bufs[base] for base in written]
    base = without_plan(sig)
    chunk_sig = dataclasses.replace(base, extra=(("lane_chunk", (LANE_CHUNK, tuple(diff_mask), written)),) + base.extra)
    return compiled_variant(kernel, "lane_chunk", chunk_sig, [*in_bufs, *values, *known]), known


__all__ = ["lane_chunk_kernel", "LANE_CHUNK", "MIN_CHUNKS"]
