"""wp.indexedarray: kernel reads/writes/atomics through index arrays, mixed axes, views, fills,
copies, generic (Any) parameters, indexed arrays inside structs, data[idx] indexing."""

from typing import Any


@wp.kernel
def scale_1d(a: wp.indexedarray(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i]
    a[i] = 2.0 * a[i]
    wp.atomic_add(a, i, 1.0)


@wp.kernel
def touch_3d(a: wp.indexedarray3d(dtype=float), out: wp.array3d(dtype=float)):
    i, j, k = wp.tid()
    out[i, j, k] = a[i][j, k] + a[i, j][k]
    a[i, j, k] = a[i, j, k] + 100.0


@wp.kernel
def shapes(a: wp.indexedarray2d(dtype=wp.vec3), out: wp.array(dtype=int)):
    out[0] = a.shape[0]
    out[1] = a.shape[1]
    row = a[1]
    out[2] = row.shape[0]


@wp.kernel
def inc_any(a: Any):
    i, j = wp.tid()
    a[i, j] = a[i, j] + 1


@wp.struct
class Holder:
    view: wp.indexedarray(dtype=float)


@wp.kernel
def through_struct(h: Holder):
    i = wp.tid()
    h.view[i] = h.view[i] * 10.0


def run():
    data = wp.array(np.arange(10, dtype=np.float32))
    idx = wp.array([1, 3, 5, 7, 9], dtype=int)
    read = wp.zeros(5, dtype=float)
    wp.launch(scale_1d, dim=5, inputs=[wp.indexedarray1d(data, [idx]), read])

    values = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)
    results = {"data1d": data.numpy(), "read1d": read.numpy().copy()}
    for name, pattern in {"first": (0, None, None), "outer": (0, 1, 2), "mid": (None, 1, None)}.items():
        arr = wp.array(values)
        picks = [wp.array([3, 0], dtype=int), wp.array([4, 1, 2], dtype=int), wp.array([5, 0], dtype=int)]
        ia = wp.indexedarray(arr, [picks[a] if a is not None else None for a in pattern])
        out = wp.zeros(ia.shape, dtype=float)
        wp.launch(touch_3d, dim=ia.shape, inputs=[ia, out])
        results[f"{name}_shape"] = np.array(ia.shape)
        results[f"{name}_out"] = out.numpy().copy()
        results[f"{name}_data"] = arr.numpy().copy()
        results[f"{name}_numpy"] = ia.numpy().copy()

    vecs = wp.array(np.arange(30, dtype=np.float32).reshape(10, 3), dtype=wp.vec3)
    grid = wp.array(np.zeros((10, 1, 3), np.float32), dtype=wp.vec3).reshape((5, 2))
    sh = wp.zeros(3, dtype=int)
    wp.launch(shapes, dim=1, inputs=[wp.indexedarray2d(grid, [wp.array([4, 0, 2], dtype=int), None]), sh])
    results["shapes"] = sh.numpy().copy()

    ints = wp.zeros((4, 4), dtype=int)
    sel = wp.array([0, 3], dtype=int)
    wp.launch(inc_any, dim=(2, 2), inputs=[ints[sel, sel]])
    wp.launch(inc_any, dim=(4, 2), inputs=[ints[:, sel]])
    results["any_generic"] = ints.numpy().copy()

    picked = vecs[wp.array([9, 0, 4], dtype=int)]
    picked.fill_(wp.vec3(1.0, 2.0, 3.0))
    results["vec_fill"] = vecs.numpy().copy()
    picked.zero_()
    results["vec_zero"] = vecs.numpy().copy()
    picked.assign(np.ones((3, 3), np.float32) * 7.0)
    results["vec_assign"] = vecs.numpy().copy()
    results["vec_clone"] = wp.clone(picked).numpy().copy()
    results["vec_list"] = np.array([list(v) for v in picked.list()])

    src = wp.array(np.arange(6, dtype=np.float32) + 0.5)
    dst = wp.zeros(6, dtype=float)
    wp.copy(dst[wp.array([5, 4, 3], dtype=int)], src[wp.array([0, 2, 4], dtype=int)])
    results["copy"] = dst.numpy().copy()

    h = Holder()
    h.view = src[wp.array([1, 2], dtype=int)]
    wp.launch(through_struct, dim=2, inputs=[h])
    results["struct"] = src.numpy().copy()
    results["empty"] = np.array(data[wp.empty(0, dtype=int)].shape)
    return results
