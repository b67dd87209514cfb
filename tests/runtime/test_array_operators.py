"""Array operators: the builtin's typing rules and errors, in-place results, devices."""

from __future__ import annotations

import pytest

import jwarp as wp


def test_operand_types_follow_the_builtin():
    a = wp.array([1.0, 2.0], dtype=wp.float32)
    with pytest.raises(RuntimeError, match=r"Input types must be the same, got \['float32', 'int32'\]"):
        a + 5  # a Python int is int32
    with pytest.raises(RuntimeError, match="Input types must be the same"):
        wp.array([1.0], dtype=wp.float64) * wp.float32(3.0)


def test_shapes_must_broadcast():
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2,\) are not broadcastable"):
        wp.array([1.0, 2.0, 3.0]) + wp.array([1.0, 2.0])


def test_result_is_a_new_array_and_in_place_writes_back():
    a = wp.array([1.0, 2.0], dtype=wp.float32)
    b = a + 1.0
    assert b is not a and b.dtype is wp.float32 and b.device == a.device
    assert a.numpy().tolist() == [1.0, 2.0]
    same = a
    a += 1.0
    assert a is same and a.numpy().tolist() == [2.0, 3.0]


def test_in_place_result_must_fit():
    a = wp.array([1, 2], dtype=wp.int32)
    with pytest.raises(TypeError, match="Cannot store the result"):
        a += wp.array([[1, 2], [3, 4]], dtype=wp.int32)


def test_struct_arrays_have_no_arithmetic():
    @wp.struct
    class S:
        x: float

    a = wp.zeros(2, dtype=S)
    with pytest.raises(TypeError, match="Arithmetic operators need arrays of scalars"):
        a + a
