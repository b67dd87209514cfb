"""Memory-pool and peer-access API: Warp's behaviour on CPU devices, recorded settings and XLA's
memory statistics on CUDA devices (simulated on machines without a GPU)."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime.device import simulated_cuda_devices
from tests.differential.harness import real_warp

CUDA_ONLY = "Memory pools are only supported on CUDA devices"


def _cpu_behaviour(lib) -> dict:
    """What each call does on the CPU device: its value, or the exception type and message."""
    calls = {
        "supported": lambda: lib.is_mempool_supported("cpu"),
        "enabled": lambda: lib.is_mempool_enabled("cpu"),
        "disable": lambda: lib.set_mempool_enabled("cpu", False),
        "enable": lambda: lib.set_mempool_enabled("cpu", True),
        "get_threshold": lambda: lib.get_mempool_release_threshold("cpu"),
        "set_threshold": lambda: lib.set_mempool_release_threshold("cpu", 1024),
        "used_current": lambda: lib.get_mempool_used_mem_current("cpu"),
        "used_high": lambda: lib.get_mempool_used_mem_high("cpu"),
        "access_supported": lambda: lib.is_mempool_access_supported("cpu", "cpu"),
        "access_enabled": lambda: lib.is_mempool_access_enabled("cpu", "cpu"),
        "access_disable": lambda: lib.set_mempool_access_enabled("cpu", "cpu", False),
        "access_enable": lambda: lib.set_mempool_access_enabled("cpu", "cpu", True),
        "peer_supported": lambda: lib.is_peer_access_supported("cpu", "cpu"),
        "peer_enabled": lambda: lib.is_peer_access_enabled("cpu", "cpu"),
        "peer_disable": lambda: lib.set_peer_access_enabled("cpu", "cpu", False),
        "peer_enable": lambda: lib.set_peer_access_enabled("cpu", "cpu", True),
    }
    out = {}
    for name, call in calls.items():
        try:
            out[name] = ("value", call())
        except Exception as exc:
            out[name] = (type(exc).__name__, str(exc))
    return out


def test_cpu_devices_behave_as_in_warp():
    ours = _cpu_behaviour(wp)
    assert ours["supported"] == ("value", False) and ours["enable"] == ("ValueError", CUDA_ONLY)
    assert ours["used_high"] == ("ValueError", CUDA_ONLY) and ours["peer_disable"] == ("value", None)
    warp = real_warp()
    if warp is not None:
        assert ours == _cpu_behaviour(warp)


def test_scoped_mempool_on_cpu():
    with wp.ScopedMempool("cpu", False):
        assert not wp.is_mempool_enabled("cpu")
    with pytest.raises(ValueError, match=CUDA_ONLY):
        with wp.ScopedMempool("cpu", True):
            pass


def test_cuda_pool_settings_are_recorded():
    with simulated_cuda_devices(1) as (d0,):
        assert wp.is_mempool_supported(d0) and wp.is_mempool_supported("cuda:0")
        initial = wp.is_mempool_enabled(d0)
        wp.set_mempool_enabled(d0, True)
        assert wp.is_mempool_enabled(d0) and d0.is_mempool_enabled
        with wp.ScopedMempool(d0, False):
            assert not wp.is_mempool_enabled(d0)
        assert wp.is_mempool_enabled(d0)
        wp.set_mempool_enabled(d0, initial)
        assert wp.get_mempool_release_threshold(d0) == 0
        wp.set_mempool_release_threshold(d0, 1 << 20)
        assert wp.get_mempool_release_threshold() == 1 << 20  # default device: cuda:0
        wp.set_mempool_release_threshold(d0, 0.5)
        assert wp.get_mempool_release_threshold(d0) == int(0.5 * d0.total_memory)
        wp.set_mempool_release_threshold(d0, -3)
        assert wp.get_mempool_release_threshold(d0) == 0
    with simulated_cuda_devices(1) as (fresh,):
        assert wp.get_mempool_release_threshold(fresh) == 0  # settings belong to the device objects


def test_cuda_memory_use_counts_live_arrays():
    with simulated_cuda_devices(1) as (d0,):
        a = wp.array(np.zeros(1 << 16, dtype=np.float32), device=d0)
        used = wp.get_mempool_used_mem_current(d0)
        assert used >= a.size * 4
        assert wp.get_mempool_used_mem_high(d0) >= used
        del a
        assert wp.get_mempool_used_mem_high(d0) >= used  # a high-water mark never falls


def test_peer_and_pool_access_between_cuda_devices():
    with simulated_cuda_devices(2) as (d0, d1):
        assert wp.is_peer_access_supported(d0, d1) and wp.is_mempool_access_supported(d0, d1)
        assert not wp.is_peer_access_supported(d0, "cpu") and not wp.is_mempool_access_supported("cpu", d1)
        assert wp.is_peer_access_enabled(d0, d0) and wp.is_mempool_access_enabled(d1, d1)
        assert not wp.is_peer_access_enabled(d0, d1) and not d1.can_access(d0)
        wp.set_peer_access_enabled(d0, d1, True)
        assert wp.is_peer_access_enabled(d0, d1) and not wp.is_peer_access_enabled(d1, d0)
        assert d1.can_access(d0)  # the launch access rules follow the recorded setting
        with wp.ScopedPeerAccess(d0, d1, False):
            assert not wp.is_peer_access_enabled(d0, d1)
        assert wp.is_peer_access_enabled(d0, d1)
        with wp.ScopedMempoolAccess(d1, d0, True):
            assert wp.is_mempool_access_enabled(d1, d0)
        assert not wp.is_mempool_access_enabled(d1, d0)
        with pytest.raises(ValueError, match="Peer access is only supported between CUDA devices"):
            wp.set_peer_access_enabled(d0, "cpu", True)
        with pytest.raises(ValueError, match="Memory pool access is only supported between CUDA devices"):
            wp.set_mempool_access_enabled("cpu", d0, True)
        wp.set_peer_access_enabled(d0, d1, False)


def test_exported_names():
    names = ["get_mempool_release_threshold", "set_mempool_release_threshold", "is_mempool_enabled",
             "is_mempool_supported", "set_mempool_enabled", "get_mempool_used_mem_current",
             "get_mempool_used_mem_high", "is_mempool_access_enabled", "is_mempool_access_supported",
             "set_mempool_access_enabled", "is_peer_access_supported", "is_peer_access_enabled",
             "set_peer_access_enabled", "ScopedMempool", "ScopedMempoolAccess", "ScopedPeerAccess"]
    assert all(hasattr(wp, n) for n in names)
    warp = real_warp()
    if warp is not None:
        assert all(hasattr(warp, n) for n in names)
