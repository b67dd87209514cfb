"""Subscript array annotations (wp.array[...], wp.indexedarray[...], wp.fabricarray[...]) as Warp 1.19."""

from __future__ import annotations

import gc

from typing import Any, Literal, Union, get_origin

import pytest

import jwarp as wp
from jwarp.lang.array_annotations import ArrayAnnotation


def test_subscripts_are_lightweight_hashable_annotations():
    a = wp.array[float]
    assert isinstance(a, ArrayAnnotation) and not isinstance(a, wp.array) and not hasattr(a, "__dict__")
    assert a == wp.array[wp.float32] and hash(a) == hash(wp.array[wp.float32])
    assert a != wp.array[float, Literal[2]] and a != wp.indexedarray[float]
    assert wp.array2d[float].ndim == 2 and wp.array[wp.float32, 3].ndim == 3
    assert a.vars is a.vars and wp.types.is_array(a)


def test_any_dtype_and_ndim():
    assert wp.array[Any].dtype is Any and wp.array[Any, Literal[3]].ndim == 3
    assert wp.fabricarray[wp.float64, Any].ndim is Any and wp.indexedfabricarray[Any].dtype is Any


def test_factory_annotations_keep_typing_any():
    assert wp.array(dtype=Any, ndim=4).dtype is Any and wp.array(dtype=Any, ndim=4).ndim == 4
    assert wp.array().dtype is Any and wp.array().ndim == 1  # Warp's defaults: a generic 1-d annotation


def test_unknown_dtypes_pass_through_until_used():
    class Custom:
        pass

    assert wp.array[Custom].dtype is Custom


def test_subscript_errors():
    with pytest.raises(TypeError, match="single Literal value"):
        wp.array[float, Literal[1, 2]]
    with pytest.raises(ValueError, match="ndim must be between"):
        wp.array[float, 5]
    with pytest.raises(TypeError, match="single type parameter"):
        wp.array2d[float, Literal[2]]


def test_union_operator():
    a, ia = wp.array[float], wp.indexedarray[wp.float64]
    assert get_origin(a | float) is Union and (a | float).__args__ == (a, float)
    assert (float | a).__args__ == (float, a) and set((None | ia).__args__) == {ia, type(None)}


def test_repr_round_trips():
    for ann in (wp.array[wp.float32], wp.array3d[wp.vec3f], wp.array[wp.float32, Any],
                wp.indexedarray[wp.float32, Literal[3]]):
        assert eval(repr(ann), {"wp": wp, "Any": Any, "Literal": Literal}) == ann
    assert repr(wp.array[wp.types.vector(5, wp.float32)]).startswith("wp.array[vector(length=5")


def test_tile_subscripts():
    assert wp.tile[float].shape is Any
    assert wp.tile[float, Literal[8], Literal[4]].shape == (8, 4) == wp.tile[float, (8, 4)].shape


class _NotAWarpType:
    pass


def test_kernel_checks_array_dtype_when_used():
    # defined here and dropped after: a kernel that cannot build would also fail every later
    # wp.force_load() of its module (as in Warp), so it must not outlive the test
    @wp.kernel
    def _lazy_dtype_kernel(a: wp.array[_NotAWarpType]):
        pass

    try:
        with pytest.raises(Exception, match="Unsupported array dtype"):
            wp.launch(_lazy_dtype_kernel, dim=1, inputs=[wp.zeros(1, dtype=float)])
    finally:  # the module keeps its kernels (as Warp's does): take this one out
        _lazy_dtype_kernel.module.kernels.pop(_lazy_dtype_kernel.key, None)
        del _lazy_dtype_kernel
        gc.collect()


def test_union_annotations_rejected_in_functions():
    with pytest.raises(RuntimeError, match="Union type annotations are only supported at Python scope"):

        @wp.func
        def f(a: int | float) -> float:
            return 0.0
