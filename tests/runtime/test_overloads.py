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
    assert wp.overload(generic_fill, [wp.array(dtype=wp.vec3), wp.vec3]) is generic_fill
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
