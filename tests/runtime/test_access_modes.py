"""``wp.config.launch_array_access_mode``: RELAXED moves foreign arrays (and results back),
CHECKED raises where Warp deems the access invalid and warns once where it cannot tell, STRICT
requires every array argument on the launch device. Simulated CUDA devices in-process; several
host devices in a subprocess."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime import access
from jwarp.runtime.device import simulated_cuda_devices
from tests.runtime.multihost import run_with_host_devices

Mode = wp.config.LaunchArrayAccessMode


@wp.kernel
def scale(a: wp.array(dtype=float), s: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] * s


@wp.struct
class Holder:
    data: wp.array(dtype=float)


@wp.kernel
def from_struct(h: Holder, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = h.data[i] + 1.0


@pytest.fixture
def mode():
    saved = wp.config.launch_array_access_mode

    def set_mode(m):
        wp.config.launch_array_access_mode = m

    yield set_mode
    wp.config.launch_array_access_mode = saved


def test_mode_is_validated_on_assignment():
    for bad in ("STRICT", 1, None, True):
        with pytest.raises(ValueError, match="must be a warp.config.LaunchArrayAccessMode value"):
            wp.config.launch_array_access_mode = bad
    assert wp.config.launch_array_access_mode is Mode.RELAXED


def test_relaxed_moves_arrays_and_results_back(mode):
    mode(Mode.RELAXED)
    with simulated_cuda_devices(1):
        a = wp.array(np.arange(4, dtype=np.float32), device="cpu")
        out = wp.zeros(4, device="cpu")
        wp.launch(scale, 4, inputs=[a, 2.0, out], device="cuda:0")
        assert out.device is wp.get_device("cpu")
        np.testing.assert_array_equal(out.numpy(), [0, 2, 4, 6])


def test_checked_rules(mode):
    mode(Mode.CHECKED)
    with simulated_cuda_devices(2):
        cpu, gpu, gpu1 = wp.get_device("cpu"), wp.get_device("cuda:0"), wp.get_device("cuda:1")
        host = wp.array(np.arange(4, dtype=np.float32), device=cpu)
        pinned = wp.array(np.arange(4, dtype=np.float32), device=cpu, pinned=True)
        on_gpu = wp.array(np.arange(4, dtype=np.float32), device=gpu)
        on_gpu1 = wp.array(np.arange(4, dtype=np.float32), device=gpu1)
        out = wp.zeros(4, device=gpu)
        # CUDA launch reading pageable host memory: invalid
        with pytest.raises(RuntimeError) as info:
            wp.launch(scale, 4, inputs=[host, 2.0, out])
        msg = str(info.value)
        assert "Error launching kernel 'scale'" in msg and "argument 'a'" in msg
        assert "device='cuda:0'" in msg and "device=cpu" in msg and "memory_kind=HOST" in msg
        np.testing.assert_array_equal(out.numpy(), np.zeros(4))
        # pinned host memory is reachable from a (UVA) CUDA device
        wp.launch(scale, 4, inputs=[pinned, 2.0, out])
        np.testing.assert_array_equal(out.numpy(), [0, 2, 4, 6])
        assert wp.can_access(gpu, pinned) and not wp.can_access(gpu, host)
        # a CPU launch cannot read CUDA device memory
        cpu_out = wp.zeros(4, device=cpu)
        with pytest.raises(RuntimeError, match="memory_kind=CUDA_DEVICE"):
            wp.launch(scale, 4, inputs=[on_gpu, 2.0, cpu_out], device=cpu)
        # CUDA peers need peer access (not enabled)
        with pytest.raises(RuntimeError, match="argument 'a' is on device=cuda:1"):
            wp.launch(scale, 4, inputs=[on_gpu1, 2.0, out])
        assert not gpu.can_access(gpu1) and not wp.can_access(gpu, on_gpu1)
        # arrays inside structs are not checked (as in Warp); jwarp moves them
        wp.launch(from_struct, 4, inputs=[Holder(data=host), out])
        np.testing.assert_array_equal(out.numpy(), [1, 2, 3, 4])


def test_checked_warns_once_for_unknown_memory(mode):
    mode(Mode.CHECKED)
    with simulated_cuda_devices(1):
        external = wp.array(np.ones(4, dtype=np.float32), device="cuda:0")
        external._memory_kind = access.MemoryKind.UNKNOWN  # as for an allocation Warp cannot classify
        out = wp.zeros(4, device="cpu")
        with pytest.warns(UserWarning, match="cannot verify cross-device access for kernel 'scale' argument 'a'"):
            wp.launch(scale, 4, inputs=[external, 3.0, out], device="cpu")
        np.testing.assert_array_equal(out.numpy(), [3, 3, 3, 3])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            wp.launch(scale, 4, inputs=[external, 4.0, out], device="cpu")  # warned once already
        np.testing.assert_array_equal(out.numpy(), [4, 4, 4, 4])


def test_strict_requires_launch_device(mode):
    mode(Mode.STRICT)
    with simulated_cuda_devices(1):
        pinned = wp.array(np.arange(4, dtype=np.float32), device="cpu", pinned=True)
        out = wp.zeros(4, device="cuda:0")
        with pytest.raises(RuntimeError) as info:
            wp.launch(scale, 4, inputs=[pinned, 2.0, out])
        msg = str(info.value)
        assert "Error launching kernel 'scale' on device='cuda:0'" in msg and "STRICT" in msg
        assert "argument 'a' is on device=cpu (memory_kind=PINNED)" in msg
        np.testing.assert_array_equal(out.numpy(), np.zeros(4))
        on_gpu = wp.array(np.arange(4, dtype=np.float32), device="cuda:0")
        wp.launch(scale, 4, inputs=[on_gpu, 2.0, out])
        np.testing.assert_array_equal(out.numpy(), [0, 2, 4, 6])


def test_mode_applies_to_launch_objects_and_setters(mode):
    with simulated_cuda_devices(1):
        a = wp.array(np.arange(4, dtype=np.float32), device="cuda:0")
        out = wp.zeros(4, device="cuda:0")
        cmd = wp.launch(scale, 4, inputs=[a, 2.0, out], record_cmd=True)
        mode(Mode.STRICT)
        with pytest.raises(RuntimeError, match="STRICT"):
            cmd.set_param_by_name("a", wp.zeros(4, device="cpu"))
        cmd.launch()  # the rejected value was not kept
        np.testing.assert_array_equal(out.numpy(), [0, 2, 4, 6])
        mode(Mode.RELAXED)
        cmd.set_param_by_name("a", wp.full(4, 1.0, device="cpu"))
        cmd.launch()
        np.testing.assert_array_equal(out.numpy(), [2, 2, 2, 2])


def test_memory_kinds_and_can_access():
    assert access.memory_kind(wp.zeros(2, device="cpu")) is wp.MemoryKind.HOST
    assert access.memory_kind(wp.zeros(4, device="cpu", pinned=True)[1:]) is wp.MemoryKind.PINNED
    assert wp.can_access("cpu", wp.zeros(2))
    with pytest.raises(TypeError, match="only supports concrete Warp arrays"):
        wp.can_access("cpu", np.zeros(2))


def test_modes_on_several_host_devices():
    result = run_with_host_devices(
        """
        import json, numpy as np, jwarp as wp
        from jwarp.runtime.device import simulated_cuda_devices

        @wp.kernel
        def scale(a: wp.array(dtype=float), s: float, out: wp.array(dtype=float)):
            i = wp.tid()
            out[i] = a[i] * s

        M = wp.config.LaunchArrayAccessMode
        out = {}
        def attempt(label, a, o, device):
            try:
                wp.launch(scale, 3, inputs=[a, 2.0, o], device=device)
                out[label] = ["ok", o.device.alias, list(o.buffer.devices())[0].id, o.numpy().tolist()]
            except RuntimeError as e:
                out[label] = ["error", str(e), o.numpy().tolist()]

        a1 = wp.array(np.arange(3, dtype=np.float32), device="cpu:1")
        for m in ("RELAXED", "CHECKED", "STRICT"):
            wp.config.launch_array_access_mode = getattr(M, m)
            attempt(m, a1, wp.zeros(3, device="cpu:1"), "cpu:2")  # host devices share host memory
        wp.config.launch_array_access_mode = M.CHECKED
        with simulated_cuda_devices(2):  # cpu:0 stays the host; host devices 1, 2 become cuda:0, cuda:1
            out["sim"] = [d.alias + "/" + str(d.jax_device.id) for d in wp.get_devices()]
            g0 = wp.array(np.arange(3, dtype=np.float32), device="cuda:0")
            attempt("peer", g0, wp.zeros(3, device="cuda:1"), "cuda:1")
            pinned = wp.array(np.arange(3, dtype=np.float32), device="cpu", pinned=True)
            attempt("pinned", pinned, wp.zeros(3, device="cuda:1"), "cuda:1")
        print(json.dumps(out))
        """
    )
    assert result["RELAXED"] == ["ok", "cpu:1", 1, [0.0, 2.0, 4.0]]
    assert result["CHECKED"] == ["ok", "cpu:1", 1, [0.0, 2.0, 4.0]]
    assert result["STRICT"][0] == "error" and "argument 'a' is on device=cpu:1" in result["STRICT"][1]
    assert "device='cpu:2'" in result["STRICT"][1] and result["STRICT"][2] == [0.0, 0.0, 0.0]
    assert result["sim"] == ["cpu/0", "cuda:0/1", "cuda:1/2"]
    assert result["peer"][0] == "error" and "device=cuda:0" in result["peer"][1]
    assert result["pinned"] == ["ok", "cuda:1", 2, [0.0, 2.0, 4.0]]
