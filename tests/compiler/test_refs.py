"""wp.ref[T] and wp.address_of: the annotation object, and the errors at call sites (working
forms are in the differential program ``lang_refs``)."""

from __future__ import annotations

import pytest

import jwarp as wp
from tests.kernel_errors import body_line, launch_error

_PRELUDE = """
@wp.func
def bump(x: wp.ref[float]):
    x += 1.0

@wp.func
def bump2(x: wp.ref[wp.vec2]):
    x += wp.vec2(1.0, 1.0)

@wp.func
def make() -> float:
    return 1.0
"""

_NO_BACKWARD = "wp.set_module_options({'enable_backward': False})\n"


def test_ref_annotation_object():
    r = wp.ref[wp.float32]
    assert r.dtype is wp.float32 and r.value_type is wp.float32
    assert repr(r) == "wp.ref[float32]"
    assert r == wp.ref[wp.float32] and hash(r) == hash(wp.ref[wp.float32])
    assert r != wp.ref[wp.int32]


@pytest.mark.parametrize(
    "body, needle",
    [
        ("bump(1.0)", "is a temporary value"),
        ("bump(make())", "is a temporary value"),
        ("x = 1.0\n    bump(x + 1.0)", "is a temporary value"),
        ("bump(wp.vec3(1.0, 2.0, 3.0).x)", "is a temporary value"),
        ("v = wp.vec3()\n    bump2(v[0:2])", "cannot be a slice"),
    ],
)
def test_ref_arguments_must_be_addressable(tmp_path, body, needle):
    message = launch_error(tmp_path, body, prelude=_NO_BACKWARD + _PRELUDE)
    assert needle in message
    assert body_line(tmp_path) in message


def test_ref_call_from_backward_enabled_kernel_raises(tmp_path):
    message = launch_error(tmp_path, "x = float(0.0)\n    bump(x)", prelude=_PRELUDE)
    assert "Cannot call 'bump' with wp.ref[T] parameters from a backward-enabled kernel" in message
    assert body_line(tmp_path) in message


def test_address_of_explains_there_are_no_addresses(tmp_path):
    message = launch_error(tmp_path, "x = float(0.0)\n    wp.address_of(x)", prelude=_NO_BACKWARD)
    assert "no memory addresses" in message
    message = launch_error(tmp_path, "wp.address_of(wp.vec3().x)", file_name="other.py", prelude=_NO_BACKWARD)
    assert "temporary value" in message


def test_ref_not_allowed_in_kernel_signature():
    def k(x: wp.ref[float]):
        pass

    with pytest.raises(wp.WarpCodegenError, match="not allowed in @wp.kernel signatures"):
        wp.Kernel(func=k)


def test_overloads_differing_only_by_refness_rejected():
    @wp.func
    def twice(x: float) -> float:
        return x

    with pytest.raises(RuntimeError, match="differ only"):

        @wp.func
        def twice(x: wp.ref[float]):  # noqa: F811
            x += 1.0



def test_ref_to_a_literal_local_suggests_a_typed_constructor(tmp_path):
    message = launch_error(tmp_path, "x = 1.0\n    bump(x)", prelude=_NO_BACKWARD + _PRELUDE)
    assert "constant local 'x'" in message and "x = wp.float32(1.0)" in message
    assert body_line(tmp_path) in message


def test_ref_augassign_changing_type_names_the_ref_parameter(tmp_path):
    """A user ``add`` operator returning another type: Warp's message for ``x += ...`` on a ref."""
    prelude = _NO_BACKWARD + '''
@wp.func
def add(x: wp.float32, y: wp.float32) -> wp.int32:
    return wp.int32(1)

@wp.func
def bump_user(x: wp.ref[wp.float32]):
    x += wp.float32(1.0)
'''
    message = launch_error(tmp_path, "x = wp.float32(0.0)\n    bump_user(x)", prelude=prelude)
    assert "augmented assignment to ref parameter `x`" in message
