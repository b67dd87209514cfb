"""Streams and events: CUDA-only as in Warp (raise on CPU), current streams per device,
``launch(stream=...)`` using the stream's device, events and timing, synchronization."""

from __future__ import annotations

import threading
import time

import jax
import numpy as np
import pytest

import jwarp as wp
from jwarp import _dispatch
from jwarp.runtime import streams
from jwarp.runtime.device import simulated_cuda_devices
from jwarp.runtime.locking import state_lock


@wp.kernel
def add(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] + s


def test_streams_and_events_are_cuda_only():
    for make in (lambda: wp.Stream("cpu"), lambda: wp.Stream(), lambda: wp.Event("cpu"), lambda: wp.get_stream(),
                 lambda: wp.get_device("cpu").stream, lambda: wp.record_event(), lambda: wp.wait_stream(None)):
        with pytest.raises(RuntimeError, match="Device cpu is not a CUDA device"):
            make()
    with pytest.raises(RuntimeError, match="not a CUDA device"):
        wp.get_device("cpu").set_stream(None)
    # synchronizing a CPU device is allowed (and waits for jwarp's asynchronous launches)
    wp.synchronize()
    wp.synchronize_device("cpu")
    wp.synchronize_stream("cpu")


def test_current_stream_per_device():
    with simulated_cuda_devices(2):
        d0, d1 = wp.get_device("cuda:0"), wp.get_device("cuda:1")
        default = wp.get_stream()
        assert default.device is d0 and wp.get_stream(d0) is default and d0.stream is default and d0.has_stream
        s = wp.Stream(d0, priority=-5)
        assert s.priority == -1 and s.device is d0 and s.is_blocking and not s.is_capturing
        assert s.__cuda_stream__()[1] == s.cuda_stream != default.cuda_stream
        wp.set_stream(s)
        assert wp.get_stream() is s
        wp.set_stream(default)
        with pytest.raises(RuntimeError, match="Stream from device cuda:1 cannot be used on device cuda:0"):
            wp.set_stream(wp.Stream(d1), device=d0)
        with pytest.raises(TypeError, match="priority must be an integer"):
            wp.Stream(d0, priority=0.5)
        ext = wp.Stream(d1, cuda_stream=1234)
        assert ext.cuda_stream == 1234 and not ext.owner


def test_scoped_stream_sets_device_and_stream():
    with simulated_cuda_devices(2):
        d1 = wp.get_device("cuda:1")
        s = wp.Stream(d1)
        with wp.ScopedStream(s) as entered:
            assert entered is s and wp.get_device() is d1 and wp.get_stream() is s
        assert wp.get_device().alias == "cuda:0" and d1.stream is not s
        with wp.ScopedStream(None) as nothing:
            assert nothing is None


def test_launch_on_stream_uses_its_device():
    with simulated_cuda_devices(1):
        s = wp.Stream("cuda:0")
        a = wp.zeros(3, device="cuda:0")
        wp.launch(add, 3, inputs=[a, 1.0], stream=s, device="cpu")  # as in Warp, the stream wins
        assert all(key[-1] == "cuda:0" for key in add._cache)
        np.testing.assert_array_equal(a.numpy(), [1, 1, 1])
        with pytest.raises(TypeError, match="stream must be a wp.Stream"):
            wp.launch(add, 3, inputs=[a, 1.0], stream="cuda:0")
        np.testing.assert_array_equal(a.numpy(), [1, 1, 1])


def test_events_and_elapsed_time():
    with simulated_cuda_devices(1):
        start, end = wp.Event(enable_timing=True), wp.Event(enable_timing=True)
        a = wp.zeros(1000)
        wp.record_event(start)
        for _ in range(5):
            wp.launch(add, 1000, inputs=[a, 1.0])
        wp.get_stream().record_event(end)
        elapsed = wp.get_event_elapsed_time(start, end)
        assert elapsed > 0.0 and end.is_complete
        np.testing.assert_array_equal(a.numpy(), np.full(1000, 5.0))
        plain = wp.record_event()
        assert isinstance(plain, wp.Event) and not plain.enable_timing
        wp.wait_event(plain)
        wp.wait_stream(wp.Stream())
        wp.get_stream().wait_stream(wp.Stream(), event=plain)
        wp.synchronize_event(plain)
        with pytest.raises(RuntimeError, match="enable_timing=True"):
            wp.get_event_elapsed_time(plain, end)
        with pytest.raises(RuntimeError, match="recorded"):
            wp.get_event_elapsed_time(wp.Event(enable_timing=True), end)
        with pytest.raises(ValueError, match="enable_timing=True' and 'interprocess=True"):
            wp.Event(enable_timing=True, interprocess=True)
        with pytest.raises(RuntimeError, match="does not support IPC"):
            plain.ipc_handle()


def test_event_of_another_device_cannot_be_recorded():
    with simulated_cuda_devices(2):
        e = wp.Event("cuda:1")
        expected = "Event from device cuda:1 cannot be recorded on stream from device cuda:0"
        with pytest.raises(RuntimeError, match=expected):
            wp.Stream("cuda:0").record_event(e)


@wp.kernel
def _heavy(a: wp.array(dtype=float)):
    """Long enough a launch that a synchronisation which does not wait for it sees it unfinished."""
    i = wp.tid()
    x = a[i]
    for _ in range(200):
        x = wp.sin(x) + 1.0
    a[i] = x


def test_synchronize_waits_for_outstanding_work():
    a = wp.zeros(20000)
    for _ in range(3):
        wp.launch(_heavy, 20000, inputs=[a])
    wp.synchronize()
    assert a.buffer.is_ready()
    wp.launch(_heavy, 20000, inputs=[a])
    wp.synchronize_device()
    assert a.buffer.is_ready()
    with simulated_cuda_devices(1):
        s = wp.get_stream()
        b = wp.zeros(20000)
        wp.launch(_heavy, 20000, inputs=[b], stream=s)
        wp.synchronize_stream(s)
        assert b.buffer.is_ready() and s.is_complete


def test_synchronize_waits_for_a_launch_whose_buffers_are_shared():
    """A launch that may not donate the buffer it rewrites (``wp.copy`` made another array share it)
    runs the donating program on a copy: ``wp.synchronize()`` still waits for it."""
    a, keep = wp.zeros(40000), wp.zeros(40000)
    wp.launch(_heavy, 40000, inputs=[a])  # the first run chooses the donating program
    for _ in range(4):  # (the first of these takes the full launch path)
        wp.copy(keep, a)  # keep shares a's buffer: the next launch cannot donate it
        wp.launch(_heavy, 40000, inputs=[a])
        wp.synchronize()
        assert a.buffer.is_ready()
    np.testing.assert_array_equal(keep.numpy(), wp.clone(keep).numpy())


def _count_ticks(monkeypatch) -> list:
    """Replace the barrier's tiny computation with one that counts its calls."""
    calls: list = []
    real = jax.jit(lambda x: x + 1)

    def tick(x):
        calls.append(1)
        return real(x)

    monkeypatch.setattr(streams, "_tick", tick)
    return calls


def test_cpu_synchronize_needs_no_dispatch_under_synchronous_dispatch(monkeypatch):
    if not _dispatch.SYNC_CPU:
        pytest.skip("JAX's CPU backend started before jwarp: asynchronous CPU dispatch")
    calls = _count_ticks(monkeypatch)
    a = wp.zeros(16)
    wp.synchronize()
    wp.synchronize_device("cpu")
    assert calls == []
    monkeypatch.setattr(streams, "worker_busy", lambda: True)  # an interrupted launch still computing
    wp.synchronize()
    assert calls == [1]
    assert a.numpy().sum() == 0.0


def test_cpu_synchronize_waits_for_a_launch_on_another_thread():
    # a launch holds state_lock until its executable returns; synchronize must wait for it
    held = threading.Event()
    order: list = []

    def other():
        with state_lock:
            held.set()
            time.sleep(0.2)
            order.append("launch done")

    t = threading.Thread(target=other)
    t.start()
    assert held.wait(10)
    wp.synchronize()
    order.append("synchronized")
    t.join(10)
    assert order == ["launch done", "synchronized"]
