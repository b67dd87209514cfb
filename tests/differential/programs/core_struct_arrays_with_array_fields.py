"""Arrays of structs that hold arrays: each element stores Warp's array descriptor (shape, byte
strides, ndim; the addresses are each library's own), numpy_dtype() is Warp's dict in C layout,
fill_/full/zeros/indexing/empty indexed views work, list() gives arrays of the fields' dtype and
rank (jwarp: the live arrays, Warp: empty ones), and kernels read
and copy the other fields of such elements."""


@wp.struct
class Holder:
    i: wp.int8
    h: wp.float16
    v: wp.vec3
    a: wp.array(dtype=float)
    m: wp.array2d(dtype=wp.int32)
    ia: wp.indexedarray(dtype=float)


@wp.kernel
def read_values(items: wp.array(dtype=Holder), out: wp.array(dtype=float), copies: wp.array(dtype=Holder)):
    t = wp.tid()
    item = items[t]
    out[t] = float(item.i) + float(item.h) + item.v[2]
    copies[t] = item


def _layout(records):
    keep = {}
    for field in ("a", "m"):
        keep[field + "_shape"] = records[field]["shape"]
        keep[field + "_strides"] = records[field]["strides"]
        keep[field + "_ndim"] = records[field]["ndim"]
        keep[field + "_null"] = records[field]["data"] == 0
    keep["ia_shape"] = records["ia"]["shape"]
    return keep


def run():
    s = Holder()
    s.i = -7
    s.h = 1.5
    s.v = wp.vec3(1.0, 2.0, 3.0)
    s.a = wp.array([1.0, 2.0, 3.0], dtype=float)
    s.m = wp.zeros((2, 5), dtype=wp.int32)
    data = wp.array(np.arange(6, dtype=np.float32))
    s.ia = wp.indexedarray1d(data, [wp.array([4, 1], dtype=wp.int32)])
    dtype = Holder.numpy_dtype()
    items = wp.array([s, Holder()], dtype=Holder)
    filled = wp.zeros(4, dtype=Holder)
    filled.fill_(s)
    part = filled[wp.array([1, 3], dtype=wp.int32)]
    part.zero_()
    empty = filled[wp.empty(0, dtype=wp.int32)]
    empty.fill_(s)
    full = wp.full(3, s, dtype=Holder)
    listed = full.list()
    out = wp.zeros(2, dtype=float)
    copies = wp.zeros(2, dtype=Holder)
    wp.launch(read_values, 2, inputs=[items, out, copies])
    result = {"names": np.array(dtype["names"]), "itemsize": np.array(dtype["itemsize"]),
              "offsets": np.array(dtype["offsets"]), "out": out.numpy(), "empty_shape": np.array(empty.shape),
              "listed_ndim": np.array([listed[2].a.ndim, listed[0].m.ndim]),
              "listed_i": np.array([x.i for x in listed]), "filled_i": filled.numpy()["i"],
              "copies_i": copies.numpy()["i"], "value_len": np.array(len(s.numpy_value()))}
    for prefix, records in (("items", items.numpy()), ("filled", filled.numpy()), ("copies", copies.numpy())):
        result.update({f"{prefix}_{k}": v for k, v in _layout(records).items()})
    return result
