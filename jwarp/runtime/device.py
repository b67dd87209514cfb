"""Devices: Warp's ``Device`` over jax devices, device aliases, and the current device.

Aliases follow Warp: ``"cpu"``, ``"cuda"`` (the current CUDA device), ``"cuda:N"``. When
XLA exposes several host devices (``XLA_FLAGS=--xla_force_host_platform_device_count=N``)
they are ``"cpu:0"`` … ``"cpu:N-1"``, and ``"cpu"`` means ``"cpu:0"`` — so placement logic
can be tested without a GPU.

Example:
    >>> import jwarp as wp
    >>> wp.get_device("cpu").is_cpu
    True
    >>> with wp.ScopedDevice("cpu"):
    ...     wp.get_device().alias
    'cpu'
"""

from __future__ import annotations

import threading
from typing import Any, Union

import jax


class Device:
    """A place where arrays live and kernels run; wraps one ``jax.Device``."""

    def __init__(self, alias: str, jax_device: jax.Device, ordinal: int):
        self.alias = alias
        self.jax_device = jax_device
        self.ordinal = ordinal
        self.platform = "cpu" if jax_device.platform == "cpu" else "cuda"

    @property
    def is_cpu(self) -> bool:
        return self.platform == "cpu"

    @property
    def is_cuda(self) -> bool:
        return self.platform == "cuda"

    @property
    def name(self) -> str:
        return getattr(self.jax_device, "device_kind", self.platform)

    @property
    def arch(self) -> int:
        cc = getattr(self.jax_device, "compute_capability", None)
        return int(str(cc).replace(".", "")) if cc else 0

    @property
    def is_uva(self) -> bool:
        return self.is_cuda

    @property
    def is_mempool_supported(self) -> bool:
        return False

    @property
    def is_mempool_enabled(self) -> bool:
        return False

    @property
    def total_memory(self) -> int:
        stats = _memory_stats(self.jax_device)
        return int(stats.get("bytes_limit", 0))

    @property
    def free_memory(self) -> int:
        stats = _memory_stats(self.jax_device)
        return int(stats.get("bytes_limit", 0)) - int(stats.get("bytes_in_use", 0))

    @property
    def context(self) -> Any:
        return self.jax_device

    @property
    def stream(self):
        from jwarp.runtime.streams import get_stream

        return get_stream(self)

    def __str__(self) -> str:
        return self.alias

    def __repr__(self) -> str:
        return f'"{self.alias}"'

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            try:
                return get_device(other) is self
            except (RuntimeError, ValueError):
                return False
        return self is other

    def __hash__(self) -> int:
        return hash(self.alias)

    def __enter__(self):
        self._scope = ScopedDevice(self)
        return self._scope.__enter__()

    def __exit__(self, *exc):
        self._scope.__exit__(*exc)


def _memory_stats(d: jax.Device) -> dict:
    try:
        return d.memory_stats() or {}
    except Exception:
        return {}


class _Registry:
    def __init__(self) -> None:
        self.devices: list[Device] = []
        self.by_alias: dict[str, Device] = {}
        cpus = jax.devices("cpu")
        for i, d in enumerate(cpus):
            alias = "cpu" if len(cpus) == 1 else f"cpu:{i}"
            dev = Device(alias, d, i)
            self.devices.append(dev)
            self.by_alias[alias] = dev
        if len(cpus) > 1:
            self.by_alias["cpu"] = self.by_alias["cpu:0"]
        self.cuda: list[Device] = []
        try:
            gpus = jax.devices("gpu")
        except RuntimeError:
            gpus = []
        for i, d in enumerate(gpus):
            dev = Device(f"cuda:{i}", d, i)
            self.cuda.append(dev)
            self.devices.append(dev)
            self.by_alias[dev.alias] = dev
        self.by_jax = {d.jax_device: d for d in self.devices}


_registry: _Registry | None = None
_lock = threading.Lock()
_state = threading.local()


def registry() -> _Registry:
    global _registry
    if _registry is None:
        with _lock:
            if _registry is None:
                _registry = _Registry()
    return _registry


DeviceLike = Union[Device, str, jax.Device, None]


def get_devices() -> list[Device]:
    """All devices (CPU first, then CUDA)."""
    return list(registry().devices)


def get_cuda_devices() -> list[Device]:
    return list(registry().cuda)


def get_cuda_device_count() -> int:
    return len(registry().cuda)


def is_cuda_available() -> bool:
    return bool(registry().cuda)


def is_cpu_available() -> bool:
    return True


def is_device_available(device: Device) -> bool:
    return device in registry().devices


def get_preferred_device() -> Device:
    """``cuda:0`` when a GPU is present, else the CPU (Warp's default device)."""
    reg = registry()
    return reg.cuda[0] if reg.cuda else reg.by_alias["cpu"]


def get_cuda_device(ordinal: int | None = None) -> Device:
    reg = registry()
    if not reg.cuda:
        raise RuntimeError("CUDA is not available")
    if ordinal is None:
        current = get_device()
        return current if current.is_cuda else reg.cuda[0]
    return reg.cuda[ordinal]


def get_device(ident: DeviceLike = None) -> Device:
    """Resolve a device alias, Device, or jax device; None means the current device."""
    if ident is None:
        current = getattr(_state, "device", None)
        return current if current is not None else _default_device()
    if isinstance(ident, Device):
        return ident
    reg = registry()
    if isinstance(ident, jax.Device):
        dev = reg.by_jax.get(ident)
        if dev is None:
            raise RuntimeError(f"Unknown jax device {ident}")
        return dev
    if isinstance(ident, str):
        if ident == "cuda":
            return get_cuda_device()
        dev = reg.by_alias.get(ident)
        if dev is None:
            if ident.startswith("cuda") and not reg.cuda:
                raise RuntimeError(f"Invalid device identifier: {ident} (CUDA is not available)")
            raise RuntimeError(f"Invalid device identifier: {ident}")
        return dev
    raise RuntimeError(f"Invalid device identifier: {ident!r}")


_default: Device | None = None


def _default_device() -> Device:
    global _default
    if _default is None:
        _default = get_preferred_device()
    return _default


def set_device(ident: DeviceLike) -> None:
    """Make ``ident`` the current device for this thread (``wp.set_device``)."""
    global _default
    device = get_device(ident)
    _state.device = device
    _default = device


class ScopedDevice:
    """Context manager that makes a device current inside its scope (``wp.ScopedDevice``)."""

    def __init__(self, device: DeviceLike):
        self.device = get_device(device)

    def __enter__(self) -> Device:
        self._saved = getattr(_state, "device", None)
        _state.device = self.device
        return self.device

    def __exit__(self, *exc) -> None:
        _state.device = self._saved
