"""HashGrid builds recorded in a CPU graph capture: every replay rebuilds the grid from the points'
current contents (plain and grouped builds, a first build inside the capture, a strided point view),
then a captured neighbour count reads it."""

import numpy as np


@wp.kernel
def neighbours(grid: wp.uint64, radius: float, points: wp.array(dtype=wp.vec3), counts: wp.array(dtype=int)):
    i = wp.tid()
    n = int(0)
    for j in wp.hash_grid_query(grid, points[i], radius):
        if wp.length(points[j] - points[i]) <= radius:
            n += 1
    counts[i] = n


@wp.kernel
def grouped_neighbours(grid: wp.uint64, radius: float, points: wp.array(dtype=wp.vec3),
                       groups: wp.array(dtype=int), counts: wp.array(dtype=int)):
    i = wp.tid()
    n = int(0)
    q = wp.hash_grid_query(grid, points[i], radius, groups[i])
    j = int(0)
    while wp.hash_grid_query_next(q, j):
        if wp.length(points[j] - points[i]) <= radius:
            n += 1
    counts[i] = n


def run():
    rng = np.random.default_rng(2)
    out = {}
    radius = 0.3
    storage = wp.array((rng.random((40, 3)) * 2.0).astype(np.float32), dtype=wp.vec3)
    points = storage[::2]
    source = wp.array((rng.random((40, 3)) * 2.0).astype(np.float32), dtype=wp.vec3)
    counts = wp.zeros(20, dtype=int)
    grid = wp.HashGrid(8, 8, 8)  # built for the first time inside the capture
    with wp.ScopedCapture(force_module_load=False) as capture:
        wp.copy(storage, source)
        grid.build(points, radius)
        wp.launch(neighbours, dim=20, inputs=[grid.id, radius, points, counts])
    for k in range(3):
        source.assign((rng.random((40, 3)) * (1.0 + k)).astype(np.float32))
        wp.capture_launch(capture.graph)
        out[f"counts_{k}"] = counts.numpy().copy()

    pts = wp.array((rng.random((30, 3)) * 1.5).astype(np.float32), dtype=wp.vec3)
    groups = wp.array(rng.integers(0, 3, 30).astype(np.int32), dtype=int)
    grouped = wp.HashGrid(8, 8, 8)
    grouped.reserve(30)
    gcounts = wp.zeros(30, dtype=int)
    with wp.ScopedCapture(force_module_load=False) as capture:
        grouped.build(pts, radius, groups=groups)
        wp.launch(grouped_neighbours, dim=30, inputs=[grouped.id, radius, pts, groups, gcounts])
    for k in range(2):
        groups.assign(rng.integers(0, 2 + k, 30).astype(np.int32))
        wp.capture_launch(capture.graph)
        out[f"grouped_{k}"] = gcounts.numpy().copy()
    return out
