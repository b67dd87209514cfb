"""Errors of array slices in kernel code (the working forms are in the differential program
``lang_array_slices``)."""

from __future__ import annotations

import pytest

from tests.kernel_errors import body_line, launch_error


@pytest.mark.parametrize(
    "body, needle",
    [
        ("v = out[::0]", "step cannot be zero"),
        ("v = out[0.5:]", "must be integers"),
        ("out[0:1] = 1.0", "sub-array assignment is not supported"),
        ("x = out[0:1, 0]", "Incorrect number of indices specified for array indexing"),
    ],
)
def test_bad_array_slices_name_the_line(tmp_path, body, needle):
    message = launch_error(tmp_path, body)
    assert needle in message
    assert body_line(tmp_path) in message
