"""HashGrid neighbour queries: an SPH-like density sum (the while form), the for form with an
order-dependent checksum (Warp's cell and point order), points exactly on cell borders, negative
coordinates wrapping around the grid, an empty grid, two grids in one launch (one passed in a struct),
``hash_grid_point_id``, and gradients of a neighbour-weighted loss with respect to point positions."""

RTOL = 1e-5
ATOL = 1e-5


@wp.struct
class GridRef:
    grid: wp.uint64
    radius: float


@wp.kernel
def density(grid: wp.uint64, points: wp.array(dtype=wp.vec3), h: float, rho: wp.array(dtype=float),
            count: wp.array(dtype=int)):
    i = wp.tid()
    p = points[i]
    q = wp.hash_grid_query(grid, p, h)
    index = int(0)
    s = float(0.0)
    n = int(0)
    while wp.hash_grid_query_next(q, index):
        d = wp.length(points[index] - p)
        if d < h:
            w = h * h - d * d
            s += w * w * w
            n += 1
    rho[i] = s
    count[i] = n


@wp.kernel
def checksum(grid: wp.uint64, points: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=int),
             sorted_ids: wp.array(dtype=int)):
    i = wp.tid()
    c = int(0)
    for j in wp.hash_grid_query(grid, points[i], h):
        c = (c * 31 + j + 1) % 1000003
    out[i] = c
    sorted_ids[i] = wp.hash_grid_point_id(grid, i)


@wp.kernel
def two_grids(a: wp.uint64, ref: GridRef, points: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec2i)):
    i = wp.tid()
    na = int(0)
    nb = int(0)
    for j in wp.hash_grid_query(a, points[i], 0.3):
        na += 1
    for j in wp.hash_grid_query(ref.grid, points[i], ref.radius):
        nb += 1
    out[i] = wp.vec2i(na, nb)


@wp.kernel
def energy(grid: wp.uint64, points: wp.array(dtype=wp.vec3), h: float, loss: wp.array(dtype=float)):
    i = wp.tid()
    p = points[i]
    e = float(0.0)
    for j in wp.hash_grid_query(grid, p, h):
        if j != i:
            d = wp.length(points[j] - p)
            if d < h:
                e += (h - d) * (h - d) * float(j % 3 + 1)
    wp.atomic_add(loss, 0, e)


def _points(n, scale, offset, seed):
    rng = np.random.default_rng(seed)
    return (rng.random((n, 3)) * scale + offset).astype(np.float32)


def run():
    out = {}
    pts = _points(300, 3.0, -1.5, 7)
    pts[:40] = np.round(pts[:40] * 4.0) / 4.0  # exactly on cell borders (cell width 0.25)
    points = wp.array(pts, dtype=wp.vec3)
    grid = wp.HashGrid(8, 8, 8)  # smaller than the domain: cells wrap around
    grid.build(points, 0.25)
    rho = wp.zeros(300, dtype=float)
    count = wp.zeros(300, dtype=int)
    wp.launch(density, dim=300, inputs=[grid.id, points, 0.3, rho, count])
    out["rho"], out["count"] = rho.numpy(), count.numpy()

    sums = wp.zeros(300, dtype=int)
    sorted_ids = wp.zeros(300, dtype=int)
    wp.launch(checksum, dim=300, inputs=[grid.id, points, 0.3, sums, sorted_ids])
    out["checksum"], out["sorted_ids"] = sums.numpy().copy(), sorted_ids.numpy().copy()

    # negative coordinates far from the origin and a query larger than the grid
    far = wp.array(_points(100, 40.0, -60.0, 3), dtype=wp.vec3)
    big = wp.HashGrid(4, 5, 3)
    big.build(far, 2.0)
    far_sums = wp.zeros(100, dtype=int)
    far_ids = wp.zeros(100, dtype=int)
    wp.launch(checksum, dim=100, inputs=[big.id, far, 9.0, far_sums, far_ids])
    out["far_checksum"], out["far_ids"] = far_sums.numpy(), far_ids.numpy()

    # an empty grid: queries find nothing
    empty = wp.HashGrid(4, 4, 4)
    empty.build(wp.zeros(0, dtype=wp.vec3), 0.5)
    rho_e = wp.zeros(300, dtype=float)
    count_e = wp.zeros(300, dtype=int)
    wp.launch(density, dim=300, inputs=[empty.id, points, 0.3, rho_e, count_e])
    out["empty_count"] = count_e.numpy()

    # two grids in one launch, one of them reached through a struct field
    ref = GridRef()
    ref.grid = big.id
    ref.radius = 3.0
    both = wp.zeros(300, dtype=wp.vec2i)
    wp.launch(two_grids, dim=300, inputs=[grid.id, ref, points, both])
    out["two_grids"] = both.numpy()

    # rebuilding with moved points reuses the id
    grid.build(wp.array(pts[::-1].copy(), dtype=wp.vec3), 0.25)
    sums2 = wp.zeros(300, dtype=int)
    wp.launch(checksum, dim=300, inputs=[grid.id, points, 0.3, sums2, sorted_ids])
    out["rebuilt_checksum"] = sums2.numpy()

    # gradients through the neighbour arithmetic (the query itself has none)
    small = wp.array(_points(64, 1.0, -0.5, 11), dtype=wp.vec3, requires_grad=True)
    g = wp.HashGrid(6, 6, 6)
    g.build(small, 0.2)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(energy, dim=64, inputs=[g.id, small, 0.2, loss])
    tape.backward(loss=loss)
    out["energy"] = loss.numpy()
    out["energy_grad"] = small.grad.numpy()
    return out
