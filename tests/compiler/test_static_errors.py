"""``wp.static()`` in kernel code: Warp's errors for expressions that fail or return values a
kernel cannot hold, and compile-time bools as range bounds."""

from __future__ import annotations

import pytest

import jwarp as wp
from tests.kernel_errors import launch_error


@pytest.mark.parametrize("body, needle", [
    ("x = wp.static(1.0 / 0.0)", "Error evaluating static expression: float division by zero"),
    ("i = 3\n    x = wp.static(undefined_name * 2)",
     "name 'undefined_name' is not defined. Make sure all variables used in the static expression are constant."),
    ("x = wp.static(wp.zeros(3))",
     "Static expression returns an unsupported value: a Warp array cannot be created inside Warp kernels"),
    ("x = wp.static(print())", "Static expression returns an unsupported value: None is returned"),
])
def test_static_expression_errors(tmp_path, body, needle):
    message = launch_error(tmp_path, body, exc_type=wp.WarpCodegenError)
    assert needle in message


def test_static_bool_is_a_range_bound():
    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=wp.int32)):
        for _ in range(wp.static(True)):
            out[0] += 1
        for _ in range(wp.static(False)):
            out[0] += 10

    out = wp.zeros(1, dtype=wp.int32)
    wp.launch(k, dim=1, inputs=[out])
    assert out.numpy()[0] == 1


def test_static_plain_object_is_rejected(tmp_path):
    prelude = "class Plain:\n    pass\n"
    message = launch_error(tmp_path, "x = wp.static(Plain())", prelude=prelude, exc_type=wp.WarpCodegenError)
    assert "Static expression returns an unsupported value: value of type" in message and "Plain" in message
