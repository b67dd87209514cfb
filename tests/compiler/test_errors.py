"""Errors in kernel code name the kernel, the file and line, show the source line, and hide
jwarp's own frames; the exception type is Warp's."""

from __future__ import annotations

import traceback

import numpy as np
import pytest

import jwarp as wp


def _launch_error(kernel, *inputs, dim=4):
    with pytest.raises(Exception) as info:
        wp.launch(kernel, dim=dim, inputs=list(inputs))
    return info


def _assert_located(info, kernel_name, needle):
    text = str(info.value)
    assert f'Error while parsing function "{kernel_name}"' in text
    assert f"{__file__}:" in text
    assert needle in text, text
    formatted = "".join(traceback.format_exception(info.value))
    assert "jwarp/compiler/lower.py" not in formatted
    assert "For simplicity, JAX has removed" not in formatted


def test_unsupported_syntax_names_line():
    @wp.kernel
    def uses_lambda(a: wp.array(dtype=float)):
        i = wp.tid()
        f = lambda x: x  # noqa: E731
        a[i] = 1.0

    info = _launch_error(uses_lambda, wp.zeros(4))
    assert isinstance(info.value, wp.WarpCodegenError)
    _assert_located(info, "uses_lambda", "f = lambda x: x")
    assert "Lambda" in str(info.value)


def test_unknown_name():
    @wp.kernel
    def unknown(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = not_defined_anywhere

    info = _launch_error(unknown, wp.zeros(4))
    _assert_located(info, "unknown", "not_defined_anywhere")


def test_mixed_types_is_runtime_error():
    @wp.kernel
    def mixed(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = a[i] * 2

    info = _launch_error(mixed, wp.zeros(4))
    assert isinstance(info.value, RuntimeError)
    _assert_located(info, "mixed", "a[i] = a[i] * 2")
    assert "Input types must be the same" in str(info.value)


def test_wrong_builtin_arguments():
    @wp.kernel
    def bad_call(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = wp.sin(i)

    info = _launch_error(bad_call, wp.zeros(4))
    assert isinstance(info.value, wp.WarpCodegenError)
    _assert_located(info, "bad_call", "Couldn't find function overload for 'sin'")


def test_error_inside_func_points_at_func_line():
    @wp.func
    def helper(x: float):
        return x + undefined_in_helper

    @wp.kernel
    def calls_helper(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = helper(a[i])

    info = _launch_error(calls_helper, wp.zeros(4))
    assert 'function "helper"' in str(info.value)
    assert "undefined_in_helper" in str(info.value)


def test_loop_variable_type_change():
    @wp.kernel
    def changes(a: wp.array(dtype=float), n: int):
        i = wp.tid()
        s = int(0)
        for k in range(n):
            s = float(k)
        a[i] = 1.0

    info = _launch_error(changes, wp.zeros(4), 100)
    _assert_located(info, "changes", "s = float(k)")
    assert "existing symbol s" in str(info.value) and "int32" in str(info.value) and "float32" in str(info.value)
    assert isinstance(info.value, TypeError)


def test_store_type_mismatch():
    @wp.kernel
    def store_int(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = i

    info = _launch_error(store_int, wp.zeros(4))
    _assert_located(info, "store_int", "a[i] = i")


def test_failed_compile_changes_no_array():
    @wp.kernel
    def half_bad(a: wp.array(dtype=float), b: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = 5.0
        b[i] = b[i] * 2

    a = wp.array(np.arange(4, dtype=np.float32))
    b = wp.array(np.arange(4, dtype=np.float32))
    with pytest.raises(RuntimeError):
        wp.launch(half_bad, dim=4, inputs=[a, b])
    np.testing.assert_array_equal(a.numpy(), np.arange(4))
    np.testing.assert_array_equal(b.numpy(), np.arange(4))


@pytest.mark.parametrize("body, needle", [
    ("x = wp.nonexistent_func()", "Could not find function wp.nonexistent_func as a built-in or user-defined"),
    ("x = wp.types.tid()", "Could not find function wp.types.tid"),
    ("x = wp.foo.bar.tid()", "`foo` is not an attribute of"),
])
def test_missing_module_functions_use_warps_wording(tmp_path, body, needle):
    from tests.kernel_errors import launch_error

    message = launch_error(tmp_path, body, exc_type=AttributeError)
    assert needle in message


def _caret_span(text: str) -> str:
    """The source text the caret underlines in a located message."""
    lines = text.splitlines()
    source, caret = lines[1], lines[2]
    start = caret.index("^")
    return source[start:start + caret.count("^")]


def test_caret_marks_the_node_that_failed_not_the_last_that_succeeded():
    @wp.kernel
    def bad_add(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = wp.sin(a[i]) + wp.vec3(1.0)

    @wp.kernel
    def bad_name(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = float(i) + not_defined_anywhere * 2.0  # noqa: F821

    @wp.kernel
    def bad_call(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = 2.0 * wp.length(a[i] * 2.0, 1.0)

    assert _caret_span(str(_launch_error(bad_add, wp.zeros(4)).value)) == "wp.sin(a[i]) + wp.vec3(1.0)"
    assert _caret_span(str(_launch_error(bad_name, wp.zeros(4)).value)) == "not_defined_anywhere"
    assert _caret_span(str(_launch_error(bad_call, wp.zeros(4)).value)) == "wp.length(a[i] * 2.0, 1.0)"


@wp.func
def _inner_bad(x: float):
    v = wp.vec3(x)
    return v + x


@wp.func
def _outer(x: float):
    return _inner_bad(x * 2.0)


def test_error_inside_inlined_func_names_every_calling_line():
    @wp.kernel
    def calls_bad(a: wp.array(dtype=float)):
        i = wp.tid()
        b = _outer(a[i])
        a[i] = b[0]

    text = str(_launch_error(calls_bad, wp.zeros(4)).value)
    lines = text.splitlines()
    assert lines[0].startswith('Error while parsing function "_inner_bad"') and _caret_span(text) == "v + x"
    outer = lines.index(next(line for line in lines if line.startswith('Called from function "_outer"')))
    kernel = lines.index(next(line for line in lines if line.startswith('Called from kernel "calls_bad"')))
    assert outer < kernel
    assert "_inner_bad(x * 2.0)" in lines[outer + 1] and "b = _outer(a[i])" in lines[kernel + 1]
    assert lines[kernel + 2].strip() == "^" * len("_outer(a[i])")


@wp.struct
class _HoldsArray:
    values: wp.array(dtype=wp.vec3)


def test_array_fields_of_structs_in_arrays_are_rejected_for_reads_and_writes():
    @wp.kernel
    def reads_through_element(holders: wp.array(dtype=_HoldsArray), out: wp.array(dtype=float)):
        out[0] = holders[0].values[0].y

    @wp.kernel
    def writes_through_element(holders: wp.array(dtype=_HoldsArray), out: wp.array(dtype=float)):
        holders[0].values[0].x = out[0]

    holder = _HoldsArray()
    holder.values = wp.zeros(1, dtype=wp.vec3)
    holders = wp.array([holder], dtype=_HoldsArray)
    for kernel, name, line in ((reads_through_element, "reads_through_element", "out[0] = holders[0].values[0].y"),
                               (writes_through_element, "writes_through_element", "holders[0].values[0].x = out[0]")):
        info = _launch_error(kernel, holders, wp.zeros(1), dim=1)
        assert isinstance(info.value, NotImplementedError)
        _assert_located(info, name, line)
        assert "cannot access an array through its address" in str(info.value)


@wp.func
def _double(x: float):
    return 2.0 * x


@wp.func
def _halve(x: float):
    return 0.5 * x


def test_function_locals_keep_their_function():
    @wp.kernel
    def same_function_again(out: wp.array(dtype=float)):
        f = _double
        f = _double
        out[0] = f(3.0)

    @wp.kernel
    def another_function(out: wp.array(dtype=float)):
        f = _double
        f = _halve
        out[0] = f(3.0)

    @wp.kernel
    def a_value(out: wp.array(dtype=float)):
        f = _double
        f = 1.0
        out[0] = f

    @wp.kernel(enable_backward=False)
    def grad_local_updated(out: wp.array(dtype=float)):
        g = wp.grad(_double)
        g += 1.0
        out[0] = 1.0

    @wp.kernel(enable_backward=False)
    def grad_local_unpacked(out: wp.array(dtype=float)):
        g = wp.grad(_double)
        g, x = (1.0, 2.0)
        out[0] = x

    out = wp.zeros(1)
    wp.launch(same_function_again, dim=1, inputs=[out])
    assert out.numpy()[0] == 6.0
    for kernel, name, needle in (
        (another_function, "another_function", "rebinding function-valued local 'f' to a different function"),
        (a_value, "a_value", "rebinding function-valued local 'f' to a non-function value"),
        (grad_local_updated, "grad_local_updated", "Cannot reassign local 'g' after binding it to wp.grad"),
        (grad_local_unpacked, "grad_local_unpacked", "Cannot reassign local 'g' after binding it to wp.grad"),
    ):
        info = _launch_error(kernel, out, dim=1)
        assert isinstance(info.value, wp.WarpCodegenError)
        _assert_located(info, name, needle)
