"""``wp.launch`` on traced arrays: Warp-style code inside ``jax.jit`` / ``jax.grad`` / ``vmap``.

When a launch argument holds a JAX tracer (an array made by ``wp.from_jax`` of a traced value,
an array written by an earlier traced launch, or a traced scalar), ``wp.launch`` cannot run an
executable and check its results: the values do not exist yet. It runs the kernel as a pure
function of the traced buffers instead and rebinds the written arrays to the traced results,
so a function written in Warp's style (allocate, launch, read with ``wp.to_jax``) traces, jits
and differentiates unchanged.

What differs from an eager launch:

- concrete scalar arguments (Python numbers) are compile-time constants of the traced kernel,
  so loops over them are static and reverse-differentiable; traced scalars are run-time values;
- debug-mode bounds checks report through ``jax.debug.callback`` (when the computation runs);
  ``config.verify_fp`` is not applied;
- devices are JAX's business: no array is moved between devices;
- a ``wp.Tape`` cannot record traced launches (use ``jax.grad``).
"""

from __future__ import annotations

from typing import Any

from jwarp.compiler.signature import Signature
from jwarp.interop.tracing import LAUNCH_HINT, TracedKernel, as_static, is_tracer, static_key
from jwarp.runtime import execution
from jwarp.runtime.tape_state import active_tape


def traced_kernel(kernel: Any, sig: Signature, values: list, max_loop_trips: Any = None,
                  hint: str | None = LAUNCH_HINT, alloc: dict | None = None,
                  returns: tuple | None = None) -> tuple[TracedKernel, list]:
    """The cached :class:`TracedKernel` for ``sig`` with the concrete ``values`` baked in, and the
    traced values it takes as arguments."""
    static = {i: as_static(v) for i, v in enumerate(values) if not is_tracer(v)}
    dynamic = [v for v in values if is_tracer(v)]
    alloc_key = tuple(sorted((i, s, str(d)) for i, (s, d) in (alloc or {}).items()))
    key = ("traced", sig, static_key(static), _trips_key(max_loop_trips), hint, alloc_key, returns)
    tk = kernel._cache.get(key)
    if tk is None:
        tk = TracedKernel(kernel, sig, static, max_loop_trips=max_loop_trips, hint=hint, alloc=alloc,
                          returns=returns)
        kernel._cache[key] = tk
    return tk, dynamic


def _trips_key(max_loop_trips: Any) -> Any:
    if isinstance(max_loop_trips, dict):
        return tuple(sorted(max_loop_trips.items()))
    return max_loop_trips


class TracedLaunch:
    """A launch whose arguments hold JAX tracers (made by ``preparation.prepare`` through the execution
    core's traced-launch hook, registered below)."""

    def __init__(self, kernel: Any, dim: tuple, device: Any, binding: Any, sig: Signature, block_dim: int,
                 max_blocks: int):
        self.kernel = kernel
        self.dim = dim
        self.device = device
        self.binding = binding
        self.sig = sig
        self.block_dim = block_dim
        self.max_blocks = max_blocks

    def run(self, record_tape: bool = True) -> None:
        if record_tape:
            if active_tape() is not None:
                raise RuntimeError(
                    f"wp.Tape cannot record the launch of kernel '{self.kernel.key}' on traced arrays (inside "
                    "jax.jit/grad/vmap); differentiate the traced function with jax.grad instead"
                )
        tk, dynamic = traced_kernel(self.kernel, self.sig, self.binding.values)
        buffers = [base.buffer for base in self.binding.bases]
        new_bases = tk(*buffers, *dynamic)
        self.commit(new_bases)

    def commit(self, new_bases: dict) -> None:
        for index, buf in new_bases.items():
            self.binding.bases[index]._set_buffer(buf)


execution.set_traced_launch(TracedLaunch)

__all__ = ["TracedLaunch", "traced_kernel"]
