"""Hash-grid ``for`` loops lowered as a flattened pass over (lane, candidate) pairs (loops that only
accumulate): an SPH density and a force sum under ``if`` (``acc += ...``), a DEM-style contact sum
(``f = f + contact(...)``) with an atomic, an integer count, queries wrapping around a small grid and
larger than it, a 2-D launch, a masked launch (some lanes skip the loop), a loop keeping the last
candidate (``k = j``, reduced in the query's order), and loops that are NOT pure accumulations (an
order-dependent checksum, a random state) which keep the per-lane loop; and the ``while wp.hash_grid_query_next(query, index)`` form of an
accumulating loop (lowered the same way) next to while forms that must keep the per-lane loop (the
last index read after the loop, a query read again). Variables of the kernel's scope that a loop
body only uses as scratch (assigned before read in each iteration, never read after the loop, as
in Warp's DEM example) do not stop the pass over pairs, nor do subtracted terms (``f -= e``) or
``wp.grad`` of a pure function; one read after the loop, one read before
its assignment on some path, or one read by an enclosing loop does. Float sums associate
differently than in Warp: tolerances."""

RTOL = 1e-4
ATOL = 1e-5


@wp.func
def contact(p: wp.vec3, q: wp.vec3, h: float):
    d = p - q
    r = wp.length(d)
    if r > 1.0e-6 and r < h:
        return d * ((h - r) / r)
    return wp.vec3()


@wp.kernel
def sums(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, rho: wp.array(dtype=float),
         f: wp.array(dtype=wp.vec3), n: wp.array(dtype=int), hits: wp.array(dtype=int)):
    i = wp.tid()
    p = x[i]
    total = float(0.0)
    acc = wp.vec3()
    force = wp.vec3(1.0, 0.0, 0.0)
    count = int(0)
    for j in wp.hash_grid_query(grid, p, h):
        d = x[j] - p
        r2 = wp.dot(d, d)
        if r2 < h * h:
            total += (h * h - r2) * (h * h - r2)
            acc += d * float(j % 3)
        force = force + contact(p, x[j], h)
        count += 1
        wp.atomic_add(hits, j, 1)
    rho[i] = total
    f[i] = acc + force
    n[i] = count


@wp.kernel
def masked(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=float)):
    i, k = wp.tid()
    p = x[i]
    s = float(k)
    if i % 3 != 0:
        for j in wp.hash_grid_query(grid, p, h * float(k + 1)):
            s = s + wp.length(x[j] - p)
    out[i * 2 + k] = s


@wp.kernel
def ordered(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=int),
            last: wp.array(dtype=int), rnd: wp.array(dtype=float)):
    i = wp.tid()
    c = int(0)
    for j in wp.hash_grid_query(grid, x[i], h):
        c = c * 31 + j  # order-dependent: not an accumulation
    out[i] = c
    k = int(-1)
    for j in wp.hash_grid_query(grid, x[i], h):
        k = j
    last[i] = k
    state = wp.rand_init(7, i)
    t = float(0.0)
    for j in wp.hash_grid_query(grid, x[i], h):
        t += wp.randf(state)  # the random state changes each iteration
    rnd[i] = t


@wp.kernel
def while_sums(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, rho: wp.array(dtype=float),
               n: wp.array(dtype=int), last: wp.array(dtype=int), again: wp.array(dtype=int)):
    i = wp.tid()
    p = x[i]
    query = wp.hash_grid_query(grid, p, h)
    index = int(0)
    total = float(0.0)
    count = int(0)
    while wp.hash_grid_query_next(query, index):
        d = x[index] - p
        r2 = wp.dot(d, d)
        if r2 < h * h:
            total += (h * h - r2) * float(index % 5)
        count += 1
    rho[i] = total
    n[i] = count
    q2 = wp.hash_grid_query(grid, p, h)
    k = int(-1)
    c = int(0)
    while wp.hash_grid_query_next(q2, k):
        c += 1
    last[i] = k + c  # the last index: not an accumulation
    q3 = wp.hash_grid_query(grid, p, h)
    m = int(0)
    c = int(0)
    while wp.hash_grid_query_next(q3, m):
        c += 1
    while wp.hash_grid_query_next(q3, m):  # the exhausted query: finds nothing
        c += 100
    again[i] = c


@wp.kernel
def scratch(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    p = x[i]
    n = wp.vec3(0.0, 1.0, 0.0)
    m = float(0.5)
    w = float(-1.0)
    u = float(0.0)
    f = wp.vec3() + n * wp.dot(n, p)  # n read before the loop
    for j in wp.hash_grid_query(grid, p, h):  # n: scratch (pair pass)
        if j != i:
            n = p - x[j]
            d = wp.length(n)
            if d < h:
                n = n / d
                f = f + n * (h - d)
    g = float(0.0)
    for j in wp.hash_grid_query(grid, p, h):  # m: read where it may not be assigned (per-lane loop)
        r = wp.length(p - x[j])
        if r < h:
            m = r
        g += m
    for j in wp.hash_grid_query(grid, p, h):  # w: read after the loop (per-lane loop)
        w = wp.length(p - x[j])
        g += w
    g += w
    for k in range(2):
        g += u  # u: read by the enclosing loop before the query loop assigns it (per-lane loop)
        for j in wp.hash_grid_query(grid, p, h * float(k + 1)):
            u = float(j % 7)
            g += u * 0.25
    out[i] = wp.vec4(f[0], f[1], f[2], g)


@wp.func
def potential(d: wp.vec3):
    return 1.0 / (wp.dot(d, d) + 0.5)


@wp.kernel(enable_backward=False)
def subtracted(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    p = x[i]
    f = wp.vec3()
    g = float(1.0)
    for j in wp.hash_grid_query(grid, p, h):  # subtracted terms and wp.grad of a pure function
        if j != i:
            f -= wp.grad(potential)(p - x[j])
            g = g - 0.5 * float(j % 3)
    out[i] = wp.vec4(f[0], f[1], f[2], g)


def _points(n, scale, offset, seed):
    return (np.random.default_rng(seed).random((n, 3)) * scale + offset).astype(np.float32)


def run():
    out = {}
    pts = _points(400, 2.0, -1.0, 11)
    x = wp.array(pts, dtype=wp.vec3)
    grid = wp.HashGrid(4, 4, 4)  # smaller than the points' domain: cells wrap around
    grid.build(x, 0.25)
    rho = wp.zeros(400, dtype=float)
    f = wp.zeros(400, dtype=wp.vec3)
    n = wp.zeros(400, dtype=int)
    hits = wp.zeros(400, dtype=int)
    wp.launch(sums, dim=400, inputs=[grid.id, x, 0.3, rho, f, n, hits])
    out["rho"], out["f"], out["n"], out["hits"] = rho.numpy(), f.numpy(), n.numpy(), hits.numpy()
    big = wp.HashGrid(3, 2, 5)  # queries larger than the grid
    big.build(x, 0.5)
    m = wp.zeros(800, dtype=float)
    wp.launch(masked, dim=(400, 2), inputs=[big.id, x, 1.2, m])
    out["masked"] = m.numpy()
    c = wp.zeros(400, dtype=int)
    last = wp.zeros(400, dtype=int)
    rnd = wp.zeros(400, dtype=float)
    wp.launch(ordered, dim=400, inputs=[grid.id, x, 0.3, c, last, rnd])
    out["checksum"], out["last"], out["rnd"] = c.numpy(), last.numpy(), rnd.numpy()
    w = [wp.zeros(400, dtype=t) for t in (float, int, int, int)]
    wp.launch(while_sums, dim=400, inputs=[grid.id, x, 0.3, *w])
    out["while_rho"], out["while_n"], out["while_last"], out["while_again"] = (a.numpy() for a in w)
    s = wp.zeros(400, dtype=wp.vec4)
    wp.launch(scratch, dim=400, inputs=[grid.id, x, 0.3, s])
    out["scratch"] = s.numpy()
    s2 = wp.zeros(400, dtype=wp.vec4)
    wp.launch(subtracted, dim=400, inputs=[grid.id, x, 0.3, s2])
    out["subtracted"] = s2.numpy()
    return out
