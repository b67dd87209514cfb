"""How a kernel's ahead-of-time compiled programs are called: with a fallback for operands of other
types (:func:`compiled_first`), checked for copies that donation caused (:func:`copies_a_parameter`),
and, for donating programs, started with quick-to-compile code and compiled again once hot.

XLA:CPU's older emitters compile straight-line kernels in about half the time of its default fusion
emitters (:mod:`jwarp.compiler.emitters`), which suits kernels launched a few times (tests, one-off
launches). Writing a donated buffer in place, though, their loops are neither hoisted nor vectorised:
over 2^20 lanes on one core, saxpy took 413 us against 132 us with the default emitters, and Warp's
wave-displace kernel 4.3 against 1.1 ms. :class:`Tiered` runs the first program and swaps in the
default emitters' program at its :data:`TIER_AFTER`-th run.

Example:
    >>> t = Tiered(lambda *a: "first", lambda args: (lambda *a: "again"))
    >>> [t() for _ in range(TIER_AFTER)][-2:]
    ['first', 'again']
"""

from __future__ import annotations

import re
from typing import Any, Callable

TIER_AFTER = 16
"""Runs of a donating program compiled with XLA:CPU's older emitters after which it is compiled
again with the default ones (see :class:`Tiered`)."""


class Tiered:
    """A donating program compiled with the older emitters, which compile straight-line kernels
    quickly (:mod:`jwarp.compiler.emitters`) but write a donated buffer in place without hoisting or
    vectorising the loop (2^20 lanes, one core: saxpy 413 against 132 us, Warp's wave-displace
    kernel 4.3 against 1.1 ms). At its :data:`TIER_AFTER`-th run it is compiled again with XLA's
    default emitters (``upgrade(args)``, None or failing: the first program stays), so only kernels
    launched often pay the second compile."""

    __slots__ = ("call", "runs", "upgrade")

    def __init__(self, call: Callable, upgrade: Callable[[tuple], Callable | None]) -> None:
        self.call, self.runs, self.upgrade = call, 0, upgrade

    def __call__(self, *args: Any) -> Any:
        self.runs += 1
        if self.runs == TIER_AFTER:
            try:
                self.call = self.upgrade(args) or self.call
            except Exception:  # noqa: BLE001 - a program that does not compile again: keep the first
                pass
        return self.call(*args)


def compiled_first(ahead: Any, fallback: Callable[[], Callable]) -> Callable:
    """Call the ahead-of-time compiled program, or ``fallback()``'s jitted program for operands of
    other types (the compiled program refuses them with a ``TypeError`` before running, so nothing
    was donated)."""

    def call(*args: Any) -> Any:
        try:
            return ahead(*args)
        except TypeError:
            return fallback()(*args)

    return call


COPY_LIMIT = 1 << 16
"""Bytes of parameters a donating program may copy and still be used (see :func:`copies_a_parameter`):
a copy of 64 KiB costs a few microseconds a launch, compiling the plain program instead about as long
as the first compile (1.7 s for Warp's ``example_mesh`` simulation kernel)."""

_BYTES = {"pred": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2, "s32": 4, "u32": 4, "f32": 4,
          "s64": 8, "u64": 8, "f64": 8, "c64": 8, "c128": 16}


def copies_a_parameter(compiled: Any, limit: int = 0) -> bool:
    """Whether the compiled program copies more than ``limit`` bytes of its entry parameters (from
    its optimized HLO).

    Without donation no output shares a parameter's buffer, so a parameter copy in the donating
    program is one that donation itself caused."""
    text = compiled.as_text()
    entry = text[text.rfind("\nENTRY ") :]
    params = dict(re.findall(r"^\s*(%\S+) = (\w+\[[\d,]*\])[^\n]*? parameter\(", entry, re.MULTILINE))
    copied = 0
    for name in set(re.findall(r" copy\((%[^),]+)\)", entry)) & params.keys():
        dtype, dims = params[name][:-1].split("[")
        size = _BYTES.get(dtype, 8)
        for d in filter(None, dims.split(",")):
            size *= int(d)
        copied += size
        if copied > limit:
            return True
    return False


__all__ = ["COPY_LIMIT", "TIER_AFTER", "Tiered", "compiled_first", "copies_a_parameter"]
