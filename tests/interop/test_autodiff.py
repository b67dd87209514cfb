"""Differentiating jax_kernel functions: reverse and forward mode against hand-written jnp
equivalents and finite differences (atomics, loops, vec3 dtypes), jax.checkpoint, and the
error for loops whose trip count is known only at run time."""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jwarp as wp


@wp.kernel
def spring_forces(x: wp.array(dtype=wp.vec3), springs: wp.array(dtype=int), rest: wp.array(dtype=float),
                  k: float, f: wp.array(dtype=wp.vec3)):
    s = wp.tid()
    i = springs[2 * s]
    j = springs[2 * s + 1]
    d = x[j] - x[i]
    length = wp.length(d)
    force = k * (length - rest[s]) * d / length
    wp.atomic_add(f, i, force)
    wp.atomic_sub(f, j, force)


@wp.kernel
def power_series(x: wp.array(dtype=float), n: int, y: wp.array(dtype=float)):
    i = wp.tid()
    term = float(1.0)
    total = float(0.0)
    for _k in range(n):
        total += term
        term = term * x[i]
    y[i] = total


@wp.kernel
def halving(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    steps = int(0)
    while v > 1.0:
        v = v * 0.5
        steps += 1
    y[i] = v * float(steps + 1)


@wp.kernel
def lane_loop(x: wp.array(dtype=float), counts: wp.array(dtype=int), y: wp.array(dtype=float)):
    i = wp.tid()
    acc = float(0.0)
    for _k in range(counts[i]):
        acc = acc + x[i] * x[i]
    y[i] = acc


def _spring_problem(n: int = 6):
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.normal(size=(n, 3)), jnp.float32)
    pairs = np.array([(i, (i + 1) % n) for i in range(n)] + [(0, 3), (1, 4)], np.int32)
    rest = jnp.asarray(rng.uniform(0.5, 1.5, size=len(pairs)), jnp.float32)
    return x, jnp.asarray(pairs.reshape(-1)), rest


def _spring_jnp(x, springs, rest, k):
    i, j = springs[0::2], springs[1::2]
    d = x[j] - x[i]
    length = jnp.linalg.norm(d, axis=1)
    force = (k * (length - rest) / length)[:, None] * d
    return jnp.zeros_like(x).at[i].add(force).at[j].add(-force)


def _fd_grad(fn, x, eps=1e-3):
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[idx] += eps
        xm[idx] -= eps
        g[idx] = (float(fn(jnp.asarray(xp, jnp.float32))) - float(fn(jnp.asarray(xm, jnp.float32)))) / (2 * eps)
    return g


def test_spring_scatter_gradient_matches_jnp_and_finite_differences():
    forces = wp.jax_kernel(spring_forces, launch_dims=8, output_dims=6)
    x, springs, rest = _spring_problem()
    w = jnp.asarray(np.random.default_rng(1).normal(size=(6, 3)), jnp.float32)

    def loss(x):
        (f,) = forces(x, springs, rest, 2.5)
        return jnp.sum(f * w)

    def loss_ref(x):
        return jnp.sum(_spring_jnp(x, springs, rest, 2.5) * w)

    np.testing.assert_allclose(forces(x, springs, rest, 2.5)[0], _spring_jnp(x, springs, rest, 2.5), rtol=1e-5,
                               atol=1e-5)
    g = jax.jit(jax.grad(loss))(x)
    np.testing.assert_allclose(g, jax.grad(loss_ref)(x), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(g, _fd_grad(loss, x), rtol=2e-2, atol=2e-2)


def test_gradient_with_respect_to_a_traced_scalar():
    forces = wp.jax_kernel(spring_forces, launch_dims=8, output_dims=6)
    x, springs, rest = _spring_problem()
    dk = jax.grad(lambda k: jnp.sum(forces(x, springs, rest, k)[0] ** 2))(2.0)
    dk_ref = jax.grad(lambda k: jnp.sum(_spring_jnp(x, springs, rest, k) ** 2))(2.0)
    np.testing.assert_allclose(dk, dk_ref, rtol=1e-4)


def test_forward_mode_and_vjp():
    forces = wp.jax_kernel(spring_forces, launch_dims=8, output_dims=6)
    x, springs, rest = _spring_problem()
    t = jnp.ones_like(x)
    out, tangent = jax.jvp(lambda x: forces(x, springs, rest, 1.0)[0], (x,), (t,))
    ref_out, ref_tangent = jax.jvp(lambda x: _spring_jnp(x, springs, rest, 1.0), (x,), (t,))
    np.testing.assert_allclose(tangent, ref_tangent, rtol=1e-4, atol=1e-5)
    _, vjp = jax.vjp(lambda x: forces(x, springs, rest, 1.0)[0], x)
    _, vjp_ref = jax.vjp(lambda x: _spring_jnp(x, springs, rest, 1.0), x)
    np.testing.assert_allclose(vjp(t)[0], vjp_ref(t)[0], rtol=1e-4, atol=1e-5)


def test_static_loop_bound_is_differentiable():
    f = wp.jax_kernel(power_series)
    x = jnp.array([0.1, 0.5, -0.3])
    g = jax.grad(lambda x: f(x, 5)[0].sum())(x)
    g_ref = jax.grad(lambda x: sum(x**k for k in range(5)).sum())(x)
    np.testing.assert_allclose(g, g_ref, rtol=1e-5)
    g_jit = jax.jit(jax.grad(lambda x: f(x, 5)[0].sum()))(x)  # the bound is a Python int: static
    np.testing.assert_allclose(g_jit, g_ref, rtol=1e-5)


def test_run_time_loop_bound_in_grad_names_the_line():
    f = wp.jax_kernel(power_series)
    line = inspect.getsourcelines(power_series.func)[1] + 5  # the `for` line
    traced_n = jax.jit(jax.grad(lambda x, n: f(x, n)[0].sum()))
    with pytest.raises(ValueError, match=rf"power_series.*test_autodiff.py:{line} \(`for _k in range\(n\):`\)"):
        traced_n(jnp.ones(3), 5)
    # forward mode works without a bound
    out, tangent = jax.jvp(lambda x: jax.jit(lambda x, n: f(x, n)[0])(x, 3), (jnp.full(2, 2.0),), (jnp.ones(2),))
    np.testing.assert_allclose(out, [7.0, 7.0])
    np.testing.assert_allclose(tangent, [5.0, 5.0])


def test_max_loop_trips_makes_run_time_loops_differentiable():
    x = jnp.array([0.1, 0.5, -0.3])
    g_ref = jax.grad(lambda x: sum(x**k for k in range(5)).sum())(x)
    line = inspect.getsourcelines(power_series.func)[1] + 5
    for bounds in (8, {line: 8}):
        f = wp.jax_kernel(power_series, max_loop_trips=bounds)
        g = jax.jit(jax.grad(lambda x, n: f(x, n)[0].sum()))(x, 5)
        np.testing.assert_allclose(g, g_ref, rtol=1e-5)
    f = wp.jax_kernel(power_series, max_loop_trips={line + 100: 8})
    with pytest.raises(ValueError, match="max_loop_trips has no bound for the loop"):
        jax.jit(lambda x, n: f(x, n)[0])(x, 5)
    f = wp.jax_kernel(power_series, max_loop_trips=3)
    with pytest.raises(Exception, match="needed 5 iterations, more than its max_loop_trips bound 3"):
        jax.block_until_ready(jax.jit(lambda x, n: f(x, n)[0])(x, 5))


def test_while_loop_and_per_lane_loops_with_bounds():
    x = jnp.array([0.5, 3.0, 9.0])

    def halving_ref(v):
        steps = jnp.ceil(jnp.log2(jnp.maximum(v, 1.0)))
        return v * 0.5**steps * (steps + 1)

    h = wp.jax_kernel(halving)
    np.testing.assert_allclose(h(x)[0], halving_ref(x), rtol=1e-6)
    with pytest.raises(ValueError, match="halving.*run a number of iterations|halving.*runs a number"):
        jax.grad(lambda x: h(x)[0].sum())(x)
    hb = wp.jax_kernel(halving, max_loop_trips=10)
    np.testing.assert_allclose(jax.grad(lambda x: hb(x)[0].sum())(x), jax.grad(lambda x: halving_ref(x).sum())(x),
                               rtol=1e-5)
    counts = jnp.array([1, 2, 3], jnp.int32)
    lb = wp.jax_kernel(lane_loop, max_loop_trips=4)
    np.testing.assert_allclose(jax.grad(lambda x: lb(x, counts)[0].sum())(x), 2 * x * np.array([1, 2, 3]),
                               rtol=1e-5)


def test_checkpoint():
    forces = wp.jax_kernel(spring_forces, launch_dims=8, output_dims=6)
    x, springs, rest = _spring_problem()

    @jax.checkpoint
    def step(x):
        (f,) = forces(x, springs, rest, 1.0)
        return x + 0.01 * f

    def loss(x):
        for _ in range(3):
            x = step(x)
        return jnp.sum(x**2)

    def loss_ref(x):
        for _ in range(3):
            x = x + 0.01 * _spring_jnp(x, springs, rest, 1.0)
        return jnp.sum(x**2)

    np.testing.assert_allclose(jax.jit(jax.grad(loss))(x), jax.grad(loss_ref)(x), rtol=1e-4, atol=1e-5)
