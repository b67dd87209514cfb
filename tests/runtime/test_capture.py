"""Graph capture: recording semantics, errors, Launch objects, nested graphs and the
fused replay (Warp's CPU behaviour is checked in tests/differential/programs/launch_capture.py)."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime import capture as capture_mod


@wp.kernel
def _axpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.struct
class _Pair:
    x: wp.array(dtype=float)
    scale: float


@wp.kernel
def _from_struct(p: _Pair, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = p.x[i] * p.scale


def test_nothing_runs_while_capturing_and_replay_fuses_all_operations():
    x, y = wp.full(8, 1.0), wp.zeros(8)
    with wp.ScopedCapture() as cap:
        for _ in range(20):
            wp.launch(_axpy, 8, [x, y, 0.5])
    assert y.numpy().sum() == 0.0
    assert cap.graph.num_operations == 20
    wp.capture_launch(cap.graph)
    wp.capture_launch(cap.graph)
    np.testing.assert_allclose(y.numpy(), np.full(8, 20.0))


def test_struct_arguments_and_launch_objects_are_recorded_with_their_parameters():
    src, out = wp.array(np.arange(4, dtype=np.float32)), wp.zeros(4)
    pair = _Pair()
    pair.x, pair.scale = src, 3.0
    cmd = wp.launch(_axpy, 4, [src, out, 1.0], record_cmd=True)
    with wp.ScopedCapture() as cap:
        wp.launch(_from_struct, 4, [pair, out])
        cmd.launch()
    cmd.set_param_at_index(2, 100.0)  # the graph keeps the parameters it captured
    src.assign(np.ones(4, dtype=np.float32))  # ...but reads the arrays' current contents
    wp.capture_launch(cap.graph)
    np.testing.assert_allclose(out.numpy(), np.full(4, 4.0))


def test_a_graph_can_be_replayed_inside_another_capture():
    x, y = wp.full(4, 1.0), wp.zeros(4)
    with wp.ScopedCapture() as inner:
        wp.launch(_axpy, 4, [x, y, 1.0])
    with wp.ScopedCapture() as outer:
        wp.capture_launch(inner.graph)
        wp.capture_launch(inner.graph)
    wp.capture_launch(outer.graph)
    np.testing.assert_allclose(y.numpy(), np.full(4, 2.0))


def test_capture_errors():
    x, y = wp.zeros(4), wp.zeros(4)
    wp.capture_begin()
    try:
        with pytest.raises(RuntimeError, match="already in progress"):
            wp.capture_begin()
        with pytest.raises(RuntimeError, match="wp.Tape cannot be recorded"):
            with wp.Tape():
                pass
        with pytest.raises(RuntimeError, match="adjoint launch of kernel '.*_axpy'"):
            wp.launch(_axpy, 4, [x, y, 1.0], adj_inputs=[x, y, 0.0], adjoint=True)
        with pytest.raises(RuntimeError, match="_axpy"):  # argument errors surface while recording
            wp.launch(_axpy, 4, [x, 1.0, 1.0])
    finally:
        graph = wp.capture_end()
    assert graph.num_operations == 0  # nothing that failed was recorded
    with pytest.raises(RuntimeError, match="No graph capture is in progress"):
        wp.capture_end()
    with pytest.raises(TypeError, match="Graph"):
        wp.capture_launch("not a graph")


def test_an_exception_inside_scoped_capture_drops_the_capture():
    with pytest.raises(ZeroDivisionError):
        with wp.ScopedCapture():
            1 / 0
    assert not capture_mod.recording()
    x = wp.zeros(2)
    wp.launch(_axpy, 2, [wp.full(2, 1.0), x, 1.0])  # runs eagerly again
    np.testing.assert_allclose(x.numpy(), [1.0, 1.0])


@wp.kernel
def _count_down(c: wp.array(dtype=wp.int32), y: wp.array(dtype=float), step: float):
    y[0] = y[0] + step
    c[0] = c[0] - 1


def test_conditionals_take_graphs_and_keyword_arguments_and_nest():
    c = wp.array(np.array([0], dtype=np.int32), dtype=wp.int32)
    flag = wp.array(np.array([1], dtype=np.int32), dtype=wp.int32)
    y = wp.zeros(1)
    with wp.ScopedCapture() as body:
        wp.launch(_count_down, 1, [c, y, 1.0])

    def loop(step):
        c.fill_(3)
        wp.capture_while(c, body.graph)
        wp.launch(_count_down, 1, [c, y, step])  # c: 0 -> -1

    with wp.ScopedCapture() as outer:
        wp.capture_if(flag, on_true=loop, step=10.0)
    wp.capture_launch(outer.graph)
    np.testing.assert_allclose(y.numpy(), [13.0])
    assert c.numpy()[0] == -1
    flag.zero_()
    wp.capture_launch(outer.graph)  # no branch taken
    np.testing.assert_allclose(y.numpy(), [13.0])


def test_condition_must_be_an_int32_array():
    with pytest.raises(TypeError, match="capture_if: condition must be a wp.array of dtype wp.int32"):
        wp.capture_if(wp.zeros(1), on_true=lambda: None)
