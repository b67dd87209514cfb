"""Streams, events and synchronization.

JAX orders device work by data dependence, so a jwarp stream is an ordering object bound
to a device, not a hardware queue. Warp's streams are CUDA-only; jwarp follows it
(``wp.Stream("cpu")`` raises). ``wp.synchronize()`` blocks until all arrays jwarp has
produced are ready.
"""

from __future__ import annotations

import weakref
from typing import Any

from jwarp.runtime.device import Device, DeviceLike, get_device

_pending: "weakref.WeakSet[Any]" = weakref.WeakSet()


def track(array_handle: Any) -> None:
    """Remember an array whose buffer may still be computing (for ``synchronize``)."""
    _pending.add(array_handle)


def _block(handles) -> None:
    for h in list(handles):
        buf = getattr(h, "_buffer", None)
        if buf is None:
            continue
        for leaf in buf if isinstance(buf, tuple) else (buf,):
            try:
                leaf.block_until_ready()
            except Exception:
                pass


def synchronize() -> None:
    """Block until all outstanding jwarp work has completed."""
    _block(_pending)


def synchronize_device(device: DeviceLike = None) -> None:
    dev = get_device(device)
    _block(h for h in _pending if getattr(h, "device", None) is dev)


class Stream:
    """An ordering object on a CUDA device (``wp.Stream``)."""

    def __init__(self, device: DeviceLike = None, priority: int = 0, **kwargs: Any):
        dev = get_device(device)
        if not dev.is_cuda:
            raise RuntimeError(f"Device {dev} is not CUDA-capable; streams are only supported on CUDA devices")
        self.device: Device = dev
        self.priority = priority

    @property
    def cuda_stream(self) -> int:
        return id(self)

    def record_event(self, event: Event | None = None) -> Event:
        event = event or Event(self.device)
        event._recorded = True
        return event

    def wait_event(self, event: Event) -> None:
        pass

    def wait_stream(self, other: Stream, event: Event | None = None) -> None:
        pass

    @property
    def is_complete(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"<Stream on {self.device}>"


class Event:
    """A marker in a stream's work (``wp.Event``); JAX's data dependences already order work."""

    def __init__(self, device: DeviceLike = None, enable_timing: bool = False, interprocess: bool = False):
        self.device = get_device(device)
        self.enable_timing = enable_timing
        self._recorded = False

    @property
    def is_complete(self) -> bool:
        return True


_streams: dict[Device, Stream] = {}


def get_stream(device: DeviceLike = None) -> Stream:
    dev = get_device(device)
    if not dev.is_cuda:
        raise RuntimeError(f"Device {dev} is not CUDA-capable; it has no streams")
    stream = _streams.get(dev)
    if stream is None:
        stream = _streams[dev] = Stream(dev)
    return stream


def set_stream(stream: Stream, device: DeviceLike = None, sync: bool = False) -> None:
    dev = get_device(device) if device is not None else stream.device
    _streams[dev] = stream


def synchronize_stream(stream_or_device: Any = None) -> None:
    dev = stream_or_device.device if isinstance(stream_or_device, Stream) else get_device(stream_or_device)
    synchronize_device(dev)


def synchronize_event(event: Event) -> None:
    synchronize_device(event.device)


def record_event(event: Event | None = None) -> Event:
    return get_stream().record_event(event)


def wait_event(event: Event) -> None:
    pass


def wait_stream(other: Stream, event: Event | None = None) -> None:
    pass


class ScopedStream:
    """Make ``stream`` current for its device inside the scope (``wp.ScopedStream``)."""

    def __init__(self, stream: Stream | None, sync_enter: bool = True, sync_exit: bool = False):
        self.stream = stream

    def __enter__(self) -> Stream | None:
        if self.stream is None:
            return None
        from jwarp.runtime.device import ScopedDevice

        self._device_scope = ScopedDevice(self.stream.device)
        self._device_scope.__enter__()
        self._saved = _streams.get(self.stream.device)
        _streams[self.stream.device] = self.stream
        return self.stream

    def __exit__(self, *exc) -> None:
        if self.stream is None:
            return
        if self._saved is None:
            _streams.pop(self.stream.device, None)
        else:
            _streams[self.stream.device] = self._saved
        self._device_scope.__exit__(*exc)
