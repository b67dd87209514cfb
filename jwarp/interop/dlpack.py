"""DLPack exchange: ``wp.from_dlpack`` / ``wp.to_dlpack`` (and ``wp.array.__dlpack__``).

A ``wp.array`` stores a ``jax.Array``, so DLPack goes through JAX: ``from_dlpack`` imports the
source with ``jax.dlpack.from_dlpack`` (no copy where the device and layout allow) and wraps it
like ``wp.from_jax``; ``to_dlpack`` exports the array's buffer. Sources are objects with
``__dlpack__`` (numpy, torch, JAX, CuPy…) or, as in Warp, a bare DLPack capsule.

Example:
    >>> import numpy as np, jwarp as wp
    >>> a = wp.from_dlpack(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=wp.vec3)
    >>> a.shape
    (2,)
    >>> np.from_dlpack(a).shape
    (2, 3)
"""

from __future__ import annotations

import ctypes
from typing import Any

import jax
import jax.dlpack

from jwarp.runtime.array import array

_KDL_CPU = 1
_PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_IsValid = ctypes.pythonapi.PyCapsule_IsValid
_PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_PyCapsule_IsValid.restype = ctypes.c_int


class _Capsule:
    """A bare (legacy) DLPack capsule presented through the ``__dlpack__`` protocol."""

    def __init__(self, capsule: Any):
        if not _PyCapsule_IsValid(capsule, b"dltensor"):
            raise TypeError("from_dlpack() expects an object with __dlpack__ or an unconsumed DLPack capsule")
        self.capsule = capsule
        # DLManagedTensor starts with DLTensor {void* data; DLDevice {int32 type; int32 id}; ...}
        ptr = _PyCapsule_GetPointer(capsule, b"dltensor")
        device = (ctypes.c_int32 * 2).from_address(ptr + ctypes.sizeof(ctypes.c_void_p))
        self.device = (int(device[0]), int(device[1]))

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple:
        return self.device


def from_dlpack(source: Any, dtype: Any = None, hint: Any = None) -> array:
    """A ``wp.array`` over the memory of a DLPack source (no copy where JAX can share it).

    ``dtype`` reinterprets the data as ``wp.from_jax`` does (vector/matrix dtypes take the
    trailing axes). ``hint`` (Warp's texture hint) is accepted and ignored.
    """
    del hint
    from jwarp.interop.jax import from_jax

    if isinstance(source, array):
        return source if dtype is None else from_jax(source.buffer, dtype)
    if not hasattr(source, "__dlpack__"):
        source = _Capsule(source)
    x = source if isinstance(source, jax.Array) else jax.dlpack.from_dlpack(source)
    return from_jax(x, dtype)


def to_dlpack(wp_array: array) -> Any:
    """A DLPack capsule over the array's buffer (Warp's ``wp.to_dlpack``)."""
    from jwarp.interop.jax import to_jax

    return to_jax(wp_array).__dlpack__()


__all__ = ["from_dlpack", "to_dlpack"]
