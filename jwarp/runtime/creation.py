"""Array creation and copies: ``zeros``, ``ones``, ``full``, ``empty``, their ``_like``
forms, ``clone``, ``copy``, ``from_numpy``.

Example:
    >>> import jwarp as wp
    >>> wp.full(3, 2.5).numpy()
    array([2.5, 2.5, 2.5], dtype=float32)
    >>> wp.zeros((2, 2), dtype=wp.vec3).numpy().shape
    (2, 2, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jwarp.lang.arrays import _Generic
from jwarp.runtime import capture, storage
from jwarp.runtime.array import array, register_array_services
from jwarp.runtime.copying import copy_elements, copy_gradients


def _shape(shape: Any) -> tuple[int, ...]:
    if shape is None:
        return ()
    return (int(shape),) if np.isscalar(shape) else tuple(int(s) for s in shape)


def zeros(shape: Any = None, dtype: Any = float, device: Any = None, requires_grad: bool = False,
          pinned: bool = False, **kwargs: Any) -> array:
    """A new array filled with zeros."""
    if shape is None and "n" in kwargs:  # Warp's older keyword for a 1-d length
        shape = kwargs["n"]
    out = array(shape=_shape(shape), dtype=dtype, device=device, requires_grad=requires_grad, pinned=pinned,
                retain_grad=bool(kwargs.get("retain_grad", False)))
    capture.deferred(out.device, out.zero_, [out])  # inside a capture the zero-fill replays, as in Warp
    return out


zeros._jwarp_kernel_builtin = "zeros"  # inside kernels, wp.zeros makes a thread-local array


def empty(shape: Any = None, dtype: Any = float, device: Any = None, requires_grad: bool = False,
          pinned: bool = False, **kwargs: Any) -> array:
    """A new array; jwarp zero-fills it (Warp leaves it uninitialized)."""
    return zeros(shape, dtype, device, requires_grad, pinned, **kwargs)


def full(shape: Any = None, value: Any = 0, dtype: Any = Any, device: Any = None, requires_grad: bool = False,
         pinned: bool = False, **kwargs: Any) -> array:
    """A new array with every element set to ``value`` (dtype inferred from it as Warp does)."""
    if dtype is Any or isinstance(dtype, _Generic):
        dtype = storage.dtype_for_value(value)
    if shape is None and "n" in kwargs:
        shape = kwargs["n"]
    out = zeros(shape, dtype, device, False, pinned)
    out.fill_(value)
    out.requires_grad = requires_grad
    if kwargs.get("retain_grad"):
        out.retain_grad = True
    return out


def ones(shape: Any = None, dtype: Any = float, device: Any = None, requires_grad: bool = False,
         pinned: bool = False, **kwargs: Any) -> array:
    return full(shape, 1, dtype, device, requires_grad, pinned, **kwargs)


def _requires_grad(src: Any, requires_grad: bool | None) -> bool:
    return getattr(src, "requires_grad", False) if requires_grad is None else requires_grad  # indexed: none


def zeros_like(src: array, device: Any = None, requires_grad: bool | None = None, pinned: bool | None = None) -> array:
    return zeros(src.shape, src.dtype, device if device is not None else src.device, _requires_grad(src, requires_grad))


def empty_like(src: array, device: Any = None, requires_grad: bool | None = None, pinned: bool | None = None) -> array:
    return zeros_like(src, device, requires_grad, pinned)


def ones_like(src: array, device: Any = None, requires_grad: bool | None = None, pinned: bool | None = None) -> array:
    return ones(src.shape, src.dtype, device if device is not None else src.device, _requires_grad(src, requires_grad))


def full_like(src: array, value: Any, device: Any = None, requires_grad: bool | None = None,
              pinned: bool | None = None) -> array:
    return full(src.shape, value, src.dtype, device if device is not None else src.device,
                _requires_grad(src, requires_grad))


def clone(src: array, device: Any = None, requires_grad: bool | None = None, pinned: bool | None = None) -> array:
    """A copy of ``src`` (contiguous, on ``device`` or src's device; also of a ``wp.indexedarray``)."""
    if not isinstance(src, array):  # an indexed array: a new array of the selected elements
        out = zeros(src.shape, src.dtype, device if device is not None else src.device, _requires_grad(src, requires_grad))
        copy(out, src)
        return out
    out = array(src, device=device if device is not None else src.device, copy=True)
    out.requires_grad = src.requires_grad if requires_grad is None else requires_grad
    copy_gradients(out, src, 0, 0, src.size, (out._buffer, src.root._buffer))  # Warp: clone = empty_like + copy
    return out


def from_numpy(arr: np.ndarray, dtype: Any = None, shape: Any = None, device: Any = None,
               requires_grad: bool = False) -> array:
    return array(arr, dtype=dtype if dtype is not None else Any, shape=shape, device=device,
                 requires_grad=requires_grad)


def copy_into(dest: array, src: Any) -> None:
    """``dest.assign(src)``: same shape; other dtypes are converted through numpy."""
    if isinstance(src, array):
        if src.shape != dest.shape:
            raise RuntimeError(f"Array shapes do not match: {src.shape} vs {dest.shape}")
        if src.dtype == dest.dtype:
            buf = src.buffer if src.device is dest.device else storage.put(storage.fetch(src.buffer), dest.device)
            before = (dest.root._buffer, src.root._buffer)
            dest._set_buffer(buf)
            copy_gradients(dest, src, 0, 0, src.size, before)  # Warp: assign is wp.copy
            return
        src = src.numpy()
    np_storage, _, _ = storage.to_numpy_storage(src, dest.dtype, dest.shape)
    dest._set_buffer(storage.put(np_storage, dest.device))


def copy(dest: array, src: array, dest_offset: int = 0, src_offset: int = 0, count: int = 0,
         stream: Any = None) -> None:
    """Copy ``count`` elements (flat order) from ``src[src_offset:]`` to ``dest[dest_offset:]``.

    With ``count == 0`` the whole of ``src`` is copied. Both arrays must have the same dtype.
    """
    copy_elements(dest, src, dest_offset, src_offset, count)


register_array_services(copy_into=copy_into, clone=clone)
