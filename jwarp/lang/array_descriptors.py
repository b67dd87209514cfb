"""The descriptor an array field of a struct holds in a struct array's elements (Warp's C layout).

Warp stores an array held by a struct as its ``array_t`` (data and grad pointers, shape and byte
strides padded to 4 dimensions, ndim, flags) or ``indexedarray_t`` (the data's ``array_t``, the
index buffers' pointers, the indexed shape). jwarp keeps the same records in arrays of such
structs, so ``numpy()``, ``numpy_dtype()`` and ``numpy_value()`` read as in Warp; the addresses are
jwarp's (``array.ptr``), which find the live array again (:meth:`array.list`).

Example:
    >>> ARRAY_DESCRIPTOR.itemsize, INDEXED_DESCRIPTOR.itemsize
    (56, 104)
"""

from __future__ import annotations

from typing import Any

import numpy as np

MAX_DIMS = 4

ARRAY_DESCRIPTOR = np.dtype({
    "names": ["data", "grad", "shape", "strides", "ndim", "flags"],
    "formats": ["<u8", "<u8", ("<i4", (MAX_DIMS,)), ("<i4", (MAX_DIMS,)), "<u2", "<u2"],
    "offsets": [0, 8, 16, 32, 48, 50],
    "itemsize": 56,
    "aligned": True,
})

INDEXED_DESCRIPTOR = np.dtype({
    "names": ["data", "indices", "shape"],
    "formats": [ARRAY_DESCRIPTOR, ("<u8", (MAX_DIMS,)), ("<i4", (MAX_DIMS,))],
    "offsets": [0, 56, 88],
    "itemsize": 104,
    "aligned": True,
})


def descriptor_dtype(array_type: Any) -> np.dtype:
    """The numpy record of an array field of type ``array_type`` (an ``ArrayType``)."""
    kind = getattr(array_type, "kind", "array")
    if kind == "indexedarray":
        return INDEXED_DESCRIPTOR
    if kind in ("array", None) and not getattr(array_type, "fixed", False):
        return ARRAY_DESCRIPTOR
    raise TypeError(f"A struct field holding a {kind} cannot be stored in an array of structs")


def _padded(values: Any, fill: int = 0) -> list[int]:
    values = [int(v) for v in values]
    return values + [fill] * (MAX_DIMS - len(values))


def _array_record(a: Any) -> tuple:
    if a is None or getattr(a, "device", None) is None:
        return (0, 0, _padded([]), _padded([]), 0, 0)
    grad = getattr(a, "_grad", None)
    return (int(a.ptr or 0), int(grad.ptr or 0) if grad is not None else 0, _padded(a.shape),
            _padded(a.strides), a.ndim, 0)


def descriptor_value(array_type: Any, a: Any) -> tuple:
    """The record (a tuple for :func:`descriptor_dtype`) describing array ``a`` (or None)."""
    if descriptor_dtype(array_type) is INDEXED_DESCRIPTOR:
        if a is None or getattr(a, "data", None) is None:
            return (_array_record(None), _padded([]), _padded([]))
        indices = [0 if i is None else int(i.ptr or 0) for i in list(a.indices)[:MAX_DIMS]]
        return (_array_record(a.data), _padded(indices), _padded(a.shape))
    return _array_record(a)


def descriptor_leaf_shapes(array_type: Any) -> list:
    """Per-plane (component shape, scalar type) of an array field's record, in storage order."""
    from jwarp.lang import scalars

    planes = [((), scalars.uint64), ((), scalars.uint64), ((MAX_DIMS,), scalars.int32),
              ((MAX_DIMS,), scalars.int32), ((), scalars.uint16), ((), scalars.uint16)]
    if descriptor_dtype(array_type) is INDEXED_DESCRIPTOR:
        planes += [((MAX_DIMS,), scalars.uint64), ((MAX_DIMS,), scalars.int32)]
    return planes
