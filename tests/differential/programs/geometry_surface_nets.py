"""``wp.geometry.IsoSurfaceNets`` on smooth fields (no cell crossed by two sheets): a sphere inside
the grid, one cut by the grid's corner (an open mesh), anisotropic bounds, quads and triangles,
an empty surface, and field gradients through a tape: vertices, quads and triangles in Warp's
order (vertex positions to rounding: the crossing points are averaged in another order)."""

import importlib

import numpy as np

RTOL = 1e-5
ATOL = 1e-5
TOLERANCE = {"grad": (1e-4, 1e-5)}


@wp.kernel
def sphere(field: wp.array3d(dtype=float), center: wp.vec3, radius: float):
    i, j, k = wp.tid()
    field[i, j, k] = wp.length(wp.vec3(float(i), float(j), float(k)) - center) - radius


@wp.kernel
def position_loss(verts: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    v = verts[wp.tid()]
    wp.atomic_add(loss, 0, wp.sin(v[0]) * v[1] + wp.cos(v[2]))


def run():
    geometry = importlib.import_module(wp.__name__ + ".geometry")
    nets = geometry.IsoSurfaceNets
    out = {}
    field = wp.zeros((20, 18, 22), dtype=float)
    wp.launch(sphere, dim=field.shape, inputs=[field, wp.vec3(9.3, 8.7, 10.1), 6.2])
    verts, quads = nets.extract(field, 0.0, topology="quad")
    out["quad_verts"], out["quads"] = verts.numpy(), quads.numpy()
    verts, tris = nets.extract(field, 0.5, lower=(-1.0, 0.0, 2.0), upper=(3.0, 9.0, 4.0))
    out["tri_verts"], out["tris"] = verts.numpy(), tris.numpy()

    corner = wp.zeros((12, 12, 12), dtype=float)
    wp.launch(sphere, dim=corner.shape, inputs=[corner, wp.vec3(0.2, 0.1, 0.3), 7.5])
    iso = nets(12, 12, 12, topology="quad")
    iso.surface(corner, 0.0)
    out["open_verts"], out["open_quads"] = iso.verts.numpy(), iso.indices.numpy()
    iso.surface(corner, 100.0)
    out["empty"] = np.array([iso.verts.shape[0], iso.indices.shape[0]])

    grad_field = wp.zeros((14, 14, 14), dtype=float, requires_grad=True)
    wp.launch(sphere, dim=grad_field.shape, inputs=[grad_field, wp.vec3(6.6, 7.1, 6.3), 4.4])
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        verts, _ = nets.extract(grad_field, 0.0)
        wp.launch(position_loss, dim=verts.shape[0], inputs=[verts, loss])
    tape.backward(loss)
    out["loss"] = loss.numpy()
    out["grad"] = grad_field.grad.numpy()
    return out
