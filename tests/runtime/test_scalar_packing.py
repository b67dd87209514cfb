"""``binding.pack_scalar``: Warp's (C types') rules for scalar kernel parameters (the differential
program ``launch_scalar_packing.py`` checks the same against real Warp through ``wp.launch``)."""

from __future__ import annotations

import numpy as np
import pytest

from jwarp.lang import scalars
from jwarp.runtime.binding import pack_scalar


@pytest.mark.parametrize("value, expected", [(3, 3), (np.array(3), 3), (np.uint64(7), 7), (True, 1),
                                             (2**32 + 5, 5), (2**31, -(2**31)), (-1, -1)])
def test_int_parameter_takes_integers_wrapped(value, expected):
    assert pack_scalar(scalars.int32, value) == expected


def test_unsigned_and_narrow_types_wrap():
    assert pack_scalar(scalars.uint8, -1) == 255 and pack_scalar(scalars.int8, 200) == -56
    assert pack_scalar(scalars.uint64, -1) == 2**64 - 1


@pytest.mark.parametrize("value", [2.7, 3.0, np.float32(2.0), np.array(2.7), np.array([3]), np.bool_(True), "3", None,
                                   1 + 2j])
def test_int_parameter_refuses_non_integers(value):
    with pytest.raises(TypeError):
        pack_scalar(scalars.int32, value)


@pytest.mark.parametrize("value", [1 + 2j, np.array(1 + 2j), "2.0", np.array([1.0]), None, [1.0]])
def test_float_parameter_refuses_non_reals(value):
    with pytest.raises(TypeError):
        pack_scalar(scalars.float32, value)


def test_float_and_bool_parameters():
    assert pack_scalar(scalars.float32, np.array(2.5)) == 2.5 and pack_scalar(scalars.float64, True) == 1.0
    assert pack_scalar(scalars.bool_, 0) == False and pack_scalar(scalars.bool_, np.float32(0.5)) == True  # noqa: E712
