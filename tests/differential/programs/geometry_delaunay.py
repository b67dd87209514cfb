"""``wp.geometry.tri_tri_adjacency`` (neighbours and neighbour edge indices, with and without a
vertex count; the kernel-side ``find_triangle_neighbor_edge_index``) and ``wp.geometry.delaunay_edge_flip`` (a jittered grid, a convex fan, a thin quad's
single flip, a flip refused by degenerate reference positions, an empty mesh, a captured flip).
Delaunay triangulations of points in general position are unique, so flipped meshes are compared
as sets of triangles (each rotated to start at its smallest vertex); flip counts depend on the
order of flips and are compared only where a single flip is possible."""

import importlib

import numpy as np

find_edge = importlib.import_module(wp.__name__ + ".geometry").find_triangle_neighbor_edge_index


@wp.kernel
def back_edges(neighbours: wp.array2d(dtype=wp.int32), out: wp.array2d(dtype=wp.int32)):
    t, j = wp.tid()
    n = neighbours[t, j]
    if n >= 0:
        out[t, j] = find_edge(neighbours, n, t)
    else:
        out[t, j] = find_edge(neighbours, t, (t + 7) % neighbours.shape[0]) - 10


def _grid(nx, ny, jitter, seed):
    xs, ys = np.meshgrid(np.arange(nx + 1), np.arange(ny + 1), indexing="ij")
    points = np.stack([xs.ravel(), ys.ravel()], axis=1).astype(np.float32)
    rng = np.random.default_rng(seed)
    inside = (xs.ravel() > 0) & (xs.ravel() < nx) & (ys.ravel() > 0) & (ys.ravel() < ny)
    points[inside] += rng.uniform(-jitter, jitter, (int(inside.sum()), 2)).astype(np.float32)
    tris = []
    for i in range(nx):
        for j in range(ny):
            bl, br, tr, tl = i * (ny + 1) + j, (i + 1) * (ny + 1) + j, (i + 1) * (ny + 1) + j + 1, i * (ny + 1) + j + 1
            tris += [[bl, br, tr], [bl, tr, tl]]
    return points, np.array(tris, np.int32)


def _canonical(tris):
    rolled = np.array([np.roll(t, -int(np.argmin(t))) for t in tris])
    return rolled[np.lexsort(rolled.T[::-1])]


def run():
    geometry = importlib.import_module(wp.__name__ + ".geometry")
    out = {}
    points, tris = _grid(5, 4, 0.3, 3)
    neighbours, edges = geometry.tri_tri_adjacency(wp.array(tris, dtype=wp.int32), vertex_count=len(points))
    out["neighbours"], out["edges"] = neighbours.numpy(), edges.numpy()
    back = wp.zeros(neighbours.shape, dtype=wp.int32)
    wp.launch(back_edges, dim=neighbours.shape, inputs=[neighbours, back])
    out["back_edges"] = back.numpy()  # find_triangle_neighbor_edge_index: the neighbour's edge (== edges)
    out["neighbours_only"] = geometry.tri_tri_adjacency(wp.array(tris, dtype=wp.int32),
                                                        return_neighbor_edge_indices=False).numpy()

    indices = wp.array(tris, dtype=wp.int32)
    flips = geometry.delaunay_edge_flip(wp.array(points, dtype=wp.vec2), indices)
    out["grid"] = _canonical(indices.numpy())
    out["grid_flipped"] = np.array([int(flips.numpy()[0]) > 0])
    out["grid_again"] = geometry.delaunay_edge_flip(wp.array(points, dtype=wp.vec2), indices).numpy()

    rng = np.random.default_rng(8)
    angles = np.sort(rng.uniform(0.0, 2.0 * np.pi, 30))
    fan_points = np.stack([2.0 * np.cos(angles), np.sin(angles)], axis=1).astype(np.float32)
    fan = wp.array(np.array([[0, i, i + 1] for i in range(1, 29)], np.int32), dtype=wp.int32)
    geometry.delaunay_edge_flip(wp.array(fan_points, dtype=wp.vec2), fan, max_passes=50)
    out["fan"] = _canonical(fan.numpy())

    quad = np.array([[-3.0, 0.0], [3.0, 0.0], [0.0, 1.0], [0.0, -1.0]], np.float32)
    pair = wp.array(np.array([[0, 1, 2], [1, 0, 3]], np.int32), dtype=wp.int32)
    out["single"] = geometry.delaunay_edge_flip(wp.array(quad, dtype=wp.vec2), pair).numpy()
    out["single_mesh"] = _canonical(pair.numpy())
    flat = np.array([[-3.0, 0.0], [3.0, 0.0], [0.0, 0.0], [0.0, 0.0]], np.float32)
    pair = wp.array(np.array([[0, 1, 2], [1, 0, 3]], np.int32), dtype=wp.int32)
    out["refused"] = geometry.delaunay_edge_flip(wp.array(quad, dtype=wp.vec2), pair,
                                                 ref_positions=wp.array(flat, dtype=wp.vec2)).numpy()
    out["empty"] = geometry.delaunay_edge_flip(wp.zeros(0, dtype=wp.vec2), wp.zeros((0, 3), dtype=wp.int32)).numpy()

    points, tris = _grid(4, 4, 0.3, 9)
    indices = wp.array(tris, dtype=wp.int32)
    positions = wp.array(points, dtype=wp.vec2)
    with wp.ScopedCapture(force_module_load=False) as capture:
        total = geometry.delaunay_edge_flip(positions, indices)
    wp.capture_launch(capture.graph)
    out["captured"] = _canonical(indices.numpy())
    wp.capture_launch(capture.graph)
    out["captured_again"] = total.numpy()
    return out
