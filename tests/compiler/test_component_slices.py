"""Errors of component slices in kernel code (the working forms are in the differential program
``lang_slicing``)."""

from __future__ import annotations

import pytest

from tests.kernel_errors import body_line, launch_error


@pytest.mark.parametrize(
    "body, needle",
    [
        ("n = wp.tid() + 1\n    v = wp.vec3(1.0, 2.0, 3.0)\n    out[0] = v[0:n][0]", "compile-time integer"),
        ("v = wp.vec3(1.0, 2.0, 3.0)\n    out[0] = v[::0][0]", "step cannot be zero"),
        ("x = 1.0\n    out[0] = x[0:1]", "Slicing is not supported"),
        ("m = wp.mat22(1.0, 2.0, 3.0, 4.0)\n    out[0] = m[0, 0, 0:1][0]", "one (row) or two"),
    ],
)
def test_bad_component_slices_name_the_line(tmp_path, body, needle):
    message = launch_error(tmp_path, body)
    assert needle in message
    assert body_line(tmp_path) in message


def test_component_store_type_mismatch_uses_warps_wording(tmp_path):
    message = launch_error(tmp_path, "v = wp.vec3()\n    v.y = wp.vec3()\n    out[0] = v.y")
    assert "Composite slot assignment expects value of type float32, got vec3f" in message
