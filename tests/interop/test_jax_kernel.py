"""wp.jax_kernel: Warp's calling convention (inputs, in-out, outputs, launch/output dims,
scalars), jit caching, dtype handling with and without x64, and misuse errors."""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jwarp as wp


@wp.kernel
def add_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] + b[i]


@wp.kernel
def sincos_kernel(angle: wp.array(dtype=float), s: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    s[i] = wp.sin(angle[i])
    c[i] = wp.cos(angle[i])


@wp.kernel
def in_out_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    b[i] += a[i]
    c[i] = 2.0 * a[i]


@wp.kernel
def scale_vec_kernel(a: wp.array(dtype=wp.vec2), s: float, out: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    out[i] = a[i] * s


@wp.kernel
def diagonal_kernel(out: wp.array(dtype=wp.mat33)):
    i = wp.tid()
    d = float(i + 1)
    out[i] = wp.mat33(d, 0.0, 0.0, 0.0, d * 2.0, 0.0, 0.0, 0.0, d * 3.0)


@wp.kernel
def matmul_kernel(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
    i, j = wp.tid()
    s = float(0.0)
    for k in range(a.shape[1]):
        s += a[i, k] * b[k, j]
    c[i, j] = s


@wp.kernel
def partial_write(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if i % 2 == 0:
        out[i] = a[i]


@wp.kernel
def rowsum_kernel(m: wp.array2d(dtype=float), sums: wp.array(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(sums, i, m[i, j])


@wp.kernel
def wide_math(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    d = wp.float64(x[i])
    k = wp.int64(i) * wp.int64(3000000000)
    y[i] = float(d * d + wp.float64(k % wp.int64(7)))


@wp.kernel
def f64_kernel(x: wp.array(dtype=wp.float64), s: wp.float64, y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = s * x[i] * x[i]


def test_basic_returns_a_list():
    f = wp.jax_kernel(add_kernel)
    out = jax.jit(f)(jnp.arange(4.0), jnp.ones(4))
    assert isinstance(out, list) and len(out) == 1
    np.testing.assert_allclose(out[0], np.arange(4.0) + 1)


def test_multiple_outputs():
    f = wp.jax_kernel(sincos_kernel, num_outputs=2)
    a = jnp.linspace(0.0, 3.0, 8, dtype=jnp.float32)
    s, c = jax.jit(f)(a)
    np.testing.assert_allclose(s, np.sin(a), rtol=1e-6)
    np.testing.assert_allclose(c, np.cos(a), rtol=1e-6)


def test_in_out_arguments_are_passed_and_returned_first():
    f = wp.jax_kernel(in_out_kernel, num_outputs=2, in_out_argnames=["b"])
    a, b = jnp.ones(5), jnp.arange(5.0)
    b_new, c = jax.jit(f)(a, b)
    np.testing.assert_allclose(b_new, np.arange(5.0) + 1)
    np.testing.assert_allclose(c, 2 * np.ones(5))
    np.testing.assert_allclose(b, np.arange(5.0))  # JAX arrays are immutable: the input is unchanged


def test_vector_dtypes_and_static_scalars():
    f = wp.jax_kernel(scale_vec_kernel)
    a = jnp.arange(10.0, dtype=jnp.float32).reshape(5, 2)
    np.testing.assert_allclose(jax.jit(f)(a, 2.0)[0], 2 * a)
    g = jax.jit(partial(f), static_argnums=1)
    np.testing.assert_allclose(g(a, 3.0)[0], 3 * a)


def test_traced_scalars():
    f = wp.jax_kernel(scale_vec_kernel)
    a = jnp.arange(10.0, dtype=jnp.float32).reshape(5, 2)
    h = jax.jit(lambda a, s: f(a, s)[0])
    np.testing.assert_allclose(h(a, 4.0), 4 * a)
    np.testing.assert_allclose(h(a, 5.0), 5 * a)


def test_launch_dims_and_no_inputs():
    f = wp.jax_kernel(diagonal_kernel)
    (m,) = jax.jit(lambda: f(launch_dims=3))()
    assert m.shape == (3, 3, 3)
    np.testing.assert_allclose(m[2], np.diag([3.0, 6.0, 9.0]))
    mm = wp.jax_kernel(matmul_kernel, launch_dims=(3, 4))
    a, b = jnp.full((3, 2), 2.0), jnp.full((2, 4), 3.0)
    np.testing.assert_allclose(jax.jit(mm)(a, b)[0], np.full((3, 4), 12.0))
    mm2 = wp.jax_kernel(matmul_kernel)
    np.testing.assert_allclose(mm2(b.T, a.T, launch_dims=(4, 3))[0], np.full((4, 3), 12.0))


def test_output_dims():
    f = wp.jax_kernel(rowsum_kernel, output_dims={"sums": 3})
    m = jnp.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(jax.jit(f)(m)[0], m.sum(axis=1))
    g = wp.jax_kernel(rowsum_kernel)
    np.testing.assert_allclose(g(m, output_dims=3)[0], m.sum(axis=1))
    with pytest.raises(ValueError, match="Missing output dimensions for argument 'sums'"):
        g(m, output_dims={"other": 3})
    with pytest.raises(ValueError, match="Invalid output dimensions"):
        g(m, output_dims=(3, 4))


def test_outputs_are_zero_initialised():
    f = wp.jax_kernel(partial_write)
    (out,) = f(jnp.arange(1.0, 7.0))
    np.testing.assert_array_equal(out, [1.0, 0.0, 3.0, 0.0, 5.0, 0.0])


def test_wp_arrays_and_numpy_are_accepted_inputs():
    f = wp.jax_kernel(add_kernel)
    (out,) = f(wp.array(np.ones(3, np.float32)), np.arange(3, dtype=np.float32))
    np.testing.assert_allclose(out, [1.0, 2.0, 3.0])


def test_second_call_with_same_shapes_does_not_retrace():
    f = wp.jax_kernel(add_kernel)  # (the same wrapper as earlier equal calls: count from here)
    start = f.trace_count
    g = jax.jit(lambda a, b: f(a, b)[0] * 2)
    a = jnp.ones(7)
    g(a, a)
    g(a + 1, a)
    f(a, a)
    f(a + 2, a)
    assert f.trace_count <= start + 1
    middle = f.trace_count
    g(jnp.ones(9), jnp.ones(9))  # a new shape traces once more
    assert f.trace_count == middle + 1


def test_float32_program_with_64_bit_kernel_math():
    # the user's JAX runs without x64; the kernel's float64/int64 math still happens in 64 bits
    assert not jax.config.jax_enable_x64
    f = wp.jax_kernel(wide_math)
    x = jnp.arange(4.0)
    (y,) = jax.jit(f)(x)
    k = (np.arange(4, dtype=np.int64) * 3000000000) % 7
    np.testing.assert_allclose(y, np.arange(4.0) ** 2 + k)
    assert y.dtype == jnp.float32
    g = jax.jit(jax.grad(lambda x: f(x)[0].sum()))(x)
    np.testing.assert_allclose(g, 2 * np.arange(4.0))


def test_float64_program():
    f = wp.jax_kernel(f64_kernel)
    with pytest.raises(TypeError, match="expected float64, got float32.*jax_enable_x64"):
        f(jnp.ones(3), 2.0)
    with jax.enable_x64(True):
        x = jnp.arange(3.0, dtype=jnp.float64)
        (y,) = jax.jit(f)(x, 1.0 / 3.0)
        assert y.dtype == jnp.float64
        np.testing.assert_allclose(y, np.arange(3.0) ** 2 / 3.0, rtol=1e-15)
        dx, ds = jax.grad(lambda x, s: f(x, s)[0].sum(), argnums=(0, 1))(x, jnp.float64(2.0))
        np.testing.assert_allclose(dx, 4 * np.arange(3.0), rtol=1e-15)
        np.testing.assert_allclose(ds, 5.0, rtol=1e-15)


def test_misuse_errors():
    with pytest.raises(TypeError, match="All output arguments must be arrays.*inputs must come before outputs"):
        wp.jax_kernel(scale_vec_kernel, num_outputs=2)  # 's: float' would be an output
    with pytest.raises(ValueError, match="At least one output is required"):
        wp.jax_kernel(add_kernel, num_outputs=0)
    with pytest.raises(ValueError, match="cannot be greater than the number of"):
        wp.jax_kernel(add_kernel, num_outputs=4)
    with pytest.raises(ValueError, match="Expected an output-only argument for argument c"):
        wp.jax_kernel(in_out_kernel, num_outputs=2, in_out_argnames=["c"])
    with pytest.raises(ValueError, match="did not match any function argument names"):
        wp.jax_kernel(in_out_kernel, num_outputs=2, in_out_argnames=["zz"])
    with pytest.raises(ValueError, match="Number of outputs cannot be smaller"):
        wp.jax_kernel(in_out_kernel, num_outputs=1, in_out_argnames=["a", "b"])
    with pytest.raises(TypeError, match="expects a @wp.kernel"):
        wp.jax_kernel(lambda x: x)
    f = wp.jax_kernel(add_kernel)
    with pytest.raises(ValueError, match=r"expected 2 inputs \(a, b\), but got 3"):
        f(jnp.ones(3), jnp.ones(3), jnp.ones(3))
    with pytest.raises(TypeError, match="Invalid data type for array argument 'a', expected float32, got int32"):
        f(jnp.ones(3, jnp.int32), jnp.ones(3))
    with pytest.raises(TypeError, match="Invalid dimensionality for array argument 'b'"):
        f(jnp.ones(3), jnp.ones((3, 1)))
    v = wp.jax_kernel(scale_vec_kernel)
    with pytest.raises(TypeError, match="Invalid inner dimensions for array argument 'a'"):
        v(jnp.ones((3, 3)), 1.0)
    with pytest.raises(ValueError, match="vmap_method"):
        wp.jax_kernel(add_kernel, vmap_method="bogus")


@wp.kernel
def to_float(x: wp.array(dtype=Any), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = float(x[i]) * 2.0


@wp.kernel
def shifted_read(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[i + 1]


def test_generic_input_dtypes():
    f = wp.jax_kernel(to_float)
    np.testing.assert_allclose(f(jnp.arange(3, dtype=jnp.int32))[0], [0.0, 2.0, 4.0])
    np.testing.assert_allclose(f(jnp.arange(3, dtype=jnp.float32))[0], [0.0, 2.0, 4.0])


def test_debug_mode_reports_out_of_bounds_when_run():
    f = wp.jax_kernel(shifted_read)
    saved = wp.config.mode
    wp.config.mode = "debug"
    try:
        with pytest.raises(Exception, match="Out-of-bounds array access in kernel 'shifted_read'"):
            jax.block_until_ready(jax.jit(f)(jnp.ones(4)))
    finally:
        wp.config.mode = saved
    np.testing.assert_allclose(f(jnp.ones(4), launch_dims=3)[0][:3], 1.0)


def test_equal_configurations_share_one_wrapper_and_differentiable_wrappers_fix_their_settings():
    # as in Warp: equal jax_kernel/jax_callable arguments give the same object; in-out selections differ
    f = wp.jax_kernel(add_kernel, num_outputs=1)
    assert f is wp.jax_kernel(add_kernel, num_outputs=1, in_out_argnames=[])
    assert f is not wp.jax_kernel(add_kernel, num_outputs=1, launch_dims=3)
    assert wp.jax_kernel(add_kernel, launch_dims=3) is wp.jax_kernel(add_kernel, launch_dims=(3,))
    g = wp.jax_kernel(add_kernel, num_outputs=1, enable_backward=True)
    a = jnp.ones(3)
    for kwargs, message in (({"launch_dims": (3,)}, "launch_dims cannot be overridden per-call"),
                            ({"output_dims": (3,)}, "output_dims is not supported"),
                            ({"vmap_method": "sequential"}, "vmap_method cannot be overridden per-call")):
        with pytest.raises(TypeError, match=message):
            g(a, a, **kwargs)
    with pytest.raises(NotImplementedError):
        wp.jax_kernel(add_kernel, num_outputs=1, enable_backward=True, output_dims=(3,))
    with pytest.raises(NotImplementedError):
        wp.jax_kernel(add_kernel, num_outputs=1, enable_backward=True, in_out_argnames=["c"])
    assert wp.jax_callable(_double_into, graph_mode=2).graph_mode is wp.JaxCallableGraphMode.WARP


def _double_into(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    wp.launch(add_kernel, dim=x.shape, inputs=[x, x], outputs=[y])


_TID_DEAD = False


@wp.kernel
def _dead_tid(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    if _TID_DEAD:
        i = wp.tid()
        y[i] = x[i]


def test_tid_extents_above_int32_are_refused_unless_tid_is_never_reached():
    f = wp.jax_kernel(add_kernel, launch_dims=(2**31 + 1,), output_dims=1)
    with pytest.raises(ValueError, match=r"wp\.tid\(\) with extent 2147483649 in dimension 0"):
        jax.jit(lambda: f(jnp.ones(1), jnp.ones(1))).lower()
    g = wp.jax_kernel(add_kernel, output_dims=1)
    big = jax.ShapeDtypeStruct((2**31 + 1,), jnp.float32)
    with pytest.raises(ValueError, match="wp.tid"):
        jax.jit(lambda x: g(x, x)).lower(big)
    h = wp.jax_kernel(_dead_tid, launch_dims=(2**31 + 1,), output_dims=1)
    assert jax.jit(lambda: h(jnp.ones(1))).lower() is not None


@wp.kernel
def _triple_any(x: wp.array(dtype=Any), y: wp.array(dtype=Any)):
    i = wp.tid()
    y[i] = x[i] * x.dtype(3)


def test_add_overload_gives_a_concrete_kernel_for_jax_kernel():
    concrete = _triple_any.add_overload([wp.array(dtype=wp.int16), wp.array(dtype=wp.int16)])
    assert concrete.arg_types[1].dtype is wp.int16 and concrete.key == _triple_any.key
    assert len(_triple_any.overloads) >= 1
    (y,) = wp.jax_kernel(concrete)(jnp.arange(4, dtype=jnp.int16))
    assert y.dtype == jnp.int16
    np.testing.assert_array_equal(np.asarray(y), 3 * np.arange(4))
    with pytest.raises(TypeError):
        _triple_any.add_overload([wp.array(dtype=float), wp.array2d(dtype=float)])
