"""In-kernel composite constructors: Warp's error messages for invalid forms (the valid forms
are compared with real Warp in tests/differential/programs/core_composite_constructors.py)."""

from __future__ import annotations

import pytest

import jwarp as wp


def _error(body):
    with pytest.raises(Exception) as info:
        wp.launch(body, dim=1, inputs=[])
    return info.value


def test_vector_length_mismatch_in_copy():
    @wp.kernel(module="unique")
    def k():
        wp.vec3(wp.vec2(1.0, 2.0))

    err = _error(k)
    assert isinstance(err, RuntimeError)
    assert str(err).endswith("incompatible vector of length 3 given when copy constructing a vector of length 2")


def test_vector_needs_length_for_zeros_and_fill():
    @wp.kernel(module="unique")
    def zeros():
        wp.types.vector()

    @wp.kernel(module="unique")
    def fill():
        wp.vector(1.0)

    assert "the `length` argument must be specified when zero-initializing a vector" in str(_error(zeros))
    assert "the `length` argument must be specified when filling a vector with a value" in str(_error(fill))


def test_vector_components_must_share_a_type():
    @wp.kernel(module="unique")
    def mixed():
        wp.vector(1.0, 2)

    @wp.kernel(module="unique")
    def count():
        wp.vector(1.0, 2.0, length=3)

    assert str(_error(mixed)).endswith("all values given when constructing a vector must have the same type")
    assert "incompatible number of values given (2) when constructing a vector of length 3" in str(_error(count))


def test_runtime_value_of_other_dtype_is_rejected():
    @wp.kernel(module="unique")
    def k(x: wp.float64):
        wp.vec2(x, x)

    with pytest.raises(RuntimeError, match=r"all values used to initialize this vector are expected to be of the type `float32`$"):
        wp.launch(k, dim=1, inputs=[wp.float64(1.0)])


def test_length_must_be_compile_time():
    @wp.kernel(module="unique")
    def k(n: int):
        wp.vector(1.0, length=n)

    with pytest.raises(Exception, match="`length` must be a positive compile-time integer"):
        wp.launch(k, dim=1, inputs=[3])


def test_matrix_rules():
    @wp.kernel(module="unique")
    def from_vectors():
        wp.mat22(wp.vec2(1.0, 2.0), wp.vec2(3.0, 4.0))

    @wp.kernel(module="unique")
    def extraneous_shape():
        wp.mat22(1.0, shape=(3, 2))

    @wp.kernel(module="unique")
    def no_shape():
        wp.matrix(1.0, 2.0, 3.0, 4.0)

    assert isinstance(_error(from_vectors), TypeError)
    assert "Remove the extraneous `shape` parameter" in str(_error(extraneous_shape))
    assert "the `shape` argument must be specified when initializing a matrix by value" in str(_error(no_shape))


def test_quaternion_and_transform_rules():
    @wp.kernel(module="unique")
    def quat_from_vec4():
        wp.quat(wp.vec4(1.0, 2.0, 3.0, 4.0))

    @wp.kernel(module="unique")
    def transform_count():
        wp.transformation(1.0, 2.0)

    @wp.kernel(module="unique")
    def transform_dtype():
        wp.transformd(wp.transform())

    assert "Couldn't find function overload for 'quaternion'" in str(_error(quat_from_vec4))
    assert "incompatible number of values given (2) when constructing a transform; expected 0, 1, or 7" in str(
        _error(transform_count)
    )
    assert "copy constructing a transform requires matching source and target dtypes" in str(_error(transform_dtype))


def test_generic_composite_argument_is_checked_at_launch():
    @wp.kernel(module="unique")
    def k(v: wp.types.vector(3, wp.Float), out: wp.array(dtype=float)):
        out[0] = float(v[0])

    out = wp.zeros(1, dtype=float)
    wp.launch(k, dim=1, inputs=[wp.vec3d(2.0, 0.0, 0.0), out])
    assert out.numpy()[0] == 2.0
    with pytest.raises(TypeError, match=r"argument 'v' type mismatch: expected vector\(length=3, dtype=Float\), got vec3i"):
        wp.launch(k, dim=1, inputs=[wp.vec3i(1, 2, 3), out])
