"""Errors of starred call arguments in kernel code (the working forms are in the differential
program ``lang_starred_args``): Warp's exception types and wording."""

from __future__ import annotations

import pytest

import jwarp as wp
from tests.kernel_errors import body_line, launch_error


@pytest.mark.parametrize(
    "body, exc_type, needle",
    [
        ("n = wp.tid() + 2\n    v = wp.vec2(*out[0:n])", wp.WarpCodegenValueError, "must be a compile-time constant"),
        ("v = wp.vec2(*out[0:])", wp.WarpCodegenValueError, "requires explicit upper bound"),
        ("v = wp.vec2(*out[:-1])", wp.WarpCodegenValueError, "cannot be negative for arrays"),
        ("v = wp.vec2(*out[3:1:-1])", wp.WarpCodegenValueError, "step cannot be negative"),
        ("v = wp.vec2(*out)", wp.WarpCodegenTypeError, "only if they are sliced"),
        ("x = 42\n    v = wp.vec3i(*x)", wp.WarpCodegenTypeError, "Starred expressions are only supported for"),
        ("x = 1.0\n    v = wp.vec3(*x[0:2])", wp.WarpCodegenTypeError, "with slices are only supported"),
        ("v = wp.vec2(*out[2:2])", wp.WarpCodegenError, "empty sequence"),
    ],
)
def test_bad_starred_arguments_raise_warps_errors(tmp_path, body, exc_type, needle):
    message = launch_error(tmp_path, body, exc_type=exc_type)
    assert needle in message
    assert body_line(tmp_path) in message
