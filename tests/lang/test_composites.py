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
    # as Warp: the factories' classes are distinct from the named aliases but equal to them
    assert wp.types.quaternion(dtype=float) is not wp.quatf
    assert wp.types.types_equal(wp.types.quaternion(dtype=float), wp.quatf)
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


# -- Python-scope element access, as Warp 1.19 (messages checked against real Warp) ----------------


def test_element_reads_return_warp_scalars_except_float32_int32():
    assert type(wp.vec3f(1, 2, 3)[0]) is float and type(wp.vec3i(1, 2, 3)[0]) is int
    assert type(wp.vec3d(1, 2, 3)[0]) is wp.float64 and type(wp.vec3h(1, 2, 3).y) is wp.float16
    assert type(wp.mat22h(1, 2, 3, 4)[0, 0]) is wp.float16
    old = wp.config.legacy_scalar_return_types
    try:
        wp.config.legacy_scalar_return_types = True
        assert type(wp.vec3d(1, 2, 3)[0]) is float
    finally:
        wp.config.legacy_scalar_return_types = old


def test_repr_shows_boxed_components():
    assert repr(wp.vec2i(1, 2)) == "vec2i([1, 2])"
    assert repr(wp.vec3d(1, 2, 3)) == "vec3d([float64(1.0), float64(2.0), float64(3.0)])"
    assert repr(wp.vec2ub(1, 2)) == "vec2ub([uint8(1), uint8(2)])"
    assert str(wp.vec3d(1, 2, 3)) == "[1.0, 2.0, 3.0]"


def test_slices_are_vectors_and_equality_is_a_bool():
    v = wp.vec4(1, 2, 3, 4)
    assert type(v[1:3]) is wp.vec2 and v[1:3] == (2.0, 3.0)
    assert (v == wp.vec4(1, 2, 3, 4)) is True and (v != (1, 2, 3, 5)) is True
    assert (v == wp.vec3(1, 2, 3)) is False and (v == 5) is False
    assert wp.mat22(1, 2, 3, 4) == [[1, 2], [3, 4]] and wp.mat22(1, 2, 3, 4) != (1, 2, 3, 4)
    assert type(wp.mat33(*range(9))[1]) is wp.vec3 and wp.mat22(1, 2, 3, 4)[-1, -1] == 4.0


def test_integer_components_wrap():
    v = wp.vec3i(2**33 + 5, -1, 3)
    assert list(v) == [5, -1, 3]
    u = wp.vec3ub(1, 2, 3)
    u[0] = -1
    assert u[0] == 255


def test_invalid_keys_raise_key_error():
    v, m = wp.vec3(1, 2, 3), wp.mat22(1, 2, 3, 4)
    with pytest.raises(KeyError, match="Invalid key None, expected int or slice"):
        v[None]
    with pytest.raises(KeyError, match="Invalid key None, expected int or slice"):
        v[None] = 0
    with pytest.raises(KeyError, match="Invalid key None, expected int or pair of ints"):
        m[None]
    with pytest.raises(KeyError, match="Invalid key, expected one or two indices, got 3"):
        m[0, 1, 2] = (0, 0)
    with pytest.raises(IndexError, match="invalid index"):
        v[3]
    with pytest.raises(IndexError, match="Invalid row index"):
        m[2]


def test_assigned_values_are_type_checked():
    v = wp.vec3i(1, 2, 3)
    with pytest.raises(TypeError, match="Expected to assign a `int32` value but got `str` instead"):
        v[0] = "123.0"
    with pytest.raises(TypeError, match="Expected to assign a `int32` value but got `float` instead"):
        v[0] = 2.5
    with pytest.raises(TypeError, match="sequence of `int32` values but got `vec3i` instead"):
        v[:1] = (v,)
    with pytest.raises(ValueError, match="Can only assign sequence of same size"):
        v[:1] = (1, 2)
    m = wp.mat22h(1, 2, 3, 4)
    with pytest.raises(TypeError, match="sequence of `float16` values but got `mat22h` instead"):
        m[0] = (m,)
    with pytest.raises(RuntimeError, match="expected to be a scalar but got an object of shape"):
        m[0, 0] = (1, 2)
    v[1:3] = (wp.int8(7), np.int64(8))
    m[1] = 9
    assert list(v) == [1, 7, 8] and m[1] == (9.0, 9.0)


def test_matrix_rows_and_columns():
    m = wp.mat22(1, 2, 3, 4)
    assert m.get_row(1) == (3.0, 4.0) and m.get_col(0) == (1.0, 3.0)
    m.set_row(0, (7, 8))
    m.set_col(1, 0)
    assert m == ((7.0, 0.0), (3.0, 0.0))
    with pytest.raises(IndexError, match="Invalid row index$"):
        m.set_row(2, (0, 0))


def test_constructor_argument_errors():
    with pytest.raises(ValueError, match=r"in vector constructor, expected 3 elements, got 2$"):
        wp.vec3(1, 2)
    with pytest.raises(ValueError, match=r"in vector constructor, expected 4 elements, got 2$"):
        wp.quat(1, 2)
    with pytest.raises(ValueError, match=r"in matrix constructor, expected 4 elements, got 3$"):
        wp.mat22(1, 2, 3)
    with pytest.raises(TypeError, match=r"expected row of length 2, got \(1, 2, 3\)$"):
        wp.mat22((1, 2, 3), (3, 4, 5))


def test_from_ptr_copies_memory():
    data = np.array([1.5, 2.5, 3.5], np.float64)
    v = wp.vec3d.from_ptr(data.ctypes.data)
    data[0] = 0.0
    assert v == (1.5, 2.5, 3.5)
    with pytest.raises(RuntimeError, match="NULL pointer exception"):
        wp.mat22.from_ptr(0)


def test_bfloat16_vectors():
    vec3bf = wp.types.vector(3, wp.bfloat16)
    v = vec3bf(1, 2, 3)
    assert v == vec3bf(1, 2, 3) and v != vec3bf(1, 2, 4)
    assert type(v[0]) is wp.bfloat16 and repr(v) == "vec3bf([bfloat16(1.0), bfloat16(2.0), bfloat16(3.0)])"


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


def test_matrices_and_transforms_take_attributes_like_vectors():
    # as Warp 1.19: any composite value accepts new attributes
    m, t, q = wp.mat22h(1, 2, 3, 4), wp.transform(), wp.quat()
    m.foo, t.foo, q.foo = 1, 2, 3
    assert (m.foo, t.foo, q.foo) == (1, 2, 3)


def test_factory_classes_canonicalize_to_the_named_types():
    V = wp.types.vector(length=4, dtype=wp.float64)
    assert V is not wp.vec4d and V is wp.types.vector(length=4, dtype=wp.float64)
    assert issubclass(wp.vec4d, V) and V.__name__ == "vec_t"

    class Sub(V):
        pass

    for t in (V, Sub, wp.vec4d):
        assert composites.canonical(t) is wp.vec4d
    assert composites.canonical(wp.types.matrix(shape=(4, 3), dtype=wp.float64)) is wp.types.matrix((4, 3), wp.float64).__mro__[0].__subclasses__()[0]
    assert composites.with_scalar(wp.vec3f, wp.float64) is wp.vec3d  # keyword and positional calls share one class
    assert type(Sub(1.0, 2.0, 3.0, 4.0) + V(1.0, 1.0, 1.0, 1.0)) is wp.vec4d
    assert repr(Sub(1.0, 2.0, 3.0, 4.0)).startswith("vec4d(")
    assert composites.canonical(wp.float32) is wp.float32
