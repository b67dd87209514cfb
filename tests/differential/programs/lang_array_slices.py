# In-kernel array slicing: a[i, 1:3], a[::2], a[start:stop:step] with run-time bounds, negative
# steps, views of views, shapes, loads, stores, atomics and gradients through the views; a local
# rebound to a view of another rank (Warp compares array locals by kind and dtype only).


@wp.kernel
def read_views(a: wp.array2d(dtype=float), b: wp.array(dtype=float), start: int, stop: int, step: int,
               out: wp.array2d(dtype=float)):
    i = wp.tid()
    row = a[i, 1:3]
    out[i, 0] = row[0] + row[1] * 10.0
    out[i, 1] = float(row.shape[0])
    col = a[:, 2]
    out[i, 2] = col[i]
    every_other = b[::2]
    out[i, 3] = every_other[i] + float(every_other.shape[0]) * 100.0
    rev = b[::-1]
    out[i, 4] = rev[i]
    dyn = b[start:stop:step]
    out[i, 5] = dyn[i % dyn.shape[0]] + float(dyn.shape[0]) * 100.0
    inner = a[1:, 1:][0]
    out[i, 6] = inner[i % 3]
    tail = b[-3:]
    out[i, 7] = tail[-1]


@wp.kernel
def write_views(a: wp.array2d(dtype=float), b: wp.array(dtype=float), vs: wp.array(dtype=wp.vec3),
                start: int, stop: int, step: int):
    i = wp.tid()
    row = a[i, 1:3]
    row[1] = float(i) * 2.0
    b[1::3][i] = -float(i)
    vs[start:stop:step][i].x = float(i) + 0.5
    vs[start:stop:step][i][1] += 1.0
    wp.atomic_add(b[::2], i, 100.0)


@wp.kernel
def loss_through_view(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    v = x[1:5]
    out[i] = v[i] * v[i] + x[::2][i % 3]


@wp.kernel
def rebind_ranks(arr: wp.array2d(dtype=int), ranks: wp.array(dtype=int)):
    sub = arr[:2]
    ranks[0] = sub.ndim * 100 + sub.shape[0] * 10 + sub[1, 3]
    sub = arr[:2, 1]
    ranks[1] = sub.ndim * 100 + sub.shape[0] * 10 + sub[1]
    sub = arr[3:5, 3:1:-1]
    ranks[2] = sub.ndim * 100 + sub.shape[1] * 10 + sub[1, 1]


def run():
    rng = np.random.default_rng(5)
    a = wp.array(rng.standard_normal((4, 4)).astype(np.float32))
    b = wp.array(rng.standard_normal(9).astype(np.float32))
    out = wp.zeros((4, 8), dtype=float)
    wp.launch(read_views, dim=4, inputs=[a, b, 7, 0, -2, out])
    a2 = wp.array(rng.standard_normal((3, 4)).astype(np.float32))
    b2 = wp.array(rng.standard_normal(9).astype(np.float32))
    vs = wp.full(6, wp.vec3(7.0, 7.0, 7.0), dtype=wp.vec3)
    wp.launch(write_views, dim=3, inputs=[a2, b2, vs, 5, -7, -2])
    x = wp.array(rng.standard_normal(6).astype(np.float32), requires_grad=True)
    loss = wp.zeros(4, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(loss_through_view, dim=4, inputs=[x, loss])
    tape.backward(grads={loss: wp.ones(4, dtype=float)})
    ranks = wp.zeros(3, dtype=int)
    wp.launch(rebind_ranks, dim=1, inputs=[wp.array(np.arange(32, dtype=np.int32).reshape(8, 4), dtype=int), ranks])
    return {"out": out, "a2": a2, "b2": b2, "vs": vs, "loss": loss, "x_grad": x.grad, "ranks": ranks}
