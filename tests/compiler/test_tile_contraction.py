"""The lowering of tiled-GEMM k loops (one contraction, no loop) and of block-aligned tile stores
(an update, no scatter), read from the jaxpr of the kernel called through ``wp.jax_kernel``.
Values are checked against real Warp by ``tests/differential/programs/tile_gemm_contraction.py``."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import jwarp as wp

T = 8


@wp.kernel
def gemm(A: wp.array2d(dtype=float), B: wp.array2d(dtype=float), C: wp.array2d(dtype=float)):
    i, j = wp.tid()
    acc = wp.tile_zeros(shape=(T, T), dtype=float)
    for k in range(A.shape[1] // T):
        a = wp.tile_load(A, shape=(T, T), offset=(i * T, k * T))
        b = wp.tile_load(B, shape=(T, T), offset=(k * T, j * T))
        wp.tile_matmul(a, b, acc)
    wp.tile_store(C, acc, offset=(i * T, j * T))


@wp.kernel
def pipelined(A: wp.array2d(dtype=float), B: wp.array2d(dtype=float), C: wp.array2d(dtype=float)):
    i, j = wp.tid()
    acc = wp.tile_zeros(shape=(T, T), dtype=float)
    a = wp.tile_load(A, shape=(T, T), offset=(i * T, 0))
    for k in range(1, A.shape[1] // T):
        a_next = wp.tile_load(A, shape=(T, T), offset=(i * T, k * T))
        b = wp.tile_load(B, shape=(T, T), offset=((k - 1) * T, j * T))
        wp.tile_matmul(a, b, acc)
        a = a_next
    wp.tile_store(C, acc, offset=(i * T, j * T))


def _primitives(kernel, n: int) -> set[str]:
    f = wp.jax_kernel(kernel, launch_dims=(n // T, n // T), output_dims=(n, n), block_dim=1)
    x = jnp.zeros((n, n), jnp.float32)
    jaxpr = jax.make_jaxpr(lambda a, b: f(a, b))(x, x)
    names = set()

    def walk(jp):
        for eqn in jp.eqns:
            names.add(eqn.primitive.name)
            for value in eqn.params.values():
                inner = getattr(value, "jaxpr", None)
                if inner is not None:
                    walk(getattr(inner, "jaxpr", inner))

    walk(jaxpr.jaxpr)
    return names


def test_gemm_k_loop_is_one_contraction_and_the_store_no_scatter():
    names = _primitives(gemm, 32)
    assert "dot_general" in names
    assert not names & {"while", "scan", "scatter", "gather"}, names


def test_other_loops_stay_loops():
    names = _primitives(pipelined, 64)  # 7 steps: a rolled loop
    assert "while" in names or "scan" in names, names


def test_contracted_gemm_values():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((24, 40)).astype(np.float32)
    b = rng.standard_normal((40, 16)).astype(np.float32)
    c = wp.zeros((24, 16), dtype=float)
    wp.launch_tiled(gemm, dim=(3, 2), inputs=[wp.array(a), wp.array(b), c], block_dim=32)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5, atol=1e-5)
