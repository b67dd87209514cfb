"""``wp.indexedarray``: indexed access to a subset of a ``wp.array``'s elements.

``wp.indexedarray(data, [idx0, None, ...])`` sees, along each dimension with an index array
(1-d, int32, on the data's device), the entries that array lists, and along the others the
whole dimension: ``ia[i, j] == data[idx0[i], j]``. Kernels read and write through it (a
parameter annotated ``wp.indexedarray(dtype=...)`` / ``wp.indexedarray[dtype, Literal[n]]``),
and so do ``fill_``, ``zero_``, ``assign`` and ``wp.copy``. ``data[idx]`` with an index array
makes one too. As in Warp, it is not a ``wp.array`` and has no gradient.

Called with only ``dtype`` (and ``ndim``) it is an annotation for kernel parameters.

Example:
    >>> import numpy as np, jwarp as wp
    >>> data = wp.array(np.arange(5, dtype=np.float32))
    >>> ia = wp.indexedarray(data, [wp.array([0, 3], dtype=int)])
    >>> ia.fill_(9.0)
    >>> data.numpy()
    array([9., 1., 2., 9., 4.], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from jwarp.compiler.views import gather_indexed, scatter_indexed
from jwarp.lang import scalars
from jwarp.lang import array_annotations
from jwarp.lang.arrays import INDEXED, ArrayType, resolve_dtype, type_name
from jwarp.lang.struct import StructType
from jwarp.runtime import storage
from jwarp.runtime.array import array, register_array_services
from jwarp.runtime.array_ops import ArrayArithmetic
from jwarp.runtime.device import get_device
from jwarp.runtime.creation import clone
from jwarp.runtime.copying import copy_elements


def check_index_array(indices: Any, device: Any) -> None:
    """Warp's rules for an index array: a 1-d int32 ``wp.array`` on the data's device."""
    if not isinstance(indices, array):
        raise ValueError(f"Indices must be a Warp array, got {type(indices)}")
    if indices.ndim != 1:
        raise ValueError(f"Index array must be one-dimensional, got {indices.ndim}")
    if indices.dtype is not scalars.int32:
        raise ValueError(f"Index array must use int32, got dtype {type_name(indices.dtype)}")
    if indices.device is not device:
        raise ValueError(f"Index array device ({indices.device} does not match data array device ({device}))")


class indexedarray(ArrayArithmetic):
    """A view of the elements of ``data`` selected by per-dimension index arrays (module docstring).
    Python operators (``ia - 2.0``, ``ia += 1.0``) work on the selected elements, as in Warp."""

    _jwarp_array = True
    _jwarp_array_class = True
    _array_kind = INDEXED
    _default_ndim = 1
    is_contiguous = False

    def __init__(self, data: array | None = None, indices: Any = None, dtype: Any = None, ndim: int | None = None):
        self.data = data
        self.indices: list = [None] * 4
        if data is None:  # annotation-only
            self.dtype = resolve_dtype(dtype if dtype is not None else Any)
            self.ndim = ndim or self._default_ndim
            self.device = None
            self.pinned = False
            self.shape = (0,) * self.ndim
            return
        if not isinstance(data, array):
            raise ValueError("Indexed array data must be a Warp array")
        if dtype is not None and resolve_dtype(dtype) != data.dtype:
            raise ValueError(f"Requested dtype ({type_name(resolve_dtype(dtype))}) does not match dtype of data "
                             f"array ({type_name(data.dtype)})")
        if ndim is not None and ndim != data.ndim:
            raise ValueError(
                f"Requested dimensionality ({ndim}) does not match dimensionality of data array ({data.ndim})"
            )
        self.dtype, self.ndim, self.device, self.pinned = data.dtype, data.ndim, data.device, data.pinned
        shape = list(data.shape)
        if indices is not None:
            if isinstance(indices, array):
                indices = [indices]
            if not isinstance(indices, (list, tuple)):
                raise ValueError("Indices must be a single Warp array or a list of Warp arrays")
            if len(indices) > self.ndim:
                raise ValueError(
                    f"Number of indices provided ({len(indices)}) exceeds number of dimensions ({self.ndim})"
                )
            for axis, idx in enumerate(indices):
                if idx is not None:
                    check_index_array(idx, data.device)
                    self.indices[axis] = idx
                    shape[axis] = len(idx)
        self.shape = tuple(shape)

    @classmethod
    def __class_getitem__(cls, params: Any) -> Any:
        return array_annotations.subscript(cls, params)

    # -- contents --------------------------------------------------------------------------------
    def _index_buffers(self) -> tuple:
        return tuple(None if i is None else i.buffer for i in self.indices[: self.ndim])

    @property
    def root(self) -> array:
        """The root array whose storage holds the elements."""
        return self.data.root

    def _on_host(self, buf: Any) -> bool:
        """Whether eager gathers/scatters run in numpy: CPU storage, concrete (compiling a
        scatter for every shape would cost far more than the copy)."""
        parts = buf if isinstance(buf, tuple) else (buf,)
        return self.device.is_cpu and not any(isinstance(p, jax.core.Tracer) for p in parts)

    def _host_grids(self) -> tuple:
        n = self.ndim
        grids = []
        for axis, idx in enumerate(self.indices[:n]):
            sel = np.arange(self.data.shape[axis]) if idx is None else np.asarray(idx.buffer).astype(np.int64)
            grids.append(sel.reshape((1,) * axis + (-1,) + (1,) * (n - axis - 1)))
        return tuple(grids)

    @property
    def buffer(self) -> Any:
        """The selected elements as jax storage (a gather of ``data``)."""
        buf = self.data.buffer
        if self._on_host(buf):
            grids = self._host_grids()
            for axis, g in enumerate(grids):
                np.clip(g, 0, max(self.data.shape[axis] - 1, 0), out=g)
            return storage.put(_map_parts(storage.fetch(buf), lambda p: np.ascontiguousarray(p[grids])), self.device)
        with storage.x64():
            return gather_indexed(buf, self._index_buffers())

    def _set_buffer(self, new: Any) -> None:
        """Write ``new`` (this array's shape) through the indices into ``data``."""
        buf = self.data.buffer
        if not self._on_host(buf):
            with storage.x64():
                new = _map_parts(new, jax.numpy.asarray)
                self.data._set_buffer(scatter_indexed(buf, self._index_buffers(), new))
            return
        grids = self._host_grids()
        keep = np.ones(self.shape, bool)  # out-of-range indices: those writes are dropped
        for axis, g in enumerate(grids):
            keep &= (g >= 0) & (g < self.data.shape[axis])
            np.clip(g, 0, max(self.data.shape[axis] - 1, 0), out=g)

        def scatter(part: np.ndarray, values: np.ndarray) -> np.ndarray:
            out = np.array(part, copy=True)
            values = np.broadcast_to(np.asarray(values, out.dtype), self.shape + out.shape[self.ndim :])
            out[tuple(g[keep] for g in np.broadcast_arrays(*grids))] = values[keep]
            return out

        host, new_host = storage.fetch(buf), storage.fetch(new)
        if isinstance(host, tuple):
            updated = tuple(scatter(p, n) for p, n in zip(host, new_host))
        else:
            updated = scatter(host, new_host)
        self.data._set_buffer(storage.put(updated, self.device))

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def vars(self) -> Any:
        return None

    @property
    def array_type(self) -> ArrayType:
        return ArrayType(self.dtype, self.ndim, INDEXED)

    def numpy(self) -> np.ndarray:
        """A contiguous numpy copy of the selected elements."""
        host = storage.fetch(self.buffer)
        if isinstance(self.dtype, StructType):
            return storage.parts_to_structured(list(host), self.dtype, self.shape)
        return host

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = self.numpy()
        return out.astype(dtype) if dtype is not None else out

    def list(self) -> list:
        return self.contiguous().list()

    def contiguous(self) -> array:
        """A contiguous ``wp.array`` copy."""
        return clone(self)

    def to(self, device: Any) -> Any:
        device = get_device(device)
        return self if device is self.device else self.contiguous().to(device)

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        return f"indexedarray(shape={self.shape}, dtype={type_name(self.dtype)})"

    def __str__(self) -> str:
        return f"indexedarray{type_name(self.dtype)}" if self.device is None else str(self.numpy())

    # -- in-place ops ----------------------------------------------------------------------------
    def _make_result(self, buf: Any, dtype: Any) -> array:
        """An operator's result: a new contiguous array on this view's device."""
        return array(buf, dtype=dtype, device=self.device)

    def assign(self, src: Any) -> None:
        """Copy ``src`` (array, indexed array, numpy, list) into the selected elements."""
        if not isinstance(src, (array, indexedarray)):
            src = array(src, dtype=self.dtype, device=self.device)
        copy_elements(self, src, 0, 0, 0)

    def fill_(self, value: Any) -> None:
        """Set every selected element to ``value``."""
        if self.size == 0:
            return
        if isinstance(self.dtype, StructType):
            full = storage.zeros_storage(self.shape, self.dtype)
            if value != 0 and value is not None:
                structured = np.empty(self.shape, self.dtype.np_dtype())
                structured.fill(value.numpy_value())  # (np.full would broadcast the record's tuple)
                full = storage.structured_to_parts(structured, self.dtype)
            self._set_buffer(full)
            return
        try:
            element = storage.fill_value_storage(value, self.dtype)
        except Exception as exc:
            raise ValueError(f"Failed to convert the value to the array data type: {exc}") from exc
        self._set_buffer(np.broadcast_to(element, self.shape + element.shape))

    def zero_(self) -> None:
        """Set every selected element to zero."""
        if self.size:
            self._set_buffer(storage.zeros_storage(self.shape, self.dtype))


def _map_parts(parts: Any, fn: Any) -> Any:
    return tuple(fn(p) for p in parts) if isinstance(parts, tuple) else fn(parts)


def indexedarray1d(*args: Any, **kwargs: Any) -> indexedarray:
    """A 1-d :class:`indexedarray` (or annotation)."""
    return indexedarray(*args, **{**kwargs, "ndim": 1})


def indexedarray2d(*args: Any, **kwargs: Any) -> indexedarray:
    """A 2-d :class:`indexedarray` (or annotation)."""
    return indexedarray(*args, **{**kwargs, "ndim": 2})


def indexedarray3d(*args: Any, **kwargs: Any) -> indexedarray:
    """A 3-d :class:`indexedarray` (or annotation)."""
    return indexedarray(*args, **{**kwargs, "ndim": 3})


def indexedarray4d(*args: Any, **kwargs: Any) -> indexedarray:
    """A 4-d :class:`indexedarray` (or annotation)."""
    return indexedarray(*args, **{**kwargs, "ndim": 4})


def index_with_arrays(data: array, key: tuple) -> indexedarray:
    """``data[key]`` where some entries of ``key`` are index arrays: slices and integers first
    (a view of ``data``), then the index arrays along the dimensions that remain."""
    plain = tuple(slice(None) if isinstance(k, array) else k for k in key)
    view = data[plain] if any(not (isinstance(k, slice) and k == slice(None)) for k in plain) else data
    indices, axis = [], 0
    for k in key:
        if isinstance(k, array):
            indices.append(k)
            axis += 1
        elif isinstance(k, slice):
            indices.append(None)
            axis += 1
    return indexedarray(view, indices)


def struct_from_record(t: StructType, record: Any, device: Any = None) -> Any:
    """A struct instance from one record of a struct array's ``numpy()``."""
    inst = t()
    for name, var in t.vars.items():
        value = record[name]
        if isinstance(var.type, StructType):
            value = struct_from_record(var.type, value, device)
        elif value.dtype.names:  # an array field's descriptor: the live array it addresses
            value = _array_from_descriptor(var.type, value, device)
        setattr(inst, name, value)
    return inst


def _array_from_descriptor(t: Any, record: Any, device: Any) -> Any:
    """The array a descriptor record (Warp's ``array_t``/``indexedarray_t``) addresses, or None."""
    if "indices" in record.dtype.names:
        data = _array_from_descriptor(ArrayType(t.dtype, t.ndim), record["data"], device)
        if data is None:
            return None
        indices = [None if int(p) == 0 else array(ptr=int(p), shape=(int(n),), dtype=scalars.int32, device=device)
                   for p, n in zip(record["indices"][: t.ndim], record["shape"][: t.ndim])]
        return indexedarray(data, indices)
    ptr, ndim = int(record["data"]), int(record["ndim"])
    if ptr == 0:
        return None
    shape = tuple(int(n) for n in record["shape"][:ndim])
    strides = tuple(int(n) for n in record["strides"][:ndim])
    return array(ptr=ptr, shape=shape, strides=strides, dtype=t.dtype, device=device)


register_array_services(index_with_arrays=index_with_arrays, struct_from_record=struct_from_record)

__all__ = ["indexedarray", "indexedarray1d", "indexedarray2d", "indexedarray3d", "indexedarray4d",
           "check_index_array", "index_with_arrays", "struct_from_record"]
