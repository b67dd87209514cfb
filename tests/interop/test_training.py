"""A training loop around a jwarp kernel: one simulation step is a jax_kernel, the loss runs
several steps inside jax.jit(jax.value_and_grad(...)), and hand-written SGD fits the initial
velocities and the drag coefficient. The loss must fall and the gradient must equal finite
differences."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import jwarp as wp


@wp.kernel
def ballistic_step(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), drag: float, dt: float,
                   x_out: wp.array(dtype=wp.vec3), v_out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    accel = wp.vec3(0.0, -9.8, 0.0) - drag * v[i]
    vel = v[i] + accel * dt
    v_out[i] = vel
    x_out[i] = x[i] + vel * dt


STEPS = 16
DT = 0.05
step = wp.jax_kernel(ballistic_step, num_outputs=2)


def simulate(params, x0):
    x, v = x0, params["v0"]
    for _ in range(STEPS):
        x, v = step(x, v, params["drag"], DT)
    return x


def loss_fn(params, x0, target):
    return jnp.mean(jnp.sum((simulate(params, x0) - target) ** 2, axis=1))


def _problem(n=32):
    rng = np.random.default_rng(3)
    x0 = jnp.asarray(rng.uniform(-1, 1, size=(n, 3)), jnp.float32)
    true = {"v0": jnp.asarray(rng.normal(size=(n, 3)) + [0, 4, 0], jnp.float32), "drag": jnp.float32(0.3)}
    target = simulate(true, x0)
    params = {"v0": jnp.zeros((n, 3), jnp.float32), "drag": jnp.float32(0.0)}
    return x0, target, params


def test_sgd_reduces_the_loss():
    x0, target, params = _problem()
    update = jax.jit(jax.value_and_grad(loss_fn))
    lr = {"v0": 10.0, "drag": 0.01}  # the loss averages over particles: per-particle steps are larger
    losses = []
    for _ in range(30):
        loss, grads = update(params, x0, target)
        losses.append(float(loss))
        params = jax.tree_util.tree_map(lambda p, g, r: p - r * g, params, grads, lr)
    assert losses[-1] < 1e-3 * losses[0]
    assert all(b < a for a, b in zip(losses[:10], losses[1:10]))


def test_gradient_equals_finite_differences():
    x0, target, params = _problem()
    params = {"v0": params["v0"] + 1.0, "drag": jnp.float32(0.2)}
    grads = jax.jit(jax.grad(loss_fn))(params, x0, target)
    rng = np.random.default_rng(7)
    direction = {"v0": jnp.asarray(rng.normal(size=params["v0"].shape), jnp.float32), "drag": jnp.float32(0.5)}
    analytic = sum(float(jnp.vdot(grads[k], direction[k])) for k in params)
    eps = 1e-2
    with jax.enable_x64(True):  # evaluate the loss in float64 for a clean central difference
        p64 = {k: jnp.asarray(v, jnp.float64) for k, v in params.items()}
        d64 = {k: jnp.asarray(v, jnp.float64) for k, v in direction.items()}
        x64, t64 = jnp.asarray(x0, jnp.float64), jnp.asarray(target, jnp.float64)

        def ref(p):  # the same model in jnp, float64
            x, v = x64, p["v0"]
            for _ in range(STEPS):
                v = v + (jnp.array([0.0, -9.8, 0.0]) - p["drag"] * v) * DT
                x = x + v * DT
            return jnp.mean(jnp.sum((x - t64) ** 2, axis=1))

        plus = ref({k: p64[k] + eps * d64[k] for k in p64})
        minus = ref({k: p64[k] - eps * d64[k] for k in p64})
        numeric = float((plus - minus) / (2 * eps))
    np.testing.assert_allclose(analytic, numeric, rtol=1e-3)
    # and the gradient of the jwarp model equals the gradient of the jnp model
    np.testing.assert_allclose(float(loss_fn(params, x0, target)), float(ref_loss32(params, x0, target)), rtol=1e-5)


def ref_loss32(params, x0, target):
    x, v = x0, params["v0"]
    for _ in range(STEPS):
        v = v + (jnp.array([0.0, -9.8, 0.0]) - params["drag"] * v) * DT
        x = x + v * DT
    return jnp.mean(jnp.sum((x - target) ** 2, axis=1))
