"""Subscript array annotations: ``wp.array[float]``, ``wp.array2d[wp.vec3]``,
``wp.indexedarray[float, Literal[2]]``, ``wp.fabricarray[Any, Any]``.

As in Warp, a subscript makes a lightweight, hashable annotation object (not an array): it
records the array class, the dtype and the number of dimensions, and nothing is checked about
the dtype until a kernel uses the annotation (so ``wp.array[SomeType]`` is fine at import time
even when ``SomeType`` is no Warp type). Python scalar types are mapped to Warp's (``float`` ->
``wp.float32``); ``typing.Any`` stands for any dtype or any number of dimensions. Two
annotations are equal when class, dtype and ndim are; ``ann | float`` makes a ``typing.Union``
(usable at Python scope only, as in Warp).

Example:
    >>> import jwarp as wp
    >>> from typing import Literal
    >>> wp.array[float] == wp.array[wp.float32], wp.array[float, Literal[2]]
    (True, wp.array2d[wp.float32])
    >>> wp.indexedarray[wp.float64, 3]
    wp.indexedarray[wp.float64, Literal[3]]
"""

from __future__ import annotations

import typing
from typing import Any, Union

from jwarp.lang import composites, scalars

MAX_DIMS = 4


class ArrayAnnotation:
    """``array_class[dtype, ndim]``: an annotation-only description of an array parameter."""

    __slots__ = ("array_class", "dtype", "ndim", "_vars_cache")

    _jwarp_array = True  # counts as an array for wp.types.is_array and annotation resolution

    def __init__(self, array_class: type, dtype: Any, ndim: Any = 1):
        self.array_class = array_class
        canonical = scalars.canonical_scalar(dtype) if dtype is not Any and isinstance(dtype, type) else None
        self.dtype = canonical if canonical is not None else dtype  # anything else: checked when used
        self.ndim = ndim
        self._vars_cache: dict[str, Any] | None = None

    @property
    def _array_kind(self) -> str:
        return getattr(self.array_class, "_array_kind", "array")

    @property
    def vars(self) -> dict[str, Any]:
        """The attributes kernel code reads from such an array (computed once per annotation)."""
        if self._vars_cache is None:
            self._vars_cache = {"shape": tuple, "ndim": int}
        return self._vars_cache

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ArrayAnnotation):
            return (self.array_class, self.ndim) == (other.array_class, other.ndim) and self.dtype == other.dtype
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.array_class, self.dtype, self.ndim))

    def __or__(self, other: Any) -> Any:
        return Union[self, other]  # noqa: UP007 (the operand is no type: | would not do)

    def __ror__(self, other: Any) -> Any:
        return Union[other, self]  # noqa: UP007

    def __repr__(self) -> str:
        dtype, name = _dtype_repr(self.dtype), self.array_class.__name__
        if self.ndim is Any:
            return f"wp.{name}[{dtype}, Any]"
        if self.ndim == 1:
            return f"wp.{name}[{dtype}]"
        if name == "array":
            return f"wp.array{self.ndim}d[{dtype}]"
        return f"wp.{name}[{dtype}, Literal[{self.ndim}]]"


def _dtype_repr(dtype: Any) -> str:
    """``wp.<alias>`` for Warp's named types, the descriptive name otherwise (subscript syntax)."""
    import jwarp

    if dtype is Any:
        return "Any"
    if hasattr(dtype, "key"):  # a struct type
        return dtype.key
    name = getattr(dtype, "__name__", None)
    if name and getattr(jwarp, name, None) is dtype:
        return f"wp.{name}"
    if isinstance(dtype, type) and issubclass(dtype, composites.composite_base):
        args = ", ".join(f"{k}={getattr(v, '__name__', v)}" for k, v in dtype._wp_type_args_.items())
        return f"{dtype._wp_constructor_}({args})"
    return name or repr(dtype)


def parse_ndim(ndim: Any) -> Any:
    """The ndim of ``array[dtype, ndim]``: ``Literal[n]``, a bare int, or ``typing.Any``."""
    if ndim is Any:
        return Any
    if typing.get_origin(ndim) is typing.Literal:
        args = typing.get_args(ndim)
        if len(args) != 1:
            raise TypeError(f"Expected a single Literal value for the array ndim, got {ndim!r}")
        ndim = args[0]
    if not isinstance(ndim, int) or isinstance(ndim, bool):
        raise TypeError(f"Array ndim must be an int, Literal[int] or typing.Any, got {ndim!r}")
    if not 1 <= ndim <= MAX_DIMS:
        raise ValueError(f"Array ndim must be between 1 and {MAX_DIMS}, got {ndim}")
    return ndim


def subscript(array_class: type, params: Any, default_ndim: int | None = None) -> ArrayAnnotation:
    """``array_class[params]``; ``default_ndim`` set for the fixed-rank shorthands (``array2d``)."""
    if default_ndim is not None:
        if isinstance(params, tuple):
            raise TypeError(f"wp.array{default_ndim}d[...] takes a single type parameter (the dtype), got {params!r}")
        return ArrayAnnotation(array_class, params, default_ndim)
    if not isinstance(params, tuple):
        return ArrayAnnotation(array_class, params, 1)
    if len(params) != 2:
        raise TypeError(f"Array subscripts take a dtype and optionally an ndim, got {params!r}")
    return ArrayAnnotation(array_class, params[0], parse_ndim(params[1]))
