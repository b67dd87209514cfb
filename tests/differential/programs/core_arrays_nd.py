@wp.kernel
def grid2(a: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[i, j] = a[i, j] * 2.0 + float(i * 10 + j)


@wp.kernel
def stencil(u: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    n = u.shape[0]
    m = u.shape[1]
    if i > 0 and i < n - 1 and j > 0 and j < m - 1:
        out[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]


@wp.kernel
def grid3(a: wp.array3d(dtype=int)):
    i, j, k = wp.tid()
    a[i, j, k] = i * 100 + j * 10 + k


@wp.kernel
def grid4(a: wp.array4d(dtype=int)):
    i, j, k, l = wp.tid()
    a[i, j, k, l] = i * 1000 + j * 100 + k * 10 + l


@wp.kernel
def rows(a: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    row = a[i]
    s = float(0.0)
    for j in range(a.shape[1]):
        s += row[j]
    out[i] = s + float(len(a))


@wp.kernel
def transpose_gather(a: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[j, i] = a[i, j]


def run():
    rng = np.random.default_rng(2)
    a = wp.array(rng.standard_normal((5, 7)).astype(np.float32))
    out = wp.zeros((5, 7), dtype=float)
    wp.launch(grid2, dim=(5, 7), inputs=[a, out])
    lap = wp.zeros((5, 7), dtype=float)
    wp.launch(stencil, dim=(5, 7), inputs=[a, lap])
    g3 = wp.zeros((2, 3, 4), dtype=int)
    wp.launch(grid3, dim=(2, 3, 4), inputs=[g3])
    g4 = wp.zeros((2, 2, 3, 2), dtype=int)
    wp.launch(grid4, dim=(2, 2, 3, 2), inputs=[g4])
    r = wp.zeros(5, dtype=float)
    wp.launch(rows, dim=5, inputs=[a, r])
    t = wp.zeros((7, 5), dtype=float)
    wp.launch(transpose_gather, dim=(5, 7), inputs=[a, t])
    return {"grid2": out, "stencil": lap, "grid3": g3, "grid4": g4, "rows": r, "t": t}
