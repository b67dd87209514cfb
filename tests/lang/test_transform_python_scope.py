"""Transforms in Python scope: Warp's constructor forms and errors, the ``p``/``q`` setters,
slices that are vectors, and the in-place ``transform_set_*`` builtins."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp

COMPONENTS = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]


@pytest.mark.parametrize("make, expected", [
    (lambda T: T(), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
    (lambda T: T(1.5), [1.5] * 7),
    (lambda T: T(np.float16(2.5)), [2.5] * 7),
    (lambda T: T(True), [1.0] * 7),
    (lambda T: T(*COMPONENTS), COMPONENTS),
    (lambda T: T((1.0, 2.0, 3.0)), [1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0]),
    (lambda T: T((1.0, 2.0, 3.0), (4.0, 5.0, 6.0, 7.0)), COMPONENTS),
    (lambda T: T(p=(1.0, 2.0, 3.0), q=(4.0, 5.0, 6.0, 7.0)), COMPONENTS),
    (lambda T: T(q=wp.quat(4.0, 5.0, 6.0, 7.0)), [0.0, 0.0, 0.0, 4.0, 5.0, 6.0, 7.0]),
    (lambda T: T(wp.transformd(*COMPONENTS)), COMPONENTS),
])
@pytest.mark.parametrize("T", [wp.transformh, wp.transformf, wp.transformd])
def test_constructor_forms(T, make, expected):
    assert [float(x) for x in make(T)] == expected


@pytest.mark.parametrize("args, kwargs, message", [
    ((object(),), {}, "Invalid argument in transformation constructor: expected a scalar value, got object"),
    ((1.5, 2.5), {}, "Invalid argument 'p' in transformation constructor: expected a sequence, got float"),
    (((1.0, 2.0, 3.0), 1.0), {}, "Invalid argument 'q' in transformation constructor: expected a sequence, got float"),
    ((), {"q": 1.0}, "Invalid argument 'q' in transformation constructor: expected a sequence, got float"),
    (tuple(COMPONENTS), {"q": (0.0, 0.0, 0.0, 1.0)}, "multiple values for argument 'q'"),
    (tuple(COMPONENTS), {"pos": (0.0, 0.0, 0.0)}, "got an unexpected keyword argument 'pos'"),
])
def test_constructor_errors(args, kwargs, message):
    with pytest.raises(TypeError) as info:
        wp.transform(*args, **kwargs)
    assert str(info.value) == message


def test_parts_slices_and_in_place_builtins():
    t = wp.transform()
    t.p = wp.vec3(1.0, 2.0, 3.0)
    t.q = (0.0, 1.0, 0.0, 0.0)
    assert t.p == wp.vec3(1.0, 2.0, 3.0) and t.q == wp.quat(0.0, 1.0, 0.0, 0.0)
    assert wp.types.types_equal(type(t[:]), wp.types.vector(7, float)) and t[5:] == wp.types.vector(2, float)(0.0, 0.0)
    assert wp.types.types_equal(type(wp.mat33(*range(9))[0:2]), wp.types.matrix((2, 3), float))
    wp.transform_set_translation(t, wp.vec3(4.0, 5.0, 6.0))
    wp.transform_set_rotation(t, wp.quat_identity())
    assert list(t) == [4.0, 5.0, 6.0, 0.0, 0.0, 0.0, 1.0]


def test_struct_transform_fields_default_to_zeros():
    @wp.struct
    class Holder:
        t: wp.transform

    assert list(Holder().t) == [0.0] * 7
