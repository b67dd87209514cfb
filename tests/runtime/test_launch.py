"""wp.launch: validation with Warp's exception types and messages, all-or-nothing launches,
compile caching (no retrace), debug-mode bounds checks, dims."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp


@wp.kernel
def scale(a: wp.array(dtype=float), s: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] * s


@wp.struct
class S:
    x: float


@wp.struct
class T:
    x: float


@wp.kernel
def takes_struct(s: S, out: wp.array(dtype=float)):
    out[wp.tid()] = s.x


def _arrays():
    return wp.array(np.arange(4, dtype=np.float32)), wp.array(np.full(4, 7.0, np.float32))


BAD_LAUNCHES = [
    ("too few args", lambda a, o: wp.launch(scale, 4, inputs=[a, 2.0]), RuntimeError, "passed 2 arguments"),
    ("too many args", lambda a, o: wp.launch(scale, 4, inputs=[a, 2.0, o, o]), RuntimeError, "kernel requires 3"),
    ("wrong dtype", lambda a, o: wp.launch(scale, 4, inputs=[wp.zeros(4, dtype=int), 2.0, o]), RuntimeError,
     "argument 'a' expects an array with dtype=float32"),
    ("wrong ndim", lambda a, o: wp.launch(scale, 4, inputs=[wp.zeros((2, 2)), 2.0, o]), RuntimeError,
     "expects an array with 1 dimension(s)"),
    ("scalar for array", lambda a, o: wp.launch(scale, 4, inputs=[1.0, 2.0, o]), RuntimeError,
     "argument 'a' expects an array"),
    ("array for scalar", lambda a, o: wp.launch(scale, 4, inputs=[a, a, o]), RuntimeError, "param s"),
    ("not a kernel", lambda a, o: wp.launch(lambda: None, 4, inputs=[]), RuntimeError, "decorated with @wp.kernel"),
    ("negative dim", lambda a, o: wp.launch(scale, -1, inputs=[a, 2.0, o]), ValueError, "non-negative"),
    ("five dims", lambda a, o: wp.launch(scale, (1, 1, 1, 1, 4), inputs=[a, 2.0, o]), ValueError, "at most 4"),
    ("wrong struct", lambda a, o: wp.launch(takes_struct, 4, inputs=[T(), o]), RuntimeError, "argument 's'"),
]


@pytest.mark.parametrize("case", BAD_LAUNCHES, ids=[c[0] for c in BAD_LAUNCHES])
def test_bad_launch_raises_and_changes_nothing(case):
    _, do, exc_type, needle = case
    a, o = _arrays()
    with pytest.raises(exc_type) as info:
        do(a, o)
    assert needle in str(info.value)
    if "kernel" not in needle:
        assert "scale" in str(info.value) or "takes_struct" in str(info.value) or "param" in str(info.value)
    np.testing.assert_array_equal(a.numpy(), np.arange(4))
    np.testing.assert_array_equal(o.numpy(), np.full(4, 7.0))


def test_repeat_launch_does_not_retrace():
    traces = []

    @wp.kernel
    def counted(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = a[i] + s

    a = wp.zeros(16)
    wp.launch(counted, 16, inputs=[a, 1.0])
    compiled = list(counted._cache.values())
    assert len(compiled) == 1
    exe = compiled[0].executable()
    before = exe._cache_size()
    for s in (2.0, 3.0, 4.0):
        wp.launch(counted, 16, inputs=[a, s])
    assert len(counted._cache) == 1
    assert exe._cache_size() == before
    np.testing.assert_allclose(a.numpy(), np.full(16, 10.0))
    del traces


def test_new_shape_compiles_new_signature():
    a, o = _arrays()
    wp.launch(scale, 4, inputs=[a, 2.0, o])
    n = len(scale._cache)
    b = wp.zeros(8)
    wp.launch(scale, 8, inputs=[b, 2.0, wp.zeros(8)])
    assert len(scale._cache) == n + 1


def test_zero_dim_is_noop():
    a, o = _arrays()
    assert wp.launch(scale, 0, inputs=[a, 2.0, o]) is None
    assert wp.launch(scale, (3, 0), inputs=["not validated", 2.0, o]) is None
    np.testing.assert_array_equal(o.numpy(), np.full(4, 7.0))


def test_empty_dim_is_one_thread():
    @wp.kernel
    def one(a: wp.array(dtype=int)):
        i = wp.tid()
        a[i] = a[i] + 1

    a = wp.zeros(3, dtype=int)
    wp.launch(one, (), inputs=[a])
    np.testing.assert_array_equal(a.numpy(), [1, 0, 0])


def test_out_of_bounds_is_safe_in_release_and_raises_in_debug():
    @wp.kernel
    def oob(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = a[i + 2]
        out[i + 3] = 1.0

    a = wp.array(np.arange(4, dtype=np.float32))
    out = wp.zeros(4)
    wp.launch(oob, 4, inputs=[a, out])  # reads past the end are undefined but safe; writes dropped
    assert out.numpy()[3] == 1.0
    saved = wp.config.mode
    wp.config.mode = "debug"
    try:
        out2 = wp.zeros(4)
        with pytest.raises(IndexError) as info:
            wp.launch(oob, 4, inputs=[a, out2])
        assert "oob" in str(info.value) and "a[i + 2]" in str(info.value)
        np.testing.assert_array_equal(out2.numpy(), np.zeros(4))
    finally:
        wp.config.mode = saved


def test_config_validation():
    with pytest.raises(ValueError):
        wp.config.launch_array_access_mode = "strict"
    with pytest.raises(ValueError):
        wp.config.mode = "fast"


@wp.kernel
def _while_in_for(out: wp.array(dtype=float)):
    level = float(0.0)
    for _i in range(100):
        while level < 2.0:
            level = level + 1.0
    out[0] = level


def test_while_nested_in_for_launches_again():
    # loop-carry discovery once left a traced value in the program's constants: the second launch
    # then failed with "Execution supplied 1 arguments but compiled program expected 3"
    out = wp.zeros(1)
    for _ in range(3):
        wp.launch(_while_in_for, dim=1, inputs=[out])
        assert out.numpy()[0] == 2.0
