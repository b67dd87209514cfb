"""The active Tape, and the hooks through which launches are recorded on it."""

from __future__ import annotations

from typing import Any

_active: list = []


def active_tape() -> Any:
    return _active[-1] if _active else None


def push(tape: Any) -> None:
    if _active:
        raise RuntimeError("Warp: a Tape is already active; nested tapes are not supported")
    _active.append(tape)


def pop(tape: Any) -> None:
    if _active and _active[-1] is tape:
        _active.pop()


def record_launch(prepared: Any, buffers: list, new_bases: dict) -> None:
    """Called by every launch that may be recorded, before its outputs are rebound."""
    tape = active_tape()
    if tape is not None:
        tape._record_launch(prepared, buffers, new_bases)


def record_empty_launch(kernel: Any, dim: tuple, args: list, device: Any) -> None:
    tape = active_tape()
    if tape is not None:
        tape._record_empty_launch(kernel, dim, args, device)
