"""Warp's ``warp.types`` namespace: scalar and composite types and type helpers.

Example:
    >>> import jwarp as wp
    >>> wp.types.vector(length=3, dtype=wp.float64)
    <class 'jwarp.types.vec3d'>
    >>> wp.types.types_equal(wp.vec3, wp.vec3f)
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jwarp.lang.composites import (  # noqa: F401
    ALIASES as _ALIASES,
    composite_base,
    matrix,
    quaternion,
    transformation,
    vector,
)
from jwarp.lang.scalars import (  # noqa: F401
    Float,
    Int,
    Scalar,
    bfloat16,
    bool_ as bool,
    dtype_from_numpy,
    float16,
    float32,
    float64,
    float_types,
    int8,
    int16,
    int32,
    int64,
    int_types,
    scalar_base,
    scalar_types,
    uint8,
    uint16,
    uint32,
    uint64,
)
from jwarp.lang.arrays import ArrayType, resolve_annotation, type_name  # noqa: F401
from jwarp.lang.struct import StructInstance, StructType  # noqa: F401
from jwarp.runtime.array import array, array1d, array2d, array3d, array4d, is_array  # noqa: F401

globals().update(_ALIASES)
vec = vector
mat = matrix


def _canon(t: Any) -> Any:
    from jwarp.lang import scalars

    return scalars.canonical_scalar(t) if isinstance(t, type) and not issubclass(t, composite_base) else t


def types_equal(a: Any, b: Any, match_generic: bool = False) -> bool:
    return _canon(a) == _canon(b)


def type_size_in_bytes(t: Any) -> int:
    t = _canon(t)
    if isinstance(t, StructType):
        return t.numpy_dtype().itemsize
    if hasattr(t, "_length_") and hasattr(t, "_wp_scalar_type_"):
        return t._length_ * t._wp_scalar_type_._np_dtype.itemsize
    return t._np_dtype.itemsize


def type_length(t: Any) -> int:
    t = _canon(t)
    return getattr(t, "_length_", 1)


def type_scalar_type(t: Any) -> Any:
    t = _canon(t)
    return getattr(t, "_wp_scalar_type_", t)


def type_is_vector(t: Any) -> bool:
    return getattr(t, "_wp_type_kind_", None) == "vector"


def type_is_matrix(t: Any) -> bool:
    return getattr(t, "_wp_type_kind_", None) == "matrix"


def type_is_quaternion(t: Any) -> bool:
    return getattr(t, "_wp_type_kind_", None) == "quaternion"


def type_is_transformation(t: Any) -> bool:
    return getattr(t, "_wp_type_kind_", None) == "transformation"


def is_value(x: Any) -> bool:
    return isinstance(x, (int, float, np.generic, scalar_base, composite_base))


def dtype_to_numpy(t: Any) -> np.dtype:
    return type_scalar_type(t)._np_dtype


def is_float(t: Any) -> bool:
    from jwarp.lang import scalars

    return scalars.is_float(_canon(t))


def is_int(t: Any) -> bool:
    from jwarp.lang import scalars

    return scalars.is_int(_canon(t))
