"""``wp.types`` public helpers (Warp 1.19 behaviour)."""

from __future__ import annotations

import ctypes
import typing

import numpy as np
import pytest

import jwarp as wp

T = wp.types


def test_public_names_match_warp_types_module():
    names = [
        "is_array", "is_composite", "is_float", "is_int", "is_matrix", "is_quaternion", "is_scalar",
        "is_struct", "is_tile", "is_transformation", "is_value", "is_vector", "matrix", "quaternion",
        "transformation", "type_ctype", "type_is_array", "type_is_composite", "type_is_float", "type_is_int",
        "type_is_matrix", "type_is_quaternion", "type_is_scalar", "type_is_struct", "type_is_tile",
        "type_is_transformation", "type_is_value", "type_is_vector", "type_repr", "type_size",
        "type_size_in_bytes", "types_equal", "vector",
    ]  # fmt: skip
    assert [n for n in names if not hasattr(T, n)] == []


@pytest.mark.parametrize(
    "t, expected",
    [
        (wp.float32, "float32"),
        (float, "float"),
        (int, "int"),
        (bool, "bool"),
        (wp.vec3, "vec3f"),
        (wp.mat22d, "mat22d"),
        (wp.quath, "quath"),
        (wp.transformd, "transformd"),
        (wp.spatial_vector, "vector(length=6, dtype=float32)"),
        (wp.types.matrix((2, 5), float), "matrix(shape=(2, 5), dtype=float32)"),
        (wp.array(dtype=wp.vec3, ndim=2), "array(ndim=2, dtype=vec3f)"),
        (tuple[int, float], "tuple(int, float)"),
        (typing.Any, "Any"),
        (np.float32, "numpy.float32"),
    ],
)
def test_type_repr(t, expected):
    assert T.type_repr(t) == expected


def test_type_repr_of_an_allocated_array_shows_its_shape():
    assert T.type_repr(wp.zeros((2, 3), dtype=wp.int8)) == "array(shape=(2, 3), dtype=int8)"


def test_sizes():
    assert [T.type_size(t) for t in (float, wp.float16, wp.vec3, wp.mat33, wp.transform)] == [1, 1, 3, 9, 7]
    assert [T.type_size_in_bytes(t) for t in (float, wp.bool, wp.bfloat16, wp.mat33d)] == [4, 1, 2, 72]
    with pytest.raises(TypeError, match="A concrete type is required"):
        T.type_size_in_bytes(typing.Any)
    with pytest.raises(TypeError, match="Invalid data type"):
        T.type_size_in_bytes(str)


def test_type_ctype():
    assert T.type_ctype(float) is ctypes.c_float
    assert T.type_ctype(wp.float16) is ctypes.c_uint16
    assert T.type_ctype(wp.vec3) is wp.vec3


def test_types_equal():
    assert T.types_equal(float, wp.float32) and T.types_equal(int, wp.int32) and T.types_equal(bool, wp.bool)
    assert T.types_equal(wp.types.vector(3, float), wp.vec3)
    assert not T.types_equal(wp.float32, wp.float64)
    assert T.types_equal(wp.array(dtype=float), wp.array(dtype=wp.float32))


def test_type_predicates():
    assert T.type_is_int(int) and T.type_is_int(wp.uint64) and not T.type_is_int(bool)
    assert T.type_is_float(float) and T.type_is_float(wp.bfloat16)
    assert not T.type_is_scalar(wp.bool) and T.type_is_value(wp.bool) and T.type_is_value(bool)
    assert T.type_is_vector(wp.vec3) and not T.type_is_vector(wp.mat22) and T.type_is_composite(wp.quat)
    assert T.type_is_array(wp.array) and not T.type_is_array(wp.array(dtype=float))
    assert not T.type_is_int(wp.int32(1))  # a value is not a type


def test_value_predicates():
    assert T.is_int(3) and not T.is_int(True) and T.is_int(wp.int16(3)) and not T.is_int(wp.int16)
    assert T.is_float(1.5) and T.is_float(wp.float16(1.0)) and not T.is_float(np.float32(1.0))
    assert T.is_value(True) and T.is_value(wp.bool(True)) and not T.is_value(np.float32(1.0)) and not T.is_value("a")
    assert T.is_vector(wp.vec3()) and not T.is_vector(wp.vec3) and T.is_composite(wp.mat22())
    assert T.is_array(wp.array(dtype=float)) and T.is_array(wp.zeros(2)) and not T.is_array(wp.array)


def test_struct_predicates():
    @wp.struct
    class Foo:
        x: float

    assert T.type_is_struct(Foo) and T.is_struct(Foo()) and not T.is_struct(Foo)
    assert T.type_size(Foo) == 1


def test_dtype_to_numpy():
    assert wp.dtype_to_numpy(wp.float16) is np.float16 and wp.dtype_to_numpy(wp.bool) is np.bool_
    assert wp.dtype_to_numpy(wp.bfloat16) is np.uint16
    with pytest.raises(TypeError):
        wp.dtype_to_numpy(wp.vec3)


def test_constant_accepts_values_only():
    assert wp.constant(1.25) == 1.25 and wp.constant(wp.vec3i(1, 2, 3)) == wp.vec3i(1, 2, 3)
    with pytest.raises(TypeError, match=r"Invalid constant type: <class 'tuple'>$"):
        wp.constant((1, 2, 3))
