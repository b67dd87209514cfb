"""Waiting for device results in a way Ctrl-C can interrupt.

``jax.Array.block_until_ready()`` and ``numpy.asarray(jax_array)`` wait inside C++, where Python
cannot deliver ``KeyboardInterrupt`` until the computation ends. :func:`wait_ready` waits in Python
instead: it polls ``is_ready()`` (spinning briefly, then sleeping with a growing pause of at most
10 ms), so a long launch being waited for by ``wp.synchronize()`` or ``array.numpy()`` can be
interrupted. This holds wherever dispatch is asynchronous (CUDA devices, the CPU with
``JWARP_CPU_ASYNC_DISPATCH=1``, and CPU launches whose inputs were still being computed when they
were dispatched). jwarp's default synchronous CPU dispatch runs a CPU launch to its end inside
``wp.launch``, as Warp does; long CPU launches are made interruptible there by
:mod:`jwarp.runtime.interruptible`. The computation itself keeps running on the device after the
interrupt (XLA cannot cancel it); the arrays it writes stay as they were until it completes.

Example:
    >>> import jax.numpy as jnp
    >>> from jwarp.runtime.waiting import wait_ready
    >>> wait_ready(jnp.ones(3))
"""

from __future__ import annotations

import time
from typing import Any

import jax

_SPIN_SECONDS = 2e-4
_LONGEST_PAUSE = 1e-2


def _pending(values: Any) -> list:
    return [x for x in jax.tree_util.tree_leaves(values)
            if callable(getattr(x, "is_ready", None)) and not isinstance(x, jax.core.Tracer) and not x.is_ready()]


def wait_ready(values: Any) -> None:
    """Return once every array in ``values`` (a pytree of ``jax.Array``, or anything with ``is_ready()``)
    is computed; interruptible."""
    pending = _pending(values)
    if not pending:
        return
    start = time.perf_counter()
    pause = 1e-5
    while pending:
        if time.perf_counter() - start > _SPIN_SECONDS:
            time.sleep(pause)
            pause = min(pause * 2, _LONGEST_PAUSE)
        pending = [x for x in pending if not x.is_ready()]


__all__ = ["wait_ready"]
