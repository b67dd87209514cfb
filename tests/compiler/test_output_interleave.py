"""Stored vector/matrix components interleaved in one fused pass (jwarp/compiler/output_interleave.py):
bit-identical to stacking, applied only to stacks that leave the program, and used by launches of at
least INTERLEAVE_LANES threads."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jwarp as wp
from jwarp.compiler.output_interleave import INTERLEAVE_LANES, interleave, interleaved_program


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.uint8, np.bool_])
def test_interleave_is_bit_identical_to_stack(dtype):
    rng = np.random.default_rng(1)
    planes = [rng.standard_normal(37).astype(dtype) for _ in range(4)]
    if np.issubdtype(dtype, np.floating):
        planes[0][:3] = [-0.0, np.nan, -np.inf]
        planes[2][5] = -0.0
    with jax.enable_x64(True):  # (kernel programs are traced with 64-bit types on)
        got = np.asarray(jax.jit(interleave)(planes))
    expected = np.stack(planes, axis=-1)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))


def _stack_then(x, y):
    s = jnp.stack([x * 2.0, y, x + y], axis=-1)
    return s.reshape(4, 3, 3), jnp.stack([x, y], axis=-1)[:, 0] * 3.0  # the second stack is read


def test_only_stacks_leaving_the_program_are_rewritten():
    x, y = jnp.arange(36.0).reshape(12, 3)[:, 0], -jnp.arange(12.0)
    closed = jax.make_jaxpr(_stack_then)(x, y)
    program = interleaved_program(closed)
    assert program is not None
    lowered = jax.jit(program).lower(x, y).as_text()
    assert lowered.count("stablehlo.pad") == 3  # the returned stack, not the one read by a slice
    for got, expected in zip(program(x, y), _stack_then(x, y)):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))
    assert interleaved_program(jax.make_jaxpr(lambda a: a * 2.0)(x)) is None


@wp.kernel
def _outer_and_axpy(a: float, x: wp.array(dtype=wp.vec3), u: wp.array(dtype=wp.mat33),
                    y: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    v = x[i]
    u[i] = wp.outer(v, v) * wp.sin(v[0])
    if i % 3 != 0:  # some lanes keep their old value
        y[i] = a * v + y[i]


def _compiled(kernel, lanes):
    return next(c for c in kernel._cache.values() if hasattr(c, "closed_jaxpr") and c.signature.grid == (lanes,))


@pytest.mark.parametrize("lanes", [INTERLEAVE_LANES - 1, INTERLEAVE_LANES])
def test_large_launches_store_interleaved_components_bit_exactly(lanes):
    rng = np.random.default_rng(2)
    xs = rng.standard_normal((lanes, 3)).astype(np.float32)
    xs[0] = [-0.0, 0.5, -0.0]
    ys = rng.standard_normal((lanes, 3)).astype(np.float32)
    x, y, u = wp.array(xs, dtype=wp.vec3), wp.array(ys, dtype=wp.vec3), wp.zeros(lanes, dtype=wp.mat33)
    for _ in range(2):  # the second launch may donate y and u
        wp.launch(_outer_and_axpy, lanes, inputs=[np.float32(0.25), x], outputs=[u, y])
    assert (_compiled(_outer_and_axpy, lanes)._interleaved() is not None) == (lanes >= INTERLEAVE_LANES)
    # the reference: the same kernel's launch program without the rewrite
    reference = jax.jit(jax.extend.core.jaxpr_as_fun(_compiled(_outer_and_axpy, lanes).closed_jaxpr))
    u_ref, y_ref = wp.zeros(lanes, dtype=wp.mat33), wp.array(ys, dtype=wp.vec3)
    for _ in range(2):
        flat = reference(x.buffer, u_ref.buffer, y_ref.buffer, jnp.float32(0.25))
        u_ref, y_ref = (wp.array(np.asarray(f), dtype=t) for f, t in zip(flat[:2], (wp.mat33, wp.vec3)))
    np.testing.assert_array_equal(u.numpy().view(np.uint32), u_ref.numpy().view(np.uint32))
    np.testing.assert_array_equal(y.numpy().view(np.uint32), y_ref.numpy().view(np.uint32))
    expected = np.einsum("ni,nj->nij", xs, xs) * np.sin(xs[:, 0])[:, None, None]
    np.testing.assert_allclose(u.numpy(), expected, rtol=2e-6, atol=1e-6)
