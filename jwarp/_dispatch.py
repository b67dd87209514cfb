"""Synchronous CPU dispatch, as Warp's CPU launches are.

Warp runs a CPU kernel before ``wp.launch`` returns. JAX's CPU client dispatches asynchronously by
default, which costs a thread hand-off per call (measured on a 2-core machine: a 1024-element
launch 7.5 µs asynchronous, 4.1 µs synchronous; large kernels are unaffected) and makes a
launch's errors and timings appear later. jwarp therefore asks JAX for synchronous CPU dispatch
when it is imported, which only takes effect if JAX's CPU backend has not started yet (import
jwarp before running JAX code). It applies to the whole process, the program's own JAX code
included. Set the environment variable ``JWARP_CPU_ASYNC_DISPATCH=1`` to keep JAX's default.
"""

import os

import jax

ASYNC = os.environ.get("JWARP_CPU_ASYNC_DISPATCH", "0").lower() not in ("", "0", "false", "no")


def _backend_started() -> bool:
    """Whether JAX created its backends before jwarp was imported (then the dispatch mode is JAX's)."""
    try:
        from jax._src import xla_bridge

        return bool(xla_bridge.backends_are_initialized())
    except (ImportError, AttributeError):  # a JAX without this helper: assume the worst
        return True


# Whether CPU executables run to their end inside the call that dispatches them (this process's
# mode: asked for here, effective only when JAX's backends start after this import).
SYNC_CPU = not ASYNC and not _backend_started()

if not ASYNC:
    jax.config.update("jax_cpu_enable_async_dispatch", False)
