"""wp.to_dlpack / wp.from_dlpack: round trips give back a handle on the same array, dtype
reinterpretations, and Warp's error messages."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp


def test_round_trip_aliases_the_source():
    a1 = wp.array(np.arange(4, dtype=np.float32))
    a2 = wp.from_dlpack(wp.to_dlpack(a1))
    assert a2.ptr == a1.ptr and a2.strides == a1.strides and a2.dtype is wp.float32
    a2.fill_(3.0)  # writes through either handle are seen by both
    np.testing.assert_array_equal(a1.numpy(), [3, 3, 3, 3])


def test_round_trip_after_a_write_copies():
    a1 = wp.zeros(3)
    capsule = wp.to_dlpack(a1)
    a1.fill_(1.0)  # a1 no longer holds the exported buffer
    a2 = wp.from_dlpack(capsule)
    np.testing.assert_array_equal(a2.numpy(), [0, 0, 0])


@pytest.mark.parametrize("vec", [wp.vec3, wp.mat22d, wp.vec2b])
def test_composite_to_scalar_and_back(vec):
    a1 = wp.zeros(5, dtype=vec)
    scalar = vec._wp_scalar_type_
    a2 = wp.from_dlpack(wp.to_dlpack(a1), dtype=scalar)
    assert a2.ptr == a1.ptr and a2.shape == (5, *vec._shape_) and a2.dtype is scalar
    assert a2.strides[0] == a1.strides[0]
    a3 = wp.from_dlpack(wp.to_dlpack(a2), dtype=vec)
    assert a3.ptr == a1.ptr and a3.shape == (5,) and a3.dtype is vec


def test_bool_seen_as_int8_and_unsigned_as_signed():
    values = np.array([True, False, True])
    src = wp.array(values, dtype=wp.bool)
    as_int8 = wp.from_dlpack(wp.to_dlpack(src), dtype=wp.int8)
    assert as_int8.ptr == src.ptr
    np.testing.assert_array_equal(as_int8.numpy(), [1, 0, 1])
    u = wp.array(np.array([255, 1], np.uint8), dtype=wp.uint8)
    s = wp.from_dlpack(wp.to_dlpack(u), dtype=wp.int8)
    np.testing.assert_array_equal(s.numpy(), [-1, 1])
    s.fill_(-2)
    np.testing.assert_array_equal(u.numpy(), [254, 254])


def test_incompatible_dtype_message():
    with pytest.raises(RuntimeError, match="Incompatible data types: DLPack bool8 and Warp float32"):
        wp.from_dlpack(wp.to_dlpack(wp.zeros(1, dtype=wp.bool)), dtype=wp.float32)


def test_unsupported_device_and_invalid_capsule_messages():
    class OnDevice123:
        def __dlpack_device__(self):
            return (123, 7)

        def __dlpack__(self, stream=None):
            raise AssertionError("not called")

    class NotACapsule:
        def __dlpack_device__(self):
            return (1, 0)

        def __dlpack__(self, stream=None):
            return object()

    with pytest.raises(TypeError, match="Unsupported source device for DLPack: device_type=123, device_id=7"):
        wp.from_dlpack(OnDevice123())
    with pytest.raises(TypeError, match="Expected a valid DLPack capsule, got object"):
        wp.from_dlpack(NotACapsule())


def test_numpy_source_still_works():
    a = wp.from_dlpack(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=wp.vec3)
    assert a.shape == (2,) and a.dtype is wp.vec3


def test_ctypes_types_on_scalars_and_composites():
    import ctypes

    assert wp.float32._type_ is ctypes.c_float and wp.vec3d._type_ is ctypes.c_double
    assert ctypes.sizeof(wp.float16._type_) == 2 and wp.bool._type_ is ctypes.c_bool
