"""Preparing a launch: validate and pack the arguments, build the launch signature and fetch (or
compile, once per signature) the kernel's executable.

The result is a :class:`~jwarp.runtime.execution.PreparedLaunch` (run by the execution core), or,
when an argument holds a JAX tracer, the launch the registered traced-launch hook makes (see
:mod:`jwarp.runtime.execution`).

Example:
    >>> import jwarp as wp
    >>> from jwarp.runtime.preparation import prepare
    >>> @wp.kernel
    ... def fill(a: wp.array(dtype=float)):
    ...     a[wp.tid()] = 1.0
    >>> a = wp.zeros(3)
    >>> prepare(fill, (3,), [a], wp.get_device("cpu")).execute()
    >>> a.numpy()
    array([1., 1., 1.], dtype=float32)
"""

from __future__ import annotations

import math
import time
from typing import Any

from jwarp import config
from jwarp.compiler.kernel_compile import compile_kernel
from jwarp.compiler.signature import Signature
from jwarp.errors import LocatedError, clean_error
from jwarp.runtime import capture, compile_cache, launch_buckets, memory_budget, tape_state
from jwarp.runtime.capture_loops import launch_key
from jwarp.runtime.binding import bind_arguments
from jwarp.runtime.device import Device
from jwarp.runtime.differentiable import has_dynamic_loops
from jwarp.runtime.execution import PreparedLaunch, traced_launch
from jwarp.runtime.kernel import Kernel
from jwarp.runtime.pallas_select import pallas_plan
from jwarp.runtime.launch_config import check_launch_config, launch_grid, overload_signature


def _aval_key(buf: Any) -> Any:
    if isinstance(buf, tuple):
        return tuple(_aval_key(b) for b in buf)
    return (buf.shape, buf.dtype.str)


def prepare(kernel: Kernel, dim: tuple, args: list, device: Device, block_dim: int = 1, max_blocks: int = 0,
            options: dict | None = None, taped: bool = False, bucket: bool = False) -> PreparedLaunch:
    """Validate arguments and fetch (or compile) the executable for this launch. ``taped``: a tape
    records the launch (see :func:`prepare_for_tape`), so a kernel with dynamic loops is compiled
    only in the variant that measures their trip counts, and without donating the arrays it writes.
    ``bucket``: the launch may run in a bucket of lanes (:mod:`jwarp.runtime.launch_buckets`)."""
    kernel.check_current()
    binding = bind_arguments(kernel, args, device)
    if kernel.is_generic:
        kernel.note_overload(overload_signature(binding.params))
    grid = launch_grid(dim, kernel.kernel_dim)
    tile_blocks: tuple = ()
    if block_dim > 1 and kernel.uses_tiles:  # keep the lane dimension: tile ops need each block's threads
        tile_blocks = (("tile_lanes", True),)  # a block's threads run together (never one at a time)
        grid = tuple(dim) + (1,) * max(0, kernel.kernel_dim - len(dim))
        if grid[-1] != block_dim:  # blocks span rows of the grid: lanes (blocks, block_dim), see kernel_compile
            tile_blocks += (("tile_blocks", grid),)
            grid = (-(-math.prod(grid) // block_dim), block_dim)
    opts = options or {}
    module_options = kernel.module.options
    mode = module_options.get("mode") or config.mode
    level = _optimization_level(kernel, module_options)
    chunk = opts.get("chunk") or memory_budget.max_blocks_chunk(kernel, device, block_dim, max_blocks, math.prod(grid))
    pallas = pallas_plan(kernel, device, block_dim, max_blocks)  # the Pallas target hook (pallas_select.py)
    sig = Signature(
        grid=grid,
        params=binding.params,
        n_bases=len(binding.bases),
        n_values=len(binding.values),
        debug=mode == "debug",
        max_unroll=module_options.get("max_unroll") or config.max_unroll,
        record_trips=bool(opts.get("record_trips", False)),
        loop_bounds=opts.get("loop_bounds"),
        block_dim=block_dim,
        kernel_dim=kernel.kernel_dim,
        extra=((("chunk", int(chunk)),) if chunk else ()) + ((("backward", False),) if not kernel.enable_backward else ())
        + memory_budget.signature_extra() + ((("pallas", pallas),) if pallas is not None else ())
        + tile_blocks + ((("opt_level", level),) if level is not None else ()),
        handles=binding.handles,
    )
    if binding.traced:  # inside jax.jit/grad/vmap: run the kernel functionally on the traced values
        return traced_launch(kernel, dim, device, binding, sig, block_dim, max_blocks)
    buffers = [b.buffer for b in binding.bases]
    avals = tuple(_aval_key(b) for b in buffers)
    ticket = None
    if bucket and config.bucket_launch_sizes:
        sig, ticket = launch_buckets.bucketed(kernel, sig, avals, device, binding.values)
    key = (sig, avals, device.alias)
    compiled = kernel._cache.get(key)
    if compiled is None:
        compile_cache.enable()
        started = time.perf_counter()
        try:
            operands = [*buffers, *binding.values]
            compiled = kernel._cache.pop(("traced", key), None) or compile_kernel(
                kernel.source, kernel.arg_names, sig, operands)
            if taped and not sig.record_trips and _has_gradients(binding) and has_dynamic_loops(compiled):
                # the tape runs the trip-measuring variant: bounding this one would compile it for
                # nothing (a 3 s XLA compile for diffray's render kernel); keep its trace for later
                kernel._cache[("traced", key)] = compiled
                return prepare(kernel, dim, args, device, block_dim, max_blocks,
                               options={**(options or {}), "record_trips": True}, taped=True)
            compiled = memory_budget.bounded(  # over the memory budget: recompiled in chunks over the grid
                kernel, device, sig, compiled, operands,
                lambda chunked: compile_kernel(kernel.source, kernel.arg_names, chunked, operands),
                donate=config.donate_buffers and not taped)  # (a taped launch runs the plain program)
        except LocatedError as exc:
            raise clean_error(exc) from None
        kernel._cache[key] = compiled
        if config.verbose:
            print(f"Kernel '{kernel.key}' traced for dim={dim} on device '{device}' took "
                  f"{(time.perf_counter() - started) * 1000:.2f} ms")
    return PreparedLaunch(kernel, dim, device, binding, compiled, block_dim, max_blocks, bucket=ticket)


def _optimization_level(kernel: Kernel, module_options: dict) -> int | None:
    """The kernel module's ``optimization_level`` option, else ``wp.config.optimization_level``: an
    integer 0-3 or None (the default level). It sets how hard XLA optimises the kernel's code (see
    :func:`jwarp.compiler.emitters.level_options`)."""
    level = module_options.get("optimization_level")
    if level is None:
        level = config.optimization_level
    if level is not None and (isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 3):
        raise ValueError(f"kernel '{kernel.key}': optimization_level must be an integer from 0 to 3 or None, "
                         f"got {level!r} (module option or wp.config.optimization_level)")
    return level


def record_in_capture(kernel: Kernel, dim: tuple, args: list, device: Device, block_dim: int,
                      max_blocks: int) -> None:
    """Validate the launch now and record it into the open graph capture (it runs at replay)."""
    check_launch_config(kernel, device, block_dim, max_blocks)
    binding = bind_arguments(kernel, args, device)
    args = list(args)

    def replay() -> None:
        prepare(kernel, dim, args, device, block_dim, max_blocks).run(record_tape=False)

    # a geometry object's buffers are bound at each replay (a grid built or rebuilt after the capture)
    geometry_bases = {spec.base for h in binding.handles for _key, spec in h.arrays}
    capture.record(replay, [b for k, b in enumerate(binding.bases) if k not in geometry_bases], binding.geometry,
                   key=launch_key(kernel, dim, args, device, (block_dim, max_blocks)))


def prepare_with_trips(prepared: PreparedLaunch, args: list) -> PreparedLaunch:
    """The variant of ``prepared`` that also measures each dynamic loop's trip count (used to make
    such loops reverse-differentiable)."""
    return prepare(prepared.kernel, prepared.dim, args, prepared.device, prepared.block_dim, prepared.max_blocks,
                   options={"record_trips": True}, taped=True)


def _has_gradients(binding: Any) -> bool:
    """Whether an array the launch binds carries a gradient (a tape then records it)."""
    return any(b._grad is not None for b in binding.bases)


def prepare_for_tape(prepared: Any, args: list, n_inputs: int) -> Any:
    """The launch to run while a tape records. Kernels with run-time loop bounds whose arrays
    carry gradients run a variant that also measures each loop's trip count (used to make
    the loop reverse-differentiable in the backward pass). The launch remembers its
    arguments (inputs, outputs) for the tape's Warp-style ``launches`` entries."""
    if tape_state.active_tape() is None or getattr(prepared, "compiled", None) is None:
        return prepared
    if not _has_gradients(prepared.binding):
        return prepared
    if not prepared.compiled.signature.record_trips and has_dynamic_loops(prepared.compiled):
        prepared = prepare_with_trips(prepared, args)
    prepared.tape_args = (list(args[:n_inputs]), list(args[n_inputs:]))
    return prepared


__all__ = ["prepare", "prepare_for_tape", "prepare_with_trips", "record_in_capture"]
