"""``Launch`` objects (``record_cmd=True``): re-dispatch, current buffers, setters with Warp's
errors, in-place swaps vs re-binding, set_dim, direct construction, streams, tapes, adjoint
plumbing, and the ``wp.launch`` plan cache that shares the fast path."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime import fastpath
from jwarp.runtime.device import simulated_cuda_devices


@wp.kernel
def axpy(x: wp.array(dtype=float), s: float, y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = y[i] + s * x[i]


@wp.kernel
def shift(v: wp.vec3, out: wp.array(dtype=wp.vec3), n: int):
    i = wp.tid()
    out[i] = v * float(n + i)


def _xy(n=4):
    return wp.array(np.arange(n, dtype=np.float32)), wp.zeros(n)


def test_record_cmd_does_not_run_and_launch_does():
    x, y = _xy()
    cmd = wp.launch(axpy, 4, inputs=[x, 2.0, y], record_cmd=True)
    assert isinstance(cmd, wp.Launch)
    np.testing.assert_array_equal(y.numpy(), np.zeros(4))
    cmd.launch()
    cmd.launch()
    np.testing.assert_array_equal(y.numpy(), [0, 4, 8, 12])
    assert cmd.kernel is axpy and cmd.device is wp.get_device("cpu") and cmd.dim == tuple(cmd.bounds.shape) == (4,)
    assert cmd.block_dim == 1 and cmd.max_blocks == 0 and not cmd.adjoint and cmd.grid_stride
    assert cmd.fwd_args[0] is x and cmd.fwd_args[2] is y


def test_launch_reads_the_current_buffers():
    x, y = _xy()
    cmd = wp.launch(axpy, 4, inputs=[x, 1.0, y], record_cmd=True)
    wp.launch(axpy, 4, inputs=[x, 10.0, y])  # rebinds y's buffer
    x.assign(np.ones(4, dtype=np.float32))  # and x's
    cmd.launch()
    np.testing.assert_array_equal(y.numpy(), [1, 11, 21, 31])


def test_setters_swap_in_place_or_rebind():
    x, y = _xy()
    cmd = wp.launch(axpy, 4, inputs=[x, 1.0, y], record_cmd=True)
    program = cmd._program
    cmd.set_param_by_name("s", 3)  # an int for a float parameter is fine (as in Warp)
    y2 = wp.zeros(4)
    cmd.set_param_at_index(2, y2)  # same dtype/shape/device: swapped in place
    assert cmd._program is program
    cmd.launch()
    np.testing.assert_array_equal(y2.numpy(), [0, 3, 6, 9])
    np.testing.assert_array_equal(y.numpy(), np.zeros(4))
    cmd.set_param_at_index(2, x)  # y aliases x now: re-bound on the next launch
    assert cmd._program is None
    cmd.launch()
    np.testing.assert_array_equal(x.numpy(), [0, 4, 8, 12])
    big_x, big_y = _xy(6)
    cmd.set_params([big_x, 1.0, big_y])  # other shapes: a new signature
    cmd.set_dim(6)
    cmd.launch()
    np.testing.assert_array_equal(big_y.numpy(), np.arange(6))
    cmd.set_params([x])  # a shorter list sets the leading parameters (as in Warp)
    assert cmd.fwd_args[0] is x and cmd.fwd_args[2] is big_y


def test_composite_and_ctype_parameters():
    out = wp.zeros(3, dtype=wp.vec3)
    cmd = wp.launch(shift, 3, inputs=[wp.vec3(1.0, 2.0, 3.0), out, 0], record_cmd=True)
    cmd.set_param_at_index_from_ctype(2, ctypes.c_int32(1))
    cmd.set_param_by_name_from_ctype("v", wp.vec3(1.0, 0.0, 0.0))
    cmd.launch()
    np.testing.assert_array_equal(out.numpy()[:, 0], [1, 2, 3])
    cmd.set_params_from_ctypes([wp.vec3(0.0, 1.0, 0.0), out, 2])
    cmd.launch()
    np.testing.assert_array_equal(out.numpy()[:, 1], [2, 3, 4])


BAD_SETTERS = [
    ("index past the end", lambda c, x: c.set_param_at_index(3, 1.0), IndexError, "out of range"),
    ("negative index", lambda c, x: c.set_param_at_index(-1, 1.0), IndexError, "out of range"),
    ("unknown name", lambda c, x: c.set_param_by_name("z", 1.0), ValueError, "Argument 'z' not found in kernel"),
    ("unknown name ctype", lambda c, x: c.set_param_by_name_from_ctype("z", 1.0), ValueError, "not found"),
    ("array for scalar", lambda c, x: c.set_param_by_name("s", x), RuntimeError, "param s"),
    ("string for scalar", lambda c, x: c.set_param_by_name("s", "two"), RuntimeError, "unable to pack"),
    ("scalar for array", lambda c, x: c.set_param_by_name("x", 1.0), RuntimeError, "argument 'x' expects an array"),
    ("wrong dtype", lambda c, x: c.set_param_by_name("y", wp.zeros(4, dtype=int)), RuntimeError, "dtype=float32"),
    ("wrong ndim", lambda c, x: c.set_param_by_name("y", wp.zeros((2, 2))), RuntimeError, "1 dimension(s)"),
    ("adjoint on forward launch", lambda c, x: c.set_param_at_index(0, x, adjoint=True), IndexError, "adjoint"),
    ("too many params", lambda c, x: c.set_params([x, 1.0, x, x]), IndexError, "out of range"),
    ("bad dim", lambda c, x: c.set_dim(-2), ValueError, "non-negative"),
    ("five dims", lambda c, x: c.set_dim((1, 1, 1, 1, 1)), ValueError, "at most 4"),
    ("float dim", lambda c, x: c.set_dim(2.5), TypeError, "cannot be interpreted as an integer"),
]


@pytest.mark.parametrize("case", BAD_SETTERS, ids=[c[0] for c in BAD_SETTERS])
def test_bad_setters_raise_and_keep_the_launch(case):
    _, do, exc, needle = case
    x, y = _xy()
    cmd = wp.launch(axpy, 4, inputs=[x, 2.0, y], record_cmd=True)
    with pytest.raises(exc, match=needle.replace("(", r"\(").replace(")", r"\)")):
        do(cmd, x)
    cmd.launch()
    np.testing.assert_array_equal(y.numpy(), [0, 2, 4, 6])
    np.testing.assert_array_equal(x.numpy(), np.arange(4))


def test_zero_sized_record_cmd_returns_none_and_zero_dim_launch_is_noop():
    x, y = _xy()
    assert wp.launch(axpy, 0, inputs=[x, 1.0, y], record_cmd=True) is None
    cmd = wp.launch(axpy, 4, inputs=[x, 1.0, y], record_cmd=True)
    cmd.set_dim((0,))
    cmd.launch()
    np.testing.assert_array_equal(y.numpy(), np.zeros(4))


def test_direct_construction_defaults_like_warp():
    cmd = wp.Launch(axpy, "cpu")
    assert cmd.dim == (0,) and cmd.bounds.size == 0 and cmd.fwd_args == [None, 0, None]
    cmd.launch()  # zero threads: nothing to do
    x, y = _xy()
    cmd.set_params([x, 1.0, y])
    cmd.set_dim(4)
    cmd.launch()
    np.testing.assert_array_equal(y.numpy(), np.arange(4))


def test_stream_must_belong_to_the_launch_device():
    with simulated_cuda_devices(2):
        x, y = _xy()
        cmd = wp.launch(axpy, 4, inputs=[x, 1.0, y], record_cmd=True)
        cmd.launch(stream=wp.get_stream("cuda:0"))
        with pytest.raises(RuntimeError, match="Stream from device cuda:1 cannot be used on device cuda:0"):
            cmd.launch(stream=wp.Stream("cuda:1"))
        np.testing.assert_array_equal(y.numpy(), np.arange(4))


def test_launch_objects_are_not_recorded_on_a_tape():
    Tape = getattr(wp, "Tape", None)
    if Tape is None:
        pytest.skip("wp.Tape is not available")
    x = wp.array(np.arange(4, dtype=np.float32), requires_grad=True)
    y = wp.zeros(4, requires_grad=True)
    tape = Tape()
    with tape:
        cmd = wp.launch(axpy, 4, inputs=[x, 1.0, y], record_cmd=True)
        cmd.launch()
    assert len(tape.launches) == 0
    np.testing.assert_array_equal(y.numpy(), np.arange(4))


def test_adjoint_launch_objects_pass_device_and_block_dim(monkeypatch):
    from jwarp.runtime import commands, launch

    calls = []
    monkeypatch.setattr(commands, "adjoint_launch", lambda *args: calls.append(args))
    monkeypatch.setattr(launch, "adjoint_launch", lambda *args: calls.append(args))
    x, y = _xy()
    adj_x, adj_y = wp.zeros(4), wp.ones(4)
    cmd = wp.launch(axpy, 4, inputs=[x, 1.0, y], adj_inputs=[adj_x, 0.0, adj_y], adjoint=True, record_cmd=True)
    assert cmd.adjoint and calls == []
    cmd.set_param_at_index(2, wp.zeros(4), adjoint=True)
    cmd.launch()
    (kernel, dim, args, adj_args, device, block_dim), = calls
    assert kernel is axpy and dim == (4,) and args == [x, 1.0, y] and adj_args[0] is adj_x
    assert adj_args[2] is not adj_y and device is wp.get_device("cpu") and block_dim == 1
    wp.launch(axpy, 4, inputs=[x, 1.0, y], adj_inputs=[adj_x, 0.0, adj_y], adjoint=True, device="cpu")
    assert len(calls) == 2 and calls[1][4] is wp.get_device("cpu")


def test_wp_launch_plans_are_reused_and_keyed_by_argument_layout():
    @wp.kernel
    def fill(out: wp.array(dtype=float), v: float):
        out[wp.tid()] = v

    @wp.kernel
    def add(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        y[wp.tid()] += x[wp.tid()]

    a, b, c = wp.zeros(3), wp.zeros(3), wp.zeros(4)
    wp.launch(fill, 3, inputs=[a, 1.0])
    wp.launch(fill, 3, inputs=[a, -0.0])
    wp.launch(fill, 3, inputs=[b, 0.0])
    wp.launch(fill, 3, inputs=[c, 2.0])
    def distinct(kernel):
        return len({id(p) for p in fastpath.plans_of(kernel).values()})

    assert distinct(fill) == 2  # one per array layout (filed by identity too), not per scalar value
    np.testing.assert_array_equal(c.numpy(), [2.0, 2.0, 2.0, 0.0])
    x, y = wp.full(3, 1.0), wp.full(3, 2.0)
    wp.launch(add, 3, inputs=[x, y])  # y = 3
    wp.launch(add, 3, inputs=[y, y])  # the same base twice binds differently: its own plan; y = 6
    wp.launch(add, 3, inputs=[x, y])  # back to the first plan: y = 7
    assert distinct(add) == 2
    np.testing.assert_array_equal(y.numpy(), [7.0] * 3)
    np.testing.assert_array_equal(np.signbit(a.numpy()), [True] * 3)  # -0.0 is not confused with 0.0
    np.testing.assert_array_equal(np.signbit(b.numpy()), [False] * 3)
    wp.launch(fill, 3, inputs=[a, float("nan")])
    assert np.isnan(a.numpy()).all()
    with pytest.raises(RuntimeError, match="param v"):
        wp.launch(fill, 3, inputs=[a, "x"])  # validation still happens with a plan in place
    assert np.isnan(a.numpy()).all()


def test_deleted_buffer_is_reported():
    x, y = _xy()
    cmd = wp.launch(axpy, 4, inputs=[x, 1.0, y], record_cmd=True)
    wp.launch(axpy, 4, inputs=[x, 1.0, y])
    wp.to_jax(x).delete()  # the storage is gone (what "freed" means for a jax-backed array)
    for do in (cmd.launch, lambda: wp.launch(axpy, 4, inputs=[x, 1.0, y])):
        with pytest.raises(RuntimeError, match="argument 'x' is an array whose storage has been deleted"):
            do()
    np.testing.assert_array_equal(y.numpy(), np.arange(4))


def test_new_arrays_of_a_known_layout_find_the_plan():
    @wp.kernel
    def double(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        y[wp.tid()] = 2.0 * x[wp.tid()]

    x = wp.array(np.arange(4, dtype=np.float32))
    outs = [wp.zeros(4) for _ in range(5)]
    for y in outs:
        wp.launch(double, 4, inputs=[x, y])
    for y in outs:
        np.testing.assert_array_equal(y.numpy(), 2.0 * np.arange(4))
    plans = fastpath.plans_of(double)
    assert len(fastpath.layout_plans_of(double)) == 1
    assert len(plans) == 5 and len({id(p) for p in plans.values()}) == 1


@wp.kernel
def _tid_1d(out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = i


@wp.kernel
def _tid_2d(out: wp.array2d(dtype=int)):
    i, j = wp.tid()
    out[i, j] = i + j


def test_bounds_are_warp_launch_bounds():
    """As Warp's launch_bounds_t: one extent per tid dimension, extra launch dims folded into coord_mult."""
    out = wp.zeros(1, dtype=int)
    cmd = wp.launch(_tid_1d, dim=(3, 4), inputs=[out], record_cmd=True)
    assert tuple(cmd.bounds.shape) == (3,) and cmd.bounds.coord_mult == 4 and cmd.bounds.size == 12
    assert cmd.dim == (3, 4) and cmd.params[0] is cmd.bounds and cmd.params[1] is out
    cmd2 = wp.launch(_tid_2d, dim=5, inputs=[wp.zeros((1, 1), dtype=int)], record_cmd=True)
    assert tuple(cmd2.bounds.shape) == (5, 1) and cmd2.bounds.coord_mult == 1 and cmd2.bounds.size == 5
    cmd2.set_dim((0, 7))
    assert tuple(cmd2.bounds.shape) == (0, 7) and cmd2.bounds.size == 0


def test_tid_extent_limit_is_two_to_the_31():
    """wp.tid() coordinates are signed 32-bit: extents up to 2**31 are accepted, one more is refused."""
    out = wp.zeros(1, dtype=int)
    cmd = wp.launch(_tid_1d, dim=2**31, inputs=[out], record_cmd=True)
    assert cmd.bounds.size == 2**31
    with pytest.raises(ValueError, match=r"wp\.tid\(\) with extent 2147483649 in dimension 0"):
        wp.launch(_tid_1d, dim=2**31 + 1, inputs=[out], record_cmd=True)


def test_set_dim_validates_tid_extents_and_keeps_the_last_bounds():
    out = wp.zeros((1, 1), dtype=int)
    cmd = wp.launch(_tid_2d, dim=(1, 1), inputs=[out], record_cmd=True)
    cmd.set_dim((1, 2**31))
    last = cmd.bounds
    with pytest.raises(ValueError, match=r"extent 2147483649 in dimension 1"):
        cmd.set_dim((1, 2**31 + 1))
    assert cmd.bounds is last and cmd.dim == (1, 2**31)
    cmd.set_dim((0, 2**31 + 1))  # no thread can observe the oversized extent
    assert cmd.bounds.size == 0
