"""Stable device addresses for jwarp arrays, and their resolution back to arrays.

A jwarp array's storage is an immutable jax buffer that a launch replaces, so it has no fixed
memory address. Warp code still reads ``a.ptr`` and builds descriptors from it (a Fabric
interface lists bucket pointers as ``a.ptr + k * itemsize``). Each root array gets, the first
time its ``ptr`` is asked for, a range of a virtual address space as large as its storage
(ranges never overlap); :func:`resolve` maps an address inside a range back to the live array
and a byte offset, so such descriptors resolve to views of jwarp arrays.

Example:
    >>> import jwarp as wp
    >>> from jwarp.runtime import addresses
    >>> a = wp.zeros(8, dtype=float)
    >>> root, offset = addresses.resolve(a.ptr + 12)
    >>> root is a, offset
    (True, 12)
"""

from __future__ import annotations

import bisect
import threading
import weakref
from typing import Any

_ALIGN = 256
_BASE = 1 << 40  # far above small integers, below any 48-bit host pointer jwarp hands out

_lock = threading.Lock()
_next = _BASE
_starts: list[int] = []  # sorted (addresses only grow)
_entries: list[tuple[int, Any]] = []  # (byte length, weakref to the root array), parallel to _starts


def address_of(root: Any, nbytes: int) -> int:
    """The start address of ``root``'s range (reserved on first use)."""
    address = root.__dict__.get("_address")
    if address is not None:
        return address
    global _next
    with _lock:
        address = root.__dict__.get("_address")
        if address is None:
            address = _next
            length = max(int(nbytes), 1)
            _next += (length + _ALIGN - 1) // _ALIGN * _ALIGN + _ALIGN  # a gap: one past the end is no other array
            _starts.append(address)
            _entries.append((length, weakref.ref(root)))
            root.__dict__["_address"] = address
            if len(_starts) % 1024 == 0:
                _prune()
    return address


def resolve(address: int) -> tuple[Any, int] | None:
    """``(root array, byte offset)`` of a live array whose range holds ``address``, else None."""
    address = int(address)
    with _lock:
        i = bisect.bisect_right(_starts, address) - 1
        if i < 0:
            return None
        length, ref = _entries[i]
        root = ref()
        offset = address - _starts[i]
        if root is None or offset >= length:
            return None
        return root, offset


def _prune() -> None:
    """Forget the ranges of arrays that are gone (caller holds the lock)."""
    keep = [k for k, (_, ref) in enumerate(_entries) if ref() is not None]
    _starts[:] = [_starts[k] for k in keep]
    _entries[:] = [_entries[k] for k in keep]


__all__ = ["address_of", "resolve"]
