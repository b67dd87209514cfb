"""``wp.fabricarray`` / ``wp.indexedfabricarray``: arrays over Fabric attribute buckets.

Warp reads a USD Fabric attribute through a *Fabric array interface*: a dict (or an object's
``__fabric_arrays_interface__``) listing, for the attribute, its type and, per bucket, a data
pointer and an element count; the fabric array is the concatenation of the buckets. In jwarp,
a bucket pointer is an address handed out by a jwarp array's ``ptr`` (see ``addresses``), so the
buckets resolve to ranges of that array and the fabric array is an indexed view of it: kernels
(parameters annotated ``wp.fabricarray[dtype]``), ``numpy()``, ``fill_``, ``assign`` and
``wp.copy`` read and write the array's elements, as in Warp. ``fa[indices]`` (an int32 index
array) is a ``wp.indexedfabricarray``. Memory that is not a jwarp array's (a real Fabric stage),
buckets in several arrays and Fabric arrays of arrays are not supported: they raise
``NotImplementedError`` naming what is missing.

Example:
    >>> import numpy as np, jwarp as wp
    >>> a = wp.array(np.arange(4, dtype=np.float32))
    >>> iface = {"version": 1, "device": str(a.device), "attribs": {"x": {
    ...     "type": (True, "f4", 1, 0, ""), "access": 2,
    ...     "pointers": [a.ptr, a.ptr + 8], "counts": [2, 2]}}}
    >>> fa = wp.fabricarray(iface, "x")
    >>> fa.fill_(5.0)
    >>> a.numpy()
    array([5., 5., 5., 5.], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from jwarp.lang import composites, scalars
from jwarp.lang import array_annotations
from jwarp.lang.arrays import ArrayType, resolve_dtype, type_name
from jwarp.runtime import addresses, storage
from jwarp.runtime.array import array
from jwarp.runtime.array_ops import ArrayArithmetic
from jwarp.runtime.device import get_device
from jwarp.runtime.indexed import check_index_array, indexedarray

FABRIC = "fabricarray"
INDEXED_FABRIC = "indexedfabricarray"

_FABRIC_SCALARS = {
    "b": scalars.bool_, "i1": scalars.int8, "i2": scalars.int16, "i4": scalars.int32, "i8": scalars.int64,
    "u1": scalars.uint8, "u2": scalars.uint16, "u4": scalars.uint32, "u8": scalars.uint64,
    "f2": scalars.float16, "f4": scalars.float32, "f8": scalars.float64,
}


def fabric_dtype(type_info: Any, attrib: str) -> Any:
    """The Warp dtype of a Fabric attribute's type tuple ``(usable, base, count, depth, role)``."""
    if len(type_info) != 5:
        raise ValueError(
            f"Fabric attribute '{attrib}' type metadata must contain five elements, got {len(type_info)}: {type_info!r}"
        )
    usable, base, count, _depth, role = type_info
    if not usable:
        raise RuntimeError(f"Attribute '{attrib}' cannot be used in Warp")
    scalar = _FABRIC_SCALARS.get(base)
    if scalar is None:
        raise RuntimeError(f"Attribute '{attrib}' base data type '{base}' is not supported in Warp")
    if role in ("text", "path"):
        raise RuntimeError(f"Attribute '{attrib}' role '{role}' is not supported in Warp")
    if count <= 1:
        return scalar
    if role == "quat" and count == 4:
        return composites.quaternion(dtype=scalar)
    if role in ("matrix", "transform", "frame"):
        n = int(round(count**0.5))
        if n * n != count:
            raise ValueError(
                f"Fabric attribute '{attrib}' matrix metadata must have a square element count, got {count}"
            )
        return composites.matrix(shape=(n, n), dtype=scalar)
    return composites.vector(length=count, dtype=scalar)


def _interface_of(data: Any) -> dict:
    if isinstance(data, dict):
        return data
    iface = getattr(data, "__fabric_arrays_interface__", None)
    if iface is None:
        raise ValueError(
            "Invalid data argument for fabricarray: expected dict or object with __fabric_arrays_interface__"
        )
    return iface


def _bucket_storage(pointers: list, counts: list, dtype: Any, device: Any, attrib: str) -> tuple[array, np.ndarray]:
    """The jwarp array the buckets point into (seen as a flat array of ``dtype``) and the element
    positions of the fabric array's elements in it."""
    itemsize = storage.scalar_of(dtype)._np_dtype.itemsize * int(np.prod(storage.element_shape(dtype)))
    root, positions = None, []
    for ptr, count in zip(pointers, counts):
        count = int(count)
        if count == 0:
            continue
        found = addresses.resolve(int(ptr)) if ptr else None
        if found is None:
            raise NotImplementedError(
                f"Fabric attribute '{attrib}': bucket pointer {int(ptr):#x} is not inside a live jwarp array; "
                "jwarp reads Fabric buckets only from memory of jwarp arrays (not a USD Fabric stage)"
            )
        owner, offset = found
        if root is None:
            root = owner
        elif owner is not root:
            raise NotImplementedError(
                f"Fabric attribute '{attrib}': buckets in more than one jwarp array are not supported"
            )
        if offset % itemsize:
            raise NotImplementedError(
                f"Fabric attribute '{attrib}': bucket pointer is not aligned to an element of {type_name(dtype)}"
            )
        positions.append(np.arange(offset // itemsize, offset // itemsize + count, dtype=np.int64))
    if root is None:  # no elements
        return array(shape=(0,), dtype=dtype, device=device), np.zeros(0, np.int32)
    if root.device is not device:
        raise ValueError(f"Fabric interface device ({device}) does not match the device of its data ({root.device})")
    flat = _as_flat(root, dtype, attrib)
    pos = np.concatenate(positions)
    if pos.size and int(pos.max()) >= flat.size:
        raise ValueError(f"Fabric attribute '{attrib}': a bucket extends past the end of the array it points into")
    return flat, pos.astype(np.int32)


def _as_flat(root: array, dtype: Any, attrib: str) -> array:
    flat = root if root.ndim == 1 else root.flatten()
    if flat.dtype == dtype:
        return flat
    try:
        if storage.scalar_of(flat.dtype) is not storage.scalar_of(dtype):
            raise RuntimeError("different scalar types")
        return flat.view(dtype) if storage.element_shape(flat.dtype) == () else flat.view(
            storage.scalar_of(dtype)).view(dtype)
    except RuntimeError:
        raise NotImplementedError(
            f"Fabric attribute '{attrib}' of {type_name(dtype)} over a jwarp array of {type_name(root.dtype)}"
        ) from None


class _FabricBase(ArrayArithmetic):
    """Python-side behaviour shared by both Fabric array kinds: everything goes through the
    indexed view ``self._view()`` of the jwarp array holding the buckets (operators included)."""

    def _make_result(self, buf: Any, dtype: Any) -> array:
        return array(buf, dtype=dtype, device=self.device)

    _jwarp_array = True
    _jwarp_array_class = True
    _default_ndim = 1
    is_contiguous = False

    def _view(self) -> indexedarray:
        raise NotImplementedError

    def _annotation(self, dtype: Any, ndim: int | None) -> None:
        self.dtype = resolve_dtype(dtype if dtype is not None else Any)
        self.ndim = ndim or self._default_ndim
        self.device = None
        self.shape = (0,) * self.ndim

    @classmethod
    def __class_getitem__(cls, params: Any) -> Any:
        return array_annotations.subscript(cls, params)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def array_type(self) -> ArrayType:
        return ArrayType(self.dtype, self.ndim, self._array_kind)

    @property
    def vars(self) -> Any:
        return None

    @property
    def root(self) -> array:
        return self._view().root

    @property
    def buffer(self) -> Any:
        return self._view().buffer

    def _set_buffer(self, new: Any) -> None:
        self._view()._set_buffer(new)

    def numpy(self) -> np.ndarray:
        """A contiguous numpy copy of the elements."""
        return self._view().numpy()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = self.numpy()
        return out.astype(dtype) if dtype is not None else out

    def list(self) -> list:
        return self._view().list()

    def contiguous(self) -> array:
        """A contiguous ``wp.array`` copy."""
        return self._view().contiguous()

    def to(self, device: Any) -> Any:
        device = get_device(device)
        return self if device is self.device else self.contiguous().to(device)

    def assign(self, src: Any) -> None:
        self._view().assign(src)

    def fill_(self, value: Any) -> None:
        self._view().fill_(value)

    def zero_(self) -> None:
        self._view().zero_()

    def __len__(self) -> int:
        return self.shape[0]

    def __str__(self) -> str:
        return f"{type(self).__name__}{type_name(self.dtype)}" if self.device is None else str(self.numpy())


class fabricarray(_FabricBase):
    """The elements of a Fabric attribute, bucket after bucket (module docstring).

    ``wp.fabricarray(dtype=float)`` / ``wp.fabricarray[float]`` is an annotation for kernels.
    """

    _array_kind = FABRIC

    def __init__(self, data: Any = None, attrib: str | None = None, dtype: Any = Any, ndim: int | None = None):
        if data is None:
            self._annotation(dtype, ndim)
            self.access = None
            return
        if not isinstance(attrib, str):
            raise ValueError(f"Invalid attribute name: {attrib}")
        iface = _interface_of(data)
        if iface.get("version") != 1:
            raise ValueError(f"Unsupported Fabric interface version: {iface.get('version')}")
        device = iface.get("device")
        if not isinstance(device, str):
            raise ValueError(f"Invalid Fabric interface device: {device}")
        self.device = get_device(device)
        attribs = iface.get("attribs")
        if not isinstance(attribs, dict):
            raise ValueError("Failed to get Fabric interface attributes")
        info = attribs.get(attrib)
        if not isinstance(info, dict):
            raise ValueError(f"Failed to get attribute '{attrib}'")
        self.dtype = fabric_dtype(info["type"], attrib)
        self.access = info["access"]
        pointers, counts = info["pointers"], info["counts"]
        if not (hasattr(pointers, "__len__") and hasattr(counts, "__len__") and len(pointers) == len(counts)):
            raise RuntimeError("Attribute pointers and counts must be lists of the same size")
        depth = info["type"][3]
        if depth == 1:
            raise NotImplementedError(
                f"Fabric attribute '{attrib}' holds arrays (a Fabric array of arrays): not supported by jwarp"
            )
        if depth != 0:
            raise ValueError(f"Invalid attribute array depth: {depth}")
        self.ndim = 1
        self.buckets = [(int(p), int(c)) for p, c in zip(pointers, counts)]
        data_array, positions = _bucket_storage(pointers, counts, self.dtype, self.device, attrib)
        self.shape = (int(positions.size),)
        self._positions = array(positions, dtype=scalars.int32, device=self.device)
        self._indexed = indexedarray(data_array, [self._positions])
        self._keepalive = iface  # the interface owns the memory (as Warp's descriptors rely on)

    def _view(self) -> indexedarray:
        if self.device is None:
            raise RuntimeError("This fabricarray has no data (it is an annotation)")
        return self._indexed

    def __getitem__(self, key: Any) -> indexedfabricarray:
        if isinstance(key, array):
            return indexedfabricarray(fa=self, indices=key)
        raise ValueError(f"Fabric arrays only support indexing using index arrays, got key of type {type(key)}")

    def __repr__(self) -> str:
        return f"fabricarray(shape={self.shape}, dtype={type_name(self.dtype)})"


class indexedfabricarray(_FabricBase):
    """The elements of a ``wp.fabricarray`` selected by a 1-d int32 index array (``fa[indices]``)."""

    _array_kind = INDEXED_FABRIC

    def __init__(self, fa: fabricarray | None = None, indices: array | None = None, dtype: Any = None,
                 ndim: int | None = None):
        if fa is None:
            self._annotation(dtype, ndim)
            self.fa, self.indices = None, None
            return
        check_index_array(indices, fa.device)
        self.fa, self.indices = fa, indices
        self.dtype, self.ndim, self.device = fa.dtype, fa.ndim, fa.device
        self.shape = (indices.size,)
        self._cache: tuple | None = None

    def _view(self) -> indexedarray:
        if self.fa is None:
            raise RuntimeError("This indexedfabricarray has no data (it is an annotation)")
        key = (self.indices.root._buffer, self.indices._chain)  # the index array's current contents
        if self._cache is None or self._cache[0][0] is not key[0] or self._cache[0][1] != key[1]:
            with storage.x64():
                composed = jnp.take(self.fa._positions.buffer, self.indices.buffer, mode="clip")
            positions = array(composed, dtype=scalars.int32, device=self.device)
            self._cache = (key, indexedarray(self.fa._indexed.data, [positions]))
        return self._cache[1]

    def __repr__(self) -> str:
        return f"indexedfabricarray(shape={self.shape}, dtype={type_name(self.dtype)})"


def fabricarrayarray(**kwargs: Any) -> fabricarray:
    """Annotation of a Fabric array of arrays (data of this kind is not supported by jwarp)."""
    return fabricarray(ndim=2, **kwargs)


def indexedfabricarrayarray(**kwargs: Any) -> indexedfabricarray:
    """Annotation of an indexed Fabric array of arrays (data of this kind is not supported by jwarp)."""
    return indexedfabricarray(ndim=2, **kwargs)


__all__ = ["fabricarray", "indexedfabricarray", "fabricarrayarray", "indexedfabricarrayarray", "fabric_dtype",
           "FABRIC", "INDEXED_FABRIC"]
