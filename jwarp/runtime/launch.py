"""``wp.launch``: the dispatcher at the top of the runtime — all or nothing.

It resolves the launch device, ``block_dim`` and ``dim`` (:mod:`~jwarp.runtime.launch_config`)
and, holding ``state_lock`` once for the whole launch, sends it to one of:

- an open graph capture (recorded, runs at replay);
- a ``wp.Launch`` object (``record_cmd=True``, :mod:`~jwarp.runtime.commands`);
- the adjoint launch (``adjoint=True``, :mod:`~jwarp.runtime.adjoint`);
- a launch plan of an earlier identical launch (:mod:`~jwarp.runtime.fastpath`);
- the full path: :func:`~jwarp.runtime.preparation.prepare` then the execution core
  (:mod:`~jwarp.runtime.execution`), which compiles once per signature. Nothing is rebound until the
  executable has finished and its diagnostics have passed, so a launch that raises leaves every
  array unchanged.

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

from typing import Any, Sequence

from jwarp import config
from jwarp.runtime import capture, fastpath
from jwarp.runtime.adjoint import adjoint_launch
from jwarp.runtime.binding import bind_arguments
from jwarp.runtime.commands import Launch
from jwarp.runtime.device import get_device
from jwarp.runtime.kernel import Kernel
from jwarp.runtime.launch_config import (
    check_launch_config,
    launch_device,
    normalize_dim,
    resolve_block_dim,
)
from jwarp.runtime.locking import state_lock
from jwarp.runtime.preparation import prepare, prepare_for_tape, record_in_capture
from jwarp.runtime.tape_state import active_tape, check_launch, record_empty_launch


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
    with state_lock:  # once per launch: bind, execute and rebind as one step (see locking.py)
        if total == 0:  # as in Warp: no validation, but an active Tape still records the launch
            if record_tape:
                record_empty_launch(kernel, dim, args, device)
            return None
        if capture.recording(device) and not record_cmd:
            if adjoint:
                capture.refuse(f"The adjoint launch of kernel '{kernel.key}'")
            record_in_capture(kernel, dim, args, device, block_dim, max_blocks)
            return None
        tape = active_tape() if record_tape else None
        key = None if adjoint or record_cmd else fastpath.launch_key(dim, device, block_dim, max_blocks, args)
        if key is not None and _run_plan(kernel, key, args, len(inputs), tape):
            return None
        check_launch_config(kernel, device, block_dim, max_blocks)
        if adjoint:
            adj_args = [*adj_inputs, *adj_outputs]
            if record_cmd:
                bind_arguments(kernel, args, device)
                return Launch(kernel, device, bounds=dim, max_blocks=max_blocks, block_dim=block_dim, adjoint=True,
                              fwd_args=args, adj_args=adj_args)
            return adjoint_launch(kernel, dim, args, adj_args, device, block_dim)
        prepared = prepare(kernel, dim, args, device, block_dim, max_blocks, taped=tape is not None and not record_cmd,
                           bucket=not record_cmd)
        if record_cmd:
            return Launch(kernel, device, bounds=dim, max_blocks=max_blocks, block_dim=block_dim, fwd_args=args,
                          prepared=prepared)
        if tape is not None:
            prepared = prepare_for_tape(prepared, args, len(inputs))
        prepared.run(record_tape=record_tape)
        if tape is not None:
            check_launch(kernel, getattr(prepared, "compiled", None), args)
        if key is not None:
            fastpath.remember(kernel, key, prepared, args)
    return None


def _run_plan(kernel: Kernel, key: tuple, args: list, n_inputs: int, tape: Any) -> bool:
    """Run the launch with the plan of an earlier identical launch, if there is one that can."""
    plan = fastpath.plans_of(kernel).get(key) or fastpath.find_by_layout(kernel, key, args)
    if plan is None:
        return False
    if tape is None:
        return plan.run(args)
    if plan.tape_ok and plan.run_taped(args, n_inputs, tape):
        check_launch(kernel, plan.compiled, args)
        return True
    return False


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


__all__ = ["launch", "launch_tiled"]
