"""wp.fabricarray / wp.indexedfabricarray over a Fabric array interface whose bucket pointers
point into a wp.array (``a.ptr + k * itemsize``): shape, numpy(), fill_, wp.copy, kernels that
read, write and atomically add through them (also as generic ``Any`` and struct fields), and
``fa[indices]``. Every write must land in the array the buckets point into."""

from typing import Any


def fabric_interface(data, attrib, bucket_sizes, type_info):
    itemsize = wp.types.type_size_in_bytes(data.dtype)
    pointers, counts, p = [], [], int(data.ptr)
    for n in bucket_sizes:
        pointers.append(p)
        counts.append(n)
        p += n * itemsize
    info = {"type": type_info, "access": 2, "pointers": pointers, "counts": counts}
    return {"version": 1, "device": str(data.device), "attribs": {attrib: info}, "_ref": data}


@wp.kernel(enable_backward=False)
def scale_fabric(f: wp.fabricarray[float], g: wp.indexedfabricarray[float], out: wp.array[float]):
    i = wp.tid()
    out[i] = f[i] * 2.0 + g[i % 3]


@wp.kernel(enable_backward=False)
def shift_fabric(f: wp.fabricarray[float]):
    i = wp.tid()
    f[i] = f[i] + 100.0


@wp.kernel(enable_backward=False)
def bump_indexed(g: wp.indexedfabricarray[float]):
    i = wp.tid()
    wp.atomic_add(g, i, 0.5)


@wp.kernel(enable_backward=False)
def double_generic(a: wp.fabricarray[Any], b: wp.fabricarray[Any]):
    i = wp.tid()
    b[i] = a[i] + a[i]


@wp.struct
class FabricPair:
    values: wp.fabricarray[float]
    picked: wp.indexedfabricarray[float]


@wp.kernel(enable_backward=False)
def struct_fields(p: FabricPair):
    i = wp.tid()
    p.values[i] = p.values[i] + 1.0
    p.picked[i] = p.picked[i] + 2.0


def run():
    scalar = (True, "f4", 1, 0, "")
    a = wp.array(np.arange(8, dtype=np.float32))
    fa = wp.fabricarray(fabric_interface(a, "x", [3, 1, 4], scalar), "x")
    idx = wp.array(np.array([7, 0, 4], dtype=np.int32))
    ifa = fa[idx]
    out = wp.zeros(8, dtype=float)
    wp.launch(scale_fabric, dim=8, inputs=[fa, ifa, out])
    wp.launch(shift_fabric, dim=8, inputs=[fa])
    after_kernel = a.numpy().copy()
    wp.launch(bump_indexed, dim=3, inputs=[ifa])
    after_atomic = a.numpy().copy()
    ifa.fill_(-1.0)
    after_fill = a.numpy().copy()
    wp.copy(fa, wp.array(np.arange(8, dtype=np.float32) * 3.0))

    v = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=wp.vec3)
    w = wp.zeros(2, dtype=wp.vec3)
    vec = (True, "f4", 3, 0, "vector")
    fv = wp.fabricarray(fabric_interface(v, "v", [1, 1], vec), "v")
    fw = wp.fabricarray(fabric_interface(w, "w", [2], vec), "w")
    wp.launch(double_generic, dim=2, inputs=[fv, fw])

    s = wp.array(np.arange(5, dtype=np.float32))
    fs = wp.fabricarray(fabric_interface(s, "s", [2, 3], scalar), "s")
    pair = FabricPair()
    pair.values = fs
    pair.picked = fs[wp.array(np.array([4, 3], dtype=np.int32))]
    wp.launch(struct_fields, dim=2, inputs=[pair])
    return {
        "shape": np.array(fa.shape + ifa.shape),
        "numpy": ifa.numpy(),
        "out": out.numpy(),
        "after_kernel": after_kernel,
        "after_atomic": after_atomic,
        "after_fill": after_fill,
        "after_copy": a.numpy(),
        "vec": w.numpy(),
        "struct": s.numpy(),
    }
