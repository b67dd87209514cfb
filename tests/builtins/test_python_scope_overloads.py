"""Builtins called from Python with arguments no overload accepts raise Warp's Python-scope
RuntimeError, naming the builtin and the Python types of the arguments."""

from __future__ import annotations

import pytest

import jwarp as wp


@pytest.mark.parametrize("call, names", [
    (lambda: wp.bit_count(wp.float32(0)), "'bit_count' compatible with the arguments 'float32'"),
    (lambda: wp.bit_count(wp.vec2i(0)), "'bit_count' compatible with the arguments 'vec2i'"),
    (lambda: wp.bit_count(True), "'bit_count' compatible with the arguments 'bool'"),
])
def test_no_matching_overload_in_python_scope(call, names):
    with pytest.raises(RuntimeError, match="Couldn't find a function") as info:
        call()
    assert names in str(info.value)
