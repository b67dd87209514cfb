"""``wp.autograd``: Jacobian layout, masks, gradcheck pass/fail and gradcheck_tape. (The values
are compared with Warp's in ``tests/differential/programs/grad_autograd.py``.)"""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp


@wp.kernel
def cubic(x: wp.array(dtype=float), v: wp.array(dtype=wp.vec2), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i] * x[i] + v[i][0] * v[i][1]


@wp.func
def wrong(x: float):
    return x * x


@wp.func_grad(wrong)
def adj_wrong(x: float, adj_ret: float):
    wp.adjoint[x] += 5.0 * adj_ret  # deliberately not 2x


@wp.kernel
def uses_wrong(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wrong(x[i])


def _inputs():
    x = wp.array(np.array([0.5, -1.0, 2.0], dtype=np.float32), requires_grad=True)
    v = wp.array(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=np.float32), dtype=wp.vec2,
                 requires_grad=True)
    y = wp.zeros(3, requires_grad=True)
    return x, v, y


def test_jacobian_layout_and_values():
    x, v, y = _inputs()
    jacs = wp.autograd.jacobian(cubic, dim=3, inputs=[x, v], outputs=[y])
    assert set(jacs) == {(0, 0), (1, 0)}
    jx = jacs[0, 0].numpy()
    np.testing.assert_allclose(jx, np.diag(3.0 * x.numpy() ** 2))
    jv = jacs[1, 0]
    assert jv.dtype == wp.vec2 and jv.shape == (3, 3)
    np.testing.assert_allclose(jv.numpy()[1, 1], [4.0, 3.0])
    fd = wp.autograd.jacobian_fd(cubic, dim=3, inputs=[x, v], outputs=[y], eps=1e-3)
    np.testing.assert_allclose(fd[0, 0].numpy(), jx, rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(x.numpy(), [0.5, -1.0, 2.0])  # inputs restored


def test_masks_select_pairs():
    x, v, y = _inputs()
    jacs = wp.autograd.jacobian(cubic, dim=3, inputs=[x, v], outputs=[y], input_output_mask=[("v", "y")])
    assert set(jacs) == {(1, 0)}


def test_gradcheck_detects_a_wrong_custom_gradient(capsys):
    x = wp.array(np.array([0.5, 1.5], dtype=np.float32), requires_grad=True)
    y = wp.zeros(2, requires_grad=True)
    assert not wp.autograd.gradcheck(uses_wrong, dim=2, inputs=[x], outputs=[y], eps=1e-3, raise_exception=False)
    assert "failed" in capsys.readouterr().out
    with pytest.raises(ValueError, match="finite difference and autodiff gradients do not match"):
        wp.autograd.gradcheck(uses_wrong, dim=2, inputs=[x], outputs=[y], eps=1e-3, show_summary=False)


def test_gradcheck_function_and_tape():
    x, v, y = _inputs()

    def fn(x, v):
        out = wp.zeros(3, requires_grad=True)
        wp.launch(cubic, dim=3, inputs=[x, v], outputs=[out])
        return out

    assert wp.autograd.gradcheck(fn, inputs=[x, v], eps=1e-3, atol=1e-2, show_summary=False)
    with wp.Tape() as tape:
        wp.launch(cubic, dim=3, inputs=[x, v], outputs=[y])
    assert wp.autograd.gradcheck_tape(tape, eps=1e-3, atol=1e-2, show_summary=False)


@wp.kernel
def _squares(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


def test_jacobians_keep_the_read_marks_of_a_pending_tape():
    """A gradient check runs its own passes: it neither clears the read marks a caller's open tape
    set on the inputs nor leaves its own marks behind."""
    from jwarp.autograd import jacobian, jacobian_fd

    def forward(x):
        y = wp.zeros_like(x)
        wp.launch(_squares, dim=x.size, inputs=[x], outputs=[y])
        return y

    saved = wp.config.verify_autograd_array_access
    wp.config.verify_autograd_array_access = True
    try:
        for check in (jacobian, jacobian_fd):
            x = wp.array(np.arange(1, 4, dtype=np.float32), requires_grad=True)
            y = wp.zeros_like(x)
            with wp.Tape():
                wp.launch(_squares, dim=3, inputs=[x], outputs=[y])
            assert x._is_read
            check(forward, inputs=[x])
            assert x._is_read
            fresh = wp.array(np.arange(1, 4, dtype=np.float32), requires_grad=True)
            check(forward, inputs=[fresh])
            assert not fresh._is_read
    finally:
        wp.config.verify_autograd_array_access = saved
