"""``a.shape[k]`` past an array's rank reads 0 in kernels (Warp's shapes have 4 entries), for
arrays, array views and fixed-size local arrays."""


@wp.kernel
def padded(a: wp.array(dtype=float), b: wp.array2d(dtype=float), out: wp.array(dtype=int)):
    out[0] = a.shape[0]
    out[1] = a.shape[1]
    out[2] = a.shape[3]
    out[3] = b.shape[1]
    out[4] = b.shape[2]
    row = b[1]
    out[5] = row.shape[1]
    local = wp.zeros(shape=(2, 3), dtype=float)
    out[6] = local.shape[1]
    out[7] = local.shape[2]


def run():
    out = wp.full(8, -1, dtype=int)
    wp.launch(padded, 1, inputs=[wp.zeros(5), wp.zeros((2, 3)), out])
    return {"shapes": out.numpy()}
