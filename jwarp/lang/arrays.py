"""Array types as kernels see them, and the resolution of Warp-style annotations.

``wp.array(dtype=float)``, ``wp.array[float]`` and ``wp.array2d(dtype=wp.vec3)`` are all
turned into an :class:`ArrayType` (dtype, ndim). Storage belongs to ``jwarp.runtime.array``;
this module is type metadata only.

Example:
    >>> import jwarp as wp
    >>> from jwarp.lang.arrays import resolve_annotation
    >>> resolve_annotation(wp.array2d(dtype=wp.vec3))
    ArrayType(dtype=vec3f, ndim=2)
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, field
from typing import Any

from jwarp.lang import composites, scalars
from jwarp.lang.array_annotations import ArrayAnnotation
from jwarp.lang.refs import Reference
from jwarp.lang.struct import StructType


class UnsupportedDtypeError(TypeError):
    """An array annotation's dtype is no Warp type (raised when a kernel uses the annotation)."""


class _Generic:
    """Marker for a generic annotation (``typing.Any``, a TypeVar, or a generic composite such as
    ``wp.types.vector(length=Any, dtype=wp.Float)``), resolved from launch/call arguments."""

    def __init__(self, name: str, allowed: tuple = (), template: Any = None):
        self.name = name
        self.allowed = allowed
        self.template = template  # a generic composite type, or None

    def __repr__(self) -> str:
        return self.name

    def accepts(self, t: Any) -> bool:
        if self.template is not None:
            return composites.matches_template(self.template, t)
        return not self.allowed or t in self.allowed


GenericType = _Generic  # the public name (``isinstance(t, GenericType)``: a generic placeholder type)


def _generic_composite(t: type) -> _Generic:
    return _Generic(t.__name__, template=t)


ANY = _Generic("Any")


INDEXED = "indexedarray"


class FunctionParamType:
    """Type of a ``g: wp.Function`` parameter of a ``@wp.func``: a ``@wp.func`` or builtin passed
    as an argument and called inside (``def apply(g: wp.Function, x: float): return g(x)``)."""

    __name__ = "Function"

    def __repr__(self) -> str:
        return "wp.Function"


FUNCTION = FunctionParamType()


@dataclass(frozen=True)
class TupleType:
    """Type of a tuple value (``wp.tid()`` in 2-D, a ``wp.func`` returning several values, a
    ``tuple[float, int]`` annotation)."""

    types: tuple

    @property
    def __name__(self) -> str:
        return "tuple(" + ", ".join(type_name(t) for t in self.types) + ")"


@dataclass(frozen=True)
class VariadicTupleType:
    """A ``tuple[T, ...]`` parameter annotation: accepts a tuple of any length whose items all
    have type ``T`` (``Any`` accepts every item type)."""

    item: Any

    @property
    def __name__(self) -> str:
        return f"tuple({type_name(self.item)}, ...)"


@dataclass(frozen=True)
class ArrayType:
    """Kernel-side type of an array parameter: element dtype, number of dimensions, and the
    array kind a launch accepts for it (``"array"``, or ``"indexedarray"`` for
    ``wp.indexedarray`` parameters; inside kernel code both behave alike)."""

    dtype: Any
    ndim: int = 1
    kind: str = "array"
    fixed: bool = field(default=False, compare=False)  # annotated wp.fixedarray (a thread's own array)

    def __repr__(self) -> str:
        kind = "" if self.kind == "array" else f", kind={self.kind}"
        return f"ArrayType(dtype={type_name(self.dtype)}, ndim={self.ndim}{kind})"

    @property
    def is_generic(self) -> bool:
        return isinstance(self.dtype, _Generic)


def type_name(t: Any) -> str:
    """Warp-style short name of a type, used in error messages."""
    if isinstance(t, ArrayType):
        return f"{t.kind}(ndim={t.ndim}, dtype={type_name(t.dtype)})"
    if isinstance(t, StructType):
        return t.key
    if isinstance(t, tuple):
        return "tuple(" + ", ".join(type_name(x) for x in t) + ")"
    return getattr(t, "__name__", repr(t))


def resolve_annotation(annotation: Any) -> Any:
    """Map a Warp annotation to a jwarp type (scalar class, composite class, StructType,
    ArrayType, or a generic marker). Returns None when the annotation is not understood."""
    if annotation is typing.Any or annotation is None:
        return ANY if annotation is typing.Any else None
    if getattr(annotation, "_jwarp_function_annotation", False):
        return FUNCTION
    if typing.get_origin(annotation) is tuple:
        items = typing.get_args(annotation)
        if len(items) == 2 and items[1] is Ellipsis:
            item = resolve_annotation(items[0])
            return None if item is None else VariadicTupleType(item)
        if not items or Ellipsis in items:
            return None
        resolved = tuple(resolve_annotation(t) for t in items)
        return None if None in resolved else TupleType(resolved)
    if isinstance(annotation, Reference):
        inner = resolve_annotation(annotation.value_type)
        return None if inner is None else Reference(inner)
    if isinstance(annotation, typing.TypeVar):
        allowed = tuple(canonical for c in annotation.__constraints__ if (canonical := scalars.canonical_scalar(c)))
        return _Generic(annotation.__name__, allowed)
    if isinstance(annotation, (ArrayType, StructType, _Generic)):
        return annotation
    if type(annotation).__name__ in ("TileType", "TileStackType"):  # wp.tile[...], wp.tile_stack(...)
        return annotation
    if isinstance(annotation, type) and getattr(annotation, "_jwarp_array_class", False):
        return ArrayType(ANY, getattr(annotation, "_default_ndim", 1), getattr(annotation, "_array_kind", "array"))
    if isinstance(annotation, ArrayAnnotation):  # wp.array[dtype, ndim]: the dtype is checked now
        if annotation.ndim is typing.Any:
            raise TypeError(f"{annotation!r}: kernel parameters with any number of dimensions are not supported "
                            "by jwarp; give the ndim")
        return ArrayType(composites.canonical(resolve_dtype(annotation.dtype)), annotation.ndim, annotation._array_kind)
    if getattr(annotation, "_jwarp_array", False):
        # an annotation-only runtime array (``wp.array(dtype=float)``) or a real array
        _reject_subclass_instance(annotation)
        dtype = composites.canonical(resolve_dtype(annotation.dtype))
        return ArrayType(dtype, annotation.ndim, getattr(annotation, "_array_kind", "array"),
                         fixed=bool(getattr(annotation, "_jwarp_fixed", False)))
    scalar = scalars.canonical_scalar(annotation) if isinstance(annotation, type) else None
    if scalar is not None:
        return scalar
    if composites.is_composite(annotation):
        return composites.canonical(annotation)
    if composites.is_generic_composite(annotation):
        return _generic_composite(annotation)
    return None


def _reject_subclass_instance(annotation: Any) -> None:
    """An instance of a user subclass of an array class is no annotation (as in Warp): the
    native parent's annotation is."""
    cls = type(annotation)
    if cls.__module__.startswith("jwarp."):
        return
    fixed = getattr(annotation, "_jwarp_fixed", False)
    what = "a fixedarray subclass" if fixed else "an array subclass"
    family = "fixedarray" if fixed else getattr(cls, "_array_kind", "array")
    raise TypeError(f"{cls.__name__} uses {what} instance as an annotation; use the native parent "
                    f"annotation wp.{family}[dtype] instead")


def parse_subscript(params: Any) -> tuple[Any, int | None]:
    """``wp.array[dtype]`` / ``wp.array[dtype, Literal[ndim]]`` (also a plain int) → (dtype, ndim)."""
    if not isinstance(params, tuple):
        return params, None
    if len(params) != 2:
        raise TypeError(f"Array subscripts take a dtype and optionally a Literal[ndim], got {params!r}")
    dtype, ndim = params
    args = typing.get_args(ndim) if typing.get_origin(ndim) is typing.Literal else (ndim,)
    if len(args) != 1 or not isinstance(args[0], int) or not 1 <= args[0] <= 4:
        raise TypeError(f"Array dimension count must be Literal[1..4], got {ndim!r}")
    return dtype, args[0]


def resolve_dtype(dtype: Any) -> Any:
    """Canonical element dtype: scalar class, composite class, StructType or a generic marker."""
    if dtype is typing.Any:
        return ANY
    if isinstance(dtype, (StructType, _Generic)) or composites.is_composite(dtype):
        return dtype
    if isinstance(dtype, typing.TypeVar) or composites.is_generic_composite(dtype):
        return resolve_annotation(dtype)
    scalar = scalars.canonical_scalar(dtype)
    if scalar is None:
        raise UnsupportedDtypeError(f"Unsupported array dtype {dtype!r}")
    return scalar


def dtype_leaf_shapes(dtype: Any) -> list[tuple[tuple[int, ...], type]]:
    """Per-leaf (component shape, scalar type) of an element dtype, in storage order."""
    if scalars.is_scalar_type(dtype):
        return [((), dtype)]
    if composites.is_composite(dtype):
        return [(dtype._shape_, dtype._wp_scalar_type_)]
    if isinstance(dtype, StructType):
        out = []
        for var in dtype.vars.values():
            if isinstance(var.type, ArrayType):  # an array field: Warp's descriptor record
                from jwarp.lang.array_descriptors import descriptor_leaf_shapes

                out.extend(descriptor_leaf_shapes(var.type))
            else:
                out.extend(dtype_leaf_shapes(var.type))
        return out
    raise TypeError(f"Type {type_name(dtype)} cannot be stored in an array")
