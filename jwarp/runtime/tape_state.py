"""The active Tape, and the hooks through which launches are recorded on it."""

from __future__ import annotations

from typing import Any

_active: list = []


def active_tape() -> Any:
    return _active[-1] if _active else None


def push(tape: Any) -> None:
    if _active:
        raise RuntimeError("Warp: Error, entering a tape while one is already active")
    _active.append(tape)


def pop(tape: Any) -> None:
    if _active and _active[-1] is tape:
        _active.pop()


def record_launch(prepared: Any, buffers: list, new_bases: dict, diagnostics: dict | None = None) -> None:
    """Called by every launch that may be recorded, before its outputs are rebound."""
    tape = active_tape()
    if tape is not None:
        tape._record_launch(prepared, buffers, new_bases, diagnostics)


def for_tape(prepared: Any, args: list, n_inputs: int) -> Any:
    """The launch to run while a tape records. Kernels with run-time loop bounds whose arrays
    carry gradients run a variant that also measures each loop's trip count (used to make
    the loop reverse-differentiable in the backward pass). The launch remembers its
    arguments (inputs, outputs) for the tape's Warp-style ``launches`` entries."""
    tape = active_tape()
    if tape is None or getattr(prepared, "compiled", None) is None:
        return prepared
    if not any(b._grad is not None for b in prepared.binding.bases):
        return prepared
    from jwarp.runtime.differentiable import has_dynamic_loops

    if not prepared.compiled.signature.record_trips and has_dynamic_loops(prepared.compiled):
        from jwarp.runtime.launch import prepare

        prepared = prepare(prepared.kernel, prepared.dim, args, prepared.device, prepared.block_dim,
                           prepared.max_blocks, options={"record_trips": True})
    prepared.tape_args = (list(args[:n_inputs]), list(args[n_inputs:]))
    return prepared


def record_empty_launch(kernel: Any, dim: tuple, args: list, device: Any) -> None:
    tape = active_tape()
    if tape is not None:
        tape._record_empty_launch(kernel, dim, args, device)


def copy_gradients(dest: Any, src: Any, dest_offset: int, src_offset: int, count: int, before: tuple) -> None:
    """After ``wp.copy(dest, src)`` (also ``assign``/``clone``), as in Warp: when both arrays
    have gradients, copy ``src.grad``'s region into ``dest.grad`` and, under a tape, record
    the copy so the backward pass moves ``dest``'s adjoint back to ``src``.
    ``before`` holds the (dest root, src root) buffers the copy read."""
    if getattr(src, "grad", None) is None or getattr(dest, "grad", None) is None:
        return
    from jwarp.runtime.copying import copy_elements

    copy_elements(dest.grad, src.grad, dest_offset, src_offset, count)
    tape = active_tape()
    if tape is not None:
        tape._record_copy(dest, src, dest_offset, src_offset, count, before)
        check_copy_access(tape, dest, src)


def check_copy_access(tape: Any, dest: Any, src: Any) -> None:
    """``wp.config.verify_autograd_array_access``: a recorded copy writes ``dest`` and reads ``src``
    (see read_flags.py); a warning names the user's line that made the copy."""
    from jwarp import config

    if not config.verify_autograd_array_access:
        return
    if dest._is_read:
        import os

        import jwarp
        from jwarp.runtime.read_flags import caller_location

        filename, lineno = caller_location(os.path.dirname(jwarp.__file__) + os.sep)
        if filename is not None:
            dest.mark_write(operation="an array copy", filename=filename, lineno=lineno)
        else:
            dest.mark_write()
    src.mark_read()
    tape._access_arrays.extend((dest, src))


def check_launch(kernel: Any, compiled: Any, args: list) -> None:
    """After a launch while a tape records: Warp's write-after-read check (read_flags.py)."""
    from jwarp import config

    tape = active_tape()
    if tape is None or not config.verify_autograd_array_access or compiled is None:
        return
    from jwarp.runtime.read_flags import check_launch_access

    check_launch_access(kernel, compiled, args)
    tape._access_arrays.extend(a for a in args if getattr(a, "_jwarp_array", False))
