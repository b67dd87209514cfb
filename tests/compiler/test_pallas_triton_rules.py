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
