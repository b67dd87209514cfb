"""Tiles: reductions (tile_sum whole and along an axis, tile_min/max, tile_argmin/argmax,
tile_reduce with a builtin and a user function), tile_transpose, tile_broadcast,
tile_atomic_add (returned old values and accumulation across blocks), and a tiled GEMM in both
tile_matmul forms (returning, and accumulating into ``out`` with alpha/beta), with .grad
through wp.Tape."""

TM = 4
TK = 2


@wp.func
def larger_abs(a: float, b: float):
    return wp.where(wp.abs(a) > wp.abs(b), a, b)


@wp.kernel
def reductions(a: wp.array2d(dtype=float), sums: wp.array(dtype=float), rows: wp.array2d(dtype=float),
               mins: wp.array(dtype=float), maxs: wp.array(dtype=float), args: wp.array2d(dtype=int),
               custom: wp.array(dtype=float), prods: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=(TM, 3), offset=(i * TM, 0))
    wp.tile_store(sums, wp.tile_sum(t), offset=i)
    wp.tile_store(rows[i], wp.tile_sum(t, axis=1), offset=0)
    wp.tile_store(mins, wp.tile_min(t), offset=i)
    wp.tile_store(maxs, wp.tile_max(t), offset=i)
    args[i, 0] = wp.tile_argmin(t)[0]
    args[i, 1] = wp.tile_argmax(t)[0]
    wp.tile_store(custom, wp.tile_reduce(larger_abs, t), offset=i)
    wp.tile_store(prods, wp.tile_reduce(wp.mul, t), offset=i)


@wp.kernel
def shapes(a: wp.array2d(dtype=float), v: wp.array(dtype=float), out_t: wp.array2d(dtype=float),
           out_b: wp.array2d(dtype=float), acc: wp.array(dtype=float), regions: wp.array(dtype=float),
           old: wp.array2d(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=(TM, TK), offset=(0, i * TK))
    wp.tile_store(out_t, wp.tile_transpose(t), offset=(i * TK, 0))
    r = wp.tile_load(v, shape=TM, offset=0)
    wp.tile_store(out_b, wp.tile_broadcast(r, shape=(TK, TM)) + wp.tile_transpose(t), offset=(i * TK, 0))
    wp.tile_atomic_add(acc, r, offset=1)
    prev = wp.tile_atomic_add(regions, r * 2.0, offset=i * TM)
    wp.tile_store(old[i], prev, offset=0)


@wp.kernel
def gemm(A: wp.array2d(dtype=float), B: wp.array2d(dtype=float), C: wp.array2d(dtype=float)):
    i, j = wp.tid()
    acc = wp.tile_zeros(shape=(TM, TM), dtype=float)
    for k in range(A.shape[1] // TK):
        a = wp.tile_load(A, shape=(TM, TK), offset=(i * TM, k * TK))
        b = wp.tile_load(B, shape=(TK, TM), offset=(k * TK, j * TM))
        wp.tile_matmul(a, b, acc)
    wp.tile_store(C, acc, offset=(i * TM, j * TM))


@wp.kernel
def gemm_forms(A: wp.array2d(dtype=float), B: wp.array2d(dtype=float), C: wp.array2d(dtype=float),
               D: wp.array2d(dtype=float)):
    i, j = wp.tid()
    a = wp.tile_load(A, shape=(TM, 6), offset=(i * TM, 0))
    b = wp.tile_load(B, shape=(6, TM), offset=(0, j * TM))
    wp.tile_store(C, wp.tile_matmul(a, b), offset=(i * TM, j * TM))
    out = wp.tile_load(D, shape=(TM, TM), offset=(i * TM, j * TM))
    wp.tile_matmul(a, b, out, alpha=0.5, beta=2.0)
    wp.tile_store(D, out, offset=(i * TM, j * TM))


@wp.kernel
def loss_of(C: wp.array2d(dtype=float), W: wp.array2d(dtype=float), loss: wp.array(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(loss, 0, C[i, j] * W[i, j])


def run():
    rng = np.random.default_rng(3)
    out = {}
    a = wp.array(rng.standard_normal((8, 3)).astype(np.float32))
    res = [wp.zeros(2, dtype=float), wp.zeros((2, TM), dtype=float), wp.zeros(2, dtype=float),
           wp.zeros(2, dtype=float), wp.zeros((2, 2), dtype=int), wp.zeros(2, dtype=float), wp.zeros(2, dtype=float)]
    wp.launch_tiled(reductions, dim=2, inputs=[a, *res], block_dim=8)
    for name, r in zip(("sum", "rows", "min", "max", "arg", "custom", "prod"), res):
        out["reduce_" + name] = r.numpy()

    m = wp.array(rng.standard_normal((TM, 3 * TK)).astype(np.float32))
    v = wp.array(rng.standard_normal(TM).astype(np.float32))
    ot = wp.zeros((3 * TK, TM), dtype=float)
    ob = wp.zeros((3 * TK, TM), dtype=float)
    acc = wp.full(TM + 1, 0.5, dtype=float)
    regions = wp.array(np.arange(3 * TM + 2, dtype=np.float32))
    old = wp.zeros((3, TM), dtype=float)
    wp.launch_tiled(shapes, dim=3, inputs=[m, v, ot, ob, acc, regions, old], block_dim=4)
    out.update(transpose=ot.numpy(), broadcast=ob.numpy(), atomic=acc.numpy(), regions=regions.numpy(),
               atomic_old=old.numpy())

    A = wp.array(rng.standard_normal((8, 6)).astype(np.float32), requires_grad=True)
    B = wp.array(rng.standard_normal((6, 12)).astype(np.float32), requires_grad=True)
    C = wp.zeros((8, 12), dtype=float, requires_grad=True)
    W = wp.array(rng.standard_normal((8, 12)).astype(np.float32))
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(gemm, dim=(2, 3), inputs=[A, B, C], block_dim=16)
        wp.launch(loss_of, dim=(8, 12), inputs=[C, W, loss])
    tape.backward(loss)
    out.update(gemm=C.numpy(), gemm_loss=loss.numpy(), gemm_grad_a=A.grad.numpy().copy(), gemm_grad_b=B.grad.numpy().copy())

    C2 = wp.zeros((8, 12), dtype=float, requires_grad=True)
    D = wp.array(rng.standard_normal((8, 12)).astype(np.float32), requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(gemm_forms, dim=(2, 3), inputs=[A, B, C2, D], block_dim=8)
    tape.backward(grads={C2: wp.ones((8, 12), dtype=float)})
    out.update(gemm_ret=C2.numpy(), gemm_acc=D.numpy(), forms_grad_a=A.grad.numpy())
    return out
