"""tile_map with a @wp.func that uses per-lane builtins on each element: a mesh closest-point
query, random numbers seeded per element and a loop with early returns (the pattern of Warp's example_tile_mcgp), with and without cooperative CPU blocks."""

TILE = 16


@wp.func
def probe(k: int, mesh: wp.uint64, seed: int, origin: wp.vec3, weight: float) -> float:
    rng = wp.rand_init(seed, k)
    p = origin + wp.sample_unit_sphere_surface(rng) * 0.3
    for _ in range(3):
        q = wp.mesh_query_point(mesh, p, 10.0)
        if not q.result:
            return -1.0
        c = wp.mesh_eval_position(mesh, q.face, q.u, q.v)
        d = wp.length(c - p)
        if d < 0.05:
            return d * weight * float(k % 4 + 1)
        p = p + (c - p) * 0.5
    return wp.length(p) * weight * float(k % 4 + 1)


@wp.kernel(enable_backward=False)
def walk(mesh: wp.uint64, origins: wp.array(dtype=wp.vec3), weights: wp.array(dtype=float),
         out: wp.array(dtype=float), each: wp.array2d(dtype=float)):
    i = wp.tid()
    ks = wp.tile_arange(TILE, dtype=int)
    r = wp.tile_map(probe, ks, mesh, 7, origins[i], weights[i])
    wp.tile_store(each[i], r)
    wp.tile_store(out, wp.tile_sum(r), offset=i)


def run():
    points = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=np.float32)
    faces = np.array([0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3], dtype=np.int32)
    mesh = wp.Mesh(points=wp.array(points, dtype=wp.vec3), indices=wp.array(faces, dtype=int))
    origins = wp.array(np.array([[0.2, 0.2, 0.2], [0.5, 0.1, 0.1], [2.0, 2.0, 2.0]], dtype=np.float32),
                       dtype=wp.vec3)
    weights = wp.array(np.array([1.0, 2.0, 0.5], dtype=np.float32))
    result = {}
    for enable in (False, True):
        wp.config.enable_cpu_blocks = enable
        try:
            out = wp.zeros(3, dtype=float)
            each = wp.zeros((3, TILE), dtype=float)
            wp.launch_tiled(walk, dim=3, inputs=[mesh.id, origins, weights, out, each], block_dim=8)
        finally:
            wp.config.enable_cpu_blocks = False
        result[f"out.{enable}"] = out.numpy()
        result[f"each.{enable}"] = each.numpy()
    return result
