"""Conversions between user data (numpy, lists, composites, structs) and array storage.

Storage of an array of ``shape`` is one jax array of ``shape + component_shape`` for
scalar, vector and matrix dtypes, and a tuple of such arrays (one per scalar-or-composite
leaf field, nested structs flattened) for struct dtypes.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any

import jax
import numpy as np

from jwarp.lang import composites, scalars
from jwarp.lang.arrays import ANY, _Generic, dtype_leaf_shapes, type_name
from jwarp.lang.struct import StructInstance, StructType
from jwarp.runtime.waiting import wait_ready


def x64():
    """Context in which 64-bit jax arrays keep their dtype (jwarp's own work only)."""
    return jax.enable_x64(True)


def element_shape(dtype: Any) -> tuple[int, ...]:
    return dtype._shape_ if composites.is_composite(dtype) else ()


def scalar_of(dtype: Any) -> type:
    if composites.is_composite(dtype):
        return dtype._wp_scalar_type_
    return dtype


def infer_dtype(arr: np.ndarray) -> type:
    """Warp's inference: the scalar type of the numpy array's dtype (lists of ints → int64)."""
    t = scalars.canonical_scalar(arr.dtype)
    if t is None:
        raise RuntimeError(f"Failed to convert input data to an array: unsupported numpy dtype {arr.dtype}")
    return t


def to_numpy_storage(data: Any, dtype: Any, shape: tuple | None) -> tuple[Any, tuple, Any]:
    """User data → (numpy storage, array shape, resolved dtype)."""
    if isinstance(dtype, StructType):
        return _struct_storage(data, dtype, shape)
    if isinstance(dtype, _Generic) or dtype is None:
        arr = np.asarray(data)
        if arr.dtype == object:
            raise RuntimeError("Failed to convert input data to an array: ragged or object data")
        dtype = infer_dtype(arr)
    scalar = scalar_of(dtype)
    try:
        with np.errstate(all="ignore"):
            if scalar is scalars.bfloat16 and getattr(data, "dtype", None) == np.uint16:
                arr = np.asarray(data).view(scalar._np_dtype)  # uint16 data are bfloat16 bit patterns (Warp)
            else:
                arr = np.asarray(_plain(data), dtype=scalar._np_dtype)
    except (ValueError, TypeError) as exc:
        raise RuntimeError(f"Failed to convert input data to an array with dtype {type_name(dtype)}: {exc}") from None
    comp = element_shape(dtype)
    if shape is not None:
        shape = tuple(int(s) for s in ((shape,) if np.isscalar(shape) else shape))
        arr = arr.reshape(shape + comp)
    elif comp:
        k = len(comp)
        while arr.ndim > 1 and arr.shape[-1] == 1 and arr.shape[arr.ndim - k :] != comp:
            arr = arr.reshape(arr.shape[:-1])  # trailing unit axes carry no components, as in Warp
        if arr.shape[arr.ndim - k :] == comp:
            # one element's worth of data (``wp.array([0, 0], dtype=wp.vec2)``) is a 1-element array
            shape = arr.shape[: arr.ndim - k] or (1,)
            arr = arr.reshape(shape + comp)
        elif arr.ndim >= 1 and arr.shape[-1] % int(np.prod(comp)) == 0:
            # as Warp: the innermost axis holds whole elements, ``(4, 8)`` floats -> ``(4, 4)`` vec2
            count = arr.shape[-1] // int(np.prod(comp))
            shape = arr.shape[:-1] + ((count,) if count != 1 else ())
            shape = shape or (1,)
            arr = arr.reshape(shape + comp)
        else:
            raise RuntimeError(
                f"The inner dimensions of the input data with shape {arr.shape} are not compatible with the "
                f"requested type {type_name(dtype)}: expected inner dimensions {comp} or a multiple of "
                f"{int(np.prod(comp))}"
            )
    else:
        shape = arr.shape
    if shape == ():  # a single value (a vec3 for a vec3 array, a 0-d numpy array): one element, as Warp
        shape = (1,)
        arr = arr.reshape(shape + comp)
    return np.ascontiguousarray(arr), tuple(shape), dtype


def _plain(data: Any) -> Any:
    if isinstance(data, composites.composite_base):
        return np.asarray(data)
    if isinstance(data, scalars.scalar_base):
        return data.value
    if isinstance(data, (list, tuple)) and data and isinstance(data[0], (composites.composite_base, list, tuple)):
        return [_plain(x) for x in data]
    return data


def _struct_storage(data: Any, dtype: StructType, shape: tuple | None) -> tuple[Any, tuple, Any]:
    np_dtype = dtype.np_dtype()
    if isinstance(data, np.ndarray) and data.dtype.names:
        structured = data.astype(np_dtype)
    else:
        items = list(data)
        structured = np.zeros(len(items), np_dtype)
        for i, item in enumerate(items):
            if not isinstance(item, StructInstance) or item._cls is not dtype:
                raise RuntimeError(f"Expected instances of struct {dtype.key}, got {type(item).__name__}")
            structured[i] = item.numpy_value()
    if shape is not None:
        structured = structured.reshape(shape)
    return structured_to_parts(structured, dtype), structured.shape, dtype


def structured_to_parts(structured: np.ndarray, dtype: StructType) -> tuple:
    parts: list = []
    for name, var in dtype.vars.items():
        field = structured[name]
        if isinstance(var.type, StructType):
            parts.extend(structured_to_parts(field, var.type))
        elif field.dtype.names:  # an array field's descriptor record: one part per record field
            parts.extend(_record_parts(field))
        else:
            parts.append(np.ascontiguousarray(field.astype(scalar_of(var.type)._np_dtype)))
    return tuple(parts)


def _record_parts(field: np.ndarray) -> list:
    out = []
    for name in field.dtype.names:
        sub = field[name]
        out.extend(_record_parts(sub) if sub.dtype.names else [np.ascontiguousarray(sub)])
    return out


def _fill_record(out: np.ndarray, parts: list) -> None:
    for name in out.dtype.names:
        if out[name].dtype.names:
            _fill_record(out[name], parts)
        else:
            out[name] = np.asarray(parts.pop(0))


def parts_to_structured(parts: list, dtype: StructType, shape: tuple) -> np.ndarray:
    out = np.zeros(shape, dtype.np_dtype())
    _fill(out, list(parts), dtype)
    return out


def _fill(out: np.ndarray, parts: list, dtype: StructType) -> None:
    for name, var in dtype.vars.items():
        if isinstance(var.type, StructType):
            _fill(out[name], parts, var.type)
        elif out[name].dtype.names:  # an array field's descriptor record
            _fill_record(out[name], parts)
        else:
            out[name] = np.asarray(parts.pop(0))


def zeros_storage(shape: tuple, dtype: Any) -> Any:
    if isinstance(dtype, StructType):
        return tuple(np.zeros(shape + comp, s._np_dtype) for comp, s in dtype_leaf_shapes(dtype))
    return np.zeros(shape + element_shape(dtype), scalar_of(dtype)._np_dtype)


@functools.lru_cache(maxsize=1024)
def _zeros_maker(shape: tuple, np_dtype: np.dtype, jax_device: Any):
    sharding = jax.sharding.SingleDeviceSharding(jax_device)
    return jax.jit(lambda: jax.numpy.zeros(shape, np_dtype), out_shardings=sharding)


@functools.lru_cache(maxsize=1024)
def _full_maker(shape: tuple, jax_device: Any):
    sharding = jax.sharding.SingleDeviceSharding(jax_device)
    return jax.jit(lambda element: jax.numpy.broadcast_to(element, shape + element.shape), out_shardings=sharding)


_SMALL_HOST_BYTES = 1 << 20


def _zeros_part(shape: tuple, np_dtype: np.dtype, device: Any) -> Any:
    """Zeros of ``shape`` on ``device``: small CPU buffers are copied from the host (compiling
    a maker costs ~0.1 s per new shape and dtype), others made on the device by a cached maker."""
    if device.is_cpu and int(np.prod(shape)) * np_dtype.itemsize <= _SMALL_HOST_BYTES:
        return jax.device_put(np.zeros(shape, np_dtype), device.jax_device)
    return _zeros_maker(shape, np_dtype, device.jax_device)()


def device_zeros(shape: tuple, dtype: Any, device: Any) -> Any:
    """Zero storage created on ``device`` (no large host buffer)."""
    with x64():
        if isinstance(dtype, StructType):
            return tuple(_zeros_part(tuple(shape) + comp, np.dtype(s._np_dtype), device)
                         for comp, s in dtype_leaf_shapes(dtype))
        np_dtype = np.dtype(scalar_of(dtype)._np_dtype)
        return _zeros_part(tuple(shape) + element_shape(dtype), np_dtype, device)


def device_full(shape: tuple, element: np.ndarray, device: Any) -> Any:
    """Storage of ``shape`` with every element equal to ``element``, created on ``device``
    (small CPU buffers from the host, as :func:`_zeros_part`)."""
    with x64():
        if device.is_cpu and int(np.prod(shape)) * element.nbytes <= _SMALL_HOST_BYTES:
            host = np.broadcast_to(element, tuple(shape) + element.shape)
            return jax.device_put(np.ascontiguousarray(host), device.jax_device)
        return _full_maker(tuple(shape), device.jax_device)(element)


def put(storage: Any, device: Any) -> Any:
    """numpy storage → jax storage on ``device`` (a jwarp Device)."""
    with x64():
        if isinstance(storage, tuple):
            return tuple(jax.device_put(p, device.jax_device) for p in storage)
        return jax.device_put(storage, device.jax_device)


def fetch(storage: Any) -> Any:
    """The storage as numpy, once computed (the wait can be interrupted: :mod:`jwarp.runtime.waiting`)."""
    wait_ready(storage)
    if isinstance(storage, tuple):
        return tuple(np.asarray(p) for p in storage)
    return np.asarray(storage)


_FILL_ERROR = "Failed to convert the value to the array data type: "


def fill_value_storage(value: Any, dtype: Any) -> np.ndarray:
    """One element of ``dtype`` as numpy (for fill_ / full), by Warp's constructor rules: a scalar
    dtype takes a real number; a vector takes a scalar (broadcast), its components, or a one-item
    sequence of either; a matrix takes a scalar, its components flat, or its rows. Anything else raises
    Warp's ``ValueError`` ("Failed to convert the value to the array data type: ...").

    Example:
        >>> fill_value_storage([1, 2], composites.vector(3, scalars.float32))  # doctest: +SKIP
        ValueError: Failed to convert the value to the array data type: Invalid number of arguments in vector
        constructor, expected 3 elements, got 2
    """
    if isinstance(value, StructInstance):
        raise TypeError("fill values of struct type are not supported")
    comp = element_shape(dtype)
    try:
        parts = _fill_components(value, comp)
        return np.asarray(parts, dtype=scalar_of(dtype)._np_dtype).reshape(comp)
    except (ValueError, TypeError, OverflowError) as exc:
        message = str(exc)
        raise ValueError(message if message.startswith(_FILL_ERROR) else _FILL_ERROR + message) from None


def _real(x: Any) -> Any:
    """``x`` if it is a real number (what a C float/int accepts), else ``ValueError`` as Warp words it."""
    if isinstance(x, scalars.scalar_base):
        return x.value
    if (x is None or isinstance(x, (str, bytes, complex, list, tuple, dict, composites.composite_base))
            or (isinstance(x, np.ndarray) and x.ndim) or not hasattr(type(x), "__float__")):
        raise ValueError(f"must be real number, not {type(x).__name__}")
    return x


def _sequence(x: Any) -> list | None:
    """The items of a vector/matrix/sequence value (None for a scalar)."""
    if isinstance(x, composites.composite_base):
        return list(np.asarray(x).reshape(-1)) if len(x._shape_) == 1 else [list(r) for r in np.asarray(x)]
    if isinstance(x, np.ndarray):
        return None if x.ndim == 0 else list(x)
    if isinstance(x, (list, tuple)):
        return list(x)
    return None


def _fill_components(value: Any, comp: tuple) -> list:
    if not comp:
        return [_real(value)]
    items = _sequence(value)
    size = int(np.prod(comp))
    if items is None:  # a scalar: every component
        return [_real(value)] * size
    if len(comp) == 1:
        if len(items) == 1 and len(items) != comp[0]:
            return _fill_components(items[0], comp)
        if len(items) != comp[0]:
            raise ValueError(f"Invalid number of arguments in vector constructor, expected {comp[0]} elements, "
                             f"got {len(items)}")
        return [_real(x) for x in items]
    rows, cols = comp
    if len(items) == size:
        return [_real(x) for x in items]
    if len(items) == rows:
        out = []
        for row in items:
            entries = _sequence(row)
            if entries is None or len(entries) != cols:
                raise ValueError(f"Invalid argument in matrix constructor, expected row of length {cols}, got {row}")
            out.extend(_real(x) for x in entries)
        return out
    raise ValueError(f"Invalid number of arguments in matrix constructor, expected {size} elements, got {len(items)}")


def struct_fill_storage(value: Any, dtype: StructType) -> tuple:
    """One element of a struct dtype as its per-field parts (for fill_ / full): an instance of the
    struct, or 0 for zeros (Warp's rule)."""
    if isinstance(value, StructInstance) and value._cls is dtype:
        structured = np.zeros(1, dtype.np_dtype())
        structured[0] = value.numpy_value()
    elif not isinstance(value, StructInstance) and type(value) in (int, float) and value == 0:
        structured = np.zeros(1, dtype.np_dtype())
    else:
        raise ValueError(f"Failed to convert the value to the array data type: Invalid initializer value for "
                         f"struct {dtype.key}, expected struct instance or 0")
    return tuple(part[0] for part in structured_to_parts(structured, dtype))


def dtype_for_value(value: Any) -> Any:
    """dtype Warp picks for a fill value: ``int`` → int32, ``float`` → float32, ``bool`` → bool, a
    Warp scalar/vector/matrix or struct instance → its type, a sequence → a vector (1-d) or matrix
    (2-d) of its numpy dtype; ``ValueError`` otherwise (numpy scalars included, as in Warp)."""
    kind = type(value)  # exact Python types (np.float64 is a float subclass: not accepted, as in Warp)
    if kind is bool:
        return scalars.bool_
    if kind is int:
        return scalars.int32
    if kind is float:
        return scalars.float32
    if isinstance(value, (scalars.scalar_base, composites.composite_base)):
        return type(value)
    if isinstance(value, StructInstance):
        return value._cls
    if not hasattr(value, "__len__"):
        raise ValueError(f"Invalid value type for Warp array: {type(value)}")
    try:
        arr = np.asarray(value)
    except Exception as e:
        raise ValueError(f"Failed to interpret the value as a vector or matrix: {e}") from e
    scalar = scalars.canonical_scalar(arr.dtype)
    if scalar is None:
        raise ValueError(f"Failed to convert {arr.dtype} to a Warp data type")
    if arr.ndim == 1:
        return composites.vector(arr.size, scalar)
    if arr.ndim == 2:
        return composites.matrix(arr.shape, scalar)
    raise ValueError("Values with more than two dimensions are not supported")


@contextlib.contextmanager
def nullcontext():
    yield
