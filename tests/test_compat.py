"""Small top-level helpers of Warp's namespace: quat_between_vectors, transform_expand,
dtype_to_numpy, clear_kernel_cache, capture_debug_dot_print, CaptureMode."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp
from tests.builtins.python_scope import assert_matches_warp


@pytest.mark.parametrize("expr", [
    "wp.quat_between_vectors(wp.vec3(1.0, 0.0, 0.0), wp.vec3(0.0, 2.0, 1.0))",
    "wp.transform_expand([1, 2, 3, 0, 0, 0.6, 0.8])",
])
def test_matches_warp(expr):
    assert_matches_warp(expr, rtol=1e-6, atol=1e-7)


def test_dtype_to_numpy():
    assert wp.dtype_to_numpy(wp.float64) is np.float64 and wp.dtype_to_numpy(wp.int8) is np.int8
    with pytest.raises(TypeError, match="Cannot convert"):
        wp.dtype_to_numpy(wp.vec3)


@wp.kernel
def _between(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = wp.quat_rotate(wp.quat_between_vectors(a[i], b[i]), wp.normalize(a[i]))


def test_quat_between_vectors_in_a_kernel_and_clear_kernel_cache(monkeypatch, tmp_path):
    # point the cache setting elsewhere so the test forgets compiled kernels without wiping the
    # process's on-disk cache (clear_kernel_cache only deletes the directory JAX actually uses)
    monkeypatch.setattr(wp.config, "kernel_cache_dir", str(tmp_path))
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 16, 3)).astype(np.float32)
    out = wp.zeros(16, dtype=wp.vec3)
    wp.launch(_between, 16, [wp.array(a, dtype=wp.vec3), wp.array(b, dtype=wp.vec3), out])
    np.testing.assert_allclose(out.numpy(), b / np.linalg.norm(b, axis=1, keepdims=True), atol=1e-5)
    assert _between._cache
    wp.clear_kernel_cache()
    wp.clear_lto_cache()
    assert not _between._cache  # compiled executables forgotten; the next launch compiles again
    out.zero_()
    wp.launch(_between, 16, [wp.array(a, dtype=wp.vec3), wp.array(b, dtype=wp.vec3), out])
    np.testing.assert_allclose(out.numpy(), b / np.linalg.norm(b, axis=1, keepdims=True), atol=1e-5)


@wp.kernel
def _inc(a: wp.array(dtype=float)):
    a[wp.tid()] += 1.0


def test_capture_debug_dot_print_and_capture_mode(tmp_path):
    a = wp.zeros(2)
    with wp.ScopedCapture(capture_mode=wp.CaptureMode.RELAXED) as capture:
        wp.launch(_inc, 2, [a])
        wp.launch(_inc, 2, [a])
    path = tmp_path / "graph.dot"
    wp.capture_debug_dot_print(capture.graph, str(path), verbose=True)
    text = path.read_text()
    assert text.startswith("digraph") and "op0 -> op1" in text and "array" in text
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(a.numpy(), [2.0, 2.0])
    assert wp.is_conditional_graph_supported()
