"""``wp.launch``: resolve the device, validate and pack arguments, run the cached executable,
rebind written arrays — all or nothing.

A launch is compiled once per signature (kernel, argument types and shapes, grid,
device, options) and cached on the kernel; later launches only pack arguments and call
the jitted executable. Nothing is rebound until the executable has finished and its
diagnostics (debug-mode bounds checks, ``verify_fp``) have passed, so a launch that
raises leaves every array unchanged.

Example:
    >>> import numpy as np, jwarp as wp
    >>> @wp.kernel
    ... def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    ...     i = wp.tid()
    ...     y[i] = a * x[i] + y[i]
    >>> x = wp.array(np.arange(4, dtype=np.float32)); y = wp.ones(4)
    >>> wp.launch(saxpy, dim=4, inputs=[2.0, x, y])
    >>> y.numpy()
    array([1., 3., 5., 7.], dtype=float32)
"""

from __future__ import annotations

import math
import operator
import time
from typing import Any, Sequence

import jax
import numpy as np

from jwarp import config
from jwarp.compiler.kernel_compile import CompiledKernel, compile_kernel
from jwarp.compiler.signature import Signature
from jwarp.errors import _Located, clean_error
from jwarp.runtime import capture, compile_cache, fastpath, storage
from jwarp.runtime.binding import Binding, bind_arguments
from jwarp.runtime.device import Device, get_device
from jwarp.runtime.kernel import Kernel
from jwarp.runtime.locking import exclusive
from jwarp.runtime.streams import Stream
from jwarp.runtime.tape_state import active_tape, check_launch

LAUNCH_MAX_DIMS = 4


def normalize_dim(dim: Any) -> tuple[tuple[int, ...], int]:
    """Warp's launch-dimension rules: an int or a sequence of at most 4 non-negative ints (numpy
    integers accepted); ``()`` is one thread. Non-integers raise ``TypeError``, negative extents
    and more than 4 dimensions ``ValueError``."""
    if isinstance(dim, int):
        out = (dim,)
    elif isinstance(dim, tuple) and all(isinstance(d, int) for d in dim):
        out = dim
    else:
        try:
            items = iter(dim)
        except TypeError:
            out = (operator.index(dim),)
        else:
            out = tuple(d if isinstance(d, int) else operator.index(d) for d in items)
    if len(out) > LAUNCH_MAX_DIMS:
        raise ValueError(f"Launch dimensions must have at most {LAUNCH_MAX_DIMS} dimensions")
    total = 1
    for d in out:
        if d < 0:
            raise ValueError("Launch dimensions must be non-negative")
        total *= d
    return out, total


def launch_grid(dim: tuple[int, ...], kernel_dim: int) -> tuple[int, ...]:
    """Lane grid for ``dim``: padded with 1s to the kernel's tid rank; extra dims fold into one
    trailing axis whose lanes share coordinates (Warp's ``coord_mult``)."""
    padded = dim + (1,) * max(0, kernel_dim - len(dim))
    kept, extras = padded[:kernel_dim], padded[kernel_dim:]
    if extras:
        return kept + (int(np.prod(extras)),)
    return kept


def resolve_block_dim(device: Device, block_dim: int | None) -> int:
    """Warp 1.19: None/non-positive → 1 on CPU, 256 elsewhere; on CPU values above 1 apply only with
    ``config.enable_cpu_blocks`` and values above 1024 raise ``ValueError``."""
    default = 1 if device.is_cpu else 256
    if block_dim is None or block_dim <= 0:
        return default
    if not device.is_cpu:
        return int(block_dim)
    if block_dim > 1024:
        raise ValueError(f"block_dim must be at most 1024 on CPU, got {block_dim}")
    return int(block_dim) if config.enable_cpu_blocks else 1


def overload_signature(params: Sequence) -> str:
    """A generic kernel's instantiated signature, from its bound parameter specs."""
    from jwarp.lang.arrays import type_name

    def describe(spec: Any) -> str:
        if hasattr(spec, "dtype") and hasattr(spec, "shape"):
            return f"array({type_name(spec.dtype)},{len(spec.shape)})"
        if hasattr(spec, "dtype") and hasattr(spec, "ndim"):
            return f"array({type_name(spec.dtype)},{spec.ndim})"
        return type_name(getattr(spec, "type", spec))

    return ",".join(describe(p) for p in params)


def _aval_key(buf: Any) -> Any:
    if isinstance(buf, tuple):
        return tuple(_aval_key(b) for b in buf)
    return (buf.shape, buf.dtype.str)


class PreparedLaunch:
    """A launch with validated arguments and a compiled executable, ready to run."""

    def __init__(self, kernel: Kernel, dim: tuple, device: Device, binding: Binding, compiled: CompiledKernel,
                 block_dim: int, max_blocks: int):
        self.kernel = kernel
        self.dim = dim
        self.device = device
        self.binding = binding
        self.compiled = compiled
        self.block_dim = block_dim
        self.max_blocks = max_blocks

    def input_buffers(self) -> list:
        out = []
        for base in self.binding.bases:
            buf = base.buffer
            if base.device is not self.device:
                buf = _move(buf, self.device)  # RELAXED: foreign arrays travel to the launch device
            out.append(buf)
        return out

    def run(self, record_tape: bool = True) -> None:
        compiled = self.compiled
        buffers = self.input_buffers()
        if self._may_donate(record_tape) and fastpath.sole_owners(buffers, tuple(enumerate(compiled.written))):
            # the executable later launches (plans, Launch objects) use too: a kernel compiles once
            exe = compiled.executable(donate=True, operands=[*buffers, *self.binding.values])
        else:
            exe = compiled.executable()
        try:
            if compiled.uses_x64:
                with storage.x64():
                    flat = exe(*buffers, *self.binding.values)
            else:
                flat = exe(*buffers, *self.binding.values)
        except Exception as exc:
            check_alive(self.kernel, self.binding, exc)
            raise
        new_bases, diagnostics = compiled.split_outputs(flat)
        self._check(new_bases, diagnostics)
        if record_tape:
            from jwarp.runtime.tape_state import record_launch

            record_launch(self, buffers, new_bases, diagnostics)
        self.commit(new_bases)

    def _may_donate(self, record_tape: bool) -> bool:
        """Whether this launch may donate the buffers it rewrites (when nothing else holds them): not
        while a tape records (it keeps the inputs), nor when diagnostics could still fail the launch
        after the executable ran (a failed launch changes no array), nor for foreign-device arrays."""
        compiled = self.compiled
        if not (config.donate_buffers and compiled.written) or compiled.diagnostic_keys or config.verify_fp:
            return False
        if record_tape and active_tape() is not None:
            return False
        return all(base.device is self.device for base in self.binding.bases)

    def _check(self, new_bases: dict, diagnostics: dict) -> None:
        check_sites(self.kernel.key, self.compiled.sites, diagnostics)
        if config.verify_fp:
            report_non_finite(self.kernel, self.binding, new_bases)

    def commit(self, new_bases: dict) -> None:
        for index, buf in new_bases.items():
            base = self.binding.bases[index]
            if base.device is not self.device:
                buf = _move(buf, base.device)
            base._set_buffer(buf)


def report_non_finite(kernel: Kernel, binding: Binding, new_bases: dict) -> None:
    """``wp.config.verify_fp``: print, as Warp does, each written array that holds NaN or Inf
    (the launch still completes and its results are kept)."""
    for index, buf in new_bases.items():
        nan = inf = 0
        for part in buf if isinstance(buf, tuple) else (buf,):
            if np.issubdtype(part.dtype, np.floating):
                values = np.asarray(part)
                nan += int(np.isnan(values).sum())
                inf += int(np.isinf(values).sum())
        if nan or inf:
            name = next((n for n, a in binding.arrays if a.root is binding.bases[index]), "?")
            found = ", ".join(f"{count} {what}" for what, count in (("nan", nan), ("inf", inf)) if count)
            print(f"Warp verify_fp: kernel '{kernel.key}' wrote non-finite values to array '{name}' ({found})",
                  flush=True)


def check_sites(kernel_key: str, sites: tuple, diagnostics: dict) -> None:
    """Raise for a site flag a launch reported: an out-of-bounds access (debug mode, ``IndexError``) or a
    loop that never ends (``RuntimeError``); both name the kernel, file and line."""
    for flag in ("oob", "hang"):
        if flag not in diagnostics:
            continue
        site = int(diagnostics[flag])
        if site < 0:
            continue
        where = sites[site].format().replace("Error while parsing function", "in function") if sites[site] else ""
        if flag == "oob":
            raise IndexError(f"Out-of-bounds array access in kernel '{kernel_key}' {where}")
        raise RuntimeError(
            f"Kernel '{kernel_key}' never finishes: a thread's while loop makes no progress (its state stops "
            f"changing while its condition still holds, even with threads run one at a time) {where}"
        )


def _move(buf: Any, device: Device) -> Any:
    with storage.x64():
        if isinstance(buf, tuple):
            return tuple(jax.device_put(b, device.jax_device) for b in buf)
        return jax.device_put(buf, device.jax_device)


def prepare(kernel: Kernel, dim: tuple, args: list, device: Device, block_dim: int = 1, max_blocks: int = 0,
            options: dict | None = None) -> PreparedLaunch:
    """Validate arguments and fetch (or compile) the executable for this launch."""
    kernel.check_current()
    binding = bind_arguments(kernel, args, device)
    if kernel.is_generic:
        kernel.note_overload(overload_signature(binding.params))
    grid = launch_grid(dim, kernel.kernel_dim)
    tile_blocks: tuple = ()
    if block_dim > 1 and kernel.uses_tiles:  # keep the lane dimension: tile ops need each block's threads
        grid = tuple(dim) + (1,) * max(0, kernel.kernel_dim - len(dim))
        if grid[-1] != block_dim:  # blocks span rows of the grid: lanes (blocks, block_dim), see kernel_compile
            tile_blocks = (("tile_blocks", grid),)
            grid = (-(-math.prod(grid) // block_dim), block_dim)
    opts = options or {}
    module_options = kernel.module.options
    mode = module_options.get("mode") or config.mode
    chunk = opts.get("chunk") or chunk_size(kernel, device, block_dim, max_blocks, math.prod(grid))
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
        + tile_blocks,
        handles=binding.handles,
    )
    if binding.traced:  # inside jax.jit/grad/vmap: run the kernel functionally on the traced values
        from jwarp.interop.traced_launch import TracedLaunch

        return TracedLaunch(kernel, dim, device, binding, sig, block_dim, max_blocks)
    buffers = [b.buffer for b in binding.bases]
    key = (sig, tuple(_aval_key(b) for b in buffers), device.alias)
    compiled = kernel._cache.get(key)
    if compiled is None:
        compile_cache.enable()
        started = time.perf_counter()
        try:
            compiled = compile_kernel(kernel.source, kernel.arg_names, sig, [*buffers, *binding.values])
        except _Located as exc:
            raise clean_error(exc) from None
        kernel._cache[key] = compiled
        if config.verbose:
            print(f"Kernel '{kernel.key}' traced for dim={dim} on device '{device}' took "
                  f"{(time.perf_counter() - started) * 1000:.2f} ms")
    return PreparedLaunch(kernel, dim, device, binding, compiled, block_dim, max_blocks)


@exclusive
def launch(
    kernel: Kernel,
    dim: int | Sequence[int],
    inputs: Sequence = (),
    outputs: Sequence = (),
    adj_inputs: Sequence = (),
    adj_outputs: Sequence = (),
    device: Any = None,
    stream: Any = None,
    adjoint: bool = False,
    record_tape: bool = True,
    record_cmd: bool = False,
    max_blocks: int = 0,
    block_dim: int | None = None,
):
    """Run ``kernel`` over a grid of ``dim`` threads (Warp's ``wp.launch``).

    ``inputs`` and ``outputs`` are concatenated and matched to the kernel's parameters.
    With ``adjoint=True`` the kernel's adjoint runs, with ``adj_inputs``/``adj_outputs``
    aligned to the parameters; with ``record_cmd=True`` a :class:`Launch` is returned
    instead of running.
    """
    device = launch_device(kernel, device, stream)
    block_dim = resolve_block_dim(device, block_dim)
    if not isinstance(kernel, Kernel):
        raise RuntimeError("Error launching kernel, can only launch functions decorated with @wp.kernel.")
    kernel.check_current()
    if config.print_launches:
        print(f"kernel: {kernel.key} dim: {dim} inputs: {inputs} outputs: {outputs} device: {device}")
    try:
        dim, total = normalize_dim(dim)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"Error launching kernel '{kernel.key}': {exc}") from None
    args = [*inputs, *outputs]
    if total == 0:  # as in Warp: no validation, but an active Tape still records the launch
        if record_tape:
            from jwarp.runtime.tape_state import record_empty_launch

            record_empty_launch(kernel, dim, args, device)
        return None
    if capture.recording(device) and not record_cmd:
        if adjoint:
            capture.refuse(f"The adjoint launch of kernel '{kernel.key}'")
        record_launch_in_capture(kernel, dim, args, device, block_dim, max_blocks)
        return None
    key = None
    tape = active_tape() if record_tape else None
    if not (adjoint or record_cmd):
        key = fastpath.launch_key(dim, device, block_dim, max_blocks, args)
        if key is not None:
            table = fastpath.plans_of(kernel)
            plan = table.get(key) or fastpath.find_by_layout(kernel, key, args)
            if plan is not None:
                if tape is None:
                    if plan.run(args):
                        return None
                elif plan.tape_ok and plan.run_taped(args, len(inputs), tape):
                    check_launch(kernel, plan.compiled, args)
                    return None
    check_launch_config(kernel, device, block_dim, max_blocks)
    if adjoint:
        adj_args = [*adj_inputs, *adj_outputs]
        if record_cmd:
            from jwarp.runtime.commands import Launch

            bind_arguments(kernel, args, device)
            return Launch(kernel, device, bounds=dim, max_blocks=max_blocks, block_dim=block_dim, adjoint=True,
                          fwd_args=args, adj_args=adj_args)
        from jwarp.runtime.adjoint import adjoint_launch

        return adjoint_launch(kernel, dim, args, adj_args, device, block_dim, False)
    prepared = prepare(kernel, dim, args, device, block_dim, max_blocks)
    if record_cmd:
        from jwarp.runtime.commands import Launch

        return Launch(kernel, device, bounds=dim, max_blocks=max_blocks, block_dim=block_dim, fwd_args=args,
                      prepared=prepared)
    if tape is not None:
        from jwarp.runtime.tape_state import for_tape

        prepared = for_tape(prepared, args, len(inputs))
    prepared.run(record_tape=record_tape)
    if tape is not None:
        check_launch(kernel, getattr(prepared, "compiled", None), args)
    if key is not None:
        fastpath.remember(kernel, key, prepared, args)
    return None


def launch_tiled(
    kernel: Kernel,
    dim: int | Sequence[int],
    inputs: Sequence = (),
    outputs: Sequence = (),
    adj_inputs: Sequence = (),
    adj_outputs: Sequence = (),
    device: Any = None,
    stream: Any = None,
    adjoint: bool = False,
    record_tape: bool = True,
    record_cmd: bool = False,
    max_blocks: int = 0,
    block_dim: int | None = None,
):
    """Launch a grid of ``dim`` blocks of ``block_dim`` threads (Warp's ``wp.launch_tiled``).

    Same as ``wp.launch(kernel, dim=[*dim, block_dim], ..., block_dim=block_dim)``: the lane index is
    the trailing launch dimension, so ``i, j = wp.tid()`` gives the block and ``i, j, lane =
    wp.tid()`` the thread. ``block_dim`` is resolved first (1 on CPU unless
    ``wp.config.enable_cpu_blocks``).

    Example:
        >>> wp.launch_tiled(gemm, dim=(M // 64, N // 64), inputs=[A, B, C], block_dim=64)  # doctest: +SKIP
    """
    if block_dim is None and not isinstance(block_dim, int):
        raise RuntimeError(
            "Launch block dimension 'block_dim' argument should be passed via. keyword args for wp.launch_tiled()"
        )
    if stream is not None:
        device = stream.device
    resolved = resolve_block_dim(get_device(device), block_dim)
    dims, _ = normalize_dim(dim)
    if len(dims) > 3:
        raise RuntimeError("wp.launch_tiled() requires a grid with fewer than 4 dimensions")
    return launch(kernel, (*dims, resolved), inputs, outputs, adj_inputs, adj_outputs, device, stream, adjoint,
                  record_tape, record_cmd, max_blocks, resolved)


def record_launch_in_capture(kernel: Kernel, dim: tuple, args: list, device: Device, block_dim: int,
                             max_blocks: int) -> None:
    """Validate the launch now and record it into the open graph capture (it runs at replay)."""
    check_launch_config(kernel, device, block_dim, max_blocks)
    binding = bind_arguments(kernel, args, device)
    args = list(args)

    def replay() -> None:
        prepare(kernel, dim, args, device, block_dim, max_blocks).run(record_tape=False)

    capture.record(replay, binding.bases)


def launch_device(kernel: Any, device: Any, stream: Any) -> Device:
    """The launch device: the stream's device when a stream is given (as in Warp), else ``device``."""
    if stream is None:
        return get_device(device)
    if not isinstance(stream, Stream):
        raise TypeError(
            f"Error launching kernel '{getattr(kernel, 'key', kernel)}': stream must be a wp.Stream, "
            f"got {type(stream).__name__}"
        )
    return stream.device


def check_launch_config(kernel: Kernel, device: Device, block_dim: int, max_blocks: int) -> None:
    """Warp's launch-time rules for ``max_blocks`` / ``block_dim`` on non-CPU devices."""
    if device.is_cpu:
        return
    if max_blocks > 0 and not kernel.grid_stride:
        raise RuntimeError(
            f"Kernel '{kernel.key}' was launched with max_blocks={max_blocks}, but it was compiled without a "
            "grid-stride loop (grid_stride=False); capping the block count requires a grid-stride loop. Opt the "
            'kernel into grid-stride via @wp.kernel(grid_stride=True), the "default_grid_stride" module option, or '
            "wp.config.default_grid_stride=True; or drop max_blocks."
        )
    if block_dim > 1024:
        raise RuntimeError(
            f"Error launching kernel: {kernel.key} on device {device}: block_dim={block_dim} exceeds the maximum of "
            "1024 threads per block"
        )


def chunk_size(kernel: Kernel, device: Device, block_dim: int, max_blocks: int, total: int) -> int:
    """Threads per chunk for ``max_blocks`` on a non-CPU device (0: one pass over the whole grid).

    Warp runs at most ``max_blocks`` blocks of ``block_dim`` threads that stride over the grid;
    jwarp processes the grid in chunks of that many threads, in grid-stride order."""
    if max_blocks <= 0 or device.is_cpu or not kernel.grid_stride:
        return 0
    chunk = max_blocks * block_dim
    return chunk if chunk < total else 0


def check_alive(kernel: Kernel, binding: Binding, exc: Exception) -> None:
    """After a failed dispatch: name the argument whose buffer was deleted, if that is the cause."""
    for base in binding.bases:
        buf = base._buffer
        parts = buf if isinstance(buf, tuple) else (buf,)
        if any(getattr(p, "is_deleted", lambda: False)() for p in parts):
            name = next((n for n, a in binding.arrays if a.root is base), "?")
            raise RuntimeError(
                f"Error launching kernel '{kernel.key}', argument '{name}' is an array whose storage has been "
                "deleted (freed or donated); it can no longer be used"
            ) from exc
