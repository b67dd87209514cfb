"""One out-of-bounds read rule (release mode) for every index form: an index in ``[-n, 0)`` wraps
(Warp's negative index), any other index outside the array reads 0 — whether it is a constant, an
affine ``tid + c``, ``tid + off`` with ``off`` a launch argument, or computed per thread. Expected
values come from numpy with that rule, not from a jwarp run."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp


def rule(values: np.ndarray, index: int) -> float:
    n = len(values)
    if -n <= index < 0:
        return values[index + n]
    return values[index] if 0 <= index < n else 0.0


@wp.kernel
def constant_index(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[9] + a[2] * 10.0


@wp.kernel
def affine_index(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i + 3]


@wp.kernel
def launch_offset(a: wp.array(dtype=float), out: wp.array(dtype=float), off: int):
    i = wp.tid()
    out[i] = a[i + off]


@wp.kernel
def computed_index(a: wp.array(dtype=float), out: wp.array(dtype=float), off: int):
    i = wp.tid()
    out[i] = a[(i * 3) % 7 + off]


@wp.kernel
def uniform_offset(a: wp.array(dtype=float), out: wp.array(dtype=float), off: int):
    i = wp.tid()
    out[i] = a[off] + float(i) * 0.0


@wp.kernel
def vector_reads(a: wp.array(dtype=wp.vec2), out: wp.array(dtype=float), off: int):
    i = wp.tid()
    v = a[i + off]
    out[i] = v[0] + v[1] * 100.0


@wp.kernel
def atomic_old(a: wp.array(dtype=float), out: wp.array(dtype=float), off: int):
    i = wp.tid()
    out[i] = wp.atomic_add(a, i * 2 + off, 0.0)


A = np.arange(1, 6, dtype=np.float32)


def _run(kernel, *extra, dim=5, data=A):
    a = wp.array(data, dtype=wp.vec2 if data.ndim == 2 else float)
    out = wp.zeros(dim)
    wp.launch(kernel, dim=dim, inputs=[a, out, *extra])
    return out.numpy()


def test_constant_index():
    np.testing.assert_array_equal(_run(constant_index), [rule(A, 9) + rule(A, 2) * 10] * 5)


def test_affine_index():
    np.testing.assert_array_equal(_run(affine_index), [rule(A, i + 3) for i in range(5)])


@pytest.mark.parametrize("off", [2, -7, -2, 40])
def test_launch_offset(off):
    np.testing.assert_array_equal(_run(launch_offset, off), [rule(A, i + off) for i in range(5)])


@pytest.mark.parametrize("off", [2, -9])
def test_computed_index(off):
    np.testing.assert_array_equal(_run(computed_index, off), [rule(A, (i * 3) % 7 + off) for i in range(5)])


@pytest.mark.parametrize("off", [1, 7, -6])
def test_uniform_index(off):
    np.testing.assert_array_equal(_run(uniform_offset, off), [rule(A, off)] * 5)


def test_vector_elements():
    data = np.arange(10, dtype=np.float32).reshape(5, 2) + 1
    expected = [0.0 if not -5 <= i + 2 < 5 else data[i + 2, 0] + data[i + 2, 1] * 100 for i in range(5)]
    np.testing.assert_array_equal(_run(vector_reads, 2, data=data), expected)


def test_atomic_return_values():
    np.testing.assert_array_equal(_run(atomic_old, 1), [rule(A, i * 2 + 1) for i in range(5)])
