"""wp.grad(f) errors: non-float arguments, functions that do not return a float scalar, use outside
kernels; and gradients of a vector argument against finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp
from tests.kernel_errors import body_line, launch_error


PRELUDE = "@wp.func\ndef vec_out(x: float):\n    return wp.vec3(x, x, x)\n"


@pytest.mark.parametrize("body, needle", [
    ("out[0] = wp.grad(wp.sin)(1)", "argument 0 has type int32"),
    ("out[0] = wp.grad(vec_out)(1.0)", "must return a float scalar, got vec3f"),
    ("out[0] = wp.grad(wp.sin)()", "needs the function's arguments"),
])
def test_errors_name_the_problem_and_the_line(tmp_path, body, needle):
    message = launch_error(tmp_path, body, "grad_call_kernel.py", prelude=PRELUDE)
    assert needle in message and body_line(tmp_path, "grad_call_kernel.py") in message, message


def test_python_scope_call_is_refused():
    with pytest.raises(RuntimeError, match="inside a kernel"):
        wp.grad(wp.sin)(1.0)
    with pytest.raises(TypeError, match="expects a @wp.func"):
        wp.grad(3.0)


@wp.func
def _bowl(p: wp.vec3):
    return wp.length(p) * wp.cos(p[1])


@wp.kernel
def _bowl_grad(p: wp.array(dtype=wp.vec3), g: wp.array(dtype=wp.vec3), f: wp.array(dtype=float)):
    i = wp.tid()
    g[i] = wp.grad(_bowl)(p[i])
    f[i] = _bowl(p[i])


def test_vector_gradient_matches_finite_differences():
    pts = np.random.default_rng(4).normal(size=(5, 3))
    g = wp.zeros(5, dtype=wp.vec3)
    f = wp.zeros(5)
    wp.launch(_bowl_grad, 5, [wp.array(pts.astype(np.float32), dtype=wp.vec3), g, f])

    def value(p):
        return np.linalg.norm(p) * np.cos(p[1])

    for i, p in enumerate(pts):
        fd = [(value(p + e) - value(p - e)) / 2e-4 for e in np.eye(3) * 1e-4]
        np.testing.assert_allclose(g.numpy()[i], fd, rtol=2e-3, atol=2e-3)
