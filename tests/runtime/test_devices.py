"""Devices: aliases and their errors, the current device (set_device / ScopedDevice), device
queries, arrays carrying a device, launches on the current device, several host devices
(subprocess with the XLA flag), simulated CUDA devices, pinned arrays."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime.device import simulated_cuda_devices
from tests.runtime.multihost import run_with_host_devices


@wp.kernel
def add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


def test_cpu_aliases_and_queries():
    cpu = wp.get_device("cpu")
    assert cpu.is_cpu and not cpu.is_cuda and cpu.ordinal == -1 and cpu.arch == 0
    assert wp.get_device(cpu) is cpu
    assert wp.get_device(jax.devices("cpu")[0]) is cpu
    assert cpu == "cpu" and cpu == jax.devices("cpu")[0] and cpu != "cuda:0" and cpu != 3
    assert str(cpu) == "cpu" and repr(cpu) == "'cpu'"
    assert wp.get_devices() == [cpu]
    assert wp.get_cuda_devices() == [] and wp.get_cuda_device_count() == 0 and not wp.is_cuda_available()
    assert wp.get_preferred_device() is cpu and wp.is_cpu_available() and wp.is_device_available(cpu)
    assert cpu.can_access("cpu") and not cpu.is_uva and cpu.context is None
    assert cpu.total_memory >= cpu.free_memory >= 0


@pytest.mark.parametrize("ident", ["gpu", "cpu:1", "cuda:0", "cuda:7", "", 3])
def test_unknown_device_is_value_error(ident):
    with pytest.raises(ValueError, match="Invalid device identifier"):
        wp.get_device(ident)
    with pytest.raises(ValueError):
        wp.set_device(ident)
    with pytest.raises(ValueError):
        wp.zeros(2, device=ident)


def test_cuda_without_gpu_is_runtime_error():
    with pytest.raises(RuntimeError, match='"cuda" device requested but CUDA is not supported'):
        wp.get_device("cuda")
    a = wp.zeros(2)
    with pytest.raises(RuntimeError):
        wp.launch(add_one, 2, inputs=[a], device="cuda")
    np.testing.assert_array_equal(a.numpy(), [0, 0])


def test_set_device_and_scoped_device_are_process_wide():
    import threading

    with simulated_cuda_devices(1):
        cpu, gpu = wp.get_device("cpu"), wp.get_device("cuda:0")
        assert wp.get_device() is gpu  # Warp's default with a GPU
        with wp.ScopedDevice("cpu") as d:
            assert d is cpu and wp.get_device() is cpu
            seen = []
            t = threading.Thread(target=lambda: seen.append(wp.get_device()))
            t.start()
            t.join()
            assert seen == [cpu]  # as in Warp: one current device for the process
            with gpu:  # a Device is a context manager too
                assert wp.get_device() is gpu and wp.get_device("cuda") is gpu
            assert wp.get_device() is cpu and wp.get_device("cuda") is gpu
        assert wp.get_device() is gpu
        wp.set_device("cpu")
        assert wp.get_device() is cpu
        assert wp.zeros(2).device is cpu
    assert wp.get_device() is wp.get_device("cpu")


def test_arrays_carry_their_device_and_launch_uses_current_device():
    with simulated_cuda_devices(1):
        gpu = wp.get_device("cuda:0")
        a = wp.zeros(3)
        assert a.device is gpu and a[1:].device is gpu
        wp.launch(add_one, 3, inputs=[a])  # device=None: the current device
        assert add_one._cache and all(key[-1] == "cuda:0" for key in add_one._cache)
        np.testing.assert_array_equal(a.numpy(), [1, 1, 1])
        with wp.ScopedDevice("cpu"):
            b = wp.zeros(2)
            assert b.device is wp.get_device("cpu")
            wp.launch(add_one, 2, inputs=[b])
            np.testing.assert_array_equal(b.numpy(), [1, 1])


def test_simulated_cuda_device_attributes():
    with simulated_cuda_devices(2) as cudas:
        assert [d.alias for d in cudas] == ["cuda:0", "cuda:1"]
        d = cudas[1]
        assert d.is_cuda and d.is_simulated and d.ordinal == 1 and d.is_uva and d.is_primary
        assert wp.get_cuda_device(1) is d and wp.get_cuda_device_count() == 2
        assert wp.get_devices()[0].is_cpu and wp.get_devices()[1:] == cudas
        assert d == "cuda:1" and d != "cuda:0" and d.context is not None
    with pytest.raises(ValueError):
        wp.get_device("cuda:1")


def test_pinned_attribute_follows_warp():
    assert wp.zeros(3, device="cpu", pinned=True).pinned
    assert not wp.zeros(3, device="cpu").pinned
    with simulated_cuda_devices(1):
        assert not wp.zeros(3, device="cuda:0", pinned=True).pinned  # only host memory is pinned


def test_several_host_devices_are_cpu_0_to_n():
    result = run_with_host_devices(
        """
        import json, numpy as np, jwarp as wp

        @wp.kernel
        def add(a: wp.array(dtype=float), s: float):
            i = wp.tid()
            a[i] = a[i] + s

        names = [d.alias for d in wp.get_devices()]
        cpu = wp.get_device("cpu")
        out = {"names": names, "cpu": cpu.alias, "current": wp.get_device().alias}
        arrays = {}
        for d in wp.get_devices():
            a = wp.zeros(4, device=d)
            wp.launch(add, 4, inputs=[a, float(d.alias[-1])], device=d)
            arrays[d.alias] = (a.device.alias, list(a.buffer.devices())[0].id, a.numpy().tolist())
        out["arrays"] = arrays
        with wp.ScopedDevice("cpu:2"):
            b = wp.zeros(2)
            wp.launch(add, 2, inputs=[b, 5.0])
            out["scoped"] = [b.device.alias, b.numpy().tolist()]
        # RELAXED: an array of cpu:1 launched on cpu:2 travels there and back
        c = wp.zeros(3, device="cpu:1")
        wp.launch(add, 3, inputs=[c, 7.0], device="cpu:2")
        out["moved"] = [c.device.alias, list(c.buffer.devices())[0].id, c.numpy().tolist()]
        print(json.dumps(out))
        """
    )
    assert result["names"] == ["cpu:0", "cpu:1", "cpu:2"]
    assert result["cpu"] == "cpu:0" and result["current"] == "cpu:0"
    for i in range(3):
        assert result["arrays"][f"cpu:{i}"] == [f"cpu:{i}", i, [float(i)] * 4]
    assert result["scoped"] == ["cpu:2", [5.0, 5.0]]
    assert result["moved"] == ["cpu:1", 1, [7.0, 7.0, 7.0]]
