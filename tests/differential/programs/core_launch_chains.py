"""A spring-mass step (a gather/atomic-scatter spring kernel, then an integrator that clears the
forces) run for several synchronized steps, with the spring index array replaced midway. In jwarp
the recurring launch sequence runs as a deferred, fused launch chain (jwarp/runtime/chain.py); the
arrays must match launching each kernel at once, as Warp does (float sums may differ in order)."""

RTOL = 1e-4
ATOL = 1e-5


@wp.kernel
def springs(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), idx: wp.array(dtype=int),
            rest: wp.array(dtype=float), ke: float, kd: float, f: wp.array(dtype=wp.vec3)):
    s = wp.tid()
    i = idx[2 * s]
    j = idx[2 * s + 1]
    d = x[j] - x[i]
    length = wp.length(d)
    direction = d / length
    force = direction * (ke * (length - rest[s]) + kd * wp.dot(v[j] - v[i], direction))
    wp.atomic_add(f, i, force)
    wp.atomic_sub(f, j, force)


@wp.kernel
def integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), f: wp.array(dtype=wp.vec3),
              inv_mass: wp.array(dtype=float), dt: float):
    i = wp.tid()
    w = inv_mass[i]
    vel = v[i]
    if w > 0.0:
        vel = vel + (f[i] * w + wp.vec3(0.0, -9.8, 0.0)) * dt
    v[i] = vel
    x[i] = x[i] + vel * dt
    f[i] = wp.vec3(0.0, 0.0, 0.0)


def _grid_springs(side: int) -> np.ndarray:
    index = np.arange(side * side).reshape(side, side)
    pairs = [(index[:-1, :], index[1:, :]), (index[:, :-1], index[:, 1:]), (index[:-1, :-1], index[1:, 1:])]
    return np.concatenate([np.stack([a.ravel(), b.ravel()], axis=1) for a, b in pairs]).astype(np.int32)


def run():
    side = 9
    n = side * side
    gx, gz = np.meshgrid(np.arange(side), np.arange(side), indexing="ij")
    pos = np.stack([gx * 0.1, np.ones_like(gx, dtype=float), gz * 0.1], axis=-1).reshape(-1, 3).astype(np.float32)
    pairs = _grid_springs(side)
    other = pairs[:, ::-1].copy()  # the same springs with their ends swapped: other signs, other order
    rest = np.linalg.norm(pos[pairs[:, 1]] - pos[pairs[:, 0]], axis=1).astype(np.float32)
    inv_mass = np.ones(n, np.float32)
    inv_mass[[0, side - 1]] = 0.0
    x = wp.array(pos, dtype=wp.vec3)
    v = wp.zeros(n, dtype=wp.vec3)
    f = wp.zeros(n, dtype=wp.vec3)
    idx = wp.array(pairs.reshape(-1), dtype=int)
    rest_a = wp.array(rest, dtype=float)
    inv_a = wp.array(inv_mass, dtype=float)
    snapshots = []
    for step in range(8):
        if step == 5:
            idx.assign(other.reshape(-1))
        for _ in range(3):
            wp.launch(springs, len(pairs), inputs=[x, v, idx, rest_a, 50.0, 0.5], outputs=[f])
            wp.launch(integrate, n, inputs=[x, v, f, inv_a, 1.0e-3])
        wp.synchronize()
        snapshots.append(x.numpy().copy())
    return {"x": x.numpy(), "v": v.numpy(), "trajectory": np.stack(snapshots)}
