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
import weakref
from typing import Any

import jax
import jax.dlpack
import numpy as np

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


_SUPPORTED_DEVICES = (1, 2, 3)  # kDLCPU, kDLCUDA, kDLCUDAHost
_DL_KINDS = {0: "int", 1: "uint", 2: "float", 4: "bfloat", 6: "bool"}

# capsules made by to_dlpack: data pointer -> (the exported array, the buffer it had then)
_exported: "weakref.WeakValueDictionary[int, array]" = weakref.WeakValueDictionary()
_exported_buffers: dict[int, Any] = {}


def _tensor_info(capsule: Any) -> tuple[int, str]:
    """(data pointer, DLPack dtype name such as ``float32`` / ``bool8``) of a legacy capsule."""
    ptr = _PyCapsule_GetPointer(capsule, b"dltensor")
    # DLTensor {void* data; DLDevice device (2 x int32); int32 ndim; DLDataType {uint8 code, bits; uint16 lanes}…}
    data = ctypes.c_void_p.from_address(ptr).value or 0
    offset = ctypes.sizeof(ctypes.c_void_p) + 8 + 4
    code, bits = (ctypes.c_uint8 * 2).from_address(ptr + offset)
    return data, f"{_DL_KINDS.get(int(code), f'code{int(code)}')}{int(bits)}"


def _alias(source: array, dtype: Any) -> array | None:
    """A handle on the same storage as ``source`` seen as ``dtype`` (same scalar type; a
    vector/matrix dtype takes or gives back the trailing axes), or None if it cannot alias."""
    from jwarp.lang.arrays import resolve_dtype
    from jwarp.runtime import storage

    dtype = source.dtype if dtype is None else resolve_dtype(dtype)
    if dtype == source.dtype:
        return source._view((), source.shape)
    src_scalar, dst_scalar = storage.scalar_of(source.dtype), storage.scalar_of(dtype)
    if src_scalar is not dst_scalar:  # same-size integers / bool: the bytes seen as another type
        same_size = np.dtype(src_scalar._np_dtype).itemsize == np.dtype(dst_scalar._np_dtype).itemsize
        if not same_size or storage.element_shape(dtype) != storage.element_shape(source.dtype):
            return None
        return source._view((("bitcast", np.dtype(dst_scalar._np_dtype).str),), source.shape, dtype)
    full = tuple(source.shape) + storage.element_shape(source.dtype)
    comp = storage.element_shape(dtype)
    if len(comp) > len(full) or full[len(full) - len(comp):] != comp:
        return None
    shape = full[: len(full) - len(comp)]
    return source._view((("reshape", (shape + comp, len(full))),), shape, dtype)


def from_dlpack(source: Any, dtype: Any = None, hint: Any = None) -> array:
    """A ``wp.array`` over the memory of a DLPack source (no copy where JAX can share it).

    ``dtype`` reinterprets the data as ``wp.from_jax`` does (vector/matrix dtypes take the
    trailing axes). A capsule made by ``wp.to_dlpack`` of a jwarp array that still holds that
    buffer gives back a handle on that array (same ``ptr``; writes through either are seen by
    both, as in Warp). ``hint`` (Warp's texture hint) is accepted and ignored.
    """
    del hint
    from jwarp.interop.jax import from_jax

    if isinstance(source, array):
        return source if dtype is None else from_jax(source.buffer, dtype)
    if hasattr(source, "__dlpack__") and not isinstance(source, jax.Array):
        device_type, device_id = source.__dlpack_device__()
        if device_type not in _SUPPORTED_DEVICES:
            raise TypeError(f"Unsupported source device for DLPack: device_type={device_type}, device_id={device_id}")
        capsule = source.__dlpack__()
        if not _PyCapsule_IsValid(capsule, b"dltensor"):
            raise TypeError(f"Expected a valid DLPack capsule, got {type(capsule).__name__}")
        source = capsule
    if isinstance(source, jax.Array):
        return from_jax(source, dtype)
    wrapped = _Capsule(source)
    data, dl_name = _tensor_info(source)
    if dtype is not None:
        _check_dtype(dl_name, dtype)
    exported = _exported.get(data)
    if exported is not None and exported.buffer is _exported_buffers.get(data):
        alias = _alias(exported, dtype)
        if alias is not None:
            return alias
    return from_jax(jax.dlpack.from_dlpack(wrapped), dtype)


def _check_dtype(dl_name: str, dtype: Any) -> None:
    """Warp's check that a DLPack element type can be viewed as ``dtype`` (same size and kind;
    bool as int8/uint8)."""
    from jwarp.lang.arrays import resolve_dtype, type_name
    from jwarp.runtime import storage

    scalar = storage.scalar_of(resolve_dtype(dtype))
    np_dtype = np.dtype(scalar._np_dtype)
    bits = np_dtype.itemsize * 8
    kind = "bfloat" if scalar.__name__ == "bfloat16" else {"b": "bool", "i": "int", "u": "uint"}.get(np_dtype.kind, "float")
    ok = dl_name == f"{kind}{bits}" or (dl_name == "bool8" and kind in ("int", "uint") and bits == 8) or (
        kind in ("int", "uint") and dl_name in (f"int{bits}", f"uint{bits}"))
    if not ok:
        raise RuntimeError(f"Incompatible data types: DLPack {dl_name} and Warp {type_name(resolve_dtype(dtype))}")


def to_dlpack(wp_array: array) -> Any:
    """A DLPack capsule over the array's buffer (Warp's ``wp.to_dlpack``); ``wp.from_dlpack``
    of it gives back a handle on ``wp_array``."""
    from jwarp.interop.jax import to_jax

    buf = to_jax(wp_array)
    capsule = buf.__dlpack__()
    data, _ = _tensor_info(capsule)
    if data:
        _exported[data] = wp_array
        _exported_buffers[data] = buf
        if len(_exported_buffers) > 4096:
            for stale in [p for p in _exported_buffers if p not in _exported]:
                del _exported_buffers[stale]
    return capsule


__all__ = ["from_dlpack", "to_dlpack"]
