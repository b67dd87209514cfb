"""Graphs captured before their geometry exists or changes: Warp's captured launches read the object an
id names when the graph replays. A hash grid first built after the capture, then rebuilt between replays
(another cell size: the replay recompiles for the grid's new constants); a mesh refit, then given a
new points array, between replays of a captured closest-point query; the same with ``Launch`` objects
(``record_cmd=True``) made before the grid's first build, and a ``capture_if`` branch."""

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
def closest(mesh: wp.uint64, queries: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    """The distance to the closest point (not the point: in this soup of random faces two faces can lie
    within float32 rounding of the same distance, and which one wins depends on the rounding; XLA
    contracts multiply-adds where Warp's CPU build does not)."""
    i = wp.tid()
    q = wp.mesh_query_point_no_sign(mesh, queries[i], 10.0)
    if q.result:
        out[i] = wp.length(wp.mesh_eval_position(mesh, q.face, q.u, q.v) - queries[i])


def run():
    rng = np.random.default_rng(4)
    out = {}
    points = wp.array((rng.random((64, 3)) * 2.0).astype(np.float32), dtype=wp.vec3)
    counts = wp.zeros(64, dtype=int)
    grid = wp.HashGrid(8, 8, 8)
    with wp.ScopedCapture(force_module_load=False) as capture:
        wp.launch(neighbours, 64, inputs=[grid.id, 0.3, points], outputs=[counts])
    for step, cell in enumerate((0.3, 0.3, 0.5)):
        grid.build(points, cell)  # first built after the capture; then rebuilt with another cell size
        wp.capture_launch(capture.graph)
        out[f"counts_{step}"] = counts.numpy().copy()
        points.assign(points.numpy() * 0.9 + 0.05)

    cmd_grid = wp.HashGrid(8, 8, 8)
    cmd_counts = wp.zeros(64, dtype=int)
    cmd = wp.launch(neighbours, 64, inputs=[cmd_grid.id, 0.3, points], outputs=[cmd_counts], record_cmd=True)
    for step, cell in enumerate((0.3, 0.6)):
        cmd_grid.build(points, cell)
        cmd.launch()
        out[f"cmd_counts_{step}"] = cmd_counts.numpy().copy()

    if_grid = wp.HashGrid(8, 8, 8)
    if_counts = wp.zeros(64, dtype=int)
    flag = wp.array([1], dtype=wp.int32)
    with wp.ScopedCapture(force_module_load=False) as capture:
        wp.capture_if(flag, on_true=lambda: wp.launch(neighbours, 64, inputs=[if_grid.id, 0.3, points],
                                                      outputs=[if_counts]))
    for step in range(2):
        if_grid.build(points, 0.3)
        wp.capture_launch(capture.graph)
        out[f"if_counts_{step}"] = if_counts.numpy().copy()
        points.assign(points.numpy() * 1.1 - 0.05)

    verts = (rng.random((30, 3)) * 2.0 - 1.0).astype(np.float32)
    faces = rng.integers(0, 30, (40, 3)).astype(np.int32)
    mesh_points = wp.array(verts, dtype=wp.vec3)
    mesh = wp.Mesh(points=mesh_points, indices=wp.array(faces.reshape(-1), dtype=int))
    queries = wp.array((rng.random((50, 3)) * 3.0 - 1.5).astype(np.float32), dtype=wp.vec3)
    found = wp.zeros(50, dtype=float)
    with wp.ScopedCapture(force_module_load=False) as capture:
        wp.launch(closest, 50, inputs=[mesh.id, queries], outputs=[found])
    wp.capture_launch(capture.graph)
    out["closest_0"] = found.numpy().copy()
    mesh_points.assign(verts * 1.5 + 0.25)  # the mesh's own points array, moved, then refit
    mesh.refit()
    wp.capture_launch(capture.graph)
    out["closest_refit"] = found.numpy().copy()
    mesh.points = wp.array(verts[::-1].copy(), dtype=wp.vec3)  # a new points array (same count), refit
    mesh.refit()
    wp.capture_launch(capture.graph)
    out["closest_new_points"] = found.numpy().copy()
    cmd = wp.launch(closest, 50, inputs=[mesh.id, queries], outputs=[found], record_cmd=True)
    mesh.points = wp.array(verts * 0.5, dtype=wp.vec3)
    mesh.refit()
    cmd.launch()
    out["cmd_closest"] = found.numpy().copy()
    return out
