"""Sparse marching cubes (``wp.geometry.sparse_marching_cubes``, ``lipschitz_octree``,
``sparse_marching_cubes_from_cells``): octree leaves (order included) of a torus, the surface and the
statistics on a grid padded to a power of two (cells culled), a non-zero threshold with a larger
Lipschitz bound, an empty result, explicit cells with negative subscripts and disagreeing values at
shared corners (the first cell's value wins), and gradients from the vertices to the corner values
and to a field parameter through a recorded tape."""

import importlib

import numpy as np

RTOL = 1e-6
ATOL = 1e-6
TOLERANCE = {"cells_grad": (1e-4, 1e-5), "radius_grad": (1e-4, 1e-5)}  # same sums in another order


@wp.kernel
def torus(points: wp.array(dtype=wp.vec3), values: wp.array(dtype=wp.float32)):
    i = wp.tid()
    p = points[i]
    q = wp.vec2(wp.length(wp.vec2(p[0], p[2])) - 0.5, p[1])
    values[i] = wp.length(q) - 0.2


@wp.kernel
def ball(points: wp.array(dtype=wp.vec3), radius: wp.array(dtype=wp.float32), values: wp.array(dtype=wp.float32)):
    i = wp.tid()
    values[i] = wp.length(points[i] - wp.vec3(0.1, -0.05, 0.2)) - radius[0]


@wp.kernel
def weigh(verts: wp.array(dtype=wp.vec3), faces: wp.array(dtype=wp.int32), w: wp.vec3,
          loss: wp.array(dtype=float)):
    t = wp.tid()
    a = verts[faces[3 * t]]
    b = verts[faces[3 * t + 1]]
    c = verts[faces[3 * t + 2]]
    wp.atomic_add(loss, 0, wp.dot(a + b * 2.0 + c * 3.0, w) + wp.length(wp.cross(b - a, c - a)))


def torus_field(points):
    values = wp.empty(points.shape[0], dtype=wp.float32, device=points.device)
    wp.launch(torus, dim=points.shape[0], inputs=[points], outputs=[values], device=points.device)
    return values


def run():
    geometry = importlib.import_module(wp.__name__ + ".geometry")
    out = {}

    cells, width = geometry.lipschitz_octree(torus_field, (-1.0, -1.0, -1.0), 2.0, 4)
    out["octree_cells"], out["octree_width"] = cells.numpy(), np.array([width])

    verts, faces, stats = geometry.sparse_marching_cubes(torus_field, 19, 12, 23, lower=(-0.9, -0.35, -0.8),
                                                         upper=(0.55, 0.4, 0.9), return_stats=True)
    out["torus_verts"], out["torus_faces"] = verts.numpy(), faces.numpy()
    out["torus_stats"] = np.array([stats[k] for k in ("leaf_cells", "unique_corners", "field_evaluations",
                                                      "resolution", "culled_cells")])

    verts, faces = geometry.sparse_marching_cubes(torus_field, 17, 17, 17, lower=(-1.0, -1.0, -1.0),
                                                  upper=(1.0, 1.0, 1.0), threshold=0.1, lipschitz_bound=1.5)
    out["thick_verts"], out["thick_faces"] = verts.numpy(), faces.numpy()

    verts, faces = geometry.sparse_marching_cubes(torus_field, 9, 9, 9, threshold=-5.0)
    out["empty_counts"] = np.array([verts.shape[0], faces.shape[0]])

    rng = np.random.default_rng(3)
    grid = np.stack(np.meshgrid(*[np.arange(-3, 3)] * 3, indexing="ij"), -1).reshape(-1, 3)
    picked = grid[rng.permutation(grid.shape[0])[:90]].astype(np.int32)
    values = rng.standard_normal((picked.shape[0], 8)).astype(np.float32)  # shared corners disagree
    verts, faces = geometry.sparse_marching_cubes_from_cells(picked, values, origin=(0.5, -0.25, 1.0),
                                                             cell_width=0.3, threshold=0.2)
    out["cells_verts"], out["cells_faces"] = verts.numpy(), faces.numpy()

    grad_values = wp.array(values, dtype=wp.float32, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        verts, faces = geometry.sparse_marching_cubes_from_cells(wp.array(picked, dtype=wp.vec3i), grad_values,
                                                                 cell_width=0.5, threshold=0.2)
        wp.launch(weigh, dim=faces.shape[0] // 3, inputs=[verts, faces, wp.vec3(0.3, -0.7, 0.2), loss])
    tape.backward(loss)
    out["cells_loss"], out["cells_grad"] = loss.numpy(), grad_values.grad.numpy()

    radius = wp.array([0.45], dtype=wp.float32, requires_grad=True)

    def ball_field(points):
        values = wp.empty(points.shape[0], dtype=wp.float32, device=points.device, requires_grad=True)
        wp.launch(ball, dim=points.shape[0], inputs=[points, radius], outputs=[values], device=points.device)
        return values

    area = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        verts, faces = geometry.sparse_marching_cubes(ball_field, 13, 13, 13, lower=(-0.7, -0.7, -0.7),
                                                      upper=(0.8, 0.8, 0.8))
        wp.launch(weigh, dim=faces.shape[0] // 3, inputs=[verts, faces, wp.vec3(0.1, 0.2, -0.3), area])
    tape.backward(area)
    out["ball_verts"], out["ball_faces"] = verts.numpy(), faces.numpy()
    out["radius_grad"] = radius.grad.numpy()
    return out
