"""Errors of array slices in kernel code (the working forms are in the differential program
``lang_array_slices``)."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp
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


def test_a_literal_zero_step_is_warps_value_error():
    @wp.kernel
    def literal_zero_step(a: wp.array2d(dtype=int)):
        v = a[0:2:0]  # noqa: F841

    with pytest.raises(wp.WarpCodegenValueError, match="Slice step cannot be zero"):
        wp.launch(literal_zero_step, dim=1, inputs=[wp.zeros((2, 2), dtype=int)])


@wp.kernel
def _run_time_step(array: wp.array2d(dtype=int), step: int, out: wp.array(dtype=int)):
    view = array[0:6:step, 1]
    out[0] = view.shape[0]
    out[1] = view[0]


def test_a_run_time_zero_step_fails_the_launch_and_changes_nothing():
    array = wp.array(np.arange(18, dtype=np.int32).reshape(6, 3), dtype=int)
    out = wp.zeros(2, dtype=int)
    wp.launch(_run_time_step, dim=1, inputs=[array, 2, out])
    np.testing.assert_array_equal(out.numpy(), [3, 1])
    out.fill_(7)
    with pytest.raises(ValueError, match="slice step cannot be zero") as info:
        wp.launch(_run_time_step, dim=1, inputs=[array, 0, out])
    assert "_run_time_step" in str(info.value) and "view = array[0:6:step, 1]" in str(info.value)
    np.testing.assert_array_equal(out.numpy(), [7, 7])
