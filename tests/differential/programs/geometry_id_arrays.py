"""Geometry ids read from arrays inside kernels: a loop over a ``wp.array`` of mesh ids (closest
mesh and distance per point, with a repeated id and a stale non-id value never read) and a
``wp.array`` of volume ids indexed per thread. (``wp.geometry.swept_volume_sdf``, which takes its
meshes this way, matches Warp in its four sign modes but compiles for over 5 s, so it is not here.)"""

import numpy as np

RTOL = 1e-5
ATOL = 1e-5


@wp.kernel
def closest(ids: wp.array(dtype=wp.uint64), count: int, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float),
            which: wp.array(dtype=int)):
    i = wp.tid()
    best = float(1.0e6)
    arg = int(-1)
    for m in range(count):
        q = wp.mesh_query_point_no_sign(ids[m], pts[i], 1.0e6)
        if q.result:
            d = wp.length(pts[i] - wp.mesh_eval_position(ids[m], q.face, q.u, q.v))
            if d < best:
                best = d
                arg = m
    out[i] = best
    which[i] = arg


@wp.kernel
def sample_volumes(ids: wp.array(dtype=wp.uint64), pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    v = ids[i % ids.shape[0]]
    out[i] = wp.volume_sample_f(v, wp.volume_world_to_index(v, pts[i]), wp.Volume.LINEAR)


def _tet(offset, scale=1.0):
    p = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float32) * np.float32(scale) + np.float32(offset)
    t = np.array([0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3], np.int32)
    return wp.Mesh(wp.array(p, dtype=wp.vec3), wp.array(t, dtype=wp.int32), support_winding_number=True)


def run():
    rng = np.random.default_rng(5)
    out = {}
    meshes = [_tet(0.0), _tet(3.0, 2.0), _tet(-4.0)]
    ids = wp.array([meshes[0].id, meshes[1].id, meshes[2].id, meshes[1].id, 12345], dtype=wp.uint64)
    pts = wp.array(rng.uniform(-5.0, 5.0, (96, 3)).astype(np.float32), dtype=wp.vec3)
    dist, which = wp.zeros(96, dtype=float), wp.zeros(96, dtype=int)
    wp.launch(closest, 96, inputs=[ids, 4, pts, dist, which])
    out["closest_dist"], out["closest_mesh"] = dist.numpy(), which.numpy()

    grid = np.linspace(-1.0, 1.0, 6, dtype=np.float32)
    a = np.add.outer(np.add.outer(grid, grid), grid).astype(np.float32)
    volumes = [wp.Volume.load_from_numpy(a, min_world=(-1.0, -1.0, -1.0), voxel_size=0.4, bg_value=0.0),
               wp.Volume.load_from_numpy(a * a, min_world=(0.0, 0.0, 0.0), voxel_size=0.25, bg_value=-1.0)]
    vids = wp.array([volumes[0].id, volumes[1].id], dtype=wp.uint64)
    samples = wp.zeros(96, dtype=float)
    wp.launch(sample_volumes, 96, inputs=[vids, wp.array(rng.uniform(-1.0, 1.5, (96, 3)).astype(np.float32),
                                                         dtype=wp.vec3), samples])
    out["volume_samples"] = samples.numpy()

    return out
