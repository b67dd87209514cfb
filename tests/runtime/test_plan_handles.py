"""Launch plans of kernels that receive geometry ids (jwarp/runtime/plan_handles.py): a replay skips the
full launch path, reads the objects' current buffers and values, and hands the launch back to the full
path when an id names another object (or a uint64 argument that named none names one now) or the object
is gone."""

import gc

import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime import launch as launch_module

TRI = np.eye(3, dtype=np.float32)


@wp.kernel
def first_point(m: wp.uint64, out: wp.array(dtype=wp.vec3)):
    out[0] = wp.mesh_get_point(m, 0)


@wp.kernel
def picked_point(m0: wp.uint64, m1: wp.uint64, pick: int, out: wp.array(dtype=wp.vec3)):
    m = m0
    if pick == 1:
        m = m1
    out[0] = wp.mesh_get_point(m, 0)


@wp.kernel
def near_count(g: wp.uint64, x: wp.array(dtype=wp.vec3), radius: float, out: wp.array(dtype=int)):
    i = wp.tid()
    n = int(0)
    for j in wp.hash_grid_query(g, x[i], radius):
        if wp.length(x[j] - x[i]) <= radius:
            n += 1
    out[i] = n


@wp.kernel
def distance_to(m: wp.uint64, x: wp.array(dtype=wp.vec3), d: wp.array(dtype=float)):
    i = wp.tid()
    d[i] = wp.length(wp.mesh_get_point(m, i) - x[i])


def _mesh(scale: float = 1.0) -> wp.Mesh:
    return wp.Mesh(wp.array(TRI * scale, dtype=wp.vec3), wp.array([0, 1, 2], dtype=wp.int32))


@pytest.fixture
def full_launches(monkeypatch):
    """The launches that took the full path (``prepare``) from here on."""
    calls = []
    real = launch_module.prepare

    def counting(kernel, *args, **kwargs):
        calls.append(kernel.key)
        return real(kernel, *args, **kwargs)

    monkeypatch.setattr(launch_module, "prepare", counting)
    return calls


def test_replay_reads_the_current_mesh_buffers(full_launches):
    mesh = _mesh()
    out = wp.zeros(1, dtype=wp.vec3)
    wp.launch(first_point, 1, inputs=[mesh.id, out])
    wp.launch(first_point, 1, inputs=[mesh.id, out])
    del full_launches[:]
    for step in range(3):
        mesh.points.assign(TRI * (step + 2))
        mesh.refit()
        wp.launch(first_point, 1, inputs=[mesh.id, out])
        np.testing.assert_array_equal(out.numpy()[0], [step + 2, 0, 0])
    mesh.points = wp.array(np.full((3, 3), 9.0, np.float32), dtype=wp.vec3)  # a new array of the same layout
    wp.launch(first_point, 1, inputs=[mesh.id, out])
    np.testing.assert_array_equal(out.numpy()[0], [9, 9, 9])
    assert full_launches == []  # every launch replayed the plan


def test_another_object_takes_the_full_path(full_launches):
    a, b = _mesh(1.0), _mesh(3.0)
    out = wp.zeros(1, dtype=wp.vec3)
    for _ in range(2):
        wp.launch(first_point, 1, inputs=[a.id, out])
    del full_launches[:]
    wp.launch(first_point, 1, inputs=[b.id, out])
    np.testing.assert_array_equal(out.numpy()[0], [3, 0, 0])
    assert len(full_launches) == 1
    wp.launch(first_point, 1, inputs=[a.id, out])
    np.testing.assert_array_equal(out.numpy()[0], [1, 0, 0])


def test_a_plain_uint64_that_names_an_object_later_takes_the_full_path(full_launches):
    a, b = _mesh(1.0), _mesh(5.0)
    out = wp.zeros(1, dtype=wp.vec3)
    for _ in range(2):  # m1 names no object: the launch binds a only
        wp.launch(picked_point, 1, inputs=[a.id, 7, 0, out])
    np.testing.assert_array_equal(out.numpy()[0], [1, 0, 0])
    del full_launches[:]
    wp.launch(picked_point, 1, inputs=[a.id, b.id, 1, out])
    np.testing.assert_array_equal(out.numpy()[0], [5, 0, 0])
    assert len(full_launches) == 1


def test_an_id_given_twice_is_replayed(full_launches):
    a = _mesh(2.0)
    out = wp.zeros(1, dtype=wp.vec3)
    for _ in range(2):
        wp.launch(picked_point, 1, inputs=[a.id, a.id, 1, out])
    del full_launches[:]
    a.points.assign(TRI * 4.0)
    wp.launch(picked_point, 1, inputs=[a.id, a.id, 1, out])
    np.testing.assert_array_equal(out.numpy()[0], [4, 0, 0])
    assert full_launches == []


def test_replay_reads_a_rebuilt_grid_and_its_cell_width(full_launches):
    rng = np.random.default_rng(3)
    x = wp.array(rng.random((400, 3), dtype=np.float32), dtype=wp.vec3)
    grid = wp.HashGrid(16, 16, 16)
    out = wp.zeros(400, dtype=int)
    radius = 0.15
    pts = x.numpy()
    expected = (np.linalg.norm(pts[:, None] - pts[None], axis=2) <= radius).sum(axis=1)
    grid.build(x, radius)
    for _ in range(2):
        wp.launch(near_count, 400, inputs=[grid.id, x, radius, out])
    np.testing.assert_array_equal(out.numpy(), expected)
    del full_launches[:]
    grid.build(x, 0.04)  # smaller cells: a replay with the old cell width would miss neighbours
    wp.launch(near_count, 400, inputs=[grid.id, x, radius, out])
    np.testing.assert_array_equal(out.numpy(), expected)
    assert full_launches == []


def test_taped_replay_gives_the_full_paths_gradients(full_launches):
    mesh = _mesh()
    x = wp.array([[0.2, 0.3, 1.0], [1.0, 1.0, 1.0]], dtype=wp.vec3, requires_grad=True)
    # d(|p - x|)/dx = (x - p) / |x - p|
    diff = x.numpy() - TRI[:2]
    expected = diff / np.linalg.norm(diff, axis=1, keepdims=True)
    grads = []
    for _ in range(3):
        d = wp.zeros(2, dtype=float, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(distance_to, 2, inputs=[mesh.id, x, d])
        tape.backward(grads={d: wp.ones(2, dtype=float)})
        grads.append(x.grad.numpy().copy())
        tape.zero()
    assert full_launches == [distance_to.key]  # the later launches replayed the plan
    for g in grads:
        np.testing.assert_allclose(g, expected, rtol=1e-6)


def test_a_collected_object_takes_the_full_path():
    mesh = _mesh()
    out = wp.zeros(1, dtype=wp.vec3)
    for _ in range(2):
        wp.launch(first_point, 1, inputs=[mesh.id, out])
    held = mesh.id
    del mesh
    gc.collect()
    with pytest.raises(Exception, match="no Mesh id reaches this launch"):
        wp.launch(first_point, 1, inputs=[held, out])
