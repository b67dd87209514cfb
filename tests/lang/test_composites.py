"""Composite types in Python scope: generic types (Any length/shape, wp.Float/Int/Scalar dtypes),
type parameters, template matching, and Python-scope arithmetic."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import jwarp as wp
from jwarp.lang import composites


def test_generic_types_are_annotations_only():
    generic = wp.types.vector(length=Any, dtype=wp.Float)
    assert composites.is_generic_composite(generic)
    assert not composites.is_composite(generic)
    assert generic._length_ == 0 and generic._shape_ == (0,)
    with pytest.raises(TypeError, match="generic type"):
        generic()


def test_generic_matrix_shape_is_wholly_generic():
    m = wp.types.matrix(shape=(Any, 3), dtype=float)
    assert m._shape_ == (0, 0)
    assert composites.matches_template(m, wp.mat44)
    assert not composites.matches_template(m, wp.vec4)


def test_type_params_follow_warp():
    assert wp.vec3d._wp_type_args_ == {"length": 3, "dtype": wp.float64}
    assert wp.mat22._wp_type_params_ == (2, 2, wp.float32)
    assert wp.quath._wp_type_args_ == {"dtype": wp.float16}
    assert wp.vec3._wp_constructor_ == "vector" and wp.transform._wp_constructor_ == "transformation"
    assert wp.types.quaternion(dtype=float) is wp.quatf
    assert composites.is_generic_composite(wp.types.quaternion())  # Warp's default dtype is Any


@pytest.mark.parametrize(
    "template, concrete, expected",
    [
        (wp.types.vector(3, wp.Int), wp.vec3i, True),
        (wp.types.vector(3, wp.Int), wp.vec3f, False),
        (wp.types.vector(Any, wp.Scalar), wp.vec4ub, True),
        (wp.types.vector(Any, float), wp.vec2d, False),
        (wp.types.matrix((2, 2), wp.Float), wp.mat22h, True),
        (wp.types.matrix((2, 2), wp.Float), wp.mat33, False),
    ],
)
def test_template_matching(template, concrete, expected):
    assert composites.matches_template(template, concrete) is expected


def test_invalid_dimensions_raise():
    with pytest.raises(ValueError, match="exactly two dimensions"):
        wp.types.matrix(shape=(3,), dtype=float)
    with pytest.raises(TypeError, match="Invalid vector length"):
        wp.types.vector(length="3x", dtype=float)
    with pytest.raises(TypeError, match="Invalid scalar type"):
        wp.types.vector(length=3, dtype=str)


def test_python_scope_arithmetic():
    v = wp.vec3i(7, -7, 5)
    assert v % wp.vec3i(3, 3, 3) == (1, -1, 2)  # C fmod: sign of the dividend
    assert wp.int32(24) / wp.vec3i(1, 2, 5) == (24, 12, 4)
    assert wp.float32(2.0) * wp.vec3(1.0, 2.0, 3.0) == (2.0, 4.0, 6.0)
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    assert m * wp.vec2(1.0, 1.0) == (3.0, 7.0)
    assert wp.vec2(1.0, 1.0) * m == (4.0, 6.0)
    assert str(m) == "[[1.0, 2.0],\n [3.0, 4.0]]"


def test_quaternion_and_transform_products():
    a, b = wp.quat(1.0, 2.0, 3.0, 4.0), wp.quat(0.5, -1.0, 2.0, 1.0)
    # Hamilton product: w = aw*bw - av.bv, v = aw*bv + bw*av + av x bv
    av, bv = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0])
    expected = np.concatenate([4.0 * bv + 1.0 * av + np.cross(av, bv), [4.0 - av @ bv]])
    np.testing.assert_allclose(np.array(a * b), expected)
    t = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(0.0, 0.0, 0.0, 1.0))
    assert t * t == (2.0, 4.0, 6.0, 0.0, 0.0, 0.0, 1.0)


def test_zero_length_vector_is_concrete_and_distinct_from_generic_length():
    empty = wp.types.vector(0, float)
    assert composites.is_composite(empty) and not composites.is_generic_composite(empty)
    assert empty._shape_ == (0,) and len(empty()) == 0
    assert empty is not wp.types.vector(Any, float)
    assert not composites.matches_template(empty, wp.vec2)


def test_vector_attributes_follow_warp():
    v = wp.vec3(1.0, 2.0, 3.0)
    v.tag = 9  # arbitrary attributes may be set, as on Warp's vectors
    assert v.tag == 9 and list(v) == [1.0, 2.0, 3.0]
    v.y = 5.0
    assert v[1] == 5.0
    for name in ("xy", "w", "xyzw"):
        with pytest.raises(AttributeError, match=rf"'vec3f' object has no attribute '{name}'$"):
            setattr(v, name, 1.0)
        with pytest.raises(AttributeError, match=rf"no attribute '{name}'$"):
            getattr(v, name)
    assert not hasattr(wp.vec2(1.0, 2.0), "z")


def test_matrix_row_and_column_accessors():
    m = wp.matrix_from_cols(wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0), wp.vec3(7.0, 8.0, 9.0))
    assert m.get_row(0) == wp.vec3(1.0, 4.0, 7.0) and m.get_col(2) == wp.vec3(7.0, 8.0, 9.0)
    m.set_row(1, wp.vec3(0.0, -1.0, -2.0))
    m.set_col(0, (5.0, 6.0, 7.0))
    assert m == wp.mat33(5.0, 4.0, 7.0, 6.0, -1.0, -2.0, 7.0, 6.0, 9.0)
