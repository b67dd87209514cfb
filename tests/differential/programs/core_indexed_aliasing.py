"""A wp.indexedarray is a view of its data array: within one thread, a write through the plain
array is seen by a later read through an indexed array over the same data (and the reverse, and
between two indexed arrays with different index arrays), 2-d indexed rows included; atomics
through repeated index entries and atomics through the plain array on the same elements all land.
The same for Fabric arrays whose buckets point into a wp.array."""


@wp.kernel
def write_then_read(a: wp.array(dtype=float), ia: wp.indexedarray(dtype=float), idx: wp.array(dtype=wp.int32),
                    out: wp.array(dtype=float)):
    i = wp.tid()
    a[idx[i]] = float(10 * i) + 1.0  # plain write to the element ia[i] addresses
    out[i] = ia[i]  # ... read back through the indexed array


@wp.kernel
def indexed_write_then_read(a: wp.array(dtype=float), ia: wp.indexedarray(dtype=float),
                            ib: wp.indexedarray(dtype=float), idx: wp.array(dtype=wp.int32), out: wp.array(dtype=float), out2: wp.array(dtype=float)):
    i = wp.tid()
    ia[i] = ia[i] * 3.0 + 2.0  # through the indexed array
    out[i] = a[idx[i]]  # seen through the plain array
    n = idx.shape[0]
    out2[i] = ib[n - 1 - i]  # and through a second indexed array (reversed index array)


@wp.kernel
def mixed_atomics(a: wp.array(dtype=float), ia: wp.indexedarray(dtype=float), w: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(ia, i, w[i])  # repeated entries: several threads hit one element
    wp.atomic_add(a, i % 3, 1.0)  # plain-array atomics on the same elements
    wp.atomic_sub(ia, i, 0.5)
    ia[i] += 2.0


@wp.kernel(enable_backward=False)  # Warp has no adjoint of atomic_max on an indexed array
def mixed_max(a: wp.array(dtype=wp.int32), ia: wp.indexedarray(dtype=wp.int32)):
    i = wp.tid()
    wp.atomic_max(ia, i, i * 3)
    wp.atomic_max(a, i % 4, i * 2 + 1)


@wp.kernel
def rows(m: wp.array2d(dtype=float), im: wp.indexedarray2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    m[3 - i, j] = float(i * 10 + j)  # rows are reversed by the index array
    row = im[i]
    out[i, j] = row[j] + im[i, j]
    wp.atomic_add(im, i, j, 0.5)


def fabric_interface(data, bucket_sizes):
    pointers, counts, p = [], [], int(data.ptr)
    for n in bucket_sizes:
        pointers.append(p)
        counts.append(n)
        p += n * 4
    info = {"type": (True, "f4", 1, 0, ""), "access": 2, "pointers": pointers, "counts": counts}
    return {"version": 1, "device": str(data.device), "attribs": {"x": info}, "_ref": data}


@wp.kernel(enable_backward=False)
def fabric_store_read(a: wp.array(dtype=float), f: wp.fabricarray[float], g: wp.indexedfabricarray[float],
                      perm: wp.array(dtype=wp.int32), out: wp.array(dtype=float), out2: wp.array(dtype=float)):
    i = wp.tid()
    k = perm[i]
    f[k] = f[k] + 10.0  # through the Fabric array
    out[i] = a[k]  # seen through the array its buckets point into
    out2[i] = g[i]  # and through an indexed Fabric array over perm (the same element)


@wp.kernel(enable_backward=False)
def fabric_atomics(a: wp.array(dtype=float), g: wp.indexedfabricarray[float]):
    i = wp.tid()
    wp.atomic_add(g, i, 1.0)  # repeated entries
    wp.atomic_add(a, i % 2, 0.25)


def run():
    idx_np = np.array([3, 0, 4, 1, 2], dtype=np.int32)
    idx = wp.array(idx_np)
    a = wp.array(np.arange(5, dtype=np.float32))
    out = wp.zeros(5, dtype=float)
    wp.launch(write_then_read, dim=5, inputs=[a, wp.indexedarray(a, [idx]), idx, out])

    b = wp.array(np.arange(5, dtype=np.float32) + 1.0)
    rev = wp.array(idx_np[::-1].copy())
    out2 = wp.zeros(5, dtype=float)
    out3 = wp.zeros(5, dtype=float)
    wp.launch(indexed_write_then_read, dim=5,
              inputs=[b, wp.indexedarray(b, [idx]), wp.indexedarray(b, [rev]), idx, out2, out3])

    rep = wp.array(np.array([1, 1, 2, 0, 1, 2, 4], dtype=np.int32))
    c = wp.array(np.full(5, 10.0, dtype=np.float32))
    w = wp.array(np.array([0.5, 1.5, 2.0, 3.0, 4.0, 0.25, 8.0], dtype=np.float32))
    wp.launch(mixed_atomics, dim=7, inputs=[c, wp.indexedarray(c, [rep]), w])

    d = wp.array(np.array([5, 0, 30, 1, 2], dtype=np.int32))
    wp.launch(mixed_max, dim=7, inputs=[d, wp.indexedarray(d, [rep])])

    m = wp.zeros((4, 3), dtype=float)
    order = wp.array(np.array([3, 2, 1, 0], dtype=np.int32))
    out4 = wp.zeros((4, 3), dtype=float)
    wp.launch(rows, dim=(4, 3), inputs=[m, wp.indexedarray(m, [order, None]), out4])
    e = wp.array(np.arange(6, dtype=np.float32))
    fe = wp.fabricarray(fabric_interface(e, [2, 4]), "x")
    out5 = wp.zeros(6, dtype=float)
    out6 = wp.zeros(6, dtype=float)
    perm = wp.array(np.array([5, 0, 3, 1, 2, 4], dtype=np.int32))
    wp.launch(fabric_store_read, dim=6, inputs=[e, fe, fe[perm], perm, out5, out6])
    e_stored = e.numpy().copy()
    wp.launch(fabric_atomics, dim=6, inputs=[e, fe[wp.array(np.array([1, 1, 4, 0, 1, 4], dtype=np.int32))]])
    return {"fabric_out": out5.numpy(), "fabric_out2": out6.numpy(), "fabric_stored": e_stored, "fabric": e.numpy(),
            "out": out.numpy(), "a": a.numpy(), "out2": out2.numpy(), "out3": out3.numpy(), "b": b.numpy(),
            "c": c.numpy(), "d": d.numpy(), "m": m.numpy(), "out4": out4.numpy()}
