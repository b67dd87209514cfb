"""Streams, events and synchronization (``wp.Stream``, ``wp.Event``, ``wp.synchronize`` …).

What a stream means here: JAX orders device work by data dependence, and XLA runs the
computations dispatched to one device in dispatch order. A jwarp stream is therefore an
*ordering object bound to a device*, not a hardware queue: launching on another stream of the
same device does not make work concurrent, and ``wait_event`` / ``wait_stream`` have nothing
to add (a launch that reads an array already waits for the launch that wrote it). The API
follows Warp exactly where it is observable: streams and events exist only on CUDA devices
(``wp.Stream("cpu")`` raises ``RuntimeError``), ``launch(stream=s)`` runs on ``s.device``,
a stream cannot be made current on another device.

Launches are asynchronous (as in Warp on CUDA, and unlike Warp's synchronous CPU launches).
``synchronize*`` block the host until all work dispatched to the device(s) has finished: a
tiny computation is dispatched to each device and waited for, which is exact because XLA
completes a device's computations in order. Launches themselves pay nothing for this.

Timing events (``Event(enable_timing=True)``) take a host timestamp when recorded, after
waiting for the device's outstanding work, so ``get_event_elapsed_time`` measures the work
between two records (recording a timing event therefore synchronizes the device).
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import jax
import numpy as np

from jwarp import _dispatch
from jwarp.runtime import deferred
from jwarp.runtime.interruptible import worker_busy
from jwarp.runtime.locking import state_lock
from jwarp.runtime.device import Device, DeviceLike, ScopedDevice, get_device, register_stream_type, registry
from jwarp.runtime.waiting import wait_ready

_handles = itertools.count(1)


class Stream:
    """An ordering object on a CUDA device (Warp's ``wp.Stream``).

    Args:
        device: The CUDA device (default: the current device).
        priority: ``-1`` (high) or ``0`` (low); other integers are clamped, as in Warp.
        cuda_stream: An external stream handle (kept as ``cuda_stream``; jwarp does not use it).
    """

    def __init__(self, device: DeviceLike = None, priority: int = 0, **kwargs: Any):
        device = get_device(device)
        if not device.is_cuda:
            raise RuntimeError(f"Device {device} is not a CUDA device")
        if "cuda_stream" in kwargs:
            self.cuda_stream = kwargs["cuda_stream"]
            self.owner = False
        else:
            if not isinstance(priority, int):
                raise TypeError("Stream priority must be an integer.")
            self.cuda_stream = next(_handles)
            self.owner = True
        self.device: Device = device
        self._priority = max(-1, min(int(priority), 0)) if isinstance(priority, int) else 0
        self._cached_event: Event | None = None

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, int(self.cuda_stream) if self.cuda_stream else 0)

    @property
    def cached_event(self) -> Event:
        if self._cached_event is None:
            self._cached_event = Event(self.device)
        return self._cached_event

    def record_event(self, event: Event | None = None, external: bool = False) -> Event:
        """Record ``event`` (a new one by default) at this point of the stream's work."""
        if event is None:
            event = Event(self.device)
        elif event.device is not self.device:
            raise RuntimeError(
                f"Event from device {event.device} cannot be recorded on stream from device {self.device}"
            )
        event._record()
        return event

    def wait_event(self, event: Event, external: bool = False) -> None:
        """Make later work wait for ``event``: already implied by JAX's data-dependence ordering."""

    def wait_stream(self, other_stream: Stream, event: Event | None = None, external: bool = False) -> None:
        """Make later work wait for ``other_stream``'s work: implied by JAX's data-dependence ordering."""

    @property
    def is_complete(self) -> bool:
        """Whether the work dispatched to the stream's device has finished. JAX offers no reliable
        non-blocking query, so jwarp answers by waiting for it (always ``True`` on return)."""
        return _barrier(self.device)

    @property
    def is_capturing(self) -> bool:
        return False

    @property
    def is_blocking(self) -> bool:
        return True

    @property
    def priority(self) -> int:
        return self._priority

    def __repr__(self) -> str:
        return f"<Stream {self.cuda_stream} on {self.device}>"


class Event:
    """A marker in a stream's work (Warp's ``wp.Event``; CUDA devices only)."""

    class Flags:
        DEFAULT = 0x0
        BLOCKING_SYNC = 0x1
        DISABLE_TIMING = 0x2
        INTERPROCESS = 0x4

    def __init__(self, device: DeviceLike = None, cuda_event: Any = None, enable_timing: bool = False,
                 interprocess: bool = False):
        device = get_device(device)
        if not device.is_cuda:
            raise RuntimeError(f"Device {device} is not a CUDA device")
        if interprocess and enable_timing:
            raise ValueError("The combination of 'enable_timing=True' and 'interprocess=True' is not allowed.")
        self.device = device
        self.enable_timing = enable_timing
        self.cuda_event = cuda_event if cuda_event is not None else next(_handles)
        self.owner = cuda_event is None
        self._time: float | None = None

    def _record(self) -> None:
        if self.enable_timing:
            _barrier(self.device)
            self._time = time.perf_counter()

    @property
    def is_complete(self) -> bool:
        """Whether the work recorded before the event has finished (answered by waiting, see Stream)."""
        return _barrier(self.device)

    def ipc_handle(self) -> bytes:
        raise RuntimeError(f"Device {self.device} does not support IPC.")


def get_stream(device: DeviceLike = None) -> Stream:
    """The current stream of ``device`` (default: the current device); CUDA devices only."""
    return get_device(device).stream


def set_stream(stream: Stream, device: DeviceLike = None, sync: bool = False) -> None:
    """Make ``stream`` the current stream of ``device`` (default: the current device)."""
    get_device(device).set_stream(stream, sync=sync)


def record_event(event: Event | None = None, external: bool = False) -> Event:
    """Record an event on the current stream."""
    return get_stream().record_event(event, external=external)


def wait_event(event: Event, external: bool = False) -> None:
    """Make the current stream wait for ``event`` (implied by JAX's ordering)."""
    get_stream().wait_event(event, external=external)


def wait_stream(other_stream: Stream, event: Event | None = None, external: bool = False) -> None:
    """Make the current stream wait for ``other_stream`` (implied by JAX's ordering)."""
    get_stream().wait_stream(other_stream, event=event, external=external)


def get_event_elapsed_time(start_event: Event, end_event: Event, synchronize: bool = True) -> float:
    """Milliseconds between two recorded timing events (``enable_timing=True``)."""
    for event in (start_event, end_event):
        if not event.enable_timing:
            raise RuntimeError("get_event_elapsed_time() requires events created with enable_timing=True")
        if event._time is None:
            raise RuntimeError("get_event_elapsed_time() requires events that have been recorded")
    return (end_event._time - start_event._time) * 1000.0


def synchronize() -> None:
    """Block until all work dispatched to every device has completed."""
    for device in registry().devices:
        _barrier(device)


def synchronize_device(device: DeviceLike = None) -> None:
    """Block until all work dispatched to ``device`` (default: the current device) has completed."""
    _barrier(get_device(device))


def synchronize_stream(stream_or_device: Stream | DeviceLike = None) -> None:
    """Block until the work of a stream (or of a device's current stream) has completed."""
    device = stream_or_device.device if isinstance(stream_or_device, Stream) else get_device(stream_or_device)
    _barrier(device)


def synchronize_event(event: Event) -> None:
    """Block until the work recorded before ``event`` has completed."""
    _barrier(event.device)


# -- barrier: XLA completes a device's computations in dispatch order ------------------------------
_tokens: dict[Any, Any] = {}
_tick = None


def _barrier(device: Device) -> bool:
    """Dispatch a tiny computation to ``device`` and wait for it (and so for everything before it);
    on a CPU device whose launches already ran to their end (:func:`_cpu_launches_done`), only run
    the deferred work."""
    global _tick
    deferred.flush()  # deferred Launch replays are work dispatched before this point
    if _cpu_launches_done(device):
        return True
    token = _tokens.get(device.jax_device)
    if token is None:
        token = _tokens[device.jax_device] = jax.device_put(np.int32(0), device.jax_device)
    if _tick is None:
        _tick = jax.jit(lambda x: x + 1)
    wait_ready(_tick(token))  # interruptible (Ctrl-C) where dispatch is asynchronous
    return True


def _cpu_launches_done(device: Device) -> bool:
    """Whether every launch dispatched to ``device`` has completed without waiting for a tiny
    computation: a CPU device under jwarp's synchronous CPU dispatch (:mod:`jwarp._dispatch`), where
    an executable returns only when it has run, with no interrupted launch still computing on the
    launch worker (:mod:`jwarp.runtime.interruptible`). A launch running on another thread holds
    ``state_lock`` until its executable returns, so taking the lock waits for it.

    The tiny computation the barrier dispatches otherwise costs a dispatch and, right after a large
    multi-threaded program, a hand-over to XLA's worker threads: on the cloth benchmark (2-core
    CPU, one ``wp.synchronize()`` per 20-launch step) 0.1-0.5 ms per step."""
    if not device.is_cpu or not _dispatch.SYNC_CPU or worker_busy():
        return False
    if jax.config.read("jax_cpu_enable_async_dispatch"):  # asked for again after jwarp's import
        return False
    with state_lock:
        pass
    return True


class ScopedStream:
    """Make ``stream`` (and its device) current inside the scope (Warp's ``wp.ScopedStream``)."""

    def __init__(self, stream: Stream | None, sync_enter: bool = True, sync_exit: bool = False):
        self.stream = stream
        self.sync_enter = sync_enter
        self.sync_exit = sync_exit
        if stream is not None:
            self.device = stream.device
            self.device_scope = ScopedDevice(self.device)

    def __enter__(self) -> Stream | None:
        if self.stream is not None:
            self.device_scope.__enter__()
            self.saved_stream = self.device.stream
            self.device.set_stream(self.stream, self.sync_enter)
        return self.stream

    def __exit__(self, *exc: Any) -> None:
        if self.stream is not None:
            self.device.set_stream(self.saved_stream, self.sync_exit)
            self.device_scope.__exit__(*exc)


register_stream_type(Stream)
