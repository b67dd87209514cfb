"""Marching cubes (``wp.geometry.IsoSurfaceMarchingCubes``, ``wp.MarchingCubes``): vertex and
triangle order on a random field, node values exactly at the threshold, custom bounds, a
non-cubic grid reused through ``resize``, an empty surface, the smallest (2x2x2) field, and
gradients from the vertices back to the field through a recorded tape."""

import importlib

import numpy as np

RTOL = 1e-6
ATOL = 1e-6
TOLERANCE = {"field_grad": (1e-4, 1e-5)}  # the same gradient, rounded in another order


@wp.kernel
def sphere(field: wp.array3d(dtype=float), center: wp.vec3, radius: float):
    i, j, k = wp.tid()
    field[i, j, k] = wp.length(wp.vec3(float(i), float(j), float(k)) - center) - radius


@wp.kernel
def weigh(verts: wp.array(dtype=wp.vec3), faces: wp.array(dtype=wp.int32), w: wp.vec3,
          loss: wp.array(dtype=float)):
    t = wp.tid()
    a = verts[faces[3 * t]]
    b = verts[faces[3 * t + 1]]
    c = verts[faces[3 * t + 2]]
    wp.atomic_add(loss, 0, wp.dot(a + b * 2.0 + c * 3.0, w) + wp.length(wp.cross(b - a, c - a)))


def run():
    geometry = importlib.import_module(wp.__name__ + ".geometry")
    mc = geometry.IsoSurfaceMarchingCubes
    rng = np.random.default_rng(7)
    out = {}

    values = rng.standard_normal((9, 7, 8)).astype(np.float32)
    values[2, 3, 4] = values[5, 1, 1] = 0.25  # nodes exactly at the threshold count as inside
    verts, faces = mc.extract(wp.array(values, dtype=float), 0.25)
    out["random_verts"], out["random_faces"] = verts.numpy(), faces.numpy()

    verts, faces = mc.extract(wp.array(values, dtype=float), -0.5, lower=(-1.0, -2.0, 0.5), upper=(1.0, 3.0, 2.0))
    out["bounds_verts"], out["bounds_faces"] = verts.numpy(), faces.numpy()

    iso = mc(nx=12, ny=10, nz=14, lower=wp.vec3(0.0, 0.0, 0.0), upper=wp.vec3(12.0, 10.0, 14.0))
    field = wp.zeros((12, 10, 14), dtype=float)
    wp.launch(sphere, dim=field.shape, inputs=[field, wp.vec3(6.0, 5.0, 7.0), 3.5])
    iso.surface(field, 0.0)
    out["sphere_verts"], out["sphere_faces"] = iso.verts.numpy(), iso.indices.numpy()
    iso.resize(6, 6, 6)
    small = wp.zeros((6, 6, 6), dtype=float)
    wp.launch(sphere, dim=small.shape, inputs=[small, wp.vec3(2.5, 2.5, 2.5), 1.7])
    iso.surface(small, 0.0)
    out["resized_verts"], out["resized_faces"] = iso.verts.numpy(), iso.indices.numpy()

    iso.surface(small, 1000.0)
    out["empty_counts"] = np.array([iso.verts.shape[0], iso.indices.shape[0]])

    tiny = wp.array(np.array([1, -1, -1, 1, 1, 1, -1, 1], np.float32).reshape(2, 2, 2), dtype=float)
    verts, faces = mc.extract(tiny, 0.0)
    out["tiny_verts"], out["tiny_faces"] = verts.numpy(), faces.numpy()

    legacy = wp.MarchingCubes(nx=6, ny=6, nz=6)
    legacy.surface(small, 0.5)
    out["legacy_verts"] = legacy.verts.numpy()

    grad_field = wp.array(values, dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        verts, faces = mc.extract(grad_field, 0.1, lower=(0.0, 0.0, 0.0), upper=(2.0, 3.0, 4.0))
        wp.launch(weigh, dim=faces.shape[0] // 3, inputs=[verts, faces, wp.vec3(0.3, -0.7, 0.2), loss])
    tape.backward(loss)
    out["loss"] = loss.numpy()
    out["field_grad"] = grad_field.grad.numpy()
    out["verts_grad"] = verts.grad.numpy()
    return out
