"""One kernel launched at many sizes over the same arrays (an active count that changes every step):
stores, atomics, a data-dependent loop and a hash-grid query must touch exactly the first ``dim``
threads' elements. jwarp runs the launches after the first size in buckets of lanes with the extra
lanes masked off (jwarp/runtime/launch_buckets.py); Warp compiles once and runs ``dim`` threads."""

RTOL = 1e-5
ATOL = 1e-6

SIZES = (200, 37, 150, 151, 64, 1, 199, 120)


@wp.kernel
def step(x: wp.array(dtype=float), y: wp.array(dtype=float), hist: wp.array(dtype=int), s: float):
    i = wp.tid()
    v = x[i] * s + y[i]
    y[i] = v
    wp.atomic_add(hist, i % 7, 1)


@wp.kernel
def collatz(start: wp.array(dtype=int), steps: wp.array(dtype=int)):
    i = wp.tid()
    n = start[i]
    k = int(0)
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        k += 1
    steps[i] = steps[i] + k


@wp.kernel
def neighbours(grid: wp.uint64, pts: wp.array(dtype=wp.vec3), radius: float, count: wp.array(dtype=int)):
    i = wp.tid()
    p = pts[i]
    c = int(0)
    for j in wp.hash_grid_query(grid, p, radius):
        if wp.length(pts[j] - p) <= radius:
            c += 1
    count[i] = c


def run():
    n = max(SIZES)
    rng = np.random.default_rng(3)
    x = wp.array(rng.standard_normal(n).astype(np.float32))
    y = wp.zeros(n, dtype=float)
    hist = wp.zeros(7, dtype=int)
    start = wp.array(rng.integers(1, 60, n).astype(np.int32))
    steps = wp.zeros(n, dtype=int)
    pts = wp.array(rng.random((n, 3)).astype(np.float32), dtype=wp.vec3)
    grid = wp.HashGrid(8, 8, 8)
    grid.build(pts, 0.2)
    counts = []
    for k, dim in enumerate(SIZES):
        wp.launch(step, dim=dim, inputs=[x, y, hist, 0.5 + k])
        wp.launch(collatz, dim=dim, inputs=[start, steps])
        count = wp.full(n, -1, dtype=int)
        wp.launch(neighbours, dim=dim, inputs=[grid.id, pts, 0.2, count])
        counts.append(count.numpy())
    return {"y": y.numpy(), "hist": hist.numpy(), "steps": steps.numpy(), "counts": np.stack(counts)}
