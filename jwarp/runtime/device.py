"""Devices: Warp's ``Device`` over jax devices, device aliases, and the current device.

Every jwarp device wraps one ``jax.Device``. Names follow Warp:

- ``"cpu"``: the host. When XLA exposes several host devices
  (``XLA_FLAGS=--xla_force_host_platform_device_count=N``, set before jax starts) they are
  ``"cpu:0"`` … ``"cpu:N-1"`` and ``"cpu"`` names ``"cpu:0"``, so placement logic (the three
  launch access modes, moves between devices) can be exercised without a GPU.
- ``"cuda:N"``: the N-th jax GPU; ``"cuda"`` is the current CUDA device (the current device when
  it is a CUDA device, else ``"cuda:0"``).
- A :class:`Device` or a ``jax.Device`` is accepted wherever a device is; ``None`` means the
  current device (``wp.set_device`` / ``wp.ScopedDevice``; initially ``"cuda:0"`` when a GPU is
  present, else ``"cpu"``). Unknown names raise ``ValueError`` as in Warp; ``"cuda"`` without a
  GPU raises ``RuntimeError``.

As in Warp, the current device is process-wide (``set_device`` in one thread is seen by all).

Testing without a GPU: :func:`simulated_cuda_devices` exposes host devices as CUDA devices
(``Device.is_simulated``) so CUDA-only rules (streams, block_dim 256, ``max_blocks`` chunking,
CHECKED access rules) run on CPU.

Example:
    >>> import jwarp as wp
    >>> wp.get_device("cpu").is_cpu
    True
    >>> with wp.ScopedDevice("cpu"):
    ...     wp.get_device().alias
    'cpu'
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Any, Iterator, Union

import jax

from jwarp import config

# The type of a device's default stream, registered by jwarp.runtime.streams (which builds on this module).
_stream_type: list = []


def register_stream_type(stream_type: type) -> None:
    """Called by :mod:`jwarp.runtime.streams` with its ``Stream`` class."""
    _stream_type[:] = [stream_type]


class Device:
    """A place where arrays live and kernels run; wraps one ``jax.Device``.

    Attributes mirror Warp's ``Device``: ``alias``, ``ordinal`` (``-1`` for CPU devices), ``name``,
    ``arch``, ``is_cpu``/``is_cuda``, ``is_uva``, the memory-access capability flags (all ``False``:
    XLA exposes no pinned, managed or peer-mapped memory) and ``stream`` for CUDA devices.
    """

    def __init__(self, alias: str, jax_device: jax.Device, ordinal: int, platform: str, simulated: bool = False):
        self.alias = alias
        self.jax_device = jax_device
        self.ordinal = ordinal
        self.platform = platform
        self.is_simulated = simulated
        cuda = platform == "cuda"
        if not cuda:
            self.name = "CPU"
        else:
            self.name = "Simulated CUDA device" if simulated else getattr(jax_device, "device_kind", "CUDA")
        self.is_primary = cuda
        self.is_uva = cuda
        self.is_cpu_memory_access_from_gpu_supported = False
        self.is_gpu_memory_access_from_cpu_supported = False
        self.is_cpu_gpu_atomic_supported = False
        self.is_managed_memory_supported = False
        self.is_concurrent_managed_access_supported = False
        self.is_mempool_supported = cuda  # XLA's GPU allocator is a pool
        self.is_mempool_enabled = cuda and bool(config.enable_mempools_at_init)
        self.is_ipc_supported = False
        self.is_cubin_supported = False
        self.max_shared_memory_per_block = 0
        self.uuid = None
        self.pci_bus_id = None
        self._stream = None

    @property
    def is_cpu(self) -> bool:
        return self.platform == "cpu"

    @property
    def is_cuda(self) -> bool:
        return self.platform == "cuda"

    @property
    def arch(self) -> int:
        """Compute capability as ``10 * major + minor`` (0 for CPU devices)."""
        cc = getattr(self.jax_device, "compute_capability", None) if self.is_cuda else None
        return int(str(cc).replace(".", "")) if cc else 0

    @property
    def sm_count(self) -> int:
        return int(getattr(self.jax_device, "core_count", 0) or 0) if self.is_cuda else 0

    @property
    def context(self) -> Any:
        """Warp's CUDA context handle: here the jax device for CUDA devices, ``None`` on CPU."""
        return self.jax_device if self.is_cuda else None

    @property
    def has_context(self) -> bool:
        return self.is_cuda

    @property
    def is_capturing(self) -> bool:
        return False

    @property
    def total_memory(self) -> int:
        if self.is_cuda and not self.is_simulated:
            return int(_memory_stats(self.jax_device).get("bytes_limit", 0))
        return _host_memory()[0]

    @property
    def free_memory(self) -> int:
        if self.is_cuda and not self.is_simulated:
            stats = _memory_stats(self.jax_device)
            return int(stats.get("bytes_limit", 0)) - int(stats.get("bytes_in_use", 0))
        return _host_memory()[1]

    # -- streams (CUDA only, as in Warp) ---------------------------------------------------------
    @property
    def stream(self):
        """The device's current stream; ``RuntimeError`` on CPU devices."""
        if not self.is_cuda:
            raise RuntimeError(f"Device {self} is not a CUDA device")
        if self._stream is None:
            if not _stream_type:
                raise RuntimeError("device streams need jwarp.runtime.streams (import jwarp)")
            self._stream = _stream_type[0](self)
        return self._stream

    @stream.setter
    def stream(self, stream) -> None:
        self.set_stream(stream)

    @property
    def has_stream(self) -> bool:
        return self._stream is not None

    def set_stream(self, stream, sync: bool = True) -> None:
        """Make ``stream`` this CUDA device's current stream (``sync`` is implied: JAX orders work)."""
        if not self.is_cuda:
            raise RuntimeError(f"Device {self} is not a CUDA device")
        if stream.device is not self:
            raise RuntimeError(f"Stream from device {stream.device} cannot be used on device {self}")
        self._stream = stream

    # -- access ----------------------------------------------------------------------------------
    def can_access(self, other: DeviceLike) -> bool:
        """Whether kernels on this device can use memory allocated by ``other``'s default allocator."""
        other = get_device(other)
        if other is self or (self.is_cpu and other.is_cpu):
            return True  # host devices share host memory
        if self.is_cuda and other.is_cpu:
            return self.is_cpu_memory_access_from_gpu_supported
        if self.is_cuda and other.is_cuda:
            return other.peer_access_enabled(self)
        return False

    def access_table(self, kind: str) -> dict[str, bool]:
        """``{peer alias: enabled}``: the peer-access (``kind="peer"``) or pool-access (``"mempool"``)
        settings recorded on this device by ``wp.set_peer_access_enabled`` / ``wp.set_mempool_access_enabled``
        (devices belong to one registry, so simulated devices start with fresh settings)."""
        tables = self.__dict__.setdefault("_access_tables", {})
        return tables.setdefault(kind, {})

    def peer_access_enabled(self, accessor: Device) -> bool:
        """Whether ``accessor`` may use this device's memory: always for the same device, between
        CUDA devices as recorded by ``wp.set_peer_access_enabled`` (initially False, CUDA's default)."""
        if not self.is_cuda or not accessor.is_cuda:
            return False
        return accessor is self or self.access_table("peer").get(accessor.alias, False)

    def make_current(self) -> None:
        """Warp makes the device's CUDA context current; jwarp has no contexts (no-op)."""

    def __str__(self) -> str:
        return self.alias

    def __repr__(self) -> str:
        return f"'{self.alias}'"

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, str):
            try:
                return get_device(other) is self
            except (RuntimeError, ValueError):
                return False
        if isinstance(other, jax.Device):
            return registry().by_jax.get(other) is self
        return False

    def __hash__(self) -> int:
        return hash(self.alias)

    def __enter__(self) -> Device:
        self._scope = ScopedDevice(self)
        return self._scope.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._scope.__exit__(*exc)


def _memory_stats(d: jax.Device) -> dict:
    try:
        return d.memory_stats() or {}
    except Exception:
        return {}


def _host_memory() -> tuple[int, int]:
    try:
        page = os.sysconf("SC_PAGE_SIZE")
        return page * os.sysconf("SC_PHYS_PAGES"), page * os.sysconf("SC_AVPHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0, 0


def _local_ordinal(device: jax.Device) -> int:
    """A GPU's ordinal among this process's GPUs (``local_hardware_id``; the id where JAX has none)."""
    local = getattr(device, "local_hardware_id", None)
    return device.id if local is None else local


class _Registry:
    """The devices of this process: host devices first, then CUDA devices."""

    def __init__(self, simulated_cuda: int = 0) -> None:
        # this process's devices: under jax.distributed, jax.devices() also lists the other processes'
        hosts = jax.local_devices(backend="cpu")
        try:
            gpus = sorted(jax.local_devices(backend="gpu"), key=_local_ordinal)  # Warp's process-local ordinals
        except RuntimeError:
            gpus = []
        cpu_hosts, fake = hosts, []
        if simulated_cuda:
            if len(hosts) > simulated_cuda:
                cpu_hosts, fake = hosts[: len(hosts) - simulated_cuda], hosts[len(hosts) - simulated_cuda :]
            else:
                cpu_hosts, fake = hosts[:1], [hosts[i % len(hosts)] for i in range(simulated_cuda)]
        self.devices: list[Device] = []
        self.by_alias: dict[str, Device] = {}
        self.by_jax: dict[jax.Device, Device] = {}
        for i, d in enumerate(cpu_hosts):
            self._add(Device("cpu" if len(cpu_hosts) == 1 else f"cpu:{i}", d, -1, "cpu"))
        if len(cpu_hosts) > 1:
            self.by_alias["cpu"] = self.by_alias["cpu:0"]
        self.cuda: list[Device] = []
        for i, d in enumerate(gpus or fake):
            dev = Device(f"cuda:{i}", d, i, "cuda", simulated=d in fake)
            self.cuda.append(dev)
            self._add(dev)

    def _add(self, dev: Device) -> None:
        self.devices.append(dev)
        self.by_alias[dev.alias] = dev
        self.by_jax.setdefault(dev.jax_device, dev)  # a simulated device sharing a host maps to the host


_registry: _Registry | None = None
_lock = threading.Lock()
_current: Device | None = None  # None: the preferred device


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
    """The CUDA devices (empty without a GPU)."""
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
    """``cuda:0`` when a GPU is present, else the CPU (Warp's initial current device)."""
    reg = registry()
    return reg.cuda[0] if reg.cuda else reg.by_alias["cpu"]


def get_cuda_device(ordinal: int | None = None) -> Device:
    """The CUDA device ``ordinal``, or the current CUDA device when ``ordinal`` is None."""
    reg = registry()
    if ordinal is not None:
        return reg.cuda[ordinal]
    current = get_device()
    if current.is_cuda:
        return current
    if not reg.cuda:
        raise RuntimeError('"cuda" device requested but CUDA is not supported by the hardware or driver')
    return reg.cuda[0]


def get_device(ident: DeviceLike = None) -> Device:
    """Resolve a device alias, :class:`Device` or ``jax.Device``; None means the current device."""
    if ident is None:
        return _current if _current is not None else get_preferred_device()
    if type(ident) is Device:
        return ident
    reg = registry()
    if isinstance(ident, str):
        dev = reg.by_alias.get(ident)
        if dev is not None:
            return dev
        if ident == "cuda":
            return get_cuda_device()
    elif isinstance(ident, jax.Device):
        dev = reg.by_jax.get(ident)
        if dev is not None:
            return dev
        owner = getattr(ident, "process_index", None)
        if owner is not None and owner != jax.process_index():
            raise RuntimeError(f"JAX device {ident} belongs to process {owner}, not to this process "
                               f"({jax.process_index()}): Warp devices are the process's own")
    raise ValueError(f"Invalid device identifier: {ident}")


def set_device(ident: DeviceLike) -> None:
    """Make ``ident`` the current device (``wp.set_device``; process-wide, as in Warp)."""
    global _current
    _current = get_device(ident)


class ScopedDevice:
    """Context manager that makes a device current inside its scope (``wp.ScopedDevice``)."""

    def __init__(self, device: DeviceLike):
        self.device = get_device(device)

    def __enter__(self) -> Device:
        global _current
        self.saved_device = _current
        _current = self.device
        return self.device

    def __exit__(self, *exc: Any) -> None:
        global _current
        _current = self.saved_device


@contextlib.contextmanager
def simulated_cuda_devices(count: int = 1) -> Iterator[list[Device]]:
    """For tests: expose ``count`` host devices as ``cuda:0..count-1`` inside the scope.

    With more host devices than ``count`` (``--xla_force_host_platform_device_count``) the last
    ``count`` host devices become the CUDA devices; otherwise they share the host device (moves
    between them are free but every device rule still applies). The current device inside is
    ``cuda:0`` (Warp's default when a GPU is present). Arrays made inside belong to the simulated
    devices and should not be used after the scope. Refused when real GPUs are present.
    """
    global _registry, _current
    if registry().cuda and not registry().cuda[0].is_simulated:
        raise RuntimeError("simulated_cuda_devices() is only for machines without CUDA devices")
    saved = (_registry, _current)
    _registry, _current = _Registry(simulated_cuda=count), None
    try:
        yield list(_registry.cuda)
    finally:
        _registry, _current = saved
