"""CUDA device aliases and architectures: ``wp.map_cuda_device``, ``wp.unmap_cuda_device``,
``wp.get_cuda_supported_archs``.

jwarp reaches GPUs through JAX, which owns the CUDA contexts; an alias made here names the
CUDA device whose context is current (JAX's device for it), and a context pointer argument
is accepted only to name that same device.

Example:
    >>> import jwarp as wp
    >>> isinstance(wp.get_cuda_supported_archs(), list)
    True
    >>> wp.unmap_cuda_device("no_such_alias")
    Traceback (most recent call last):
    ...
    RuntimeError: Invalid CUDA device alias 'no_such_alias'
"""

from __future__ import annotations

from typing import Any

from jwarp.runtime.device import Device, get_device, registry

_mapped: dict[str, Device] = {}  # aliases made by map_cuda_device


def map_cuda_device(alias: str, context: Any = None) -> Device:
    """Give the current CUDA device the name ``alias`` (``wp.get_device(alias)`` finds it)."""
    reg = registry()
    current = get_device()
    device = current if current.is_cuda else (reg.cuda[0] if reg.cuda else None)
    if device is None or (context is not None and getattr(context, "value", context) is None):
        raise RuntimeError(f"Unable to determine CUDA context for device alias '{alias}'")
    existing = reg.by_alias.get(alias)
    if existing is not None and existing is not device:
        raise RuntimeError(f"Device alias '{alias}' is already used by device {existing}")
    reg.by_alias[alias] = device
    _mapped[alias] = device
    return device


def unmap_cuda_device(alias: str) -> None:
    """Remove an alias made by :func:`map_cuda_device`."""
    if alias not in _mapped:
        raise RuntimeError(f"Invalid CUDA device alias '{alias}'")
    del _mapped[alias]
    registry().by_alias.pop(alias, None)


def get_cuda_supported_archs() -> list[int]:
    """The compute capabilities (e.g. ``90`` for sm_90) of the CUDA devices JAX sees; empty
    without CUDA (jwarp compiles through XLA, which targets the devices present)."""
    archs = set()
    for device in registry().cuda:
        capability = getattr(device.jax_device, "compute_capability", None)
        if capability and not device.simulated:
            major, _, minor = str(capability).partition(".")
            archs.add(int(major) * 10 + int(minor or 0))
    return sorted(archs)


__all__ = ["get_cuda_supported_archs", "map_cuda_device", "unmap_cuda_device"]
