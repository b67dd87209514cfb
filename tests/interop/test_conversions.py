"""Zero-copy exchange: from_jax / to_jax, DLPack, numpy; dtype and device mapping (as Warp's)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jwarp as wp
from jwarp.interop.dlpack import from_dlpack, to_dlpack


def test_from_jax_to_jax_share_the_buffer():
    x = jnp.arange(6.0, dtype=jnp.float32)
    a = wp.from_jax(x)
    assert a.dtype is wp.float32 and a.shape == (6,)
    assert wp.to_jax(a) is x  # no copy either way


def test_vector_and_matrix_dtypes_are_trailing_axes():
    x = jnp.arange(12.0, dtype=jnp.float32).reshape(4, 3)
    a = wp.from_jax(x, dtype=wp.vec3)
    assert a.shape == (4,) and a.dtype is wp.vec3
    assert wp.to_jax(a) is x
    np.testing.assert_array_equal(a.numpy(), np.asarray(x))
    m = wp.from_jax(jnp.zeros((5, 2, 2), jnp.float32), dtype=wp.mat22)
    assert m.shape == (5,)
    assert wp.to_jax(wp.zeros(3, dtype=wp.mat33)).shape == (3, 3, 3)


def test_from_jax_rejects_wrong_inner_shape_and_dtype():
    with pytest.raises(RuntimeError, match="inner shape is \\(3,\\)"):
        wp.from_jax(jnp.zeros((4, 2), jnp.float32), dtype=wp.vec3)
    with pytest.raises(RuntimeError, match="Incompatible data types"):
        wp.from_jax(jnp.zeros(4, jnp.float32), dtype=wp.int32)


def test_from_jax_reinterprets_integer_sign():
    a = wp.from_jax(jnp.array([-1, 2], jnp.int32), dtype=wp.uint32)
    assert a.dtype is wp.uint32
    assert a.numpy().tolist() == [2**32 - 1, 2]


def test_dtype_maps_match_warp():
    for name in ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
                 "uint32", "uint64"):
        t = getattr(wp, name)
        assert wp.dtype_to_jax(t) is getattr(jnp, name)
        assert wp.dtype_from_jax(getattr(jnp, name)) is t
        assert wp.dtype_from_jax(jnp.dtype(name)) is t
    assert wp.dtype_to_jax(wp.bool) is jnp.bool_
    assert wp.dtype_from_jax(jnp.bool_) is wp.bool
    with pytest.raises(TypeError, match="Cannot convert"):
        wp.dtype_to_jax(wp.vec3)
    with pytest.raises(TypeError, match="Cannot convert"):
        wp.dtype_from_jax(jnp.complex64)


def test_device_maps():
    cpu = jax.devices("cpu")[0]
    assert wp.device_to_jax("cpu") == cpu
    assert wp.device_from_jax(cpu) is wp.get_device("cpu")


def test_from_jax_keeps_device():
    x = jax.device_put(jnp.ones(3), jax.devices("cpu")[0])
    assert wp.from_jax(x).device is wp.get_device("cpu")


def test_dlpack_numpy_roundtrip():
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    a = wp.from_dlpack(host, dtype=wp.vec3)
    assert a.shape == (2,) and a.dtype is wp.vec3
    np.testing.assert_array_equal(np.from_dlpack(a), host)
    b = from_dlpack(jnp.arange(4, dtype=jnp.int32))
    assert b.dtype is wp.int32 and b.numpy().tolist() == [0, 1, 2, 3]


def test_dlpack_capsules():
    a = wp.array(np.arange(5, dtype=np.float32))
    capsule = to_dlpack(a)
    assert type(capsule).__name__ == "PyCapsule"
    b = from_dlpack(capsule)
    np.testing.assert_array_equal(b.numpy(), np.arange(5, dtype=np.float32))
    with pytest.raises(TypeError, match="__dlpack__"):
        from_dlpack(object())


def test_to_jax_rejects_struct_arrays():
    @wp.struct
    class P:
        x: float

    arr = wp.zeros(2, dtype=P)
    with pytest.raises(TypeError, match="struct"):
        wp.to_jax(arr)


def test_jax_experimental_shim():
    from jwarp.jax_experimental import jax_callable, jax_kernel
    from jwarp.jax_experimental.ffi import jax_kernel as ffi_kernel

    assert jax_kernel is wp.jax_kernel is ffi_kernel
    assert jax_callable is wp.jax_callable
