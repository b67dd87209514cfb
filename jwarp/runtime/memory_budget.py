"""Bounded launch memory: run a launch in chunks over its grid when its working set would not fit.

A kernel is one vectorized program over all threads of a launch, so its temporaries grow with the
number of threads (a 2^28-thread ``wp.atomic_add(h, i % 16, 1)`` holds 2 GiB of per-thread indices).
When a launch signature first compiles, jwarp compares those temporaries with a budget and, above
it, compiles the launch as a loop over chunks of the grid (``jwarp/compiler/chunking.py``), so its
memory is O(chunk) instead of O(threads). Results are the same as one pass (atomics accumulate
across chunks and return values as if threads ran in thread order).

The estimate is two-step: a free upper bound from the traced program (every intermediate value,
:func:`jwarp.compiler.chunking.intermediate_bytes`); only a launch whose bound exceeds the budget is
compiled ahead of time and measured with XLA's ``memory_analysis`` (that compilation is then the one
the launch runs).

``wp.config.launch_memory_budget`` sets the budget in bytes; ``None`` (default) means an eighth of the
device's free memory, at most :data:`DEFAULT_CAP`. An explicit budget is part of the launch signature
and of the launch plans' keys, so setting it takes effect at the next launch. ``max_blocks`` bounds memory on every device:
``max_blocks * block_dim`` threads per chunk (on the CPU, where ``block_dim`` resolves to 1,
``max_blocks`` blocks of :data:`CPU_BLOCK_THREADS` threads).

Example:
    >>> import jwarp as wp
    >>> wp.config.launch_memory_budget = 64 << 20   # launches keep temporaries under 64 MiB
    >>> wp.config.launch_memory_budget = None       # back to the default
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from jwarp import config
from jwarp.compiler.chunking import intermediate_bytes
from jwarp.compiler.kernel_compile import CompiledKernel
from jwarp.compiler.signature import Signature
from jwarp.runtime.device import Device

DEFAULT_FRACTION = 0.125
"""Share of the device's free memory a launch's temporaries may use by default."""
DEFAULT_CAP = 256 << 20
"""Default budget ceiling (bytes): chunks of a few million threads lose no speed, and a huge launch
then stays well under 1 GiB of peak memory on any machine."""
MIN_CHUNK = 4096
"""Fewest threads per automatic chunk (smaller chunks cost more loop steps than they save)."""
CPU_BLOCK_THREADS = 256
"""Threads per block ``max_blocks`` counts on the CPU (Warp's default CUDA block size)."""


def budget_bytes(device: Device) -> int:
    """The temporaries a launch on ``device`` may allocate: ``wp.config.launch_memory_budget`` or,
    when ``None``, :data:`DEFAULT_FRACTION` of the device's free memory, at most :data:`DEFAULT_CAP`."""
    setting = config.launch_memory_budget
    if setting is not None:
        return int(setting)
    try:
        free = int(device.free_memory)
    except Exception:  # a device that cannot report: the cap alone
        free = 0
    return min(int(free * DEFAULT_FRACTION), DEFAULT_CAP) if free > 0 else DEFAULT_CAP


def max_blocks_chunk(kernel: Any, device: Device, block_dim: int, max_blocks: int, total: int) -> int:
    """Threads per chunk that ``max_blocks`` asks for (0: one pass over the whole grid).

    On a GPU, Warp runs at most ``max_blocks`` blocks of ``block_dim`` threads that stride over the
    grid (grid-stride kernels only); jwarp processes the grid in chunks of that many threads. Warp's
    CPU ignores ``max_blocks``; jwarp uses it there as a memory bound (same results)."""
    if max_blocks <= 0 or getattr(kernel, "uses_tiles", False):
        return 0
    if device.is_cpu:
        chunk = max_blocks * (block_dim if block_dim > 1 else CPU_BLOCK_THREADS)
    elif not kernel.grid_stride:
        return 0
    else:
        chunk = max_blocks * block_dim
    return chunk if chunk < total else 0


def signature_extra() -> tuple:
    """What a launch signature records of the memory setting: an explicit
    ``wp.config.launch_memory_budget`` (so that changing it plans launches anew); nothing by default."""
    setting = config.launch_memory_budget
    return (("memory_budget", int(setting)),) if setting is not None else ()


def with_chunk(sig: Signature, chunk: int) -> Signature:
    """``sig`` compiled as a loop over chunks of ``chunk`` threads."""
    extra = tuple(item for item in sig.extra if item[0] != "chunk")
    return dataclasses.replace(sig, extra=(("chunk", int(chunk)),) + extra)


def chunk_for(lanes: int, temp: int, budget: int, block_dim: int = 1) -> int:
    """Threads per chunk so that ``temp`` bytes for ``lanes`` threads shrink under ``budget``: a power
    of two (a multiple of ``block_dim``), at least :data:`MIN_CHUNK`; 0 when one pass fits.

    Example:
        >>> chunk_for(2**28, 2**31, 2**28)
        33554432
    """
    if temp <= budget or lanes <= MIN_CHUNK:
        return 0
    per_thread = temp / lanes
    chunk = 1 << max(0, int(budget // max(per_thread, 1e-9)).bit_length() - 1)
    chunk = max(chunk, MIN_CHUNK, block_dim)
    if block_dim > 1:
        chunk -= chunk % block_dim
    return chunk if chunk < lanes else 0


def bounded(kernel: Any, device: Device, sig: Signature, compiled: CompiledKernel, operands: list,
            recompile: Callable[[Signature], CompiledKernel], donate: bool | None = None) -> CompiledKernel:
    """``compiled``, or the same launch recompiled in chunks when its temporaries exceed the budget.
    ``donate``: whether the launch will likely run the donating program (default
    ``wp.config.donate_buffers``); that is the one compiled to measure the temporaries, and reused."""
    lanes = 1
    for extent in sig.grid:
        lanes *= extent
    if lanes <= MIN_CHUNK or getattr(kernel, "uses_tiles", False) or dict(sig.extra).get("chunk"):
        return compiled
    budget = budget_bytes(device)
    if intermediate_bytes(compiled.closed_jaxpr) <= budget:
        return compiled
    temp = compiled.temp_bytes(operands, donate=config.donate_buffers if donate is None else donate)
    chunk = chunk_for(lanes, temp, budget, sig.block_dim)
    if not chunk:
        return compiled
    return recompile(with_chunk(sig, chunk))


def is_out_of_memory(exc: BaseException) -> bool:
    """Whether ``exc`` is XLA (or the host) failing to allocate memory."""
    if isinstance(exc, MemoryError):
        return True
    text = str(exc)
    return "RESOURCE_EXHAUSTED" in text or "Out of memory" in text or "out of memory" in text


def raise_if_out_of_memory(kernel: Any, dim: tuple, device: Device, exc: BaseException) -> None:
    """Re-raise an out-of-memory failure of a launch as a ``RuntimeError`` naming the kernel, the
    launch dimensions and the setting that bounds launch memory."""
    if not is_out_of_memory(exc):
        return
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    raise RuntimeError(
        f"Error launching kernel '{getattr(kernel, 'key', kernel)}' with dim={tuple(dim)} on device '{device}': "
        f"out of memory ({first}). Lower wp.config.launch_memory_budget (now "
        f"{budget_bytes(device)} bytes) so the launch runs in smaller chunks over its grid, or pass max_blocks."
    ) from exc


__all__ = ["signature_extra", "budget_bytes", "bounded", "chunk_for", "max_blocks_chunk", "with_chunk", "raise_if_out_of_memory",
           "is_out_of_memory", "DEFAULT_CAP", "DEFAULT_FRACTION"]
