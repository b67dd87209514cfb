"""Hash-grid loops whose terms are added only under a data-dependent test (``if d < r: f += ...``),
which the pass over pairs runs twice: first as far as the test, then the whole body for the pairs
that pass (one per lane at a time), or the whole body for all pairs of a block where some lane has
many that pass. Points: a loose cloud (few contacts, the filtered path) and a tight cluster (every
candidate a contact, the unfiltered path), queried with a radius larger than the contact distance
(several blocks of candidates per lane); a DEM-style contact force (Warp's example's shape), an
``if``/``else`` that adds in both branches, a 2-D launch with lanes that skip the loop, an integer
count and a vector sum under the same test; terms that are calls to functions returning a constant
zero beyond a support radius (Warp's SPH kernels), and to one whose other return is
``wp.quat_identity()`` (not zero). Float
sums associate differently than in Warp."""

RTOL = 1e-4
ATOL = 1e-4


@wp.func
def contact_force(n: wp.vec3, v: wp.vec3, c: float, k_n: float, k_d: float, k_f: float, k_mu: float):
    vn = wp.dot(n, v)
    jn = c * k_n
    jd = min(vn, 0.0) * k_d
    fn = jn + jd
    vt = v - n * vn
    vs = wp.length(vt)
    if vs > 0.0:
        vt = vt / vs
    ft = wp.min(vs * k_f, k_mu * wp.abs(fn))
    return -n * fn - vt * ft


@wp.kernel
def contacts(grid: wp.uint64, x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), radius: float,
             f: wp.array(dtype=wp.vec3), n_contacts: wp.array(dtype=int)):
    tid = wp.tid()
    i = wp.hash_grid_point_id(grid, tid)
    p = x[i]
    u = v[i]
    force = wp.vec3()
    count = int(0)
    for index in wp.hash_grid_query(grid, p, radius * 4.0):
        if index != i:
            n = p - x[index]
            d = wp.length(n)
            err = d - radius * 2.0
            if err <= 0.0:
                n = n / d
                force = force + contact_force(n, u - v[index], err, 800.0, 2.0, 1.0, 0.5)
                count += 1
    f[i] = force
    n_contacts[i] = count


@wp.func
def falloff(r: float, h: float):
    q = r / h
    w = (1.0 - q) * (1.0 - q) * (1.0 + 2.0 * q) + 0.25 * q * q * q
    return w * wp.exp(-q) / (1.0 + q * q)


@wp.kernel
def both_branches(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    p = x[i]
    near = float(0.0)
    far = float(0.0)
    for j in wp.hash_grid_query(grid, p, h):
        r = wp.length(x[j] - p)
        if r < 0.5 * h:
            near += falloff(r, h)
        else:
            far += wp.sqrt(r) * float(j % 4) * falloff(h - r, h)
    out[i] = wp.vec2(near, far)


@wp.kernel
def masked_2d(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=wp.vec4)):
    i, k = wp.tid()
    p = x[i]
    s = wp.vec3(float(k), 0.0, 0.0)
    c = int(0)
    if i % 3 != 1:
        for j in wp.hash_grid_query(grid, p, h * float(k + 1)):
            d = x[j] - p
            if wp.dot(d, d) < 0.01 * float(k + 1):
                s += wp.normalize(d + wp.vec3(1.0e-3, 0.0, 0.0)) * x[j][1] * falloff(wp.length(d), h)
                c += j % 5
    out[i * 2 + k] = wp.vec4(s[0], s[1], s[2], float(c))


@wp.func
def pressure_term(xyz: wp.vec3, p: float, q: float, rho: float, h: float):
    distance = wp.sqrt(wp.dot(xyz, xyz))
    if distance < h:  # zero beyond the support radius, as Warp's SPH kernels
        term_1 = -xyz / wp.max(distance, 1.0e-6)
        term_2 = (q + p) / (2.0 * rho)
        term_3 = (h - distance) * (h - distance)
        return term_1 * term_2 * term_3
    else:
        return wp.vec3()


@wp.func
def viscous_term(xyz: wp.vec3, v: wp.vec3, w: wp.vec3, rho: float, h: float):
    distance = wp.sqrt(wp.dot(xyz, xyz))
    if distance < h:
        return (w - v) / rho * (h - distance)
    else:
        return wp.vec3()


@wp.func
def spin(xyz: wp.vec3, h: float):
    r = wp.length(xyz)
    if r < h:
        s = (h - r) * (h - r) / (h * h)
        return wp.quat(xyz[0] * s, xyz[1] * s, wp.sin(r) * s, wp.cos(r) * s + r * r)
    return wp.quat_identity()  # (0, 0, 0, 1), a call of no arguments that is not zero: every pair adds it


@wp.kernel
def support_radius(grid: wp.uint64, x: wp.array(dtype=wp.vec3), rho: wp.array(dtype=float), radius: float,
                   h: float, out: wp.array(dtype=wp.vec3), other: wp.array(dtype=wp.quat)):
    tid = wp.tid()
    i = wp.hash_grid_point_id(grid, tid)
    p = x[i]
    f = wp.vec3()
    u = wp.vec3()
    for index in wp.hash_grid_query(grid, p, radius):  # as Warp's SPH example's get_acceleration
        if index != i:
            f += pressure_term(x[index] - p, rho[i], rho[index], rho[index] + 1.0, h)
            u += viscous_term(x[index] - p, x[i], x[index], rho[index] + 1.0, h)
    out[i] = f + u * 0.5
    q = wp.quat(0.0, 0.0, 0.0, 0.0)
    for k in wp.hash_grid_query(grid, p, radius):  # (a loop variable of its own: see pair_analysis.accumulators)
        q += spin(x[k] - p, h)
    other[i] = q


def _points(seed):
    rng = np.random.default_rng(seed)
    loose = rng.random((500, 3)) * 2.0 - 1.0
    tight = rng.normal(size=(200, 3)) * 0.03 + 0.5
    return np.concatenate([loose, tight]).astype(np.float32)


def run():
    out = {}
    pts = _points(5)
    n = len(pts)
    x = wp.array(pts, dtype=wp.vec3)
    v = wp.array(np.random.default_rng(6).normal(size=(n, 3)).astype(np.float32), dtype=wp.vec3)
    grid = wp.HashGrid(8, 8, 8)
    grid.build(x, 0.25)
    f = wp.zeros(n, dtype=wp.vec3)
    c = wp.zeros(n, dtype=int)
    wp.launch(contacts, dim=n, inputs=[grid.id, x, v, 0.06, f, c])
    out["force"], out["contacts"] = f.numpy(), c.numpy()
    b = wp.zeros(n, dtype=wp.vec2)
    wp.launch(both_branches, dim=n, inputs=[grid.id, x, 0.25, b])
    out["both"] = b.numpy()
    m = wp.zeros(2 * n, dtype=wp.vec4)
    wp.launch(masked_2d, dim=(n, 2), inputs=[grid.id, x, 0.2, m])
    out["masked_2d"] = m.numpy()
    rho = wp.array(np.random.default_rng(7).random(n).astype(np.float32) + 0.5, dtype=float)
    a, o = wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.quat)
    wp.launch(support_radius, dim=n, inputs=[grid.id, x, rho, 0.5, 0.15, a, o])  # many candidates, few within h
    out["support_radius"], out["identity_else"] = a.numpy(), o.numpy()
    return out
