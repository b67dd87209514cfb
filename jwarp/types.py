"""Warp's ``warp.types`` namespace: scalar and composite types and type helpers.

Example:
    >>> import jwarp as wp
    >>> wp.types.vector(length=3, dtype=wp.float64)
    <class 'jwarp.types.vec_t'>
    >>> wp.types.types_equal(wp.vec3, wp.vec3f)
    True
"""

from __future__ import annotations

from jwarp.lang.composites import ALIASES as _ALIASES, composite_base  # noqa: F401
from jwarp.lang.type_factories import (  # noqa: F401
    public_matrix as matrix,
    public_quaternion as quaternion,
    public_transformation as transformation,
    public_vector as vector,
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
    handle,
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
from jwarp.lang.introspection import (  # noqa: F401
    dtype_to_numpy,
    is_array,
    is_composite,
    is_float,
    is_int,
    is_matrix,
    is_quaternion,
    is_scalar,
    is_struct,
    is_tile,
    is_transformation,
    is_value,
    is_vector,
    type_ctype,
    type_is_array,
    type_is_composite,
    type_is_float,
    type_is_int,
    type_is_matrix,
    type_is_quaternion,
    type_is_scalar,
    type_is_struct,
    type_is_tile,
    type_is_transformation,
    type_is_value,
    type_is_vector,
    type_length,
    type_repr,
    type_scalar_type,
    type_size,
    type_size_in_bytes,
    type_to_warp,
    types_equal,
)
from jwarp.runtime.array import array, array1d, array2d, array3d, array4d  # noqa: F401

globals().update(_ALIASES)
vec = vector
mat = matrix
