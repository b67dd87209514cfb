"""Python-scope API of the scalar classes (Warp 1.19 semantics)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import jwarp as wp

INT_TYPES = [wp.int8, wp.uint8, wp.int16, wp.uint16, wp.int32, wp.uint32, wp.int64, wp.uint64]
FLOAT_TYPES = [wp.float16, wp.bfloat16, wp.float32, wp.float64]


def test_value_is_stored_unconverted_and_views_wrap():
    x = wp.int8(300)
    assert x.value == 300 and int(x) == 300
    assert repr(x) == "int8(44)" and str(x) == "44" and x.__index__() == 44
    assert repr(wp.uint8(-1)) == "uint8(255)"
    assert repr(wp.float32(1.1)) == "float32(1.1)" and wp.float32(1.1).value == 1.1
    assert repr(wp.bool(0)) == "bool(False)" and str(wp.bool(3)) == "True"


def test_construction_unboxes_scalars_and_one_element_arrays():
    assert wp.float32(wp.float64(2.5)).value == 2.5
    # jwarp extension: Warp keeps the array itself, and float() of it fails under numpy 2
    assert float(wp.float32(np.array([2.5]))) == 2.5
    assert float(wp.float16(np.float32(1.25))) == 1.25
    assert wp.float32().value == 0 and wp.bool().value == 0


def test_ctypes_and_numpy_dtype_attributes():
    assert wp.int8._type_ is ctypes.c_int8 and wp.float64._type_ is ctypes.c_double
    assert wp.float16._type_ is ctypes.c_uint16 and wp.bfloat16._type_ is ctypes.c_uint16
    assert wp.int16._type_(70000).value == 70000 - 65536
    assert np.dtype(wp.float32) == np.float32 and np.dtype(wp.bool) == np.bool_
    assert np.dtype(wp.handle) == np.uint64
    assert not hasattr(wp.bfloat16, "__numpy_dtype__")
    assert np.asarray(wp.float32(1.25)).dtype == object  # instances are not numpy scalars


@pytest.mark.parametrize("t", INT_TYPES)
def test_integer_conversions(t):
    v = t(123)
    assert (bool(v), int(v), float(v)) == (True, 123, 123.0)
    assert ctypes.c_int(v).value == 123
    assert not bool(t(0))


@pytest.mark.parametrize("t", FLOAT_TYPES)
def test_float_conversions(t):
    v = t(1.25)
    assert (bool(v), int(v), float(v)) == (True, 1, 1.25)
    assert abs(t(-2.0)) == 2.0 and type(abs(t(-2.0))) is t
    assert type(round(t(2.5))) is t


def test_result_types_follow_warp():
    # float32 / int32 results are Python numbers; other types stay boxed
    assert type(wp.float32(1.5) + wp.float32(2.25)) is float
    assert type(wp.int32(7) % 3) is int
    r = wp.float64(1.0) / wp.float64(3.0)
    assert type(r) is wp.float64 and r.value == 1.0 / 3.0
    assert type(wp.int64(2) + wp.int64(3)) is wp.int64
    assert type(wp.float16(1.0) + wp.float16(2.0)) is wp.float16


def test_integer_arithmetic_wraps_and_divides_like_c():
    assert wp.int8(100) * wp.int8(2) == -56
    assert wp.uint8(3) - wp.uint8(5) == 254
    assert wp.int32(2**31 - 1) + 1 == -(2**31)
    assert wp.uint64(2**64 - 1) + wp.uint64(1) == 0
    assert wp.int32(-7) / wp.int32(2) == -3  # truncates toward zero
    assert wp.int32(-7) % wp.int32(2) == -1  # sign of the dividend
    assert -wp.uint32(1) == 2**32 - 1
    assert repr(-wp.int8(-128)) == "int8(-128)"
    # jwarp's rule for integer division by zero (kernels, wp.div): 0; Warp stops with SIGFPE
    assert wp.int32(7) / wp.int32(0) == 0 and wp.int8(7) % wp.int8(0) == 0


def test_float_arithmetic_runs_in_the_type():
    assert wp.float32(1.0) / 3.0 == float(np.float32(1.0) / np.float32(3.0))
    assert float(wp.float16(1.0) / wp.float16(3.0)) == float(np.float16(1.0) / np.float16(3.0))
    assert wp.float32(-7.5) % wp.float32(2.0) == -1.5
    assert wp.float32(2.0) ** 3.0 == 8.0 and 2.0 ** wp.float32(3.0) == 8.0
    assert wp.float32(1.0) / wp.float32(0.0) == float("inf")
    assert float(wp.float16(70000.0) + wp.float16(0.0)) == float("inf")


@pytest.mark.parametrize(
    "expr",
    [
        lambda: wp.float32(1.0) + 2,  # a Python int is int32
        lambda: 3 * wp.float32(1.0),
        lambda: wp.float64(1.0) + 1.0,  # a Python float is float32
        lambda: wp.int32(1) + 1.5,
        lambda: wp.float32(1.0) + wp.float64(2.0),
        lambda: wp.float32(1.0) + True,
    ],
)
def test_mixed_operand_types_are_rejected(expr):
    with pytest.raises(RuntimeError, match="Couldn't find a function '(add|mul)' compatible with the arguments"):
        expr()


def test_unsupported_operators_raise_type_error():
    with pytest.raises(TypeError):
        wp.int32(2) ** wp.int32(3)
    with pytest.raises(TypeError):
        wp.float32(1.0) // wp.float32(2.0)
    with pytest.raises(TypeError):
        wp.bool(True) + 1
    with pytest.raises(TypeError):
        -wp.bool(True)
    with pytest.raises(TypeError):
        [1, 2][wp.float32(1.0)]


def test_arrays_and_composites_handle_mixed_operations():
    assert wp.float32(2.0) * wp.vec3(1.0, 2.0, 3.0) == wp.vec3(2.0, 4.0, 6.0)


def test_comparisons():
    assert wp.int8(3) < wp.float32(3.5) and not (wp.int8(3) < 2.5)
    assert wp.int8(1) != 1.5 and wp.int8(1) == 1.0 and wp.int8(1) < np.float16(1.5)
    assert wp.float32(3.0) == wp.float64(3.0) and wp.int32(3) == wp.int64(3)
    assert (wp.float32(1.0) == None) is False  # noqa: E711
    with pytest.raises(TypeError):
        wp.float32(1.0) < "a"
    with pytest.raises(OverflowError):
        wp.float16(1.0) == 2**1024


def test_hash_agrees_with_equality():
    assert hash(wp.int8(1)) == hash(1.0)
    assert len({wp.int8(1), 1.0}) == 1 and len({wp.int8(1), 1.5}) == 2
    assert hash(wp.float32(0.5)) == hash(0.5)


def test_bool_has_identity_equality_as_in_warp():
    t = wp.bool(True)
    assert (t == wp.bool(True)) is False and t == t
    assert (int(wp.bool(2)), float(wp.bool(0))) == (1, 0.0)


def test_handle_behaves_as_uint64():
    h = wp.handle(5)
    assert isinstance(h, wp.uint64)
    assert wp.types.types_equal(wp.handle, wp.uint64)


def test_scalars_defer_to_array_operators():
    a = wp.array([1.0, 2.0], dtype=wp.float32)
    assert (wp.float32(2.0) * a).numpy().tolist() == [2.0, 4.0]
    assert (wp.float32(1.0) - a).numpy().tolist() == [0.0, -1.0]
