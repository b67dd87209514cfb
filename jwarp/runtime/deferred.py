"""Deferred replays of ``Launch`` objects: repeated ``cmd.launch()`` calls become one XLA call.

A ``Launch.launch()`` that may be deferred (see :meth:`jwarp.runtime.commands.Launch.launch`) does
not run at once: it becomes the *pending batch* ``[launch, count]``, and the launches that follow
on the same ``Launch`` object only increase ``count``. Anything that could observe the arrays runs
the batch first (:func:`flush`): reading or replacing any array's buffer (``array._buffer``, which
every path to an array's contents goes through — ``numpy()``, other launches, copies, tapes,
interop), ``wp.synchronize*``, events, the start of a graph capture, and the Launch's setters. So
every observable result is the one of running the launches one by one, in order; what changes is
that the Python work of each replay is a counter increment, and a batch of many replays runs as one
executable call (a loop over the kernel, built once per compiled kernel, see ``commands``).

Like an asynchronous GPU launch, an error a deferred launch raises (a freed array) surfaces when
the batch runs.

Example:
    >>> from jwarp.runtime import deferred
    >>> deferred.flush()  # nothing pending: no effect
"""

from __future__ import annotations

from typing import Any

from jwarp.runtime.locking import state_lock

# The pending batch: [launch, count] (launch has run_deferred(count)), or None.
pending: list | None = None


def flush() -> None:
    """Run the pending batch, if any (the caller may hold ``state_lock``)."""
    global pending
    if pending is None:
        return
    with state_lock:
        batch = pending
        pending = None  # first: the batch's own buffer reads must not flush again
        if batch is not None:
            batch[0].run_deferred(batch[1])


def defer(launch: Any) -> None:
    """Make ``launch`` the pending batch (one launch), after running any other pending batch.
    The caller holds ``state_lock``."""
    global pending
    if pending is not None:
        flush()
    pending = [launch, 1]


__all__ = ["defer", "flush", "pending"]
