"""``wp.array(ptr=..., shape=..., strides=...)`` over memory of a jwarp array.

A pointer that a jwarp array handed out (``a.ptr``, ``a[2:].ptr``; see ``addresses``) resolves
to that array's storage, so an array made from it is a view of that array: reads see its
current contents and writes land in it, as Warp's arrays over external pointers alias their
memory. Memory that no jwarp array owns cannot be read from JAX and is refused.

Example:
    >>> import numpy as np, jwarp as wp
    >>> base = wp.array(np.arange(8, dtype=np.float32))
    >>> odd = wp.array(ptr=base.ptr + 4, dtype=float, shape=4, strides=8)
    >>> odd.numpy()
    array([1., 3., 5., 7.], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jwarp.lang.arrays import type_name
from jwarp.runtime import addresses


def view_from_pointer(ptr: int, dtype: Any, shape: tuple, strides: Any) -> Any:
    """A view (of the jwarp array that owns ``ptr``) with ``shape`` and byte ``strides``
    (row-major when None)."""
    found = addresses.resolve(int(ptr))
    if found is None:
        raise NotImplementedError(
            f"wp.array(ptr={int(ptr):#x}): the pointer is not inside a live jwarp array; jwarp can only "
            "alias memory of its own arrays (JAX cannot read arbitrary memory)"
        )
    root, offset = found
    if root.dtype != dtype:
        raise NotImplementedError(
            f"wp.array(ptr=...) of {type_name(dtype)} over a jwarp array of {type_name(root.dtype)}"
        )
    item = root._itemsize()
    dense = []
    acc = item
    for d in reversed(shape):
        dense.insert(0, acc)
        acc *= d
    strides = tuple(dense) if strides is None else tuple(int(s) for s in strides)
    if offset % item or any(s % item for s in strides):
        raise NotImplementedError("wp.array(ptr=...) with a pointer or strides that are not whole elements")
    start = offset // item
    flat = root if root.ndim == 1 else root.flatten()
    size = int(np.prod(shape))
    if strides == tuple(dense):
        if start + size > flat.size:
            raise ValueError("wp.array(ptr=...) extends past the end of the array that owns the pointer")
        view = flat[start : start + size]
        return view.reshape(shape) if len(shape) != 1 else view
    if len(shape) == 1:
        step = strides[0] // item
        stop = start + (shape[0] - 1) * step + 1 if shape[0] else start
        if step <= 0 or stop > flat.size:
            raise NotImplementedError("wp.array(ptr=...) with these strides is not supported")
        return flat[start:stop:step]
    raise NotImplementedError("wp.array(ptr=...) with non-contiguous strides in more than one dimension")


__all__ = ["view_from_pointer"]
