"""String annotations (``from __future__ import annotations``) of kernels and functions."""

from __future__ import annotations

import pytest

import jwarp as wp
from jwarp.compiler.source import function_annotations


def test_string_annotations_resolve_closure_locals():
    def factory(dtype):
        def fn(x: dtype, out: wp.array(dtype=dtype)) -> dtype:
            return dtype(x)

        return fn

    hints = function_annotations(factory(wp.float64))
    assert hints["x"] is wp.float64
    assert hints["return"] is wp.float64


def test_unresolvable_annotation_names_function_and_parameter():
    def fn(x: missing_module.Type):  # noqa: F821
        pass

    with pytest.raises(wp.WarpCodegenError) as info:
        wp.Kernel(func=fn)
    message = str(info.value)
    assert "argument 'x'" in message and "missing_module.Type" in message and "fn" in message


def test_variadic_tuple_parameter_rejects_items_of_another_type(tmp_path):
    from tests.kernel_errors import launch_error

    prelude = "@wp.func\ndef total(values: tuple[int, ...]):\n    return values[0]\n"
    message = launch_error(tmp_path, "x = total((1.0, 2.0))", prelude=prelude)
    assert "Couldn't find function overload for 'total'" in message
