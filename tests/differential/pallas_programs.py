"""Which differential programs take the Pallas path, per backend, and the hook that lowers their
launches for CUDA (used by ``test_pallas_programs.py`` and, for ``TRITON_ONLY_PROGRAMS``, by the
XLA-path differential test ``test_programs.py``, which shares its run). See docs/launch.md.

- ``TRITON_PROGRAMS``: every launch runs through ``pallas_call``: run once in interpret mode on the CPU
  and compared with real Warp, each launch signature also lowered for CUDA (must be a Triton kernel).
- ``INTERPRET_PROGRAMS``: the same, but the named kernels do not lower to Triton, for the given reason.
- ``TRITON_ONLY_PROGRAMS``: every launch lowers to Triton, checked during the program's XLA-path
  differential run (``test_programs.py``); interpret mode is not run: it costs several times the XLA
  path's compile for these (decompositions, noise, random, transforms, 2^20-thread launches).
- ``NOT_ELIGIBLE``: some launch cannot take the Pallas path (the reason).

Example::

    triton, kept_xla = lowering_hook(monkeypatch)   # then run a program
    check_lowerings("core_saxpy", triton, {})
"""

from __future__ import annotations

import jwarp
from jwarp.compiler.pallas_lower import lower_for_cuda_platform, plan_of
from jwarp.runtime import preparation
from jwarp.runtime.pallas_select import triton_plan

TRITON_PROGRAMS = [
    "core_launch_chains",
    "grad_loops",
    "core_array_interfaces",
    "core_arrays_nd",
    "core_atomics",
    "core_atomic_order",
    "core_closures",
    "core_component_stores",
    "core_composite_constructors",
    "core_control_flow",
    "core_dtype_views",
    "core_funcs_structs",
    "core_generic_any",
    "core_generic_composites",
    "core_generic_dispatch",
    "core_loops_nested",
    "core_numpy_args",
    "core_packed_access",
    "core_saxpy",
    "core_small_types",
    "core_strided",
    "core_strided_stores",
    "core_struct_arrays",
    "core_struct_arrays_with_array_fields",
    "core_tid_forms",
    "core_type_forms",
    "core_typing",
    "core_vectors_basic",
    "core_views",
    "grad_adjoint_launch",
    "grad_autograd",
    "grad_call",
    "grad_conventions",
    "grad_copy",
    "grad_funcs_custom",
    "grad_module_options",
    "grad_overwrite_checks",
    "grad_sim",
    "grad_struct_arrays",
    "grad_struct_tape",
    "lang_array_slices",
    "lang_augassign_order",
    "lang_call_keywords_ifexp",
    "lang_captured_struct_fields",
    "lang_cast_bits",
    "lang_empty_matrices",
    "lang_empty_slices",
    "lang_function_params",
    "lang_future_annotations",
    "lang_negative_indices",
    "lang_python_scope_calls",
    "lang_refs",
    "lang_scoping",
    "lang_shape_padding",
    "lang_starred_args",
    "lang_static_declaration",
    "lang_struct_defaults_and_index_errors",
    "lang_tid_alias",
    "lang_tuples",
    "lang_variadic_tuples",
    "launch_blocks",
    "launch_capture_conditional",
    "launch_commands",
    "launch_scalar_packing",
    "launch_struct_params",
    "modules_function_targets",
    "modules_instancing",
    "scalar_bit_count",
    "scalar_int_division",
    "scalar_trig",
    "scalar_bitwise_atomics",
    "scalar_half_math",
    "scalar_literal_precision",
    "sparse_kernel_funcs",
    "struct_nested_array_construct",
    "types_factory_calls",
]

INTERPRET_PROGRAMS = {  # program: {kernel: why it does not lower to Triton}
    "core_kernel_arrays": {'local_array': "the operation 'slice' has no Triton lowering (e.g. a gather or scatter of values such as a thread-lo"},
    "lang_codegen_errors": {'bare_return': 'no Triton kernel in the lowering', 'none_annotated': 'no Triton kernel in the lowering'},
    "lang_fixedarray": {'fixed': "a value of shape (256, 2, 3) in 'broadcast_in_dim': the Triton backend needs power-of-two block shap"},
}

TRITON_ONLY_PROGRAMS = [
    "vecmath_dtypes",
    "vecmath_matrix",
    "geometry_marching_cubes",
    "geometry_sparse_marching_cubes",
    "geometry_primitives",
    "geometry_surface_nets",
    "grad_atomics",
    "grad_chain",
    "grad_decompositions",
    "grad_lane_chunks",
    "grad_quat_transform",
    "grad_vectors",
    "lang_slicing",
    "launch_dims",
    "launch_memory_chunks",
    "noise_curl",
    "noise_perlin",
    "quat_ops",
    "random_pcg",
    "random_sampling",
    "scalar_float_division",  # interpreted on the CPU, Pallas divides by XLA's reciprocal product (inexact)
    "scalar_nan_minmax",
    "sim_smoke2d",
    "transform_ops",
    "vecmath_basic",
    "vecmath_decomp",
]

NOT_ELIGIBLE = {  # program: why it does not run on the Pallas path
    "array_operators": 'launches no kernel',
    "core_array_subclass": 'indexed arrays (wp.indexedarray)',
    "core_copy_ranges": 'launches no kernel',
    "core_fabricarray": 'indexed arrays (wp.indexedarray)',
    "core_fill_errors": 'launches no kernel',
    "core_fill_values": 'launches no kernel',
    "core_indexed_aliasing": 'indexed arrays (wp.indexedarray)',
    "core_indexed_atomics": 'indexed arrays (wp.indexedarray)',
    "core_indexedarray": 'indexed arrays (wp.indexedarray)',
    "core_launch_sizes": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "core_progress": 'threads spin on each other (spin locks, CAS retry loops): the Pallas path does not serialise stalled loops',
    "geometry_bvh_groups": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "geometry_id_arrays": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "geometry_volume_exact": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "geometry_volume_nvdb": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "tile_gemm_contraction": 'tiles (XLA path)',
    "geometry_delaunay": 'launches no kernel',
    "geometry_hash_grid": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "geometry_capture_rebind": 'not surveyed: its kernels compile inside a graph capture / a JAX trace, not through wp.launch',
    "geometry_hash_grid_capture": 'not surveyed: its kernels compile inside a graph capture / a JAX trace, not through wp.launch',
    "geometry_hash_grid_filtered": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "geometry_hash_grid_groups": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "geometry_hash_grid_pairs": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "geometry_mesh_iterators": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "geometry_pair_extremes": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "geometry_mesh_queries": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "geometry_mesh_rays": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "geometry_mesh_large_launch": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "geometry_mesh_winding": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "geometry_mesh_ray_edges": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "geometry_mesh_ray_shared": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "geometry_swept_volume": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "geometry_swept_volume_mesh": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "geometry_tiled_queries_blocks": 'tiles (kernels using tiles keep the XLA path)',
    "geometry_volume": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "geometry_volume_write": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "grad_struct_arrays_mixed": 'tiles (kernels using tiles keep the XLA path)',
    "interop_jax": 'not surveyed: its kernels compile inside a graph capture / a JAX trace, not through wp.launch',
    "lang_map": 'indexed arrays (wp.indexedarray)',
    "lang_null_array_conditions": 'a None array argument',
    "lang_print": 'print() / wp.expect_* (host callbacks inside the kernel)',
    "lang_print_wide": 'print() / wp.expect_* (host callbacks inside the kernel)',
    "lang_slot_assign_errors": 'launches no kernel',
    "launch_capture": 'not surveyed: its kernels compile inside a graph capture / a JAX trace, not through wp.launch',
    "scalar_atomic_dtype_errors": 'expects an error (its kernels do not compile)',
    "scalar_python_ops": 'launches no kernel',
    "sparse_bsr": 'launches no kernel',
    "tile_arange_wide": 'tiles (kernels using tiles keep the XLA path)',
    "tile_basics": 'tiles (kernels using tiles keep the XLA path)',
    "tile_block_rows": 'tiles (kernels using tiles keep the XLA path)',
    "tile_blocked_loads": 'tiles (kernels using tiles keep the XLA path)',
    "tile_construction": 'tiles (kernels using tiles keep the XLA path)',
    "tile_fused": 'tiles (kernels using tiles keep the XLA path)',
    "tile_indexed": 'tiles (kernels using tiles keep the XLA path)',
    "tile_lanes": 'tiles (kernels using tiles keep the XLA path)',
    "tile_loops": 'tiles (kernels using tiles keep the XLA path)',
    "tile_map_lanes": 'tiles (kernels using tiles keep the XLA path)',
    "tile_partial_blocks": 'tiles (kernels using tiles keep the XLA path)',
    "tile_random": 'tiles (kernels using tiles keep the XLA path)',
    "tile_reduce_gemm": 'tiles (kernels using tiles keep the XLA path)',
    "tile_shape_scan_sort": 'tiles (kernels using tiles keep the XLA path)',
    "tile_sliced_views": 'tiles (kernels using tiles keep the XLA path)',
    "tile_slicing": 'tiles (kernels using tiles keep the XLA path)',
    "tile_solvers": 'tiles (kernels using tiles keep the XLA path)',
    "tile_stack": 'tiles (kernels using tiles keep the XLA path)',
    "tile_structs": 'tiles (kernels using tiles keep the XLA path)',
    "types_factory_classes": 'geometry objects (Mesh, HashGrid, Bvh, Volume ids)',
    "types_tile_python_scope": 'launches no kernel',
}

KEEPS_XLA = {  # program: kernels with a launch that keeps the XLA path by design, and why
    "grad_loops": {"loops"},  # a taped launch with run-time loop bounds measures trip counts (XLA path)
}


def lowering_hook(monkeypatch, xla_launches: bool = False) -> tuple[dict, list]:
    """Lower for CUDA every launch signature that runs through ``pallas_call`` (with ``xla_launches``,
    also those on the XLA path); returns ``({kernel: True | reason}, [kernels that kept the XLA path
    under pallas="always"])``."""
    triton: dict = {}
    kept_xla: list = []
    compile_kernel = preparation.compile_kernel

    def compile_and_lower(source, arg_names, sig, example_args):
        compiled = compile_kernel(source, arg_names, sig, example_args)
        plan = plan_of(sig)
        on_pallas = plan is not None and "pallas_call" in str(compiled.closed_jaxpr)
        if plan is None and jwarp.config.pallas == "always":
            kept_xla.append(source.name)
        if on_pallas or (xla_launches and plan is None):
            programs = plan.programs if plan is not None else 0
            try:
                text = lower_for_cuda_platform(source, arg_names, sig, triton_plan(sig.block_dim, programs),
                                               list(example_args))
                triton[source.name] = "xla.gpu.triton" in text or "no Triton kernel in the lowering"
            except Exception as exc:  # noqa: BLE001 - the reason, compared with the expected one
                triton[source.name] = str(exc)
        return compiled

    monkeypatch.setattr(preparation, "compile_kernel", compile_and_lower)
    return triton, kept_xla


def check_lowerings(name: str, triton: dict, expected_failures: dict) -> None:
    assert triton, f"{name}: no launch was lowered"
    failed = {k: v for k, v in triton.items() if v is not True}
    assert set(failed) == set(expected_failures), f"{name}: kernels that do not lower to Triton: {failed}"
    for kernel, reason in expected_failures.items():
        assert reason in failed[kernel], f"{name}.{kernel}: {failed[kernel]}"
