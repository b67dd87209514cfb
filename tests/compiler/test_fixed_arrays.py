"""Errors of fixed-size thread-local arrays (``wp.zeros`` in kernel code); working forms are in
the differential program ``lang_fixedarray``."""

from __future__ import annotations

from tests.kernel_errors import body_line, launch_error


def test_fixed_array_shape_must_be_constant(tmp_path):
    message = launch_error(tmp_path, "n = wp.tid() + 1\n    wp.zeros(shape=(n,), dtype=int)")
    assert "the `shape` argument must be specified as a constant" in message
    assert body_line(tmp_path) in message


def test_function_cannot_return_its_array_argument(tmp_path):
    prelude = "@wp.func\ndef same(a: wp.array(dtype=float)):\n    return a\n"
    message = launch_error(tmp_path, "b = same(out)", prelude=prelude)
    assert "only fixed-size arrays made by wp.zeros" in message


def test_fixed_array_return_needs_fixedarray_annotation(tmp_path):
    prelude = "@wp.func\ndef make() -> wp.array(dtype=int):\n    return wp.zeros(shape=3, dtype=int)\n"
    message = launch_error(tmp_path, "b = make()", prelude=prelude)
    assert "returns a fixed-size array whereas it has its return type annotated as `Array[int32]`" in message
