"""Cooperative CPU blocks with threads that are not running: a partial last block
(wp.launch(dim=..., block_dim=B) with dim not a multiple of B) and lanes that returned early.
Element e of a tile belongs to thread e % block_dim; reductions (whole tile and along an axis,
builtin and user operators, argmax), scans and stores skip the elements of the threads that are
not running; tile_sort and tile results still reach the threads that remain; gradients flow only
to the elements that took part."""

B = 16
ACTIVE = 8


@wp.func
def mul_op(a: float, b: float):
    return a * b


@wp.kernel
def partial_reduce(x: wp.array2d(dtype=float), sums: wp.array(dtype=float), mins: wp.array(dtype=float),
                   maxs: wp.array(dtype=float), prods: wp.array(dtype=float), rows: wp.array(dtype=float),
                   total: wp.array(dtype=float), custom: wp.array(dtype=float), arg: wp.array(dtype=int),
                   stored: wp.array2d(dtype=float)):
    t = wp.tile_load(x, shape=(8, 4), storage="shared")
    wp.tile_store(sums, wp.tile_sum(t, axis=0))
    wp.tile_store(mins, wp.tile_reduce(wp.min, t, axis=0))
    wp.tile_store(maxs, wp.tile_reduce(wp.max, t, axis=0))
    wp.tile_store(prods, wp.tile_reduce(wp.mul, t, axis=0))
    wp.tile_store(rows, wp.tile_reduce(wp.min, t, axis=1))
    wp.tile_store(total, wp.tile_sum(t))
    wp.tile_store(custom, wp.tile_reduce(mul_op, t))
    wp.tile_store(arg, wp.tile_argmax(t))
    wp.tile_store(stored, t * 2.0)


@wp.kernel
def partial_scan(x: wp.array(dtype=float), inc: wp.array(dtype=float), exc: wp.array(dtype=float),
                 mx: wp.array(dtype=float)):
    t = wp.tile_load(x, shape=32)
    wp.tile_store(inc, wp.tile_scan_inclusive(t))
    wp.tile_store(exc, wp.tile_scan_exclusive(t))
    wp.tile_store(mx, wp.tile_scan_max_inclusive(t))


@wp.kernel
def lane0_leaves(keys_in: wp.array(dtype=int), keys_out: wp.array(dtype=int), stored: wp.array(dtype=int)):
    _block, lane = wp.tid()
    keys = wp.tile_load(keys_in, shape=20, storage="shared")
    vals = wp.tile_arange(20, dtype=int, storage="shared")
    if lane == 0:
        return
    wp.tile_sort(keys, vals)
    wp.tile_store(stored, vals)
    if lane == 1:
        for i in range(20):
            keys_out[i] = keys[i]


def run():
    wp.config.enable_cpu_blocks = True
    try:
        rng = np.random.default_rng(5)
        x_np = (rng.random((8, 4)) + 0.5).astype(np.float32)
        x = wp.array(x_np, requires_grad=True)
        sums = wp.zeros(4, requires_grad=True)
        outs = [wp.zeros(4) for _ in range(3)]
        rows = wp.zeros(8)
        total = wp.zeros(1)
        custom = wp.zeros(1)
        arg = wp.zeros(1, dtype=int)
        stored = wp.zeros((8, 4))
        tape = wp.Tape()
        with tape:
            wp.launch(partial_reduce, dim=ACTIVE, inputs=[x, sums, *outs, rows, total, custom, arg, stored],
                      block_dim=B)
        sums.grad.fill_(1.0)
        tape.backward()

        s_np = np.concatenate([np.full(16, 100.0), rng.random(32) * 10.0 - 5.0]).astype(np.float32)
        sx = wp.array(s_np[16:])
        inc, exc, mx = wp.zeros(32), wp.zeros(32), wp.zeros(32)
        wp.launch(partial_scan, dim=ACTIVE, inputs=[sx, inc, exc, mx], block_dim=B)
        lanes = (np.arange(32) % B) < ACTIVE

        keys_np = rng.permutation(20).astype(np.int32)
        keys_out = wp.full(20, -1, dtype=int)
        vals_stored = wp.full(20, -1, dtype=int)
        wp.launch_tiled(lane0_leaves, dim=1, inputs=[wp.array(keys_np), keys_out, vals_stored], block_dim=B)

        return {
            "sums": sums.numpy(), "mins": outs[0].numpy(), "maxs": outs[1].numpy(), "prods": outs[2].numpy(),
            "rows": rows.numpy(), "total": total.numpy(), "custom": custom.numpy(), "arg": arg.numpy(),
            "stored": stored.numpy(), "x_grad": x.grad.numpy(),
            "inc": inc.numpy()[lanes], "exc": exc.numpy()[lanes], "mx": mx.numpy()[lanes],
            "keys_out": keys_out.numpy(), "vals_stored": vals_stored.numpy(),
        }
    finally:
        wp.config.enable_cpu_blocks = False
