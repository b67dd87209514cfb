"""Launch array access modes (``wp.config.launch_array_access_mode``) and ``wp.can_access``.

Warp 1.19 checks each array *argument* (not arrays inside structs) whose device differs from
the launch device:

- ``RELAXED``: no check. Warp passes the pointer and the hardware decides (a crash when the
  memory is not reachable); jwarp moves the array to the launch device and the results back.
- ``STRICT``: every array argument must live on the launch device.
- ``CHECKED``: raise where the access is known to be invalid, warn once where it cannot be
  verified (unknown memory kind), allow the rest:

  ========================  =============================================================
  launch ← array            accessible when
  ========================  =============================================================
  CUDA ← CPU                the array is pinned (CUDA devices here are UVA), or the GPU can
                            read pageable host memory (never reported by XLA)
  CPU ← CUDA                never for device memory; unknown memory kind → warning
  CUDA ← CUDA               peer access enabled between the two devices
  CPU ← CPU                 always (host devices share host memory; Warp's CPU devices have
                            the same, empty, context)
  ========================  =============================================================

Errors are ``RuntimeError`` with Warp's wording, naming kernel, parameter and both devices.

Example:
    >>> import jwarp as wp
    >>> wp.can_access("cpu", wp.zeros(3, device="cpu"))
    True
"""

from __future__ import annotations

import collections
import enum
import warnings
from typing import Any

from jwarp import config
from jwarp.runtime.device import Device, DeviceLike, get_device


class MemoryKind(enum.IntEnum):
    """Observed memory kind backing an array (Warp's ``wp.MemoryKind``)."""

    UNKNOWN = 0
    HOST = 1
    PINNED = 2
    CUDA_DEVICE = 3
    CUDA_MEMPOOL = 4
    CUDA_MANAGED = 5


class _Access(enum.Enum):
    ACCESSIBLE = 0
    INACCESSIBLE = 1
    UNKNOWN = 2


def memory_kind(value: Any) -> MemoryKind:
    """The memory kind of an array (views report their base's)."""
    root = value.root
    kind = getattr(root, "_memory_kind", None)  # set by interop for external allocations
    if kind is not None:
        return MemoryKind(kind)
    device = root.device
    if device is None:
        return MemoryKind.UNKNOWN
    if device.is_cpu:
        return MemoryKind.PINNED if getattr(root, "pinned", False) else MemoryKind.HOST
    return MemoryKind.CUDA_DEVICE


def peer_access_enabled(owner: Device, accessor: Device) -> bool:
    """Whether ``accessor`` may read ``owner``'s device memory (``wp.set_peer_access_enabled``)."""
    return owner.peer_access_enabled(accessor)


def _classify(value: Any, device: Device) -> _Access:
    array_device = value.device
    if array_device is device:
        return _Access.ACCESSIBLE
    kind = memory_kind(value)
    if device.is_cuda and array_device.is_cpu:
        if kind == MemoryKind.PINNED and device.is_uva:
            return _Access.ACCESSIBLE
        return _Access.ACCESSIBLE if device.is_cpu_memory_access_from_gpu_supported else _Access.INACCESSIBLE
    if device.is_cpu and array_device.is_cuda:
        if kind == MemoryKind.CUDA_MANAGED:
            managed = array_device.is_concurrent_managed_access_supported
            return _Access.ACCESSIBLE if managed or array_device.is_gpu_memory_access_from_cpu_supported else \
                _Access.INACCESSIBLE
        if kind in (MemoryKind.CUDA_DEVICE, MemoryKind.CUDA_MEMPOOL):
            return _Access.INACCESSIBLE
        return _Access.UNKNOWN
    if device.is_cuda and array_device.is_cuda:
        if kind == MemoryKind.CUDA_DEVICE:
            return _Access.ACCESSIBLE if peer_access_enabled(array_device, device) else _Access.INACCESSIBLE
        if kind == MemoryKind.CUDA_MANAGED:
            both = device.is_managed_memory_supported and array_device.is_managed_memory_supported
            return _Access.ACCESSIBLE if both else _Access.INACCESSIBLE
        return _Access.UNKNOWN
    return _Access.ACCESSIBLE  # host devices share host memory


def can_access(device: DeviceLike, resource: Any) -> bool:
    """Whether kernels on ``device`` can directly use the array ``resource`` (``wp.can_access``)."""
    device = get_device(device)
    if not getattr(resource, "_jwarp_array", False) or getattr(resource, "device", None) is None:
        raise TypeError("wp.can_access() only supports concrete Warp arrays in this release")
    return _classify(resource, device) is _Access.ACCESSIBLE


def check_array_access(kernel: Any, name: str, value: Any, device: Device) -> None:
    """Apply ``config.launch_array_access_mode`` to an array argument that lives on another device."""
    mode = config.launch_array_access_mode
    if mode == config.LaunchArrayAccessMode.RELAXED or value.device is device:
        return
    if mode == config.LaunchArrayAccessMode.STRICT:
        raise RuntimeError(
            f"Error launching kernel '{kernel.key}' on device='{device}': "
            "warp.config.LaunchArrayAccessMode.STRICT requires every Warp array argument to be allocated on the "
            f"launch device, but argument '{name}' is on device={value.device} (memory_kind={memory_kind(value).name})."
            f" Move the array to '{device}', or use warp.config.LaunchArrayAccessMode.CHECKED to allow the launch "
            "when the launch device can access this allocation."
        )
    status = _classify(value, device)
    if status is _Access.INACCESSIBLE:
        raise RuntimeError(
            f"Error launching kernel '{kernel.key}', trying to launch on device='{device}', but input array for "
            f"argument '{name}' is on device={value.device} (memory_kind={memory_kind(value).name}), whose memory is "
            f"not accessible or cannot be verified as accessible from '{device}'. Move the array to '{device}', "
            "enable the required peer/mempool/coherent access, or set warp.config.launch_array_access_mode = "
            "warp.config.LaunchArrayAccessMode.RELAXED only if this launch is valid for the hardware and memory kind."
        )
    if status is _Access.UNKNOWN:
        _warn_unknown(kernel, name, value, device)


_WARNED_LIMIT = 1024
_warned: collections.OrderedDict = collections.OrderedDict()


def _warn_unknown(kernel: Any, name: str, value: Any, device: Device) -> None:
    key = (kernel.key, name, value.device.alias, device.alias)
    if key in _warned:
        _warned.move_to_end(key)
        return
    _warned[key] = None
    if len(_warned) > _WARNED_LIMIT:
        _warned.popitem(last=False)
    warnings.warn(
        f"warp.config.LaunchArrayAccessMode.CHECKED cannot verify cross-device access for kernel '{kernel.key}' "
        f"argument '{name}' from device={value.device} to launch device='{device}' "
        f"(memory_kind={memory_kind(value).name}): Warp cannot verify access requirements for this memory kind or "
        "allocation. The launch will proceed but may result in errors. Use warp.config.LaunchArrayAccessMode.STRICT "
        "to reject this launch, or warp.config.LaunchArrayAccessMode.RELAXED to suppress this diagnostic.",
        UserWarning,
        stacklevel=4,
    )


__all__ = ["MemoryKind", "can_access", "check_array_access", "memory_kind", "peer_access_enabled"]
