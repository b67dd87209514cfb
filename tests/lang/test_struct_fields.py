"""Python-scope field assignment of ``@wp.struct`` instances (Warp 1.19 semantics)."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp


@wp.struct
class Scalars:
    u8: wp.uint8
    f16: wp.float16
    f64: wp.float64


@wp.struct
class Composites:
    v: wp.vec3
    m: wp.mat22


@wp.struct
class ArrayField:
    values: wp.array(dtype=wp.int32)


def test_scalar_fields_default_to_and_keep_warp_scalars():
    s = Scalars()
    assert isinstance(s.u8, wp.uint8) and isinstance(s.f16, wp.float16) and isinstance(s.f64, wp.float64)
    s.u8 = wp.uint8(7)
    s.f64 = wp.float64(2.5)
    assert isinstance(s.u8, wp.uint8) and int(s.u8) == 7
    assert isinstance(s.f64, wp.float64) and float(s.f64) == 2.5


def test_scalar_fields_keep_python_values_python():
    s = Scalars()
    s.u8 = 3
    s.f64 = 1.5
    assert type(s.u8) is int and s.u8 == 3
    assert type(s.f64) is float and s.f64 == 1.5


@pytest.mark.parametrize("value", [123, 1.5, wp.float32(1.5), wp.int32(2)])
@pytest.mark.parametrize("field, type_name", [("v", "vec3f"), ("m", "mat22f")])
def test_single_value_to_composite_field_is_rejected(field, type_name, value):
    s = Composites()
    with pytest.raises(TypeError, match=rf"Struct field '{field}' expects {type_name} but got a single value"):
        setattr(s, field, value)


def test_composite_field_accepts_containers_and_none_zero_initializes():
    s = Composites()
    s.v = [4.0, 5.0, 6.0]
    np.testing.assert_array_equal(np.array(s.v), [4.0, 5.0, 6.0])
    s.v = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(np.array(s.v), [1.0, 2.0, 3.0])
    s.v = None
    np.testing.assert_array_equal(np.array(s.v), np.zeros(3))


def test_array_field_checks_dtype_and_ndim():
    s = ArrayField()
    with pytest.raises(TypeError, match=r"Struct field 'values' expects dtype int32, got float32"):
        s.values = wp.zeros(2, dtype=wp.float32)
    with pytest.raises(TypeError, match=r"expects an array with 1 dimension\(s\), got 2 dimension\(s\)"):
        s.values = wp.zeros((2, 2), dtype=wp.int32)
    ok = wp.zeros(2, dtype=wp.int32)
    s.values = ok
    assert s.values is ok


def test_struct_types_cannot_be_subclassed():
    with pytest.raises(RuntimeError, match=r"Warp structs must be defined as base classes$"):

        class Child(Scalars):  # noqa: F841
            y: int


def test_missing_field_in_kernel_names_the_expression_and_type():
    @wp.kernel(module="unique")
    def read_missing(s: Scalars):
        _ = s.nonexisting

    with pytest.raises(AttributeError, match=r"`nonexisting` is not an attribute of 's' \([\w.]+\.Scalars\)$"):
        wp.launch(read_missing, dim=1, inputs=[Scalars()], device="cpu")


def test_instances_are_instances_of_the_user_class():
    @wp.struct
    class WithMethod:
        x: int

        def doubled(self):
            return 2 * self.x

    s = WithMethod()
    s.x = 4
    assert isinstance(s, WithMethod.cls)
    assert s.doubled() == 8
    assert not isinstance(Scalars(), WithMethod.cls)
