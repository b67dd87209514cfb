"""JAX interop: zero-copy conversions between ``wp.array`` and ``jax.Array``, device and dtype
mapping, and the kernel-as-JAX-function API (``jax_kernel``, ``jax_callable``).

A ``wp.array`` is a handle over a ``jax.Array`` buffer, so ``to_jax`` returns that buffer and
``from_jax`` wraps one; neither copies. Vector and matrix dtypes are trailing axes, as in
Warp: ``from_jax(x, dtype=wp.vec3)`` takes an ``(n, 3)`` array to ``n`` vectors.

Both work on traced values inside ``jax.jit``/``jax.grad``: Warp-style code (``from_jax``,
``wp.zeros``, ``wp.launch``, ``to_jax``) traces and differentiates unchanged.

Example:
    >>> import jax.numpy as jnp, jwarp as wp
    >>> a = wp.from_jax(jnp.zeros((4, 3)), dtype=wp.vec3)
    >>> a.shape, a.dtype is wp.vec3
    ((4,), True)
    >>> wp.to_jax(a).shape
    (4, 3)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jwarp.interop.callable import JaxCallableGraphMode as JaxCallableGraphMode
from jwarp.interop.callable import jax_callable as jax_callable
from jwarp.interop.jax_kernel import JaxModulePreloadMode as JaxModulePreloadMode
from jwarp.interop.jax_kernel import jax_kernel as jax_kernel
from jwarp.interop.tracing import x64
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import type_name
from jwarp.lang.struct import StructType
from jwarp.runtime.array import array
from jwarp.runtime.device import Device, get_device

GraphMode = JaxCallableGraphMode
ModulePreloadMode = JaxModulePreloadMode


def dtype_to_jax(warp_dtype: Any) -> Any:
    """The JAX dtype of a Warp scalar type (``TypeError`` for other types, as in Warp)."""
    scalar = scalars.canonical_scalar(warp_dtype) if isinstance(warp_dtype, type) else None
    if scalar is None or composites.is_composite(warp_dtype):
        raise TypeError(f"Cannot convert {type_name(warp_dtype)} to a Jax type")
    name = "bool_" if scalar is scalars.bool_ else np.dtype(scalar._np_dtype).name
    return getattr(jnp, name)


def dtype_from_jax(jax_dtype: Any) -> type:
    """The Warp scalar type of a JAX dtype or scalar type (``TypeError`` when there is none)."""
    try:
        dtype = np.dtype(jax_dtype)
    except TypeError:
        raise TypeError(f"Cannot convert {jax_dtype} to a Warp type") from None
    scalar = scalars.canonical_scalar(dtype)
    if scalar is None:
        raise TypeError(f"Cannot convert {jax_dtype} to a Warp type")
    return scalar


def device_to_jax(warp_device: Any) -> jax.Device:
    """The ``jax.Device`` under a Warp device (``"cpu"``, ``"cuda:0"``, a Device…)."""
    return get_device(warp_device).jax_device


def device_from_jax(jax_device: jax.Device) -> Device:
    """The Warp device wrapping ``jax_device``."""
    if jax_device.platform not in ("cpu", "gpu", "cuda"):
        raise RuntimeError(f"Unsupported Jax device platform '{jax_device.platform}'")
    return get_device(jax_device)


def _compatible(data: np.dtype, scalar: type) -> bool:
    """Warp's DLPack rule: same size and kind (ints of either sign; bool as 8-bit ints)."""
    target = np.dtype(scalar._np_dtype)
    if data == target:
        return True
    if data.kind in "iu" and target.kind in "iu":
        return data.itemsize == target.itemsize
    if data.kind == "b":
        return target.kind in "iub" and target.itemsize == 1
    return False


def from_jax(jax_array: Any, dtype: Any = None) -> array:
    """Wrap a ``jax.Array`` (or a tracer inside ``jax.jit``) as a ``wp.array`` without copying.

    ``dtype`` reinterprets the data: a vector/matrix dtype consumes the trailing axes
    (``(n, 3)`` float32 → ``n`` × ``wp.vec3``); a scalar dtype must have the data's size and kind
    (integers of the other sign and bool→int8 are reinterpreted, which copies).
    """
    x = jax_array
    if isinstance(x, array):
        return x
    if not isinstance(x, jax.Array):
        x = jnp.asarray(x)
    data_dtype = np.dtype(x.dtype)
    if dtype is None:
        dtype = dtype_from_jax(data_dtype)
    from jwarp.lang.arrays import resolve_dtype

    dtype = resolve_dtype(dtype)
    if isinstance(dtype, StructType):
        raise TypeError("from_jax() cannot make arrays of struct dtype; pass one array per field")
    scalar = dtype._wp_scalar_type_ if composites.is_composite(dtype) else dtype
    if not _compatible(data_dtype, scalar):
        raise RuntimeError(f"Incompatible data types: Jax {data_dtype} and Warp {type_name(dtype)}")
    comp = dtype._shape_ if composites.is_composite(dtype) else ()
    if comp and (len(comp) > x.ndim or tuple(x.shape[x.ndim - len(comp):]) != comp):
        raise RuntimeError(
            f"Could not convert Jax array with shape {tuple(x.shape)} to Warp array with dtype={type_name(dtype)}, "
            f"ensure that source inner shape is {comp}"
        )
    shape = tuple(x.shape[: x.ndim - len(comp)]) or (1,)
    if data_dtype != np.dtype(scalar._np_dtype):
        with x64():
            x = jax.lax.bitcast_convert_type(x, scalar._np_dtype) if data_dtype.kind != "b" else x.astype(
                scalar._np_dtype)
    if x.shape != shape + comp:
        x = x.reshape(shape + comp)
    return array(x, dtype=dtype, shape=shape, copy=False)


def to_jax(warp_array: array) -> jax.Array:
    """The array's contents as a ``jax.Array`` without copying (the buffer itself; a view
    returns its elements). Vector/matrix dtypes become trailing axes."""
    if not isinstance(warp_array, array):
        raise TypeError(f"to_jax() expects a wp.array, got {type(warp_array).__name__}")
    if isinstance(warp_array.dtype, StructType):
        raise TypeError(f"to_jax() cannot convert an array of struct {warp_array.dtype.key}; "
                        "its fields are stored as separate buffers")
    return warp_array.buffer


__all__ = [
    "GraphMode",
    "JaxCallableGraphMode",
    "JaxModulePreloadMode",
    "ModulePreloadMode",
    "device_from_jax",
    "device_to_jax",
    "dtype_from_jax",
    "dtype_to_jax",
    "from_jax",
    "jax_callable",
    "jax_kernel",
    "to_jax",
]
