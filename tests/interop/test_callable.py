"""wp.jax_callable: a Python function launching several kernels becomes a JAX function —
jit-cached, differentiable end to end, with Warp's input/in-out/output convention."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jwarp as wp


@wp.kernel
def scale(x: wp.array(dtype=float), s: float, y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = s * x[i]


@wp.kernel
def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel
def accumulate(x: wp.array(dtype=float), acc: wp.array(dtype=float)):
    i = wp.tid()
    acc[i] = acc[i] + x[i]


@wp.kernel
def advect(p: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = p[i] + v[i] * dt


def scale_square(x: wp.array(dtype=float), s: float, y: wp.array(dtype=float)):
    tmp = wp.empty_like(x)
    wp.launch(scale, dim=x.shape, inputs=[x, s], outputs=[tmp])
    wp.launch(square, dim=x.shape, inputs=[tmp], outputs=[y])


def test_several_launches_become_one_jax_function():
    f = wp.jax_callable(scale_square)
    x = jnp.arange(4.0)
    np.testing.assert_allclose(f(x, 3.0)[0], (3 * x) ** 2)
    np.testing.assert_allclose(jax.jit(f)(x, 2.0)[0], (2 * x) ** 2)
    g = jax.grad(lambda x: f(x, 3.0)[0].sum())(x)
    np.testing.assert_allclose(g, 2 * 9 * x)
    ds = jax.grad(lambda s: f(x, s)[0].sum())(3.0)  # a traced scalar
    np.testing.assert_allclose(ds, np.sum(2 * 3.0 * x**2))


def test_static_scalars_do_not_retrace_for_the_same_value():
    # (equal jax_callable arguments return one shared wrapper: this configuration is this test's own)
    f = wp.jax_callable(scale_square, graph_mode=wp.JaxCallableGraphMode.NONE)
    x = jnp.arange(4.0)
    f(x, 3.0)
    f(x + 1, 3.0)
    assert f.trace_count == 1
    f(x, 4.0)  # a new static value
    assert f.trace_count == 2
    h = jax.jit(lambda x, s: f(x, s)[0])
    h(x, 5.0)
    h(x, 6.0)  # traced scalar: one trace for all values
    assert f.trace_count == 3


def test_in_out_and_vector_outputs():
    def acc_twice(x: wp.array(dtype=float), acc: wp.array(dtype=float)):
        wp.launch(accumulate, dim=x.shape, inputs=[x, acc])
        wp.launch(accumulate, dim=x.shape, inputs=[x, acc])

    f = wp.jax_callable(acc_twice, in_out_argnames=["acc"])
    (acc,) = f(jnp.ones(3), jnp.arange(3.0))
    np.testing.assert_allclose(acc, np.arange(3.0) + 2)

    def step(p: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float, out: wp.array(dtype=wp.vec3)):
        wp.launch(advect, dim=len(p), inputs=[p, v, dt], outputs=[out])

    g = wp.jax_callable(step)
    p, v = jnp.zeros((5, 3)), jnp.ones((5, 3))
    np.testing.assert_allclose(jax.jit(g)(p, v, 0.5)[0], 0.5 * np.ones((5, 3)))
    np.testing.assert_allclose(jax.grad(lambda v: jnp.sum(g(p, v, 0.5)[0]))(v), 0.5 * np.ones((5, 3)))


def test_output_dims():
    def first_two(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        wp.launch(square, dim=y.shape, inputs=[x], outputs=[y])

    f = wp.jax_callable(first_two, output_dims=2)
    np.testing.assert_allclose(f(jnp.arange(5.0))[0], [0.0, 1.0])
    np.testing.assert_allclose(f(jnp.arange(5.0), output_dims={"y": 3})[0], [0.0, 1.0, 4.0])


def test_misuse():
    with pytest.raises(RuntimeError, match="Incomplete argument annotations"):
        wp.jax_callable(lambda x, y: None)

    def returns(x: wp.array(dtype=float), y: wp.array(dtype=float)) -> int:
        return 1

    with pytest.raises(TypeError, match="must not return a value"):
        wp.jax_callable(returns)

    def outputs_first(y: wp.array(dtype=float), x: wp.array(dtype=float), s: float):
        pass

    with pytest.raises(TypeError, match="All output arguments must be arrays"):
        wp.jax_callable(outputs_first)
    f = wp.jax_callable(scale_square)
    with pytest.raises(ValueError, match=r"Expected 2 inputs \(x, s\), but got 1"):
        f(jnp.ones(2))
