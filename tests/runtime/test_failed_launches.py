"""Every failing launch leaves every array unchanged: bad scalars, bad adjoint shapes, oversized
grids, wrong argument counts and dtypes, kernel-code errors, debug-mode bounds errors, out of memory."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp
from jwarp.compiler.kernel_compile import CompiledKernel


@wp.kernel
def update(a: wp.array(dtype=float), out: wp.array(dtype=float), n: int, x: float):
    i = wp.tid()
    out[i] = a[i] * x + float(n)
    a[i] = a[i] + 1.0


@wp.kernel
def reads_past_end(a: wp.array(dtype=float), out: wp.array(dtype=float), n: int, x: float):
    i = wp.tid()
    a[i] = 5.0
    out[i] = a[i + n] * x


@wp.kernel
def mistyped(a: wp.array(dtype=float), out: wp.array(dtype=float), n: int, x: float):
    i = wp.tid()
    a[i] = 1.0
    out[i] = a[i] + wp.vec3(x)


def _exhausted(self, donate=False, operands=None):
    def run(*args):
        raise RuntimeError("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1099511627776 bytes.")
    return run


def _arrays():
    a = wp.array(np.arange(4, dtype=np.float32), requires_grad=True)
    out = wp.full(4, -1.0, dtype=float, requires_grad=True)
    return a, out


CASES = {
    "int_param_gets_float_array": (RuntimeError, lambda a, out: wp.launch(update, 4, inputs=[a, out, np.array(2.7), 1.0])),
    "float_param_gets_complex": (RuntimeError, lambda a, out: wp.launch(update, 4, inputs=[a, out, 1, 1 + 2j])),
    "too_many_threads": (ValueError, lambda a, out: wp.launch(update, 2**40, inputs=[a, out, 1, 1.0])),
    "argument_count": (RuntimeError, lambda a, out: wp.launch(update, 4, inputs=[a, out, 1])),
    "array_dtype": (RuntimeError, lambda a, out: wp.launch(update, 4, inputs=[a, wp.zeros(4, dtype=int), 1, 1.0])),
    "adjoint_shape": (RuntimeError, lambda a, out: wp.launch(update, 4, inputs=[a, out, 1, 1.0],
                                                             adj_inputs=[wp.zeros(3), wp.ones(4), 0, 0.0],
                                                             adjoint=True)),
    "kernel_code_error": (RuntimeError, lambda a, out: wp.launch(mistyped, 4, inputs=[a, out, 1, 1.0])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_failed_launch_changes_no_array(name):
    exc_type, launch = CASES[name]
    a, out = _arrays()
    with pytest.raises(exc_type):
        launch(a, out)
    np.testing.assert_array_equal(a.numpy(), np.arange(4))
    np.testing.assert_array_equal(out.numpy(), np.full(4, -1.0))
    assert not a.grad.numpy().any() and not out.grad.numpy().any()


def test_debug_bounds_error_changes_no_array():
    saved = wp.config.mode
    wp.config.mode = "debug"
    try:
        a, out = _arrays()
        with pytest.raises(IndexError):
            wp.launch(reads_past_end, 4, inputs=[a, out, 2, 1.0])
    finally:
        wp.config.mode = saved
    np.testing.assert_array_equal(a.numpy(), np.arange(4))
    np.testing.assert_array_equal(out.numpy(), np.full(4, -1.0))


def test_out_of_memory_changes_no_array(monkeypatch):
    a, out = _arrays()
    monkeypatch.setattr(CompiledKernel, "executable", _exhausted)
    with pytest.raises(RuntimeError, match="launch_memory_budget"):
        wp.launch(reads_past_end, 4, inputs=[a, out, 1, 2.0])
    np.testing.assert_array_equal(a.numpy(), np.arange(4))
    np.testing.assert_array_equal(out.numpy(), np.full(4, -1.0))
