"""Query loops that keep an extreme or the best candidate, lowered as a pass over (lane, candidate)
pairs (jwarp/compiler/pair_reductions.py): nearest and farthest neighbours by a guarded update
(``if d < best and j != i: best = d; index = j; where = x[j]``), the test written either way round,
running maxima and minima (``wp.max``/``wp.min`` of floats, ints and vectors: a neighbourhood's
bounding box), last values (a flag set under a test, the last candidate passing one), the
``while wp.hash_grid_query_next`` form, lanes that skip the loop, and box queries of a mesh (the
BVH's visiting order). Points on a lattice give many equal distances: the neighbour
kept is the first in the query's order, as Warp's loop keeps it. Loops that must keep the per-lane
loop give Warp's results too: ``<=`` (the last equal candidate wins), and a best read elsewhere in
the body. (Gradients of such loops: tests/compiler/test_pair_reductions.py checks them against finite
differences; Warp's adjoint of a dynamic loop does not replay the best candidate's state and differs.)"""

import numpy as np

from tests.differential.meshes import torus

RTOL = 1e-6  # (lengths can differ from Warp's in the last bit; indices compare exactly)
ATOL = 0.0


@wp.kernel
def nearest(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, index: wp.array(dtype=int),
            dist: wp.array(dtype=float), where: wp.array(dtype=wp.vec3), far: wp.array(dtype=int)):
    tid = wp.tid()
    i = wp.hash_grid_point_id(grid, tid)
    p = x[i]
    best = float(h)
    best_j = int(-1)
    best_p = wp.vec3(-1.0, -1.0, -1.0)
    most = float(-1.0)
    far_j = int(-7)
    for j in wp.hash_grid_query(grid, p, h):
        d = wp.length(x[j] - p)
        if d < best and j != i:
            best = d
            best_j = j
            best_p = x[j]
        if most < d:  # the larger value kept, the test written the other way round
            far_j = j * 2
            most = d
    index[i] = best_j
    dist[i] = best
    where[i] = best_p
    far[i] = far_j


@wp.kernel
def extremes(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, top: wp.array(dtype=float),
             low: wp.array(dtype=int), lo: wp.array(dtype=wp.vec3), hi: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = x[i]
    m = float(-5.0)
    k = int(1000000)
    a = p
    b = p
    if i % 5 != 2:  # some lanes skip the loop
        for j in wp.hash_grid_query(grid, p, h):
            r = wp.length(x[j] - p)
            if r < h:
                m = wp.max(m, r * float(j % 4))
                k = wp.min(j, k)
                a = wp.min(a, x[j])
                b = wp.max(x[j], b)
    top[i] = m
    low[i] = k
    lo[i] = a
    hi[i] = b


@wp.kernel
def lasts(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, hit: wp.array(dtype=int),
          last: wp.array(dtype=int), where: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = x[i]
    near = int(0)
    k = int(-1)
    q = wp.vec3()
    touched = bool(False)
    for j in wp.hash_grid_query(grid, p, h):
        d = wp.length(x[j] - p)
        if d < 0.5 * h and j != i:
            near = 1  # a flag: the same value from every candidate that sets it
            q = x[j]
        if j % 3 == 1:
            k = j  # the last such candidate in the query's order
        if d > 0.9 * h:
            touched = True
    hit[i] = near + 10 * int(touched)
    last[i] = k
    where[i] = q


@wp.kernel
def while_nearest(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, index: wp.array(dtype=int),
                  most: wp.array(dtype=float)):
    i = wp.tid()
    p = x[i]
    query = wp.hash_grid_query(grid, p, h)
    j = int(0)
    best = float(1.0e6)
    best_j = int(-1)
    m = float(0.0)
    while wp.hash_grid_query_next(query, j):
        d = wp.length(x[j] - p)
        if j != i and d < best:
            best = d
            best_j = j
        m = wp.max(m, d)
    index[i] = best_j
    most[i] = m


@wp.kernel
def per_lane(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, last: wp.array(dtype=int),
             seen: wp.array(dtype=float)):
    i = wp.tid()
    p = x[i]
    best = float(h)
    best_j = int(-1)
    for j in wp.hash_grid_query(grid, p, h):  # <=: the last of equal candidates (per-lane loop)
        d = wp.length(x[j] - p)
        if d <= best and j != i:
            best = d
            best_j = j
    last[i] = best_j
    low = float(h)
    s = float(0.0)
    for j in wp.hash_grid_query(grid, p, h):  # the best read in the body (per-lane loop)
        d = wp.length(x[j] - p)
        if d < low and j != i:
            low = d
        s += low
    seen[i] = s


@wp.kernel
def mesh_boxes(mesh: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, face: wp.array(dtype=int),
               top: wp.array(dtype=float)):
    i = wp.tid()
    p = x[i]
    lower = p - wp.vec3(h, h, h)
    upper = p + wp.vec3(h, h, h)
    best = float(1.0e6)
    best_f = int(-1)
    m = float(0.0)
    for f in wp.mesh_query_aabb(mesh, lower, upper):
        c = wp.mesh_eval_position(mesh, f, 0.25, 0.25)
        d = wp.length(c - p)
        if d < best:
            best = d
            best_f = f
        m = wp.max(m, float(f % 13))
    face[i] = best_f
    top[i] = m


@wp.kernel
def nearest_energy(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, energy: wp.array(dtype=float)):
    i = wp.tid()
    p = x[i]
    best = float(h)
    q = p
    m = float(0.0)
    for j in wp.hash_grid_query(grid, p, h):
        d = wp.length(x[j] - p)
        if d < best and j != i:
            best = d
            q = x[j]
        if d < h:
            m = wp.max(m, d)
    energy[i] = wp.length(q - p) + 0.5 * m


def _lattice(n_side, spacing):
    g = np.arange(n_side, dtype=np.float32) * spacing
    return np.stack(np.meshgrid(g, g, g, indexing="ij"), -1).reshape(-1, 3).astype(np.float32)


def run():
    out = {}
    rng = np.random.default_rng(21)
    random_pts = (rng.random((500, 3)) * 2.0 - 1.0).astype(np.float32)
    lattice = _lattice(7, 0.125)  # exact distances: many ties
    for name, pts, cell in (("random", random_pts, 0.25), ("lattice", lattice, 0.2)):
        n = len(pts)
        x = wp.array(pts, dtype=wp.vec3)
        grid = wp.HashGrid(4, 4, 4)  # smaller than the points' domain: cells wrap around
        grid.build(x, cell)
        res = [wp.zeros(n, dtype=int), wp.zeros(n, dtype=float), wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=int)]
        wp.launch(nearest, dim=n, inputs=[grid.id, x, cell, *res])
        for key, a in zip(("index", "dist", "where", "far"), res):
            out[f"{name}_nearest_{key}"] = a.numpy()
        res = [wp.zeros(n, dtype=float), wp.zeros(n, dtype=int), wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.vec3)]
        wp.launch(extremes, dim=n, inputs=[grid.id, x, cell, *res])
        for key, a in zip(("top", "low", "lo", "hi"), res):
            out[f"{name}_extremes_{key}"] = a.numpy()
        res = [wp.zeros(n, dtype=int), wp.zeros(n, dtype=int), wp.zeros(n, dtype=wp.vec3)]
        wp.launch(lasts, dim=n, inputs=[grid.id, x, cell, *res])
        for key, a in zip(("hit", "last", "where"), res):
            out[f"{name}_lasts_{key}"] = a.numpy()
        res = [wp.zeros(n, dtype=int), wp.zeros(n, dtype=float)]
        wp.launch(while_nearest, dim=n, inputs=[grid.id, x, cell, *res])
        out[f"{name}_while_index"], out[f"{name}_while_most"] = (a.numpy() for a in res)
        res = [wp.zeros(n, dtype=int), wp.zeros(n, dtype=float)]
        wp.launch(per_lane, dim=n, inputs=[grid.id, x, cell, *res])
        out[f"{name}_per_lane_last"], out[f"{name}_per_lane_seen"] = (a.numpy() for a in res)
    x = wp.array(random_pts[:300], dtype=wp.vec3)
    grid = wp.HashGrid(4, 4, 4)
    grid.build(x, 0.25)
    energy = wp.zeros(300, dtype=float)
    wp.launch(nearest_energy, dim=300, inputs=[grid.id, x, 0.25, energy])
    out["energy"] = energy.numpy()
    points, tris = torus(12, 8)
    mesh = wp.Mesh(points=wp.array(points, dtype=wp.vec3), indices=wp.array(tris, dtype=int))
    q = wp.array((rng.random((300, 3)) * 3.0 - 1.5).astype(np.float32), dtype=wp.vec3)
    res = [wp.zeros(300, dtype=int), wp.zeros(300, dtype=float)]
    wp.launch(mesh_boxes, dim=300, inputs=[mesh.id, q, 0.3, *res])
    out["mesh_face"], out["mesh_top"] = (a.numpy() for a in res)
    return out
