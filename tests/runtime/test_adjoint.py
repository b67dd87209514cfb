"""Adjoint launches (``wp.launch(..., adjoint=True)``): argument layout and validation, Launch
objects, structs and views, in-place kernels. Values Warp defines are compared with Warp in
``tests/differential/programs/grad_adjoint_launch.py``."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp


@wp.kernel
def scale_add(x: wp.array(dtype=float), s: float, y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i] * s + y[i]


@wp.kernel(enable_backward=False)
def no_backward(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i]


@wp.struct
class Pair:
    a: wp.array(dtype=float)
    b: wp.array(dtype=float)


@wp.kernel
def pair_kernel(p: Pair, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = p.a[i] * p.b[i]


def _arrays():
    x = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    y = wp.zeros(3)
    return x, y


def test_layout_aligned_with_parameters():
    x, y = _arrays()
    adj_x, adj_y = wp.zeros(3), wp.ones(3)
    wp.launch(scale_add, dim=3, inputs=[x, 2.0], outputs=[y], adj_inputs=[adj_x, 0.0], adj_outputs=[adj_y],
              adjoint=True)
    np.testing.assert_allclose(adj_x.numpy(), [4.0, 8.0, 12.0])
    # y[i] = ... + y[i] with an external adjoint: Warp gives 2 (its store keeps the external adjoint and
    # the read adds it again); functionally the element follows y one-for-one, like an atomic add, so
    # jwarp gives 1 (documented in docs/autodiff.md)
    np.testing.assert_allclose(adj_y.numpy(), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(y.numpy(), [0.0, 0.0, 0.0])  # forward arrays are not modified


def test_wrong_number_of_adjoints_raises():
    x, y = _arrays()
    with pytest.raises(IndexError, match="expected 3 adjoint arguments"):
        wp.launch(scale_add, dim=3, inputs=[x, 2.0], outputs=[y], adj_inputs=[x], adjoint=True)


def test_adjoint_dtype_is_validated():
    x, y = _arrays()
    bad = wp.zeros(3, dtype=wp.float64)
    with pytest.raises(RuntimeError, match="adjoint argument 'x' expects an array with dtype"):
        wp.launch(scale_add, dim=3, inputs=[x, 2.0], outputs=[y], adj_inputs=[bad, 0.0], adj_outputs=[None],
                  adjoint=True)


def test_adjoint_shape_is_validated_and_nothing_changes():
    x, y = _arrays()
    adj_x, adj_y = wp.full(2, 5.0), wp.ones(3)
    with pytest.raises(RuntimeError, match=r"kernel 'scale_add', adjoint argument 'x' expects an array of shape \(3,\)"
                                           r".* has shape \(2,\)"):
        wp.launch(scale_add, dim=3, inputs=[x, 2.0], outputs=[y], adj_inputs=[adj_x, 0.0], adj_outputs=[adj_y],
                  adjoint=True)
    with pytest.raises(RuntimeError, match="adjoint argument 'y' expects an array of shape"):
        wp.launch(scale_add, dim=3, inputs=[x, 2.0], outputs=[y], adj_inputs=[wp.zeros(3), 0.0],
                  adj_outputs=[wp.ones(4)], adjoint=True)
    np.testing.assert_array_equal(adj_x.numpy(), [5.0, 5.0])  # a refused launch changes no array
    np.testing.assert_array_equal(adj_y.numpy(), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0, 3.0])


def test_struct_field_adjoint_shape_names_the_field():
    p, adj = Pair(), Pair()
    p.a, p.b = wp.ones(3), wp.ones(3)
    adj.a, adj.b = wp.zeros(3), wp.zeros(2)
    with pytest.raises(RuntimeError, match="adjoint argument 'p.b' expects an array of shape"):
        wp.launch(pair_kernel, dim=3, inputs=[p], outputs=[wp.zeros(3)], adj_inputs=[adj], adj_outputs=[wp.ones(3)],
                  adjoint=True)


def test_disabled_backward_raises():
    x, y = _arrays()
    with pytest.raises(RuntimeError, match="Failed to find backward kernel 'no_backward'"):
        wp.launch(no_backward, dim=3, inputs=[x], outputs=[y], adj_inputs=[None], adj_outputs=[None], adjoint=True)


def test_none_adjoints_without_gradients_do_nothing():
    x, y = _arrays()
    wp.launch(scale_add, dim=3, inputs=[x, 2.0], outputs=[y], adj_inputs=[None, 0.0], adj_outputs=[None],
              adjoint=True)
    assert x.grad is None


def test_recorded_adjoint_launch_object():
    x, y = _arrays()
    adj_x, adj_y = wp.zeros(3), wp.ones(3)
    cmd = wp.launch(scale_add, dim=3, inputs=[x, 2.0], outputs=[y], adj_inputs=[adj_x, 0.0], adj_outputs=[adj_y],
                    adjoint=True, record_cmd=True)
    np.testing.assert_array_equal(adj_x.numpy(), [0.0, 0.0, 0.0])
    cmd.launch()
    np.testing.assert_allclose(adj_x.numpy(), [4.0, 8.0, 12.0])


def test_struct_and_view_adjoints():
    a = wp.array(np.array([1.0, 2.0], dtype=np.float32))
    b = wp.array(np.array([3.0, 4.0], dtype=np.float32))
    p = Pair()
    p.a, p.b = a, b
    adj = Pair()
    adj.a, adj.b = wp.zeros(2), wp.zeros(2)
    out = wp.zeros(2)
    wp.launch(pair_kernel, dim=2, inputs=[p], outputs=[out], adj_inputs=[adj], adj_outputs=[wp.ones(2)],
              adjoint=True)
    np.testing.assert_allclose(adj.a.numpy(), [3.0, 4.0])
    np.testing.assert_allclose(adj.b.numpy(), [1.0, 2.0])

    base = wp.array(np.array([0.0, 1.0, 2.0, 3.0, 4.0], dtype=np.float32))
    adj_base = wp.zeros(5)
    view_y = wp.zeros(3)
    wp.launch(scale_add, dim=3, inputs=[base[1:4], 1.0], outputs=[view_y], adj_inputs=[adj_base[1:4], 0.0],
              adj_outputs=[wp.ones(3)], adjoint=True)
    np.testing.assert_allclose(adj_base.numpy(), [0.0, 2.0, 4.0, 6.0, 0.0])


def test_own_grad_is_consumed_external_is_not():
    x = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
    y = wp.zeros(3, requires_grad=True)
    y.grad.fill_(1.0)
    wp.launch(scale_add, dim=3, inputs=[x, 1.0], outputs=[y], adj_inputs=[None, 0.0], adj_outputs=[None],
              adjoint=True)
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])
    # y[i] = ... + y[i]: the store consumes y.grad, the read gives it back
    np.testing.assert_allclose(y.grad.numpy(), [1.0, 1.0, 1.0])
