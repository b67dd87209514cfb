"""Python-side API of wp.fabricarray / wp.indexedfabricarray, pointer resolution and
wp.array(ptr=...), and array subclasses (behaviour in kernels: differential core_fabricarray)."""

import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime import addresses


def _iface(data, sizes, type_info=(True, "f4", 1, 0, ""), pointers=None):
    itemsize = wp.types.type_size_in_bytes(data.dtype)
    ptrs, p = [], int(data.ptr)
    for n in sizes:
        ptrs.append(p)
        p += n * itemsize
    info = {"type": type_info, "access": 2, "pointers": pointers or ptrs, "counts": list(sizes)}
    return {"version": 1, "device": str(data.device), "attribs": {"x": info}}


def test_ptr_ranges_resolve_to_their_array_and_views_are_offset():
    a = wp.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    b = wp.zeros(100, dtype=float)
    assert a[1].ptr - a.ptr == 16 and a[1:, 2:].ptr - a.ptr == 24
    assert addresses.resolve(a.ptr + 20) == (a, 20)
    assert addresses.resolve(b.ptr + 396)[0] is b
    assert addresses.resolve(a.ptr + a.capacity) is None  # one past the end belongs to nobody


def test_fabricarray_reads_and_writes_the_array_its_buckets_point_into():
    a = wp.array(np.arange(6, dtype=np.float32))
    fa = wp.fabricarray(_iface(a, [2, 4]), "x")
    assert fa.shape == (6,) and fa.ndim == 1 and fa.dtype is wp.float32 and not isinstance(fa, wp.array)
    ifa = fa[wp.array(np.array([5, 0], dtype=np.int32))]
    assert isinstance(ifa, wp.indexedfabricarray) and not isinstance(ifa, wp.indexedarray)
    np.testing.assert_array_equal(ifa.numpy(), [5.0, 0.0])
    ifa.fill_(9.0)
    np.testing.assert_array_equal(a.numpy(), [9, 1, 2, 3, 4, 9])
    np.testing.assert_array_equal(wp.clone(fa).numpy(), a.numpy())


def test_fabricarray_annotations_and_errors():
    assert wp.fabricarray[float].dtype is wp.float32 and wp.fabricarray(dtype=wp.vec3).ndim == 1
    assert not isinstance(wp.indexedfabricarray[float], wp.indexedfabricarray)  # an annotation, as in Warp
    a = wp.zeros(4, dtype=float)
    with pytest.raises(ValueError, match="Invalid attribute name"):
        wp.fabricarray(_iface(a, [4]), None)
    with pytest.raises(ValueError, match="index arrays"):
        wp.fabricarray(_iface(a, [4]), "x")[1]
    with pytest.raises(NotImplementedError, match="not inside a live jwarp array"):
        wp.fabricarray(_iface(a, [4], pointers=[0x1234]), "x")
    with pytest.raises(NotImplementedError, match="arrays"):
        wp.fabricarray(_iface(a, [4], type_info=(True, "f4", 1, 1, "")), "x")


def test_array_from_pointer_is_a_view_and_foreign_memory_is_refused():
    base = wp.array(np.arange(1, 9, dtype=np.float32))
    odd = wp.array(ptr=base.ptr, dtype=float, shape=4, strides=8)
    np.testing.assert_array_equal(odd.numpy(), [1, 3, 5, 7])
    odd.fill_(0.0)
    np.testing.assert_array_equal(base.numpy(), [0, 2, 0, 4, 0, 6, 0, 8])
    with pytest.raises(NotImplementedError, match="not inside a live jwarp array"):
        wp.array(ptr=0x1000, dtype=float, shape=2)


class Tagged(wp.array):
    def __init__(self, *args, tag, **kwargs):
        self.tag = tag
        super().__init__(*args, **kwargs)


def test_subclass_instances_are_values_not_annotations():
    @wp.struct
    class Bundle:
        a: wp.array[float]
        ia: wp.indexedarray[float]

    t = Tagged([1.0, 2.0], tag="t", dtype=float)
    b = Bundle()
    b.a = t
    assert b.a is t
    with pytest.raises(TypeError, match="Struct field 'ia' expects a Warp indexed array, got Tagged"):
        b.ia = t
    with pytest.raises(TypeError, match=r"Struct field 'a' expects a Warp array, got \w+"):
        b.a = wp.array[float]
    with pytest.raises(TypeError, match="array subclass instance as an annotation"):
        wp.struct(type("S", (), {"__annotations__": {"x": t}}))
