"""Grouped HashGrid builds and queries: a query with a group id visits only that group's points
(in Warp's order: cell, then group as an unsigned number, then index), extreme and negative group
ids, a query without a group on a grouped grid (all points), and a float64 grid."""


@wp.kernel
def grouped(grid: wp.uint64, points: wp.array(dtype=wp.vec3), groups: wp.array(dtype=int), h: float,
            out: wp.array(dtype=int), plain: wp.array(dtype=int)):
    i = wp.tid()
    c = int(0)
    for j in wp.hash_grid_query(grid, points[i], h, groups[i]):
        c = (c * 31 + j + 1) % 1000003
    out[i] = c
    d = int(0)
    q = wp.hash_grid_query(grid, points[i], h)
    k = int(0)
    while wp.hash_grid_query_next(q, k):
        d = (d * 17 + k + 1) % 1000003
    plain[i] = d


@wp.kernel
def nearest64(grid: wp.uint64, points: wp.array(dtype=wp.vec3d), h: wp.float64, out: wp.array(dtype=int)):
    i = wp.tid()
    best = int(-1)
    best_d = h * h
    for j in wp.hash_grid_query(grid, points[i], h):
        if j != i:
            o = points[j] - points[i]
            d = wp.dot(o, o)
            if d <= best_d:
                best = j
                best_d = d
    out[i] = best


def run():
    rng = np.random.default_rng(5)
    pts = (rng.random((200, 3)) * 2.0 - 1.0).astype(np.float32)
    group_ids = rng.choice(np.array([0, 1, 2, -1, 2147483647, -2147483648], np.int32), 200)
    points = wp.array(pts, dtype=wp.vec3)
    groups = wp.array(group_ids, dtype=int)
    grid = wp.HashGrid(6, 6, 6)
    grid.build(points, 0.3, groups=groups)
    out = wp.zeros(200, dtype=int)
    plain = wp.zeros(200, dtype=int)
    wp.launch(grouped, dim=200, inputs=[grid.id, points, groups, 0.35, out, plain])
    result = {"grouped": out.numpy().copy(), "ungrouped": plain.numpy().copy()}

    pts64 = rng.random((150, 3)) * 3.0 - 2.0
    p64 = wp.array(pts64, dtype=wp.vec3d)
    g64 = wp.HashGrid(5, 5, 5, dtype=wp.float64)
    g64.build(p64, 0.4)
    nearest = wp.zeros(150, dtype=int)
    wp.launch(nearest64, dim=150, inputs=[g64.id, p64, 0.4, nearest])
    result["nearest64"] = nearest.numpy()
    return result
