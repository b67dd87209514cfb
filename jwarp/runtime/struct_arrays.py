"""Elements of arrays of structs as Python values (``array.list()``): records back to instances,
array fields (stored as Warp's descriptor records) back to the live arrays they address.

Example::

    @wp.struct
    class S:
        i: int
        a: wp.array(dtype=float)

    s = S(); s.i = 3; s.a = wp.array([1.0, 2.0], dtype=float)
    wp.full(2, s, dtype=S).list()[1].a.numpy().tolist()   # [1.0, 2.0]
"""

from __future__ import annotations

from typing import Any

from jwarp.lang import scalars
from jwarp.lang.arrays import ArrayType
from jwarp.lang.struct import StructType
from jwarp.runtime.array import array
from jwarp.runtime.indexed import indexedarray


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
