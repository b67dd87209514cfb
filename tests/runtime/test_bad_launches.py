"""The bad-input table of the launch contract: every row raises Warp's exception class (or a
clear jwarp error where Warp would crash) and leaves every array unchanged."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime.device import simulated_cuda_devices

Mode = wp.config.LaunchArrayAccessMode


@wp.kernel
def scale(a: wp.array(dtype=float), s: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] * s


@wp.struct
class S:
    x: float


@wp.struct
class T:
    x: float


@wp.kernel
def takes_struct(s: S, out: wp.array(dtype=float)):
    out[wp.tid()] = s.x


class Arrays:
    """Makes the arrays a case uses and remembers their contents, to check them afterwards."""

    def __init__(self) -> None:
        self.tracked: list = []

    def make(self, values, device=None, dtype=float, **kwargs):
        arr = wp.array(np.asarray(values, dtype=np.float32 if dtype is float else np.int32), dtype=dtype,
                       device=device, **kwargs)
        self.tracked.append((arr, arr.numpy().copy()))
        return arr

    def pair(self, device=None):
        return self.make(np.arange(4), device), self.make(np.full(4, 7.0), device)

    def check_unchanged(self) -> None:
        for arr, before in self.tracked:
            np.testing.assert_array_equal(arr.numpy(), before)


@contextlib.contextmanager
def access_mode(mode):
    saved = wp.config.launch_array_access_mode
    wp.config.launch_array_access_mode = mode
    try:
        yield
    finally:
        wp.config.launch_array_access_mode = saved


def _wrong_stream_device(t: Arrays):
    with simulated_cuda_devices(2):
        a, o = t.pair("cuda:0")
        cmd = wp.launch(scale, 4, inputs=[a, 2.0, o], record_cmd=True)
        cmd.launch(stream=wp.Stream("cuda:1"))


def _set_stream_of_other_device(t: Arrays):
    with simulated_cuda_devices(2):
        wp.set_stream(wp.Stream("cuda:1"), device="cuda:0")


def _forbidden_device(mode, pinned=False):
    def case(t: Arrays):
        with simulated_cuda_devices(1), access_mode(mode):
            a = t.make(np.arange(4), "cpu", pinned=pinned)
            o = t.make(np.zeros(4), "cuda:0")
            wp.launch(scale, 4, inputs=[a, 2.0, o])

    return case


def _moved_array(t: Arrays):
    with simulated_cuda_devices(1), access_mode(Mode.STRICT):
        a, o = t.pair("cuda:0")
        cmd = wp.launch(scale, 4, inputs=[a, 2.0, o], record_cmd=True)
        cmd.set_param_by_name("a", a.to("cpu"))


def _freed_array(t: Arrays):
    a, o = t.pair()
    wp.launch(scale, 4, inputs=[a, 2.0, o], record_cmd=True)  # (a Launch holding it fails the same way)
    freed = wp.array(np.ones(4, dtype=np.float32))
    wp.to_jax(freed).delete()
    wp.launch(scale, 4, inputs=[freed, 2.0, o])


def _launch_object(action):
    def case(t: Arrays):
        a, o = t.pair()
        action(wp.launch(scale, 4, inputs=[a, 2.0, o], record_cmd=True), a)

    return case


ROWS = [
    ("too few arguments", lambda t: wp.launch(scale, 4, inputs=[t.pair()[0], 2.0]), RuntimeError,
     "passed 2 arguments but kernel requires 3"),
    ("too many arguments", lambda t: wp.launch(scale, 4, inputs=[*t.pair(), 2.0, 1.0]), RuntimeError,
     "passed 4 arguments"),
    ("wrong dtype", lambda t: wp.launch(scale, 4, inputs=[t.make([1, 2, 3, 4], dtype=int), 2.0, t.pair()[1]]),
     RuntimeError, "argument 'a' expects an array with dtype=float32"),
    ("wrong ndim", lambda t: wp.launch(scale, 4, inputs=[t.make(np.zeros((2, 2))), 2.0, t.pair()[1]]), RuntimeError,
     "1 dimension(s)"),
    ("wrong struct", lambda t: wp.launch(takes_struct, 4, inputs=[T(), t.pair()[1]]), RuntimeError, "argument 's'"),
    ("scalar for array", lambda t: wp.launch(scale, 4, inputs=[1.0, 2.0, t.pair()[1]]), RuntimeError,
     "argument 'a' expects an array"),
    ("array for scalar", lambda t: wp.launch(scale, 4, inputs=[t.pair()[0], t.pair()[0], t.pair()[1]]), RuntimeError,
     "param s"),
    ("non-kernel callable", lambda t: wp.launch(print, 4, inputs=[*t.pair()]), RuntimeError,
     "can only launch functions decorated with @wp.kernel"),
    ("negative dim", lambda t: wp.launch(scale, -1, inputs=[t.pair()[0], 2.0, t.pair()[1]]), ValueError,
     "non-negative"),
    ("five dims", lambda t: wp.launch(scale, (1, 1, 1, 1, 4), inputs=[t.pair()[0], 2.0, t.pair()[1]]), ValueError,
     "at most 4"),
    ("non-integer dim", lambda t: wp.launch(scale, (4.0,), inputs=[t.pair()[0], 2.0, t.pair()[1]]), TypeError,
     "'float' object cannot be interpreted as an integer"),
    ("unknown device", lambda t: wp.launch(scale, 4, inputs=[t.pair()[0], 2.0, t.pair()[1]], device="tpu"),
     ValueError, "Invalid device identifier: tpu"),
    ("block_dim above 1024 on CPU", lambda t: wp.launch(scale, 4, inputs=[t.pair()[0], 2.0, t.pair()[1]],
                                                        block_dim=4096), ValueError, "at most 1024 on CPU"),
    ("stream of another device", _wrong_stream_device, RuntimeError,
     "Stream from device cuda:1 cannot be used on device cuda:0"),
    ("set_stream on another device", _set_stream_of_other_device, RuntimeError, "cannot be used on device cuda:0"),
    ("STRICT foreign array", _forbidden_device(Mode.STRICT, pinned=True), RuntimeError, "STRICT requires"),
    ("CHECKED host array in CUDA launch", _forbidden_device(Mode.CHECKED), RuntimeError, "is not accessible"),
    ("access mode not an enum", lambda t: setattr(wp.config, "launch_array_access_mode", "CHECKED"), ValueError,
     "LaunchArrayAccessMode value"),
    ("Launch param index", _launch_object(lambda c, a: c.set_param_at_index(9, 1.0)), IndexError, "out of range"),
    ("Launch param name", _launch_object(lambda c, a: c.set_param_by_name("b", 1.0)), ValueError,
     "Argument 'b' not found in kernel 'scale'"),
    ("Launch param type", _launch_object(lambda c, a: c.set_param_by_name("s", a)), RuntimeError,
     "unable to pack kernel parameter"),
    ("Launch array param dtype", _launch_object(lambda c, a: c.set_param_at_index(0, wp.zeros(4, dtype=wp.float64))),
     RuntimeError, "dtype=float32"),
    ("array moved to another device", _moved_array, RuntimeError, "argument 'a' is on device=cpu"),
    ("array whose storage was freed", _freed_array, RuntimeError, "storage has been deleted"),
]


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_bad_input_raises_and_changes_nothing(row):
    _, case, exc_type, needle = row
    tracked = Arrays()
    with pytest.raises(exc_type) as info:
        case(tracked)
    assert type(info.value) is exc_type
    assert needle in str(info.value)
    tracked.check_unchanged()
    assert wp.config.launch_array_access_mode is Mode.RELAXED
