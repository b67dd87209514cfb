"""Shared pytest configuration: run jwarp on the CPU, quiet real Warp, and bound the session's memory.

Every kernel a test module defines stays alive for the whole session (test modules stay imported, and
jwarp's module registry keeps their kernels, as Warp's does), and with it every executable it compiled
and JAX's traces of it. Over the full suite that grew the pytest process to ~6 GB, enough to make
later tests page-cache-starved and slow on a small machine. So after each test module (and after each
differential program, which loads a fresh module per test), once the worker is over RSS_LIMIT_MB, the
compiled programs are released: jwarp's per-kernel executables and JAX's in-memory caches. What is
released is recompiled on demand from the on-disk compilation cache. (Releasing after every module
whatever the size cost 40 s of a cold run: destroying a CPU executable costs about a tenth of compiling
it, and the next module retraces jwarp's shared helpers.)
"""

from __future__ import annotations

import ctypes
import gc
import os

import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")

try:
    _trim = ctypes.CDLL("libc.so.6").malloc_trim  # give freed heap pages back to the system (glibc)
except (OSError, AttributeError):
    _trim = None


# above this resident size a test's teardown releases everything (see release_compiled)
RSS_LIMIT_MB = 1500


def rss_mb() -> int:
    """The resident size of this process in MiB (0 where /proc is not available)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // (1 << 20)
    except (OSError, ValueError, IndexError):
        return 0


def release_compiled() -> None:
    """Drop every compiled kernel executable and JAX's in-memory compilation and tracing caches."""
    import jax

    from jwarp.runtime.kernel import forget_compiled

    forget_compiled()
    jax.clear_caches()
    gc.collect()
    if _trim is not None:
        _trim(0)


def release_if_large() -> None:
    """:func:`release_compiled` once the process is over :data:`RSS_LIMIT_MB`."""
    if rss_mb() > RSS_LIMIT_MB:
        release_compiled()


# ``-n auto`` (pytest-xdist, the README's test command): one worker per core, at most this many, and
# no more than the memory allows (a worker peaks near RSS_LIMIT_MB plus a real-Warp oracle process)
MAX_WORKERS = 8
WORKER_MEMORY_MB = 2 * RSS_LIMIT_MB


def pytest_xdist_auto_num_workers(config) -> int:
    """How many workers ``-n auto`` starts: the usable cores, capped by memory and MAX_WORKERS."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    try:
        memory_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1 << 20)
    except (ValueError, OSError):
        memory_mb = WORKER_MEMORY_MB
    return max(1, min(cores, MAX_WORKERS, memory_mb // WORKER_MEMORY_MB))


@pytest.fixture(autouse=True, scope="module")
def _release_after_module():
    """After each test module: :func:`release_if_large`."""
    yield
    release_if_large()
