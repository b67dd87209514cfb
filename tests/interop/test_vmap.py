"""jax.vmap of jax_kernel / jax_callable functions: every vmap_method gives the same result as a
Python loop over the batch (vmap(f)(x)[i] == f(x[i])), including in-out arrays, unbatched
inputs, per-member loops, other batch axes, and gradients of batched calls."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jwarp as wp

METHODS = ["broadcast_all", "expand_dims", "sequential", "sequential_unrolled"]


@wp.kernel
def add2d(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[i, j] = a[i, j] + b[i, j]


@wp.kernel
def rowsum(m: wp.array2d(dtype=float), sums: wp.array(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(sums, i, m[i, j])


@wp.kernel
def lookup(table: wp.array(dtype=float), idx: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = table[idx[i]]


@wp.kernel
def first_element_scale(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    # reads element 0 of its own batch member: Warp's folded-batch launch would read member 0's
    i = wp.tid()
    out[i] = x[i] * x[0]


@wp.kernel
def collatz_steps(x: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    n = int(0)
    while v != 1:
        if v % 2 == 0:
            v = v // 2
        else:
            v = 3 * v + 1
        n += 1
    out[i] = float(n)


def _loop(f, *args, in_axes):
    size = next(a.shape[ax] for a, ax in zip(args, in_axes) if ax is not None)
    outs = []
    for k in range(size):
        member = [a if ax is None else jnp.take(a, k, axis=ax) for a, ax in zip(args, in_axes)]
        outs.append(f(*member))
    return [jnp.stack(parts) for parts in zip(*outs)]


@pytest.mark.parametrize("method", METHODS)
def test_vmap_matches_python_loop(method):
    f = wp.jax_kernel(add2d, vmap_method=method)
    a = jnp.arange(24.0).reshape(2, 3, 4)
    b = jnp.ones((2, 3, 4))
    for in_axis in range(3):
        got = jax.jit(jax.vmap(f, in_axes=in_axis))(a, b)
        want = _loop(f, a, b, in_axes=(in_axis, in_axis))
        np.testing.assert_allclose(got[0], want[0])
    g = wp.jax_kernel(first_element_scale, vmap_method=method)
    x = jnp.arange(1.0, 7.0).reshape(2, 3)
    np.testing.assert_allclose(jax.vmap(g)(x)[0], x * x[:, :1])


@pytest.mark.parametrize("method", METHODS)
def test_vmap_in_out_and_unbatched_inputs(method):
    rs = wp.jax_kernel(rowsum, in_out_argnames=["sums"], vmap_method=method)
    m = jnp.arange(24.0).reshape(2, 3, 4)
    (sums,) = jax.jit(jax.vmap(rs))(m, jnp.ones((2, 3)))
    np.testing.assert_allclose(sums, m.sum(axis=2) + 1)
    lk = wp.jax_kernel(lookup, vmap_method=method)
    table = jnp.arange(10.0) * 10
    idx = jnp.array([[1, 2, 3], [9, 8, 7]], jnp.int32)
    (out,) = jax.jit(jax.vmap(partial(lk, launch_dims=3), in_axes=(None, 0)))(table, idx)
    np.testing.assert_allclose(out, table[idx])


@pytest.mark.parametrize("method", ["broadcast_all", "sequential"])
def test_vmap_per_member_while_loops(method):
    f = wp.jax_kernel(collatz_steps, vmap_method=method)
    x = jnp.array([[1, 2, 3], [6, 7, 27]], jnp.int32)
    (out,) = jax.jit(jax.vmap(f))(x)
    np.testing.assert_allclose(out, [[0, 1, 7], [8, 16, 111]])


@pytest.mark.parametrize("method", METHODS)
def test_grad_of_vmap_and_vmap_of_grad(method):
    f = wp.jax_kernel(add2d, vmap_method=method)
    a = jnp.arange(24.0).reshape(2, 3, 4)
    b = jnp.ones((2, 3, 4))
    g = jax.grad(lambda a: jnp.sum(jax.vmap(f)(a, b)[0] ** 2))(a)
    np.testing.assert_allclose(g, 2 * (a + b))
    per_member = jax.vmap(jax.grad(lambda a, b: jnp.sum(f(a, b)[0] ** 2)))(a, b)
    np.testing.assert_allclose(per_member, 2 * (a + b))


def test_vmap_of_jax_callable():
    def add(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
        wp.launch(add2d, dim=a.shape, inputs=[a, b], outputs=[out])

    for method in METHODS:
        f = wp.jax_callable(add, vmap_method=method)
        a = jnp.arange(24.0).reshape(2, 3, 4)
        np.testing.assert_allclose(jax.vmap(f, in_axes=(1, None))(a, jnp.ones((2, 4)))[0],
                                   jnp.moveaxis(a, 1, 0) + 1)
