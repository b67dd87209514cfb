"""Warp-style code inside JAX transformations: wp.from_jax / wp.zeros / wp.launch / wp.to_jax
trace under jax.jit, differentiate under jax.grad and batch under jax.vmap without rewriting;
what is not allowed inside a trace raises a clear error."""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jwarp as wp


@wp.kernel
def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def sum_sq(p: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, wp.dot(p[i], p[i]))


@wp.kernel
def repeat_add(x: wp.array(dtype=float), n: int, y: wp.array(dtype=float)):
    i = wp.tid()
    for _k in range(n):
        y[i] = y[i] + x[i]


def warp_style(xj, a):
    """A function written for Warp: allocate, launch, read back."""
    x = wp.from_jax(xj)
    y = wp.zeros(x.shape[0], dtype=float)
    wp.launch(saxpy, dim=x.shape[0], inputs=[a, x, y])
    wp.launch(saxpy, dim=x.shape[0], inputs=[a, x, y])
    return jnp.sum(wp.to_jax(y) ** 2)


def test_warp_style_function_runs_eagerly_jitted_and_differentiated():
    x = jnp.arange(4.0)
    expected = float(jnp.sum((4 * x) ** 2))
    assert float(warp_style(x, 2.0)) == expected
    assert float(jax.jit(warp_style)(x, 2.0)) == expected
    np.testing.assert_allclose(jax.grad(warp_style)(x, 2.0), 2 * (4 * x) * 4)
    dx, da = jax.jit(jax.grad(warp_style, argnums=(0, 1)))(x, 2.0)  # the scalar is traced too
    np.testing.assert_allclose(dx, 2 * (4 * x) * 4)
    np.testing.assert_allclose(da, np.sum(2 * (2 * 2.0 * x) * 2 * x))


def test_vector_arrays_and_atomics_in_a_trace():
    def energy(pj):
        p = wp.from_jax(pj, dtype=wp.vec3)
        out = wp.zeros(1, dtype=float)
        wp.launch(sum_sq, dim=len(p), inputs=[p], outputs=[out])
        return wp.to_jax(out)[0]

    p = jnp.arange(12.0).reshape(4, 3)
    np.testing.assert_allclose(jax.jit(energy)(p), jnp.sum(p * p))
    np.testing.assert_allclose(jax.grad(energy)(p), 2 * p)
    np.testing.assert_allclose(jax.vmap(energy)(jnp.stack([p, 2 * p])), [jnp.sum(p * p), 4 * jnp.sum(p * p)])


def test_concrete_int_bounds_are_static_in_a_trace():
    def f(xj, n):
        x = wp.from_jax(xj)
        y = wp.zeros_like(x)
        wp.launch(repeat_add, dim=len(x), inputs=[x, n], outputs=[y])
        return jnp.sum(wp.to_jax(y) ** 2)

    x = jnp.arange(3.0)
    np.testing.assert_allclose(jax.grad(f)(x, 3), 2 * 9 * x)  # n is a Python int: static loop
    line = inspect.getsourcelines(repeat_add.func)[1] + 3
    with pytest.raises(ValueError, match=rf"repeat_add.*:{line} .*pass it as a Python int"):
        jax.jit(jax.grad(f))(x, 3)  # n traced by the outer jit: run-time bound


def test_no_retrace_on_second_jit_call():
    f = jax.jit(warp_style)
    x = jnp.arange(5.0)
    f(x, 2.0)
    before = sum(getattr(tk, "trace_count", 0) for tk in saxpy._cache.values())
    f(x + 1.0, 3.0)
    after = sum(getattr(tk, "trace_count", 0) for tk in saxpy._cache.values())
    assert before == after


def test_numpy_inside_a_trace_names_the_array():
    @jax.jit
    def bad(xj):
        return wp.from_jax(xj).numpy()

    with pytest.raises(RuntimeError, match=r"array\(shape=\(3,\), dtype=float32\)\.numpy\(\) was called inside a JAX"):
        bad(jnp.ones(3))


def test_tape_cannot_record_traced_launches():
    Tape = getattr(wp, "Tape", None)
    if Tape is None:
        pytest.skip("wp.Tape is not available")

    @jax.jit
    def f(xj):
        x = wp.from_jax(xj)
        y = wp.zeros_like(x)
        with Tape():
            wp.launch(saxpy, dim=len(x), inputs=[1.0, x, y])
        return wp.to_jax(y)

    with pytest.raises(RuntimeError, match="wp.Tape cannot record"):
        f(jnp.ones(2))


def test_array_created_inside_jit_from_numpy_and_assign():
    @jax.jit
    def f(xj):
        x = wp.from_jax(xj)
        y = wp.array(np.full(3, 10.0, np.float32))
        z = wp.empty_like(x)
        z.assign(y)
        wp.launch(saxpy, dim=3, inputs=[2.0, x, z])
        return wp.to_jax(z)

    np.testing.assert_allclose(f(jnp.arange(3.0)), 10.0 + 2 * np.arange(3.0))


def test_views_clone_and_fill_in_a_trace():
    @jax.jit
    def f(xj):
        x = wp.from_jax(xj)
        y = wp.clone(x)
        z = wp.zeros(4, dtype=float)
        z.fill_(1.0)
        wp.launch(saxpy, dim=2, inputs=[10.0, x[1:3], y[2:4]])  # writes through a view
        wp.launch(saxpy, dim=4, inputs=[1.0, y, z])
        return wp.to_jax(y), wp.to_jax(z)

    y, z = f(jnp.arange(4.0))
    np.testing.assert_allclose(y, [0.0, 1.0, 12.0, 23.0])
    np.testing.assert_allclose(z, [1.0, 2.0, 13.0, 24.0])
