"""Atomics accept only the scalar types Warp's do; the error names the types and the kernel line."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp


@wp.kernel
def _min_half_vectors(a: wp.array(dtype=wp.vec3h)):
    wp.atomic_min(a, 0, wp.vec3h())


@wp.kernel
def _add_uint8(a: wp.array(dtype=wp.uint8)):
    wp.atomic_add(a, 0, wp.uint8(1))


@wp.kernel
def _xor_floats(a: wp.array(dtype=float)):
    wp.atomic_xor(a, 0, 1.0)


@wp.kernel
def _augmented_small_ints(a: wp.array(dtype=wp.int8)):
    a[0] += wp.int8(1)


@pytest.mark.parametrize(
    "kernel, dtype, message",
    [
        (
            _min_half_vectors,
            wp.vec3h,
            r"atomic_min\(\) operations only work on arrays with \[u\]int32, \[u\]int64, bfloat16, float32, or "
            r"float64 as the underlying scalar types, but got vec3h \(with scalar type float16\)",
        ),
        (_add_uint8, wp.uint8, r"atomic_add\(\) .* but got uint8 \(with scalar type uint8\)"),
        (_xor_floats, float, r"atomic_xor\(\) operations only work on arrays with \[u\]int32 or \[u\]int64"),
    ],
)
def test_unsupported_atomic_dtypes_are_rejected(kernel, dtype, message):
    a = wp.zeros(1, dtype=dtype)
    with pytest.raises(RuntimeError, match=message) as info:
        wp.launch(kernel, dim=1, inputs=[a])
    assert "test_atomic_dtypes.py" in str(info.value)  # the kernel's file and line


def test_augmented_stores_stay_allowed_on_small_ints():
    a = wp.zeros(1, dtype=wp.int8)
    wp.launch(_augmented_small_ints, dim=4, inputs=[a])
    assert a.numpy().tolist() == [4]


def test_bfloat16_array_from_uint16_takes_the_bits():
    bits = np.array([0x3F80, 0x4000, 0xC040], dtype=np.uint16)  # 1.0, 2.0, -3.0
    a = wp.array(bits, dtype=wp.bfloat16)
    assert a.numpy().astype(np.float32).tolist() == [1.0, 2.0, -3.0]


def test_one_element_of_data_makes_a_one_element_composite_array():
    assert wp.array([0, 0], dtype=wp.vec2).shape == (1,)
    assert wp.array(np.zeros((2, 2)), dtype=wp.mat22).shape == (1,)
