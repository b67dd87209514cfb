"""``array.view(dtype)``: the same memory seen with another dtype, as in Warp.

- same element size in bytes: same shape (``int32`` → ``uint32``, ``vec4`` → ``quat``,
  ``vec4ub`` → ``uint32``);
- vector/matrix → scalar of the same size as the components: the components become trailing
  dimensions (``vec3`` (n,) → ``float`` (n, 3));
- scalar → vector/matrix: trailing dimensions equal to the type's shape become its components
  (``float`` (n, 4) → ``vec4`` (n,)).

The view is a chain of storage ops (``jwarp.compiler.views``): a bit cast and a reshape when the
scalar sizes agree, a byte-level reinterpretation otherwise.

Example:
    >>> a = wp.ones(4, dtype=wp.vec4ub)   # doctest: +SKIP
    >>> a.view(wp.uint32).numpy()          # doctest: +SKIP
    array([16843009, 16843009, 16843009, 16843009], dtype=uint32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jwarp.lang.introspection import type_repr, type_size_in_bytes
from jwarp.lang.struct import StructType
from jwarp.runtime import storage


def _size_error(dtype: Any, source: Any, detail: str) -> TypeError:
    return TypeError(f"cannot create an array view with dtype {type_repr(dtype)} from source dtype "
                     f"{type_repr(source)}: {detail}")


def view_shape_and_ops(arr: Any, dtype: Any) -> tuple[tuple, tuple]:
    """(shape, storage ops) of ``arr`` viewed as ``dtype`` (errors as Warp raises them)."""
    src = arr.dtype
    src_size, dst_size = type_size_in_bytes(src), type_size_in_bytes(dtype)
    src_comp, dst_comp = storage.element_shape(src), storage.element_shape(dtype)
    src_scalar, dst_scalar = storage.scalar_of(src), storage.scalar_of(dtype)
    if src_size == dst_size:
        shape = tuple(arr.shape)
    elif not dst_comp and src_comp and not isinstance(dtype, StructType):
        scalar_size = type_size_in_bytes(src_scalar)
        if dst_size != scalar_size:
            raise _size_error(dtype, src, f"source scalar dtype {type_repr(src_scalar)} has size {scalar_size} "
                                          f"bytes, but target dtype has size {dst_size} bytes")
        shape = tuple(arr.shape) + tuple(src_comp)
    elif not src_comp and dst_comp and not isinstance(src, StructType):
        scalar_size = type_size_in_bytes(dst_scalar)
        if src_size != scalar_size:
            raise _size_error(dtype, src, f"source dtype has size {src_size} bytes, but target scalar dtype "
                                          f"{type_repr(dst_scalar)} has size {scalar_size} bytes")
        k = len(dst_comp)
        if arr.ndim < k or tuple(arr.shape[-k:]) != tuple(dst_comp):
            raise RuntimeError(f"The shape of the source array {tuple(arr.shape)} is not compatible with the "
                               f"requested data type {type_repr(dtype)}")
        inner = []
        acc = src_size
        for d in reversed(dst_comp):
            inner.append(acc)
            acc *= d
        if tuple(arr.strides[-k:]) != tuple(reversed(inner)):
            raise RuntimeError(f"The inner strides of the source array {tuple(arr.strides)} are not compatible "
                               f"with the requested data type {type_repr(dtype)}")
        shape = tuple(arr.shape[:-k]) or (1,)
    else:
        raise _size_error(dtype, src, f"source dtype has size {src_size} bytes, but target dtype has size "
                                      f"{dst_size} bytes")
    if src == dtype:
        return shape, ()
    if isinstance(src, StructType) or isinstance(dtype, StructType):
        raise RuntimeError(f"Viewing an array of {type_repr(src)} as {type_repr(dtype)} is not supported")
    src_np, dst_np = np.dtype(src_scalar._np_dtype), np.dtype(dst_scalar._np_dtype)
    if src_np.itemsize == dst_np.itemsize:
        ops = [] if src_np == dst_np else [("bitcast", dst_np.str)]
        if shape + tuple(dst_comp) != tuple(arr.shape) + tuple(src_comp):  # a single vector viewed as (1,)
            ops.append(("reshape", (shape + tuple(dst_comp), arr.ndim + len(src_comp))))
        return shape, tuple(ops)
    return shape, (("reinterpret", (tuple(src_comp), tuple(dst_comp), dst_np.str, src_np.str)),)
