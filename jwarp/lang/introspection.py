"""Warp's public type helpers (``wp.types.type_repr``, ``type_is_float``, ``is_vector`` …).

``type_is_*`` ask about a *type*, ``is_*`` about a *value*. Python ``int``/``float`` count as
``int32``/``float32``; ``wp.bool`` is a value type but not a scalar (as in Warp).

Example:
    >>> import jwarp as wp
    >>> wp.types.type_repr(wp.types.vector(5, wp.float16))
    'vector(length=5, dtype=float16)'
    >>> wp.types.type_size(wp.mat33), wp.types.type_size_in_bytes(wp.mat33d)
    (9, 72)
    >>> wp.types.is_float(wp.float16(1.0)), wp.types.type_is_int(int)
    (True, True)
"""

from __future__ import annotations

import builtins
import ctypes
import typing
from typing import Any

import numpy as np

from jwarp.lang import composites, scalars
from jwarp.lang.arrays import ArrayType
from jwarp.lang.struct import StructInstance, StructType

_SHORT_NAMES = {
    scalars.float16: "h",
    scalars.bfloat16: "bf",
    scalars.float32: "f",
    scalars.float64: "d",
    scalars.int8: "b",
    scalars.int16: "s",
    scalars.int32: "i",
    scalars.int64: "l",
    scalars.uint8: "ub",
    scalars.uint16: "us",
    scalars.uint32: "ui",
    scalars.uint64: "ul",
}

_KIND_PREFIX = {"transformation": "transform", "quaternion": "quat"}


def _kind(t: Any) -> str | None:
    """'vector' / 'matrix' / 'quaternion' / 'transformation' for a composite class, else None."""
    if isinstance(t, type) and issubclass(t, composites.composite_base):
        return t._wp_type_kind_
    return None


def _is_array_object(x: Any) -> builtins.bool:
    return getattr(x, "_jwarp_array", False) and not isinstance(x, type)


def _is_tuple_alias(t: Any) -> builtins.bool:
    return typing.get_origin(t) is tuple


# ----------------------------------------------------------------------------------------------
# names and sizes


def type_repr(t: Any) -> str:
    """Human-readable name of a Warp type, as Warp's error messages print it.

    Example:
        >>> import jwarp as wp
        >>> type_repr(wp.mat22d), type_repr(float), type_repr(wp.array(dtype=wp.vec3, ndim=2))
        ('mat22d', 'float', 'array(ndim=2, dtype=vec3f)')
    """
    if t is typing.Any:
        return "Any"
    if isinstance(t, ArrayType):
        return f"array(ndim={t.ndim}, dtype={type_repr(t.dtype)})"
    if _is_array_object(t):
        cls_name = type(t).__name__
        if getattr(t, "device", None) is None:  # an annotation: ``wp.array(dtype=float)``
            return f"{cls_name}(ndim={t.ndim}, dtype={type_repr(t.dtype)})"
        return f"{cls_name}(shape={tuple(t.shape)}, dtype={type_repr(t.dtype)})"
    if _is_tuple_alias(t):
        args = typing.get_args(t)
        return f"tuple({', '.join(type_repr(x) for x in args)})" if args else "tuple"
    if isinstance(t, StructType):
        return type_repr(t.cls)
    kind = _kind(t)
    if kind is not None:
        scalar = t._wp_scalar_type_
        short = _SHORT_NAMES.get(scalar)
        if kind in _KIND_PREFIX:
            prefix = _KIND_PREFIX[kind]
            return f"{prefix}{short}" if short else f"{prefix}(dtype={type_repr(scalar)})"
        if kind == "vector":
            n = t._shape_[0]
            return f"vec{n}{short}" if short and n <= 4 else f"vector(length={n}, dtype={type_repr(scalar)})"
        rows, cols = t._shape_
        if short and rows <= 4 and cols <= 4:
            return f"mat{rows}{cols}{short}"
        return f"matrix(shape=({rows}, {cols}), dtype={type_repr(scalar)})"
    if t in scalars.scalar_types:
        return t.__name__
    if t is builtins.bool:
        return "bool"
    if t is float:
        return "float"
    if t is int:
        return "int"
    name = getattr(t, "__name__", None)
    if name is None:
        return repr(t)
    return f"{t.__module__}.{getattr(t, '__qualname__', name)}"


def type_size(dtype: Any) -> int:
    """Number of scalar components of a type (1 for scalars and structs, 9 for ``mat33``)."""
    if dtype is float or dtype is int or isinstance(dtype, StructType):
        return 1
    return dtype._length_


def type_size_in_bytes(dtype: Any) -> int:
    """Size in bytes of one element of a Warp dtype (``TypeError`` for anything else).

    Example:
        >>> import jwarp as wp
        >>> type_size_in_bytes(float), type_size_in_bytes(wp.vec3h)
        (4, 6)
    """
    if dtype is float or dtype is int:
        return 4
    if isinstance(dtype, StructType):
        return dtype.np_dtype().itemsize
    if isinstance(dtype, type) and issubclass(dtype, composites.composite_base):
        return dtype._length_ * dtype._wp_scalar_type_._np_dtype.itemsize
    if scalars.is_scalar_type(dtype):
        return dtype._np_dtype.itemsize
    if isinstance(dtype, type) and issubclass(dtype, (ctypes._SimpleCData, ctypes.Structure, ctypes.Array)):
        return ctypes.sizeof(dtype)
    if dtype is typing.Any:
        raise TypeError("A concrete type is required")
    raise TypeError(f"Invalid data type: {dtype}")


def type_ctype(dtype: Any) -> Any:
    """The ctypes type of a Warp scalar type (``float`` → ``c_float``, ``wp.float16`` → ``c_uint16``);
    composite and struct types are their own storage and come back unchanged."""
    if dtype is float:
        return ctypes.c_float
    if dtype is int:
        return ctypes.c_int32
    if dtype is scalars.bool_:
        return ctypes.c_bool
    if scalars.is_scalar_type(dtype):
        return dtype._type_
    if _kind(dtype) is not None or isinstance(dtype, StructType):
        return dtype
    raise TypeError(f"Invalid data type: {dtype}")


def type_to_warp(dtype: Any) -> Any:
    """``float``/``int``/``bool`` → ``wp.float32``/``wp.int32``/``wp.bool``; anything else unchanged."""
    if dtype is float:
        return scalars.float32
    if dtype is int:
        return scalars.int32
    if dtype is builtins.bool:
        return scalars.bool_
    return dtype


def type_scalar_type(dtype: Any) -> Any:
    """The scalar type of a composite type (``vec3h`` → ``float16``); a scalar type itself."""
    return getattr(dtype, "_wp_scalar_type_", dtype)


def type_length(dtype: Any) -> int:
    """Length of a type's first dimension (``mat34`` → 3) or of a value."""
    if _is_tuple_alias(dtype):
        return len(typing.get_args(dtype))
    if hasattr(dtype, "_shape_"):
        return dtype._shape_[0]
    if hasattr(dtype, "_length_"):
        return dtype._length_
    return len(dtype)


def types_equal(a: Any, b: Any, match_generic: builtins.bool = False) -> builtins.bool:
    """Whether two Warp types are the same (``float`` is ``wp.float32``, ``wp.vec3`` is ``wp.vec3f``;
    array types compare by dtype)."""
    if a is b:
        return True
    if _is_array_object(a) and _is_array_object(b):
        return types_equal(a.dtype, b.dtype)
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return types_equal(a.dtype, b.dtype) and a.ndim == b.ndim

    def canon(t: Any) -> Any:
        if isinstance(t, type) and issubclass(t, composites.composite_base):
            return (t._wp_type_kind_, t._shape_, scalars.canonical_scalar(t._wp_scalar_type_))
        scalar = scalars.canonical_scalar(t) if isinstance(t, type) else None
        return scalar if scalar is not None else t

    return canon(a) == canon(b)


# ----------------------------------------------------------------------------------------------
# type predicates


def type_is_int(t: Any) -> builtins.bool:
    """Whether ``t`` is an integer type (``int`` counts as ``int32``)."""
    return (scalars.int32 if t is int else t) in scalars.int_types


def type_is_float(t: Any) -> builtins.bool:
    """Whether ``t`` is a floating-point type (``float`` counts as ``float32``)."""
    return (scalars.float32 if t is float else t) in scalars.float_types


def type_is_scalar(t: Any) -> builtins.bool:
    """Whether ``t`` is an integer or floating-point type (``wp.bool`` is not)."""
    return type_is_int(t) or type_is_float(t)


def type_is_vector(t: Any) -> builtins.bool:
    return _kind(t) == "vector"


def type_is_matrix(t: Any) -> builtins.bool:
    return _kind(t) == "matrix"


def type_is_quaternion(t: Any) -> builtins.bool:
    return _kind(t) == "quaternion"


def type_is_transformation(t: Any) -> builtins.bool:
    return _kind(t) == "transformation"


def type_is_composite(t: Any) -> builtins.bool:
    """Whether ``t`` is a vector, matrix, quaternion or transformation type."""
    return _kind(t) is not None


_VALUE_TYPES = (int, float, builtins.bool, *scalars.scalar_and_bool_types)


def type_is_value(t: Any) -> builtins.bool:
    """Whether ``t`` is a scalar, bool or composite type."""
    return t in _VALUE_TYPES or type_is_composite(t)


def type_is_struct(t: Any) -> builtins.bool:
    return isinstance(t, StructType)


def type_is_array(t: Any) -> builtins.bool:
    """Whether ``t`` is one of the array classes (``wp.array``), not an array annotation or instance."""
    # ``wp.array1d`` … ``wp.array4d`` are annotation shorthands, not array classes (as in Warp)
    return (
        isinstance(t, type)
        and builtins.bool(getattr(t, "_jwarp_array_class", False))
        and t.__name__ not in ("array1d", "array2d", "array3d", "array4d")
    )


def type_is_tile(t: Any) -> builtins.bool:
    """Whether ``t`` is the tile type: ``wp.tile`` itself (the kernel builtin doubles as the type,
    as Warp's ``wp.tile`` class does)."""
    if getattr(type(t), "_jwarp_tile_type_builtin", False):
        return True
    return isinstance(t, type) and builtins.bool(getattr(t, "_jwarp_tile_class", False))


# ----------------------------------------------------------------------------------------------
# value predicates


def is_int(x: Any) -> builtins.bool:
    """Whether ``x`` is an integer value (``3``, ``wp.int16(3)``; not ``True``)."""
    return type_is_int(type(x))


def is_float(x: Any) -> builtins.bool:
    return type_is_float(type(x))


def is_scalar(x: Any) -> builtins.bool:
    return type_is_scalar(type(x))


def is_vector(x: Any) -> builtins.bool:
    return not isinstance(x, type) and type_is_vector(type(x))


def is_matrix(x: Any) -> builtins.bool:
    return not isinstance(x, type) and type_is_matrix(type(x))


def is_quaternion(x: Any) -> builtins.bool:
    return not isinstance(x, type) and type_is_quaternion(type(x))


def is_transformation(x: Any) -> builtins.bool:
    return not isinstance(x, type) and type_is_transformation(type(x))


def is_composite(x: Any) -> builtins.bool:
    return isinstance(x, composites.composite_base)


def is_value(x: Any) -> builtins.bool:
    """Whether ``x`` is a value Warp passes by value: a number, bool, boxed scalar or composite
    (numpy scalars are not, as in Warp)."""
    return isinstance(x, _VALUE_TYPES) or is_composite(x)


def is_struct(x: Any) -> builtins.bool:
    return isinstance(x, StructInstance)


def is_array(x: Any) -> builtins.bool:
    """Whether ``x`` is an array instance or an array annotation (``wp.array(dtype=float)``)."""
    return builtins.bool(_is_array_object(x))


def is_tile(x: Any) -> builtins.bool:
    return not isinstance(x, type) and type_is_tile(type(x))


def dtype_to_numpy(warp_dtype: Any) -> type:
    """The numpy scalar type of a Warp scalar type (``wp.bfloat16`` → ``np.uint16``, its bits)."""
    if warp_dtype is builtins.bool:
        return np.bool_
    scalar = scalars.canonical_scalar(warp_dtype) if scalars.is_scalar_type(warp_dtype) else None
    if scalar is None:
        raise TypeError(f"Cannot convert {warp_dtype} to a NumPy type")
    if scalar is scalars.bfloat16:
        return np.uint16
    return scalar._np_dtype.type
