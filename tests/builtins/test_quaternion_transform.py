"""Quaternion, Transformations and Spatial Math builtins: Python-scope results against real Warp's,
overload errors, the in-place/copy setters, and gradients against finite differences (including
the branch points of quat_from_matrix, where no gradient may be NaN)."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp
from tests.builtins.python_scope import assert_matches_warp
from tests.kernel_errors import body_line, launch_error

PYTHON_SCOPE = [
    "wp.quat_rotate(wp.quat(0.0, 0.0, 0.7071068, 0.7071068), wp.vec3(1.0, 2.0, 3.0))",
    "wp.quat_rotate_inv(wp.quat(0.0, 0.0, 0.7071068, 0.7071068), wp.vec3(1.0, 2.0, 3.0))",
    "wp.quat_from_axis_angle(wp.vec3(0.0, 1.0, 0.0), 0.5)",
    "wp.quat_to_axis_angle(wp.quat(0.0, -0.6, 0.0, -0.8))",
    "wp.quat_to_matrix(wp.quat(0.1, 0.2, 0.3, 0.9273618))",
    "wp.quat_from_matrix(wp.mat33(-1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, -1.0))",
    "wp.quat_from_matrix(wp.mat44d(*np.eye(4).ravel()))",
    "wp.quat_rpy(0.1, 0.2, 0.3)",
    "wp.quat_slerp(wp.quat_identity(), wp.quat(0.0, 0.0, 1.0, 0.0), 0.5)",
    "wp.quat_identity(dtype=wp.float64)",
    "wp.quat_to_rpy(wp.quat_rpy(0.1, 0.2, 0.3))",
    "wp.quat_to_euler(wp.quat_rpy(0.1, 0.2, 0.3), 2, 1, 0)",
    "wp.quat_from_euler(wp.vec3(0.1, 0.2, 0.3), 1, 0, 1)",
    "wp.quat_twist(wp.vec3(0.0, 0.0, 1.0), wp.quat_rpy(0.1, 0.2, 0.3))",
    "wp.quat_twist_angle_signed(wp.vec3(0.0, 0.0, 1.0), wp.quat_rpy(0.1, 0.2, -0.3))",
    "wp.transform_identity()",
    "wp.transform_inverse(wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat_rpy(0.1, 0.2, 0.3)))",
    "wp.transform_point(wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat_rpy(0.1, 0.2, 0.3)), wp.vec3(1.0, 0.0, 0.0))",
    "wp.transform_vector(wp.mat44(*range(16)), wp.vec3(1.0, 2.0, 3.0))",
    "wp.transform_to_matrix(wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat_rpy(0.1, 0.2, 0.3)))",
    "wp.transform_decompose(wp.transform_compose(wp.vec3(1.0, 2.0, 3.0), wp.quat_rpy(0.1, 0.2, 0.3), wp.vec3(2.0)))",
    "wp.spatial_cross(wp.spatial_vector(1.0, 2.0, 3.0, 4.0, 5.0, 6.0), wp.spatial_vector(0.5, 1.0, -1.0, 2.0, 0.0, 1.0))",
    "wp.velocity_at_point(wp.spatial_vector(1.0, 2.0, 3.0, 4.0, 5.0, 6.0), wp.vec3(1.0, 0.0, 2.0))",
]


@pytest.mark.parametrize("expr", PYTHON_SCOPE)
def test_python_scope_matches_warp(expr):
    assert_matches_warp(expr, rtol=1e-5, atol=1e-6)


@wp.kernel
def _setters(t: wp.array(dtype=wp.transform), p: wp.vec3, q: wp.quat, out: wp.array(dtype=wp.transform, ndim=2)):
    i = wp.tid()
    a = t[i]
    out[i, 0] = wp.transform_set_translation_copy(a, p)
    out[i, 1] = wp.transform_set_rotation_copy(a, q)
    out[i, 2] = a  # the copies left a unchanged
    wp.transform_set_translation(a, p)
    if i == 1:
        wp.transform_set_rotation(a, q)  # only in the lanes that take the branch
    out[i, 3] = a


def test_setters_copy_and_in_place():
    t = np.arange(14, dtype=np.float32).reshape(2, 7)
    out = wp.zeros((2, 4), dtype=wp.transform)
    p, q = wp.vec3(9.0, 8.0, 7.0), wp.quat(0.5, 0.5, 0.5, 0.5)
    wp.launch(_setters, 2, [wp.array(t, dtype=wp.transform), p, q, out])
    got = out.numpy()
    for i in range(2):
        np.testing.assert_array_equal(got[i, 0], np.r_[p, t[i, 3:]])
        np.testing.assert_array_equal(got[i, 1], np.r_[t[i, :3], q])
        np.testing.assert_array_equal(got[i, 2], t[i])
        np.testing.assert_array_equal(got[i, 3], np.r_[p, q if i == 1 else t[i, 3:]])


def test_in_place_setters_in_python_scope_modify_the_transform():
    # as Warp 1.19: in Python scope the setters write into the transform object
    t = wp.transform_identity()
    wp.transform_set_translation(t, wp.vec3(1.0, 2.0, 3.0))
    wp.transform_set_rotation(t, wp.quat(0.5, 0.5, 0.5, 0.5))
    assert list(t) == [1.0, 2.0, 3.0, 0.5, 0.5, 0.5, 0.5]


@pytest.mark.parametrize(
    "body, needle",
    [
        ("x = wp.quat_rotate(wp.quat_identity(), wp.vec3d(1.0, 2.0, 3.0))", "overload for 'quat_rotate'"),
        ("x = wp.quat_to_euler(wp.quat_identity(dtype=wp.float64), 0, 1, 2)", "overload for 'quat_to_euler'"),
        ("x = wp.quat_to_euler(wp.quat_identity(), 0, 1, 2.0)", "overload for 'quat_to_euler'"),
        ("x = wp.transform_point(wp.mat33(), wp.vec3())", "overload for 'transform_point'"),
        ("x = wp.spatial_top(wp.vec3())", "overload for 'spatial_top'"),
        ("x = wp.quat_identity(dtype=int)", "overload for 'quat_identity'"),
        ("x = wp.transform(wp.vec3d(), wp.quatd())", "expected to be of the type `float32`"),
    ],
)
def test_overload_errors_name_the_builtin(tmp_path, body, needle):
    message = launch_error(tmp_path, body, "quat_error_kernel.py")
    assert needle in message and body_line(tmp_path, "quat_error_kernel.py") in message, message


@wp.kernel
def _rigid_loss(q: wp.array(dtype=wp.quatd), p: wp.array(dtype=wp.vec3d), x: wp.array(dtype=wp.vec3d),
                loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a = wp.normalize(q[i])
    t = wp.transformd(p[i], a)
    y = wp.transform_point(wp.transform_inverse(t) * t * t, x[i])
    m = wp.quat_to_matrix(a)
    back = wp.quat_from_matrix(m * m)
    axis, angle = wp.quat_to_axis_angle(wp.quat_slerp(a, back, wp.float64(0.3)))
    wp.atomic_add(loss, 0, wp.dot(y, y) + angle * axis[0] + back[1] * back[3])


def _loss(q, p, x):
    loss = wp.zeros(1, dtype=wp.float64)
    wp.launch(_rigid_loss, len(q), [wp.array(q, dtype=wp.quatd), wp.array(p, dtype=wp.vec3d),
                                    wp.array(x, dtype=wp.vec3d), loss])
    return float(loss.numpy()[0])


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(2)
    q, p, x = rng.normal(size=(4, 4)), rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    arrays = [wp.array(v, dtype=t, requires_grad=True) for v, t in ((q, wp.quatd), (p, wp.vec3d), (x, wp.vec3d))]
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(_rigid_loss, 4, [*arrays, loss])
    tape.backward(loss=loss)
    inputs = [q, p, x]
    for k, arr in enumerate(arrays):
        fd = np.zeros_like(inputs[k])
        for idx in np.ndindex(*inputs[k].shape):
            plus = [v.copy() for v in inputs]
            minus = [v.copy() for v in inputs]
            plus[k][idx] += 1e-6
            minus[k][idx] -= 1e-6
            fd[idx] = (_loss(*plus) - _loss(*minus)) / 2e-6
        np.testing.assert_allclose(arr.grad.numpy(), fd, rtol=1e-5, atol=1e-6)


@wp.kernel
def _from_matrix_loss(m: wp.array(dtype=wp.mat33d), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    q = wp.quat_from_matrix(m[i])
    wp.atomic_add(loss, 0, wp.dot(q, wp.quatd(1.0, 2.0, 3.0, 4.0)))


def test_quat_from_matrix_gradient_is_finite_on_every_branch():
    # identity (trace branch), and 180-degree turns about x, y and z (each diagonal branch)
    mats = np.stack([np.eye(3), np.diag([1.0, -1.0, -1.0]), np.diag([-1.0, 1.0, -1.0]), np.diag([-1.0, -1.0, 1.0])])
    m = wp.array(mats, dtype=wp.mat33d, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(_from_matrix_loss, 4, [m, loss])
    tape.backward(loss=loss)
    assert np.isfinite(m.grad.numpy()).all()
