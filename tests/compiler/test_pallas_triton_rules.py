"""jwarp's Triton lowering rules (jwarp/compiler/pallas_triton_rules.py): the formulations they lower
equal XLA's primitives, and kernels using them lower to Triton on a machine without a GPU."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import jwarp as wp
from jwarp.compiler.pallas_triton_rules import _reduce_and, _reduce_or, _round
from jwarp.runtime.pallas_cuda import lower_for_cuda


@pytest.mark.parametrize("method", [lax.RoundingMethod.AWAY_FROM_ZERO, lax.RoundingMethod.TO_NEAREST_EVEN])
def test_round_matches_lax_round(method):
    rng = np.random.default_rng(0)
    special = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997, -0.49999997, -0.0, 0.0, 8388609.0, 4194304.5,
               np.inf, -np.inf, np.nan]
    x = jnp.asarray(np.concatenate([np.array(special, np.float32), (rng.standard_normal(4000) * 10).astype(np.float32),
                                    (rng.integers(-100, 100, 400) / 2).astype(np.float32)]))
    ours, theirs = np.asarray(_round(x, rounding_method=method)), np.asarray(lax.round(x, method))
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs))


def test_boolean_reductions():
    x = jnp.asarray(np.array([[True, False], [False, False]]))
    np.testing.assert_array_equal(_reduce_or(x, axes=(1,)), [True, False])
    np.testing.assert_array_equal(_reduce_and(x, axes=(0,)), [False, False])
    np.testing.assert_array_equal(_reduce_and(jnp.ones(3, bool), axes=(0,)), True)


@wp.kernel
def uses_rules(x: wp.array(dtype=float), bins: wp.array(dtype=int), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    k = int(0)
    while k * k < i:  # reduce_or over the lanes still in the loop
        k += 1
    for j in range(n, 0, -2):  # a negative step: neg of a literal
        k += j
    wp.atomic_max(bins, i % 4, k)  # integer atomic max of a vector of lanes
    out[i] = wp.round(x[i]) + wp.rint(x[i]) + wp.length(wp.vec2(x[i], 1.0))  # round, reduce_precision


def test_kernel_using_the_rules_lowers_to_triton():
    x = wp.zeros(100, dtype=float)
    text = lower_for_cuda(uses_rules, 100, [x, wp.zeros(4, dtype=int), wp.zeros(100, dtype=float), 5], max_blocks=2)
    assert "xla.gpu.triton" in text


@pytest.mark.parametrize("dtype, atomic, expected", [
    (jnp.int32, "atomic_add", "ADD"), (jnp.uint32, "atomic_add", "ADD"), (jnp.float32, "atomic_add", "FADD"),
    (jnp.int32, "atomic_min", "MIN"), (jnp.uint32, "atomic_max", "UMAX"),
])
def test_vector_atomics_pick_the_integer_operation(dtype, atomic, expected, monkeypatch):
    # JAX's rule tests a tensor's MLIR type for an integer type and took FADD for integer vectors: on an
    # H200 (JAX 0.11.2) 32-bit integer histograms stayed zero (the sums were flushed subnormal floats)
    import jax
    from jax._src.pallas.triton import lowering
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import triton as plt

    from jwarp.compiler.pallas_check import cuda_target
    from jwarp.compiler.pallas_triton_rules import register_rules

    register_rules()
    ops: list = []
    original = lowering._atomic_rmw
    monkeypatch.setattr(lowering, "_atomic_rmw", lambda op, *a, **k: ops.append(str(op)) or original(op, *a, **k))

    def kernel(idx_ref, h_in, h_out):
        idx = idx_ref[pl.ds(pl.program_id(0) * 64, 64)]
        getattr(plt, atomic)(h_out, idx, jnp.ones((64,), dtype), mask=idx >= 1)

    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4,), dtype), grid=(4,), input_output_aliases={1: 0},
                          compiler_params=plt.CompilerParams(num_warps=2))
    with cuda_target():
        jax.jit(call).trace(jax.ShapeDtypeStruct((256,), jnp.int32), jax.ShapeDtypeStruct((4,), dtype)).lower(
            lowering_platforms=("cuda",))
    assert ops and all(op.split(".")[-1].upper() == expected for op in ops), ops


_INT_TYPES = [jnp.int8, jnp.uint8, jnp.int16, jnp.uint16, jnp.int32, jnp.uint32, jnp.int64, jnp.uint64]


@pytest.mark.parametrize("dtype", _INT_TYPES)
def test_bit_counts_in_32_bit_lanes_match_lax(dtype):
    import jax

    from jwarp.compiler.pallas_triton_rules import _clz_in_int32, _popcount_in_int32

    info = np.iinfo(dtype)
    rng = np.random.default_rng(1)
    edges = [0, 1, 2, info.max, info.min, info.max // 2, info.max // 2 + 1, 3, 0x10000 % (int(info.max) + 1)]
    bits = np.dtype(dtype).itemsize * 8
    values = np.concatenate([np.array([int(e) % (1 << bits) for e in edges], np.uint64).astype(dtype),
                             rng.integers(info.min, info.max, 2000, dtype=dtype, endpoint=True)])
    with jax.enable_x64(True):
        x = jnp.asarray(values, dtype)
        for ours, primitive in ((_popcount_in_int32, lax.population_count), (_clz_in_int32, lax.clz)):
            got, want = ours(x), primitive(x)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def _triton_ir(monkeypatch) -> list:
    """Collects the Triton module text of every kernel lowered while the test runs."""
    from jax._src.pallas.triton import lowering

    modules: list = []
    original = lowering.lower_jaxpr_to_triton_module

    def record(*args, **kwargs):
        result = original(*args, **kwargs)
        modules.append(str(result.module))
        return result

    monkeypatch.setattr(lowering, "lower_jaxpr_to_triton_module", record)
    return modules


@wp.kernel
def bit_counts(i8: wp.array(dtype=wp.int8), u16: wp.array(dtype=wp.uint16), u32: wp.array(dtype=wp.uint32),
               u64: wp.array(dtype=wp.uint64), i64: wp.array(dtype=wp.int64), out: wp.array2d(dtype=wp.int32)):
    i = wp.tid()
    out[i, 0] = wp.bit_count(i8[i])
    out[i, 1] = wp.bit_count(u16[i])
    out[i, 2] = wp.bit_count(u32[i])
    out[i, 3] = wp.bit_count(u64[i])
    out[i, 4] = wp.bit_count(i64[i])


def test_bit_count_of_every_width_calls_libdevice_popc(monkeypatch):
    # JAX's rules emit math.ctpop for every integer type but int32/int64, which Triton does not lower to
    # LLVM: the program scalar_bit_count failed to compile on an H200; jwarp counts in int32 lanes only
    modules = _triton_ir(monkeypatch)
    arrays = [wp.zeros(8, dtype=t) for t in (wp.int8, wp.uint16, wp.uint32, wp.uint64, wp.int64)]
    text = lower_for_cuda(bit_counts, 8, [*arrays, wp.zeros((8, 5), dtype=wp.int32)])
    assert "xla.gpu.triton" in text
    (ir,) = modules
    assert "math.ctpop" not in ir and "math.ctlz" not in ir and "__nv_popcll" not in ir
    assert ir.count('symbol = "__nv_popc"') == 7  # one per 8/16/32-bit value, two per 64-bit value


@wp.kernel
def masked_cas(slots: wp.array(dtype=int), olds: wp.array(dtype=int), flags: wp.array(dtype=float)):
    i = wp.tid()
    if i % 3 != 0:
        olds[i] = wp.atomic_cas(slots, i % 4, i - 1, i)
    wp.atomic_cas(flags, i % 2, 0.0, 1.0)


def test_atomic_cas_is_one_tensor_compare_and_swap(monkeypatch):
    # Pallas's atomic_cas takes one scalar; jwarp's atomic_cas_lanes emits tt.atomic_cas over the block's lanes
    modules = _triton_ir(monkeypatch)
    text = lower_for_cuda(masked_cas, 100, [wp.zeros(4, dtype=int), wp.zeros(100, dtype=int), wp.zeros(2, dtype=float)])
    assert "xla.gpu.triton" in text
    (ir,) = modules
    cas = [line for line in ir.splitlines() if "tt.atomic_cas" in line]
    assert len(cas) == 2 and all("tensor<256x!tt.ptr" in line for line in cas), cas
