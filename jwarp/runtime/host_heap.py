"""Keep freed host memory in the process instead of handing it back to the OS after every launch.

A Warp launch writes into arrays that already exist. An XLA:CPU program instead allocates its
outputs and temporaries at every run and frees them at the end. glibc gives the free memory at the
top of a heap back to the OS (``madvise``/``brk``) once more than a small padding is free, so the
next launch touches fresh pages again: a page fault per 4 KiB page. For a launch over a million
lanes with tens of MB of temporaries that is a large share of its time (1M mesh ray casts, one core:
48 MB of page faults per launch, 209 ms; with 256 MiB kept, no faults and 185 ms).

:func:`retain` raises glibc's ``M_TOP_PAD`` (the free memory a heap keeps at its top when it
shrinks) to ``config.host_heap_retain_bytes``, once per process at the first kernel compile. The
memory kept is reused by the next launch; the process's resident size stays at its peak instead of
dropping between launches. ``config.host_heap_retain_bytes = None`` (before the first launch)
leaves the C library's default. Other C libraries (macOS, Windows, musl) are left alone.

Example:
    >>> import jwarp as wp
    >>> wp.config.host_heap_retain_bytes = 64 << 20  # before the first launch  # doctest: +SKIP
"""

from __future__ import annotations

import ctypes
import platform

from jwarp import config

_M_TOP_PAD = -2  # glibc's mallopt parameter number
_done = False


def retain() -> bool:
    """Apply ``config.host_heap_retain_bytes`` (once per process); True when glibc took it."""
    global _done
    if _done:
        return False
    _done = True
    size = config.host_heap_retain_bytes
    if not size or platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(_M_TOP_PAD, int(min(size, 2**31 - 1))))


__all__ = ["retain"]
