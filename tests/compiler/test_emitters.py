"""XLA:CPU emitter choice per kernel (jwarp/compiler/emitters.py): straight-line kernels compile with
the older elemental emitters, kernels with loops, reductions, gathers or scatters keep XLA's default
(except at optimisation level 0, which takes the older emitters everywhere); results are the same."""

import numpy as np

import jwarp as wp
from jwarp.compiler.emitters import CHEAP_PASSES, OLDER_EMITTERS, compile_options, level_options, straight_line


@wp.kernel
def _blend(x: wp.array(dtype=wp.vec3), y: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    a = x[i]
    out[i] = wp.normalize(a) * wp.sin(wp.length(y[i])) + wp.cross(a, y[i])


@wp.kernel
def _loop_sum(x: wp.array(dtype=float), n: int, out: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for j in range(n):
        s += x[j] * float(i)
    out[i] = s


@wp.kernel
def _scatter(idx: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, idx[i], 1.0)


def _compiled(kernel):
    return next(iter(c for c in kernel._cache.values() if hasattr(c, "closed_jaxpr")))


def test_straight_line_kernel_takes_the_older_emitters_and_matches_numpy():
    rng = np.random.default_rng(0)
    xs, ys = rng.standard_normal((64, 3)).astype(np.float32), rng.standard_normal((64, 3)).astype(np.float32)
    x, y, out = wp.array(xs, dtype=wp.vec3), wp.array(ys, dtype=wp.vec3), wp.zeros(64, dtype=wp.vec3)
    wp.launch(_blend, 64, inputs=[x, y], outputs=[out])
    jaxpr = _compiled(_blend).closed_jaxpr.jaxpr
    assert straight_line(jaxpr)
    assert compile_options(jaxpr, [x.buffer, y.buffer]) == OLDER_EMITTERS
    expected = (xs / np.linalg.norm(xs, axis=1, keepdims=True)) * np.sin(np.linalg.norm(ys, axis=1))[:, None] \
        + np.cross(xs, ys)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-5)


def test_loops_and_scatters_keep_the_default_emitters():
    x, out = wp.array(np.arange(8, dtype=np.float32)), wp.zeros(8)
    wp.launch(_loop_sum, 8, inputs=[x, 8], outputs=[out])
    np.testing.assert_allclose(out.numpy(), np.arange(8) * 28.0)
    assert compile_options(_compiled(_loop_sum).closed_jaxpr.jaxpr, [x.buffer]) is None
    counts = wp.zeros(4)
    wp.launch(_scatter, 8, inputs=[wp.array(np.arange(8, dtype=np.int32) % 4)], outputs=[counts])
    np.testing.assert_array_equal(counts.numpy(), [2.0, 2.0, 2.0, 2.0])
    assert not straight_line(_compiled(_scatter).closed_jaxpr.jaxpr)


@wp.kernel
def _to_float(n: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.sin(float(n[i])) + float(i)


def test_type_conversions_are_straight_line_code():
    # convert_element_type is elementwise: only convolutions (conv_general_dilated) keep the default
    n, out = wp.array(np.arange(16, dtype=np.int32)), wp.zeros(16)
    wp.launch(_to_float, 16, inputs=[n], outputs=[out])
    jaxpr = _compiled(_to_float).closed_jaxpr.jaxpr
    assert any(e.primitive.name == "convert_element_type" for e in jaxpr.eqns)
    assert straight_line(jaxpr)
    np.testing.assert_allclose(out.numpy(), np.sin(np.arange(16.0)) + np.arange(16), rtol=1e-6)


def test_level_zero_takes_the_older_emitters_for_loops_too(monkeypatch):
    monkeypatch.setattr(wp.config, "optimization_level", 0)
    x, out = wp.array(np.arange(8, dtype=np.float32)), wp.zeros(8)
    wp.launch(_loop_sum, 8, inputs=[x, 6], outputs=[out])
    np.testing.assert_allclose(out.numpy(), np.arange(8) * 15.0)
    compiled = next(c for c in _loop_sum._cache.values()
                    if hasattr(c, "closed_jaxpr") and dict(c.signature.extra).get("opt_level") == 0)
    level = level_options(compiled.signature)
    assert level == {"xla_backend_optimization_level": 0, **OLDER_EMITTERS, **CHEAP_PASSES}
    assert compile_options(compiled.closed_jaxpr.jaxpr, [x.buffer], level) == level
