"""Public modules beyond the core, exported into ``jwarp`` at import.

Each entry maps a module to the names it contributes to the top-level namespace. Keeping
this list in one place lets separate modules (tape, interop, utilities) be developed and
tested independently without editing ``jwarp/__init__.py``. Every module and name listed must
exist: :func:`export` raises instead of skipping.
"""

import importlib

_EXPORTS = {
    "jwarp.runtime.access": ["can_access", "MemoryKind"],
    "jwarp.runtime.mapping": ["map"],
    "jwarp.runtime.device": ["DeviceLike"],
    "jwarp.runtime.device_aliases": ["map_cuda_device", "unmap_cuda_device", "get_cuda_supported_archs"],
    "jwarp.runtime.streams": ["get_event_elapsed_time"],
    "jwarp.runtime.tape": ["Tape"],
    "jwarp.runtime.geometry.hash_grid": ["HashGrid"],
    "jwarp.builtins.hash_grid": ["HashGridQuery"],
    "jwarp.runtime.geometry.mesh": ["Mesh", "is_cubql_available"],
    "jwarp.builtins.mesh_point_queries": ["MeshQueryPoint"],
    "jwarp.builtins.mesh_ray_queries": ["MeshQueryRay"],
    "jwarp.runtime.geometry.bvh": ["Bvh"],
    "jwarp.runtime.geometry.volume": ["Volume"],
    "jwarp.builtins.bvh_queries": ["BvhQuery", "MeshQuery", "MeshQueryAABB"],
    "jwarp.builtins.tile_geometry_queries": ["BvhQueryTiled", "MeshQueryAABBTiled"],
    "jwarp.autograd": [],  # importing it makes ``wp.autograd`` available
    "jwarp.runtime.capture": ["ScopedCapture", "capture_begin", "capture_end", "capture_launch", "Graph",
                               "capture_if", "capture_while", "CaptureMode", "is_conditional_graph_supported",
                               "capture_debug_dot_print"],
    "jwarp.runtime.compile_cache": ["clear_kernel_cache", "clear_lto_cache"],
    "jwarp.config": ["DeterministicMode"],
    "jwarp.runtime.modules": ["get_cpu_kernel_cache_key"],
    "jwarp.compat": ["transform_expand", "dtype_to_numpy"],
    "jwarp.interop.jax": ["jax_kernel", "jax_callable", "from_jax", "to_jax", "device_from_jax", "device_to_jax",
                          "dtype_from_jax", "dtype_to_jax", "JaxCallableGraphMode", "JaxModulePreloadMode"],
    "jwarp.interop.dlpack": ["from_dlpack", "to_dlpack"],
    "jwarp.utils": ["ScopedTimer"],  # importing it also makes ``wp.utils`` available
    "jwarp.runtime.mempool": ["get_mempool_release_threshold", "set_mempool_release_threshold",
                              "is_mempool_enabled", "is_mempool_supported", "set_mempool_enabled",
                              "get_mempool_used_mem_current", "get_mempool_used_mem_high",
                              "is_mempool_access_enabled", "is_mempool_access_supported",
                              "set_mempool_access_enabled", "is_peer_access_supported",
                              "is_peer_access_enabled", "set_peer_access_enabled", "ScopedMempool",
                              "ScopedMempoolAccess", "ScopedPeerAccess"],
}


def export(namespace: dict) -> None:
    """Import every listed module and copy its names into ``namespace``. Nothing is skipped: a
    missing module or name raises at ``import jwarp`` (naming it), so the public surface cannot
    shrink silently."""
    for module_name, names in _EXPORTS.items():
        module = importlib.import_module(module_name)
        for name in names:
            namespace[name] = getattr(module, name)
