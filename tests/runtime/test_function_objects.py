"""``wp.Function`` objects at Python scope, as Warp's: overload lookup (``get_overload``),
mutable ``defaults``, ``input_types``, ``user_overloads`` that record generic instantiations, and
the typing overloads of ``wp.func`` (calls themselves are in the differential program
``lang_python_scope_calls``)."""

from __future__ import annotations

import sys
import typing
from typing import Any

import numpy as np
import pytest

import jwarp as wp


@wp.func
def pick(x: float, g: wp.Function = wp.sin):
    return g(x)


@wp.func
def pick(x: int):  # noqa: F811
    return float(x)


@wp.func
def length_of(a: wp.array(dtype=Any)):
    return a.shape[0]


def test_get_overload_and_defaults():
    concrete = pick.get_overload([float], {})
    assert list(concrete.input_types) == ["x", "g"]
    assert concrete.defaults == {"g": wp.sin}
    assert pick.get_overload([int], {}).defaults == {}
    assert pick.get_overload([wp.vec3], {}) is None
    saved = dict(concrete.defaults)
    try:
        concrete.defaults["g"] = wp.cos
        assert pick(0.0) == pytest.approx(1.0)  # the changed default is used
    finally:
        concrete.defaults = saved
    assert pick(0.0) == pytest.approx(0.0)


def test_python_scope_errors():
    with pytest.raises(RuntimeError, match=r"^Error calling function 'pick', no overload found"):
        pick(wp.vec3(1.0, 2.0, 3.0))
    # arguments bind to the primary overload's signature with its defaults (Warp's rule): (1, wp.sin)
    # matches neither overload
    with pytest.raises(RuntimeError, match=r"no overload found for arguments \(1,\)"):
        pick(1)


@wp.kernel
def use_length(a: wp.array(dtype=float), out: wp.array(dtype=int)):
    out[0] = length_of(a)


def test_user_overloads_record_generic_instantiations():
    assert len(length_of.user_overloads) == 0 and length_of(wp.zeros(2, dtype=float)) == 2  # plain call
    out = wp.zeros(1, dtype=int)
    wp.launch(use_length, dim=1, inputs=[wp.zeros(4, dtype=float), out])
    before = len(length_of.user_overloads)
    assert before == 1
    assert length_of(wp.zeros(3, dtype=wp.int32)) == 3
    after = dict(length_of.user_overloads)
    assert len(after) == before + 1
    assert length_of(wp.zeros(5, dtype=wp.int32)) == 5  # same types: no new record, same object
    assert {id(o) for o in length_of.user_overloads.values()} == {id(o) for o in after.values()}
    assert len(length_of.user_templates) == 1


@pytest.mark.skipif(sys.version_info < (3, 11), reason="typing.get_overloads needs Python 3.11")
def test_func_has_typing_overloads():
    overloads = typing.get_overloads(wp.func)
    assert len(overloads) >= 2
    assert any("Callable" in str(o.__annotations__.get("return", "")) for o in overloads)


def test_composite_operands_must_share_a_scalar_type():
    with pytest.raises(RuntimeError, match="Couldn't find a function 'mul' compatible with the arguments 'float, int'"):
        wp.vec3(1.0, 2.0, 3.0) * 2
    np.testing.assert_allclose(np.array(wp.vec3(1.0, 2.0, 3.0) * 2.0), [2.0, 4.0, 6.0])
