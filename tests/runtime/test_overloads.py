"""wp.overload: both forms, Warp's checks, and kernel.overloads."""

from __future__ import annotations

from typing import Any

import pytest

import jwarp as wp


@wp.kernel
def generic_fill(a: wp.array(dtype=Any), v: Any):
    a[wp.tid()] = v


@wp.kernel
def concrete_fill(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


def test_list_and_dict_forms_record_overloads():
    before = len(generic_fill.overloads)
    first = wp.overload(generic_fill, [wp.array(dtype=wp.vec3), wp.vec3])
    assert first is not generic_fill  # as in Warp: the overload object, one per signature
    assert generic_fill.add_overload([wp.array(dtype=wp.vec3), wp.vec3]) is first
    wp.overload(generic_fill, {"a": wp.array(dtype=int), "v": int})
    assert len(generic_fill.overloads) == before + 2


def test_mismatching_or_concrete_overloads_raise():
    with pytest.raises(TypeError, match="type mismatch"):
        wp.overload(generic_fill, [float, float])
    with pytest.raises(RuntimeError, match="Only generic kernels can be overloaded"):
        wp.overload(concrete_fill, [wp.array(dtype=float)])
    with pytest.raises(RuntimeError, match="Invalid argument name 'b'"):
        wp.overload(generic_fill, {"b": int})


def test_decorator_form_returns_the_kernel():
    @wp.kernel
    def scaled(a: wp.array(dtype=Any), s: Any):
        a[wp.tid()] = a[wp.tid()] * s

    @wp.overload
    def scaled(a: wp.array(dtype=float), s: float): ...

    assert isinstance(scaled, wp.Kernel) and len(scaled.overloads) == 1


def test_decorator_stub_rules():
    @wp.kernel
    def stub_rules(x: Any):
        return

    with pytest.raises(RuntimeError, match="Illegal statement in kernel overload definition"):

        @wp.overload
        def stub_rules(x: float):
            x = x + 1.0

    def stub_rules(x: float) -> float: ...  # noqa: F811

    with pytest.raises(TypeError, match="Return annotations are not allowed"):
        wp.overload(stub_rules)


class TaggedArray(wp.array):
    """A user subclass: overloads keep its native family, not the subclass or the array."""


def test_live_arrays_as_overload_types_and_infer_argument_types():
    tagged = TaggedArray([1.0, 2.0], dtype=float)
    types = generic_fill.infer_argument_types([tagged, 1.0])
    assert types[0].dtype is wp.float32 and types[0].ndim == 1 and not isinstance(types[0], TaggedArray)
    assert types[1] is wp.float32
    ovl = wp.overload(generic_fill, [tagged, wp.float32])
    assert generic_fill.add_overload(types) is ovl
    out = wp.zeros(2, dtype=float)
    wp.launch(ovl, 2, inputs=[out, 3.0])
    assert out.numpy().tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="Invalid number of arguments"):
        generic_fill.infer_argument_types([tagged])
