"""wp.map_cuda_device / unmap_cuda_device / get_cuda_supported_archs."""

from __future__ import annotations

import pytest

import jwarp as wp
from jwarp.runtime.device import simulated_cuda_devices


def test_unmap_unknown_alias_raises():
    with pytest.raises(RuntimeError, match="Invalid CUDA device alias 'imaginary_device:0'"):
        wp.unmap_cuda_device("imaginary_device:0")


def test_map_without_cuda_raises():
    if wp.is_cuda_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(RuntimeError, match="Unable to determine CUDA context for device alias 'x'"):
        wp.map_cuda_device("x")


def test_supported_archs_is_a_list_of_ints():
    archs = wp.get_cuda_supported_archs()
    assert isinstance(archs, list) and all(isinstance(a, int) and 50 <= a <= 150 for a in archs)


def test_map_twice_then_unmap_on_a_cuda_device():
    with simulated_cuda_devices(1) as devices:
        with wp.ScopedDevice(devices[0]):
            assert wp.map_cuda_device("new_alias") is devices[0]
            assert wp.map_cuda_device("new_alias") is devices[0]
            assert wp.get_device("new_alias") is devices[0]
            wp.unmap_cuda_device("new_alias")
            with pytest.raises(ValueError):
                wp.get_device("new_alias")
