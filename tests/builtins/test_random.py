"""Random group details not covered by the differential programs: overload errors, Python scope
(state is never written back; sample_cdf is kernel-only), forward-mode derivatives of noise,
curlnoise's Hessian adjoint against finite differences, and the tape through kernels that draw
Poisson samples or use a per-thread octave count."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jwarp as wp
from jwarp.builtins import noise as noise_impl
from jwarp.builtins import random as random_impl


@wp.kernel
def bad_randf(out: wp.array(dtype=float)):
    state = wp.rand_init(1)
    out[0] = wp.randf(state, 0.0, 1)


@wp.kernel
def bad_rand_init(out: wp.array(dtype=wp.uint32)):
    out[0] = wp.rand_init(wp.uint32(5))


def test_overload_errors_name_the_argument_types():
    expected = r"overload for 'randf' that matched inputs with types: \[uint32, float32, int32\]"
    with pytest.raises(Exception, match=expected):
        wp.launch(bad_randf, 1, inputs=[wp.zeros(1, dtype=float)])
    with pytest.raises(Exception, match=r"overload for 'rand_init' that matched inputs with types: \[uint32\]"):
        wp.launch(bad_rand_init, 1, inputs=[wp.zeros(1, dtype=wp.uint32)])


def test_python_scope():
    state = wp.rand_init(42)
    assert state == 1223963391
    assert wp.randf(state) == wp.randf(state)  # nothing is written back in Python scope
    assert wp.randi(state, -5, 10) == -1
    with pytest.raises(RuntimeError, match="only be called inside a kernel"):
        wp.sample_cdf(state, wp.array(np.array([0.5, 1.0], np.float32)))


def test_noise_forward_mode_matches_analytic_gradient():
    state = jnp.uint32(random_impl.rand_init_leaf(np.int32(3)))
    x = jnp.array([0.3, -1.7, 2.25], jnp.float32)
    y = jnp.array([1.1, 0.4, -0.6], jnp.float32)
    value, tangent = jax.jvp(lambda a, b: noise_impl._noise(state, (), (a, b)), (x, y),
                             (jnp.ones(3, jnp.float32), jnp.zeros(3, jnp.float32)))
    d, lo, hi = noise_impl._lattice([x, y], None)
    ref_value, grad = noise_impl.perlin(state, d, lo, hi, True)
    np.testing.assert_array_equal(value, ref_value)
    np.testing.assert_array_equal(tangent, grad[0])


@pytest.mark.parametrize("dim", [2, 3, 4])
def test_curlnoise_adjoint_matches_finite_differences(dim):
    state = jnp.uint32(random_impl.rand_init_leaf(np.int32(9)))
    curl = noise_impl._curl_function(2)
    point = np.array([0.37, -1.21, 2.43, 0.58][:dim], np.float64)
    weights = np.array([1.0, -0.5, 2.0][: 2 if dim == 2 else 3])

    @jax.jit  # one compile per precision mode (op by op, each call would recompile the noise loops)
    def f(p):
        out = curl(state, jnp.uint32(2), jnp.float32(2.0), jnp.float32(0.5), tuple(p[k] for k in range(dim)))
        return sum(w * o for w, o in zip(weights, out))

    grad = np.asarray(jax.grad(f)(jnp.asarray(point, jnp.float32)), np.float64)
    eps = 1e-3
    fd = []
    for k in range(dim):
        e = np.zeros(dim)
        e[k] = eps
        with jax.enable_x64(True):
            hi = float(f(jnp.asarray(point + e, jnp.float32)))
            lo = float(f(jnp.asarray(point - e, jnp.float32)))
        fd.append((hi - lo) / (2 * eps))
    np.testing.assert_allclose(grad, fd, rtol=2e-2, atol=2e-2)


@wp.kernel
def poisson_and_curl(x: wp.array(dtype=wp.vec3), octaves: wp.array(dtype=wp.uint32), counts: wp.array(dtype=wp.uint32),
                     loss: wp.array(dtype=float)):
    tid = wp.tid()
    state = wp.rand_init(5, tid)
    counts[tid] = wp.poisson(state, 3.0 + float(tid))
    c = wp.curlnoise(state, x[tid], octaves[tid], 2.0, 0.5)
    wp.atomic_add(loss, 0, c[0] + 2.0 * c[1] - c[2] + x[tid][0] * float(counts[tid]))


@wp.kernel
def curl_constant(x: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    tid = wp.tid()
    state = wp.rand_init(5, tid)
    count = wp.poisson(state, 3.0 + float(tid))
    c = wp.curlnoise(state, x[tid], wp.uint32(2), 2.0, 0.5)
    wp.atomic_add(loss, 0, c[0] + 2.0 * c[1] - c[2] + x[tid][0] * float(count))


def test_tape_through_poisson_and_per_thread_octaves():
    pts = np.random.default_rng(0).uniform(-3, 3, (16, 3)).astype(np.float32)
    grads = []
    for dynamic in (True, False):
        x = wp.array(pts, dtype=wp.vec3, requires_grad=True)
        loss = wp.zeros(1, dtype=float, requires_grad=True)
        tape = wp.Tape()
        with tape:
            if dynamic:
                octaves = wp.array(np.full(16, 2, np.uint32))
                counts = wp.zeros(16, dtype=wp.uint32)
                wp.launch(poisson_and_curl, 16, inputs=[x, octaves, counts, loss])
            else:
                wp.launch(curl_constant, 16, inputs=[x, loss])
        tape.backward(loss=loss)
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-6)
    assert np.abs(grads[0]).sum() > 0
