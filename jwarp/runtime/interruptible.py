"""Long CPU launches that Ctrl-C can interrupt.

jwarp dispatches CPU work synchronously (:mod:`jwarp._dispatch`, as Warp runs a CPU kernel before
``wp.launch`` returns), so the executable call of a CPU launch computes inside C++ where Python
cannot deliver ``KeyboardInterrupt`` until it returns. A launch whose previous run took longer than
``wp.config.interruptible_launch_seconds`` (and the first run of every program, which also
compiles) therefore runs its executable on a worker thread while the main thread waits in an
interruptible wait. On Ctrl-C the wait raises ``KeyboardInterrupt`` at once and **the launch does not
happen**: its arrays keep their contents (the run worked on copies of the buffers it writes, see
:class:`jwarp.runtime.execution.Program`); the computation itself cannot be cancelled by XLA and
finishes on the worker thread, its results dropped. Later launches queue behind it.

Only the main thread receives ``KeyboardInterrupt``, so only its launches take this path; launches
from other threads (and all runs below the threshold) call the executable directly. While an
interrupted computation still runs, every launch from the main thread queues behind it on the worker
(XLA:CPU would make a direct call wait for it, uninterruptibly). A program whose run time grows by
orders of magnitude from one launch to the next (a loop count passed at launch) is called directly on
its first long run; with ``JWARP_CPU_ASYNC_DISPATCH=1`` every CPU launch returns at once and every
wait for its results (``wp.synchronize()``, ``.numpy()``) is interruptible.

Example:
    >>> from jwarp.runtime.interruptible import call_interruptibly
    >>> call_interruptibly(sum, [1, 2, 3])
    6
"""

from __future__ import annotations

import queue
import threading
from typing import Any, Callable


class _Call:
    __slots__ = ("fn", "args", "done", "result", "error")

    def __init__(self, fn: Callable, args: tuple):
        self.fn = fn
        self.args = args
        self.done = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None


_work: queue.SimpleQueue = queue.SimpleQueue()
_in_flight = 0  # calls queued or running on the worker
_worker: threading.Thread | None = None
_start_lock = threading.Lock()


def _serve() -> None:
    global _in_flight
    while True:
        call = _work.get()
        try:
            call.result = call.fn(*call.args)
        except BaseException as exc:  # handed to the waiting caller (if it still waits)
            call.error = exc
        finally:
            call.fn = call.args = None
            with _start_lock:
                _in_flight -= 1
            call.done.set()


def _ensure_worker() -> None:
    global _worker
    with _start_lock:
        if _worker is None or not _worker.is_alive():
            # a daemon: an interrupted computation still running does not keep the interpreter alive
            _worker = threading.Thread(target=_serve, name="jwarp-launch", daemon=True)
            _worker.start()


def call_interruptibly(fn: Callable, *args: Any) -> Any:
    """``fn(*args)`` run on jwarp's launch worker thread; the caller waits interruptibly (Ctrl-C
    raises ``KeyboardInterrupt`` here while ``fn`` runs on to its end, its result dropped).
    Exceptions of ``fn`` are re-raised in the caller."""
    global _in_flight
    _ensure_worker()
    call = _Call(fn, args)
    with _start_lock:
        _in_flight += 1
    _work.put(call)
    call.done.wait()  # a lock acquire: interrupted by signals on POSIX
    result, error = call.result, call.error
    call.result = call.error = None  # (the worker's last call must not keep the outputs referenced:
    if error is not None:            # a buffer held elsewhere is never donated)
        raise error
    return result


def worker_busy() -> bool:
    """Whether the worker still runs (or has queued) a call, e.g. one whose caller was interrupted:
    then every launch should queue behind it through :func:`call_interruptibly` (a direct executable
    call would wait for it without being interruptible)."""
    return _in_flight > 0


def on_main_thread() -> bool:
    """Whether the calling thread is the one Python delivers ``KeyboardInterrupt`` to."""
    return threading.current_thread() is threading.main_thread()


__all__ = ["call_interruptibly", "on_main_thread", "worker_busy"]
