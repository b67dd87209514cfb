"""One lock for the contents of every array: launches, copies and reads from several Python threads.

A launch reads its arrays' buffers, runs the executable (possibly donating the buffers it
rewrites) and rebinds the written arrays. Two threads doing that at once would each start from
the same contents and one thread's writes would be lost; a thread reading ``a.numpy()`` could take
a buffer that a concurrent launch is donating (and freeing). Every such step (an array's buffer
read or replaced, ``wp.launch``, ``Launch.launch``, ``wp.copy``, graph replay, ``Tape.backward``)
holds :data:`state_lock`, so concurrent work gives the result of some serial order, and a buffer a
thread holds always has one more reference than the launch's donation check allows (it is never
donated). JAX dispatch is asynchronous, so the lock is held for the dispatch, not the computation.
The lock is reentrant: a launch reads buffers through the same lock.

Example:
    >>> import threading, jwarp as wp
    >>> @wp.kernel
    ... def bump(a: wp.array(dtype=float)):
    ...     i = wp.tid()
    ...     a[i] = a[i] + 1.0
    >>> a = wp.zeros(4)
    >>> def work():
    ...     for _ in range(10):
    ...         wp.launch(bump, dim=4, inputs=[a])
    >>> threads = [threading.Thread(target=work) for _ in range(4)]
    >>> for t in threads: t.start()
    >>> for t in threads: t.join()
    >>> a.numpy()
    array([40., 40., 40., 40.], dtype=float32)
"""

from __future__ import annotations

import functools
import threading
from typing import Callable, TypeVar

state_lock = threading.RLock()

F = TypeVar("F", bound=Callable)


def exclusive(fn: F) -> F:
    """Run ``fn`` holding :data:`state_lock`."""

    @functools.wraps(fn)
    def locked(*args, **kwargs):
        with state_lock:
            return fn(*args, **kwargs)

    return locked  # type: ignore[return-value]


__all__ = ["exclusive", "state_lock"]
