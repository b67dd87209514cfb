"""Vector Math builtins: Python-scope results against real Warp's, Warp's overload errors in
kernels, identity() argument forms, and JAX-differentiability at the special cases (zero vectors,
singular matrices) without NaNs."""

from __future__ import annotations


import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jwarp as wp
from tests.builtins.python_scope import assert_matches_warp
from tests.kernel_errors import launch_error
from jwarp.compiler.registry import BUILTINS, Call
from jwarp.compiler.values import leaves_of, value_from_leaves

PYTHON_SCOPE = [
    "wp.dot(wp.vec3(1.0, 2.0, 3.0), wp.vec3(1.0, 0.5, 4.0))",
    "wp.dot(wp.vec3i(1, 2, 3), wp.vec3i(1, 0, 4))",
    "wp.dot(wp.quat(1.0, 2.0, 3.0, 4.0), wp.quat(0.5, 2.0, 3.0, 4.0))",
    "wp.length(wp.vec3(3.0, 4.0, 12.0))",
    "wp.length(wp.quat(0.0, 0.0, 3.0, 4.0))",
    "wp.length_sq(wp.vec3i(1, 2, 3))",
    "wp.normalize(wp.vec3(0.0, 0.0, 0.0))",
    "wp.normalize(wp.vec4(1.0, 2.0, 3.0, 4.0))",
    "wp.normalize(wp.quat(0.0, 0.0, 0.0, 0.0))",
    "wp.normalize(wp.quat(1.0, 2.0, 3.0, 4.0))",
    "wp.argmax(wp.vec3(1.0, 5.0, 5.0))",
    "wp.argmin(wp.vec4i(4, 5, 3, 3))",
    "wp.cross(wp.vec3(1.0, 2.0, 3.0), wp.vec3(-1.0, 0.5, 2.0))",
    "wp.skew(wp.vec3(1.0, 2.0, 3.0))",
    "wp.outer(wp.vec3(1.0, 2.0, 3.0), wp.vec3(1.0, 0.0, 3.0))",
    "wp.cw_mul(wp.vec3(1.0, 2.0, 3.0), wp.vec3(1.0, 2.0, 3.0))",
    "wp.cw_div(wp.vec3(1.0, 2.0, 3.0), wp.vec3(1.0, 2.0, 0.0))",
    "wp.transpose(wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0))",
    "wp.trace(wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0))",
    "wp.diag(wp.vec3(1.0, 2.0, 3.0))",
    "wp.get_diag(wp.mat44(*range(16)))",
    "wp.ddot(wp.mat22(1.0, 2.0, 3.0, 4.0), wp.mat22(1.0, -2.0, 3.0, 4.0))",
    "wp.matrix_from_rows(wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0))",
    "wp.matrix_from_cols(wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0))",
    "wp.determinant(wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0))",
    "wp.determinant(wp.mat44(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 1, 1, 1, 0, 0, 2, 1))",
    "wp.inverse(wp.mat22(2.0, 1.0, 1.0, 2.0))",
    "wp.inverse(wp.mat22(1.0, 1.0, 1.0, 1.0))",
    "wp.inverse(wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0))",
    "wp.inverse(wp.mat44d(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 1, 1, 1, 0, 0, 2, 1))",
    "wp.svd3(wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0))",
    "wp.svd2(wp.mat22(3.0, 0.0, 4.0, 5.0))",
    "wp.svd2(wp.mat22(2.0, 0.0, 0.0, 2.0))",
    "wp.qr3(wp.mat33(1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0))",
    "wp.eig3(wp.mat33(4.0, 1.0, 2.0, 1.0, 3.0, 1.0, 2.0, 1.0, 5.0))",
    "wp.norm_l1(wp.vec3(1.0, -2.0, 3.0))",
    "wp.norm_l2(wp.vec3(1.0, -2.0, 3.0))",
    "wp.norm_huber(wp.vec3(1.0, -2.0, 3.0))",
    "wp.norm_huber(wp.vec3(0.1, -0.2, 0.3), 0.5)",
    "wp.norm_pseudo_huber(wp.vec3(1.0, -2.0, 3.0), 2.0)",
    "wp.smooth_normalize(wp.vec3(1.0, -2.0, 3.0))",
]


@pytest.mark.parametrize("expr", PYTHON_SCOPE)
def test_python_scope_matches_warp(expr):
    assert_matches_warp(expr, rtol=1e-5, atol=1e-5)


def test_python_scope_types():
    assert wp.argmax(wp.vec3(1.0, 5.0, 3.0)) == 1
    assert isinstance(wp.dot(wp.vec3i(1, 2, 3), wp.vec3i(1, 0, 4)), int)
    U, sigma, _ = wp.svd3(wp.mat33(2.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 1.0))
    assert type(U) is wp.mat33 and type(sigma) is wp.vec3
    np.testing.assert_allclose(np.asarray(sigma), [3.0, 2.0, 1.0], rtol=1e-6)
    assert type(wp.identity(n=3, dtype=wp.float64)) is wp.mat33d


def _kernel_error(tmp_path, body: str, exc_type=Exception):
    return launch_error(tmp_path, body, "vecmath_error_kernel.py", exc_type=exc_type)


@pytest.mark.parametrize(
    "body, exc_type, needle",
    [
        ("x = wp.length(wp.vec3i(1, 2, 3))", wp.WarpCodegenError, "Couldn't find function overload for 'length'"),
        ("x = wp.normalize(wp.vec3i(1, 2, 3))", wp.WarpCodegenError, "overload for 'normalize'"),
        ("x = wp.dot(wp.vec3(1.0, 2.0, 3.0), wp.vec3d(1.0, 2.0, 3.0))", RuntimeError, "exactly the same"),
        ("x = wp.dot(wp.vec3(1.0, 2.0, 3.0), wp.quat(1.0, 2.0, 3.0, 4.0))", wp.WarpCodegenError, "'dot'"),
        ("x = wp.cross(wp.vec2(1.0, 2.0), wp.vec2(1.0, 2.0))", wp.WarpCodegenError, "overload for 'cross'"),
        ("x = wp.cw_mul(wp.vec3(1.0, 2.0, 3.0), 2.0)", wp.WarpCodegenError, "overload for 'cw_mul'"),
        ("x = wp.cw_mul(wp.vec3(1.0, 2.0, 3.0), wp.vec2(1.0, 2.0))", RuntimeError, "Input types must be the same"),
        ("x = wp.outer(wp.vec3(1.0, 2.0, 3.0), wp.vec3d(1.0, 2.0, 3.0))", RuntimeError, "multiple precisions"),
        ("x = wp.trace(wp.matrix(1, 2, 3, 4, 5, 6, shape=(2, 3), dtype=int))", RuntimeError, "non square"),
        ("x = wp.get_diag(wp.matrix(1, 2, 3, 4, 5, 6, shape=(2, 3), dtype=int))", RuntimeError, "square matrices"),
        ("x = wp.determinant(wp.matrix(1, 2, 3, 4, shape=(2, 2), dtype=int))", wp.WarpCodegenError, "determinant"),
        ("x = wp.inverse(wp.matrix(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, shape=(2, 3)))", wp.WarpCodegenError, "inverse"),
        ("x = wp.svd3(wp.mat22())", wp.WarpCodegenError, "overload for 'svd3'"),
        ("x = wp.eig3(wp.mat22())", wp.WarpCodegenError, "overload for 'eig3'"),
        ("x = wp.identity(n=3)", wp.WarpCodegenError, "overload for 'identity'"),
        ("x = wp.identity(n=3, dtype=wp.vec3)", wp.WarpCodegenError, "overload for 'identity'"),
        ("x = wp.matrix_from_cols(wp.vec2(1.0, 2.0), wp.vec3(1.0, 2.0, 3.0))", RuntimeError, "same length"),
        ("x = wp.matrix_from_rows(wp.vec2(1.0, 2.0), wp.vec2d(1.0, 2.0))", RuntimeError, "same dtype"),
        ("x = wp.argmax(wp.vec3(1.0, 2.0, 3.0)) + 1", RuntimeError, "uint32"),
        ("x = wp.norm_l1(wp.vec3d(1.0, 2.0, 3.0))", RuntimeError, "float64"),
        (
            "x = wp.norm_huber(wp.vec3d(1.0, 2.0, 3.0), wp.float64(1.0))",
            wp.WarpCodegenError,
            "overload for 'norm_huber'",
        ),
        ("x = wp.norm_huber(wp.vec3d(1.0, 2.0, 3.0))", RuntimeError, "Input types must be the same"),
    ],
)
def test_kernel_overload_errors(tmp_path, body, exc_type, needle):
    message = _kernel_error(tmp_path, body, exc_type)
    assert needle in message, message


@wp.kernel
def _identities(out: wp.array(dtype=float), outd: wp.array(dtype=wp.float64), outi: wp.array(dtype=int)):
    a = wp.identity(n=4, dtype=float)
    b = wp.identity(2, wp.float64)
    c = wp.identity(n=3, dtype=int)
    out[0] = wp.trace(a)
    outd[0] = b[1, 1] + b[0, 1]
    outi[0] = wp.trace(c) * 10 + c[0, 1]


def test_identity_forms():
    out, outd, outi = wp.zeros(1), wp.zeros(1, dtype=wp.float64), wp.zeros(1, dtype=int)
    wp.launch(_identities, dim=1, inputs=[out, outd, outi])
    assert out.numpy()[0] == 4.0 and outd.numpy()[0] == 1.0 and outi.numpy()[0] == 30


def test_output_argument_overload_is_kernel_only():
    with pytest.raises(RuntimeError, match="inside a kernel"):
        wp.svd3(wp.mat33(), wp.mat33(), wp.vec3(), wp.mat33())


def _apply(name: str, t, x):
    """Run builtin ``name`` on a traced value of type ``t`` with leaves ``x`` (a 1-D jax array)."""
    v = value_from_leaves(t, [x[k] for k in range(t._length_)])
    r = BUILTINS[name].impl(Call(name), v)
    return jnp.stack([jnp.asarray(leaf) for leaf in leaves_of(r)])


@pytest.mark.parametrize(
    "name, t, x",
    [
        ("length", wp.vec3, np.zeros(3)),
        ("normalize", wp.vec3, np.zeros(3)),
        ("normalize", wp.quat, np.zeros(4)),
        ("inverse", wp.mat22, np.ones(4)),
        ("inverse", wp.mat33, np.zeros(9)),
        ("inverse", wp.mat44, np.zeros(16)),
        ("norm_huber", wp.vec3, np.zeros(3)),
    ],
)
def test_special_cases_have_finite_gradients(name, t, x):
    with jax.enable_x64(True):  # as kernels are traced (the 4x4 inverse has float64 steps)
        x = jnp.asarray(x, jnp.float32)
        grad = jax.grad(lambda x: jnp.sum(_apply(name, t, x)))(x)
    assert np.all(np.isfinite(np.asarray(grad))), grad


def test_length_gradient_matches_warp_convention():
    x = jnp.asarray([3.0, 4.0, 0.0], jnp.float32)
    np.testing.assert_allclose(jax.grad(lambda x: _apply("length", wp.vec3, x)[0])(x), [0.6, 0.8, 0.0], rtol=1e-6)
    zero = jnp.zeros(3, jnp.float32)
    np.testing.assert_array_equal(jax.grad(lambda x: _apply("length", wp.vec3, x)[0])(zero), [0.0, 0.0, 0.0])


DTYPE_CASES = [
    ("svd3", "matrix", 3), ("svd2", "matrix", 2), ("qr3", "matrix", 3), ("eig3", "matrix", 3),
    ("inverse", "matrix", 4), ("determinant", "matrix", 4), ("normalize", "quaternion", 4),
    ("normalize", "vector", 4), ("length", "vector", 3), ("argmax", "vector", 3),
]  # fmt: skip


def _traced_value(kind: str, n: int, scalar):
    """A value of ``kind`` over ``scalar`` whose leaves vary over 4 lanes (well-conditioned matrices)."""
    if kind == "matrix":
        t = wp.types.matrix((n, n), scalar)
        data = (np.arange(n * n) % 3 + 4 * np.eye(n).ravel()).astype(scalar._np_dtype)
    else:
        t = wp.types.quaternion(scalar) if kind == "quaternion" else wp.types.vector(n, scalar)
        data = np.arange(1, n + 1).astype(scalar._np_dtype)
    lanes = jnp.asarray(data)[:, None] * jnp.asarray([1, 2, 3, 4], scalar._np_dtype)
    return value_from_leaves(t, list(lanes))


@pytest.mark.parametrize("name, kind, n", DTYPE_CASES)
@pytest.mark.parametrize("scalar", [wp.float16, wp.float32, wp.float64])
def test_traced_results_keep_declared_dtypes(name, kind, n, scalar):
    """Every output leaf has the dtype its Value type declares (no silent float64 promotion)."""
    with jax.enable_x64(True):
        result = BUILTINS[name].impl(Call(name), _traced_value(kind, n, scalar))
        values = result.data if isinstance(result.data, tuple) and hasattr(result.data[0], "type") else (result,)
        for value in values:
            expected = getattr(value.type, "_wp_scalar_type_", value.type)._np_dtype
            for leaf in leaves_of(value):
                assert jnp.asarray(leaf).dtype == expected, (name, value.type, jnp.asarray(leaf).dtype)
