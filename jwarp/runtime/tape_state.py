"""The active Tape, and the hooks through which launches are recorded on it."""

from __future__ import annotations

from typing import Any

from jwarp import config
from jwarp.runtime.read_flags import check_launch_access

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


def record_empty_launch(kernel: Any, dim: tuple, args: list, device: Any) -> None:
    tape = active_tape()
    if tape is not None:
        tape._record_empty_launch(kernel, dim, args, device)


def check_launch(kernel: Any, compiled: Any, args: list) -> None:
    """After a launch while a tape records: Warp's write-after-read check (read_flags.py)."""
    tape = active_tape()
    if tape is None or not config.verify_autograd_array_access or compiled is None:
        return
    check_launch_access(kernel, compiled, args)
    tape._access_arrays.extend(a for a in args if getattr(a, "_jwarp_array", False))
