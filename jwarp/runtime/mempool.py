"""Warp's memory-pool and peer-access API on XLA devices.

Warp manages CUDA stream-ordered memory pools (``cudaMallocAsync``) itself. Under jwarp, XLA's
allocator owns device memory: on a GPU it is already a pool (the BFC allocator, or CUDA's async
allocator with ``XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async``), sized by XLA's flags
(``XLA_PYTHON_CLIENT_MEM_FRACTION`` / ``XLA_PYTHON_CLIENT_PREALLOCATE``), not by Warp's calls.
So, for CUDA devices (real or simulated):

- ``is_mempool_supported`` is True; ``set_mempool_enabled`` / ``set_mempool_release_threshold`` /
  ``set_mempool_access_enabled`` / ``set_peer_access_enabled`` validate their arguments as Warp
  does and *record* the setting, which the matching getters return; XLA's allocation behaviour
  does not change.
- ``get_mempool_used_mem_current`` / ``_high`` report XLA's ``bytes_in_use`` /
  ``peak_bytes_in_use`` when the device reports memory statistics, else the bytes of the live
  jax arrays on the device (and the largest value seen so far, for the high-water mark).
- Transfers between GPUs are XLA copies; peer access is "supported" between any two CUDA devices
  and enabled only where recorded (``set_peer_access_enabled``), so jwarp's launch access checks
  follow the program's settings as Warp's do.

CPU devices behave as in Warp: the getters of pool sizes raise ``ValueError("Memory pools are only
supported on CUDA devices")``, the ``is_*`` queries return False, and enabling raises.
"""

from __future__ import annotations

from typing import Any

import jax

from jwarp.runtime.device import Device, DeviceLike, get_device

_CUDA_ONLY = "Memory pools are only supported on CUDA devices"


# -- state recorded on the devices -----------------------------------------------------------------
def _pool_device(device: DeviceLike) -> Device:
    """The CUDA device whose pool a getter/setter addresses (``ValueError`` on CPU devices)."""
    device = get_device(device)
    if not device.is_cuda:
        raise ValueError(_CUDA_ONLY)
    return device


def _memory_stats(device: Device) -> dict:
    if device.is_simulated:
        return {}
    try:
        return device.jax_device.memory_stats() or {}
    except Exception:
        return {}


def _live_bytes(device: Device) -> int:
    total = 0
    for x in jax.live_arrays():
        try:
            if device.jax_device in x.devices():
                total += x.nbytes // max(len(x.devices()), 1)
        except Exception:  # deleted or donated buffers
            continue
    return total


# -- memory pools ----------------------------------------------------------------------------------
def is_mempool_supported(device: DeviceLike) -> bool:
    """Whether the device allocates from a memory pool: True for CUDA devices (XLA's allocator)."""
    return get_device(device).is_cuda


def is_mempool_enabled(device: DeviceLike) -> bool:
    """The recorded pool setting of a CUDA device (``Device.is_mempool_enabled``); False on CPU."""
    device = get_device(device)
    return bool(device.is_cuda and device.is_mempool_enabled)


def set_mempool_enabled(device: DeviceLike, enable: bool) -> None:
    """Record whether the device's pool is enabled (XLA keeps its allocator either way).

    Raises ``ValueError`` when enabling a pool on a CPU device, as Warp does; disabling is a no-op there.
    """
    device = get_device(device)
    if device.is_cuda:
        device.is_mempool_enabled = bool(enable)
    elif enable:
        raise ValueError(_CUDA_ONLY)


def set_mempool_release_threshold(device: DeviceLike, threshold: int | float) -> None:
    """Record the release threshold: bytes, or a fraction of the device's memory when in (0, 1]."""
    device = _pool_device(device)
    if threshold < 0:
        threshold = 0
    elif 0 < threshold <= 1:
        threshold = int(threshold * device.total_memory)
    device._mempool_release_threshold = int(threshold)


def get_mempool_release_threshold(device: DeviceLike = None) -> int:
    """The recorded release threshold in bytes (0, CUDA's default, until one is set)."""
    return int(getattr(_pool_device(device), "_mempool_release_threshold", 0))


def get_mempool_used_mem_current(device: DeviceLike = None) -> int:
    """Bytes of device memory in use: XLA's ``bytes_in_use``, else the live jax arrays' bytes."""
    device = _pool_device(device)
    stats = _memory_stats(device)
    used = int(stats["bytes_in_use"]) if "bytes_in_use" in stats else _live_bytes(device)
    device._mempool_used_high = max(getattr(device, "_mempool_used_high", 0), used)
    return used


def get_mempool_used_mem_high(device: DeviceLike = None) -> int:
    """High-water mark of memory in use: XLA's ``peak_bytes_in_use``, else the largest value
    :func:`get_mempool_used_mem_current` has seen (the current use included)."""
    device = _pool_device(device)
    stats = _memory_stats(device)
    if "peak_bytes_in_use" in stats:
        return int(stats["peak_bytes_in_use"])
    get_mempool_used_mem_current(device)
    return int(device._mempool_used_high)


# -- peer access -----------------------------------------------------------------------------------
def is_peer_access_supported(target_device: DeviceLike, peer_device: DeviceLike) -> bool:
    """True between CUDA devices (XLA copies between GPUs), False if either is a CPU device."""
    target, peer = get_device(target_device), get_device(peer_device)
    return target.is_cuda and peer.is_cuda


def _access_enabled(table: str, target_device: DeviceLike, peer_device: DeviceLike) -> bool:
    target, peer = get_device(target_device), get_device(peer_device)
    if not target.is_cuda or not peer.is_cuda:
        return False
    return target is peer or target.access_table(table).get(peer.alias, False)


def _set_access(table: str, what: str, target_device: DeviceLike, peer_device: DeviceLike, enable: bool) -> None:
    target, peer = get_device(target_device), get_device(peer_device)
    if not target.is_cuda or not peer.is_cuda:
        if enable:
            raise ValueError(f"{what} is only supported between CUDA devices")
        return
    if target is not peer:
        target.access_table(table)[peer.alias] = bool(enable)


def is_peer_access_enabled(target_device: DeviceLike, peer_device: DeviceLike) -> bool:
    """Whether ``peer_device`` may use ``target_device``'s memory: always for the same device,
    else as recorded by :func:`set_peer_access_enabled` (initially False, as CUDA's default)."""
    return _access_enabled("peer", target_device, peer_device)


def set_peer_access_enabled(target_device: DeviceLike, peer_device: DeviceLike, enable: bool) -> None:
    """Record peer access from ``peer_device`` to ``target_device`` (Warp's errors on CPU devices)."""
    _set_access("peer", "Peer access", target_device, peer_device, enable)


def is_mempool_access_supported(target_device: DeviceLike, peer_device: DeviceLike) -> bool:
    """Whether ``peer_device`` can be given access to ``target_device``'s pool."""
    return is_mempool_supported(target_device) and is_peer_access_supported(target_device, peer_device)


def is_mempool_access_enabled(target_device: DeviceLike, peer_device: DeviceLike) -> bool:
    """Whether ``peer_device`` may use ``target_device``'s pool allocations (same device: True)."""
    return _access_enabled("mempool", target_device, peer_device)


def set_mempool_access_enabled(target_device: DeviceLike, peer_device: DeviceLike, enable: bool) -> None:
    """Record pool access from ``peer_device`` to ``target_device`` (Warp's errors on CPU devices)."""
    _set_access("mempool", "Memory pool access", target_device, peer_device, enable)


# -- scoped settings -------------------------------------------------------------------------------
class ScopedMempool:
    """Enable or disable a device's pool inside a ``with`` block (``wp.ScopedMempool``)."""

    def __init__(self, device: DeviceLike, enable: bool):
        self.device = get_device(device)
        self.enable = enable

    def __enter__(self) -> None:
        self.saved_setting = is_mempool_enabled(self.device)
        set_mempool_enabled(self.device, self.enable)

    def __exit__(self, *exc: Any) -> None:
        set_mempool_enabled(self.device, self.saved_setting)


class ScopedMempoolAccess:
    """Enable or disable pool access between two devices inside a ``with`` block."""

    def __init__(self, target_device: DeviceLike, peer_device: DeviceLike, enable: bool):
        self.target_device, self.peer_device, self.enable = target_device, peer_device, enable

    def __enter__(self) -> None:
        self.saved_setting = is_mempool_access_enabled(self.target_device, self.peer_device)
        set_mempool_access_enabled(self.target_device, self.peer_device, self.enable)

    def __exit__(self, *exc: Any) -> None:
        set_mempool_access_enabled(self.target_device, self.peer_device, self.saved_setting)


class ScopedPeerAccess:
    """Enable or disable peer access between two devices inside a ``with`` block."""

    def __init__(self, target_device: DeviceLike, peer_device: DeviceLike, enable: bool):
        self.target_device, self.peer_device, self.enable = target_device, peer_device, enable

    def __enter__(self) -> None:
        self.saved_setting = is_peer_access_enabled(self.target_device, self.peer_device)
        set_peer_access_enabled(self.target_device, self.peer_device, self.enable)

    def __exit__(self, *exc: Any) -> None:
        set_peer_access_enabled(self.target_device, self.peer_device, self.saved_setting)
