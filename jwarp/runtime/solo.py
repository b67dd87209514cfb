"""Lone launches: a launch that something observes before the next one runs at once, not deferred.

A chainable ``wp.launch`` joins the pending launch chain (:mod:`jwarp.runtime.chain`), which pays
off when several launches come before a synchronisation. A program that launches once and then
synchronises or reads an array (a notebook cell, an example whose step is one launch) only pays
for the deferral: the bookkeeping of a chain, then running it as a chain of one (measured: a
100-lane launch and ``wp.synchronize()``, 33 -> 22 µs on one core). So after :data:`AFTER` chains in
a row that held a single launch when they ran, launches run at once: *lone* mode. After each lone
launch a marker (:data:`MARK`, pending work that does nothing) is left as the pending work, so that
whatever observes the arrays next (a read of a buffer, a synchronisation, any other pending work)
clears it. A launch that still finds the marker comes right after another launch with nothing in
between: lone mode ends and that launch is deferred again.

Example:
    >>> from jwarp.runtime import solo
    >>> solo.chain_ran(2)  # a chain of two launches ran: launches keep being deferred
    >>> solo.lone()
    False
"""

from __future__ import annotations

from jwarp.runtime import deferred

AFTER = 2
"""Chains of a single launch in a row after which launches run at once."""


class _Mark:
    """Pending work that is none (see the module docstring)."""

    @staticmethod
    def run_deferred(count: int) -> None:
        return None


MARK = _Mark()
_streak = 0  # chains in a row that held one launch when they ran


def chain_ran(length: int) -> None:
    """Note that a chain of ``length`` launches ran."""
    global _streak
    _streak = _streak + 1 if length == 1 else 0


def lone() -> bool:
    """Whether the launch being made runs at once (the caller holds ``state_lock``). Ends lone mode
    when the previous launch's marker is still pending (two launches with nothing in between)."""
    global _streak
    if _streak < AFTER:
        return False
    batch = deferred.pending
    if batch is not None and batch[0] is MARK:
        _streak = 0
        deferred.pending = None  # (the marker's work is none)
        return False
    return True


def ran_lone() -> None:
    """Leave the marker after a lone launch ran (nothing else is pending: the launch ran it first)."""
    if deferred.pending is None:
        deferred.pending = [MARK, 1]


def reset() -> None:
    """Back to deferring, the marker dropped (``chain.reset``: tests)."""
    global _streak
    _streak = 0
    if deferred.pending is not None and deferred.pending[0] is MARK:
        deferred.pending = None


__all__ = ["AFTER", "MARK", "chain_ran", "lone", "ran_lone", "reset"]
