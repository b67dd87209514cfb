"""``wp.Tape``: gradients checked against finite differences where Warp's are wrong (arrays
overwritten inside the tape, loops with run-time bounds), and the tape's bookkeeping
(``record_tape``, Launch objects, ``zero``/``reset``, ``record_func``, warnings, errors,
structure caching). Results that Warp defines are compared with Warp in
``tests/differential/programs/grad_*.py``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime import tape_chain

f64 = wp.float64


@wp.kernel
def advance(x: wp.array(dtype=f64), v: wp.array(dtype=f64), dt: f64):
    i = wp.tid()
    v[i] = v[i] + (f64(-2.0) * x[i] - f64(0.1) * v[i] * v[i]) * dt
    x[i] = x[i] + v[i] * dt


@wp.kernel
def double_in_place(a: wp.array(dtype=f64)):
    i = wp.tid()
    a[i] = a[i] * a[i] * f64(0.5) + a[i]


@wp.kernel
def sum_squares(a: wp.array(dtype=f64), loss: wp.array(dtype=f64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, a[i] * a[i] * f64(i + 1))


@wp.kernel
def while_kernel(x: wp.array(dtype=f64), y: wp.array(dtype=f64)):
    i = wp.tid()
    v = x[i]
    while v < f64(5.0):
        v = v * f64(1.3) + f64(0.2)
    y[i] = v


@wp.kernel
def break_kernel(x: wp.array(dtype=f64), n: wp.array(dtype=int), y: wp.array(dtype=f64)):
    i = wp.tid()
    s = f64(1.0)
    for k in range(n[i]):
        s = s * x[i] + f64(k)
        if s > f64(8.0):
            break
    y[i] = s


@wp.kernel
def nested_kernel(x: wp.array(dtype=f64), n: wp.array(dtype=int), m: int, y: wp.array(dtype=f64)):
    i = wp.tid()
    s = f64(0.0)
    p = x[i]
    for a in range(n[i]):
        for b in range(m):
            p = wp.sin(p) + x[i] * f64(0.5)
            s += p * f64(b + 1)
    y[i] = s


@wp.func
def carried_product(x: f64, n: int):
    acc = f64(0.0)
    p = f64(1.0)
    for k in range(n):
        acc += p / f64(k + 1)
        p = p * x
    return acc


@wp.kernel
def func_loop_kernel(x: wp.array(dtype=f64), n: wp.array(dtype=int), y: wp.array(dtype=f64)):
    i = wp.tid()
    y[i] = carried_product(x[i], n[i])


@wp.kernel
def square32(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel
def total32(y: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, y[i])


@wp.kernel(enable_backward=False)
def square32_nb(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


def _fd(loss_of, x0: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    out = np.zeros_like(x0)
    for j in range(x0.size):
        step = np.zeros_like(x0)
        step.flat[j] = eps
        out.flat[j] = (loss_of(x0 + step) - loss_of(x0 - step)) / (2 * eps)
    return out


def _tape_grad(forward, x0: np.ndarray) -> np.ndarray:
    x = wp.array(x0, dtype=f64, requires_grad=True)
    loss = wp.zeros(1, dtype=f64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        forward(x, loss)
    tape.backward(loss=loss)
    return x.grad.numpy()


def _loss(forward, x0: np.ndarray) -> float:
    x = wp.array(x0, dtype=f64)
    loss = wp.zeros(1, dtype=f64)
    forward(x, loss)
    return float(loss.numpy()[0])


def _check(forward, x0: np.ndarray, rtol: float = 1e-6) -> None:
    grad = _tape_grad(forward, x0)
    fd = _fd(lambda v: _loss(forward, v), x0)
    np.testing.assert_allclose(grad, fd, rtol=rtol, atol=1e-8)


# -- arrays overwritten inside the tape: every version is differentiated -----------------------------


def test_time_stepping_in_place_matches_finite_differences():
    v0 = np.array([0.3, -0.2, 0.5])

    def forward(x, loss):
        v = wp.array(v0, dtype=f64, requires_grad=True)
        for _ in range(20):
            wp.launch(advance, dim=3, inputs=[x, v, 0.05])
        wp.launch(sum_squares, dim=3, inputs=[x, loss])

    _check(forward, np.array([1.0, 0.5, -0.7]))


def test_repeated_in_place_update_matches_finite_differences():
    def forward(x, loss):
        for _ in range(3):
            wp.launch(double_in_place, dim=3, inputs=[x])
        wp.launch(sum_squares, dim=3, inputs=[x, loss])

    _check(forward, np.array([0.2, -0.4, 0.9]))


def test_write_outside_kernels_passes_gradient_through():
    # an array refilled from Python inside the tape: like Warp, the tape does not see it
    x = wp.array(np.array([1.0, 2.0]), dtype=f64, requires_grad=True)
    loss = wp.zeros(1, dtype=f64, requires_grad=True)
    with wp.Tape() as tape:
        loss.zero_()
        wp.launch(sum_squares, dim=2, inputs=[x, loss])
    tape.backward(loss=loss)
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 8.0])


# -- loops with run-time bounds (bounded mode) ----------------------------------------------------


@pytest.mark.parametrize("case", ["while", "break", "nested", "func"])
def test_dynamic_loops_match_finite_differences(case):
    counts = wp.array(np.array([0, 2, 5, 9], dtype=np.int32), dtype=int)

    def forward(x, loss):
        y = wp.zeros(4, dtype=f64, requires_grad=True)
        if case == "while":
            wp.launch(while_kernel, dim=4, inputs=[x], outputs=[y])
        elif case == "break":
            wp.launch(break_kernel, dim=4, inputs=[x, counts], outputs=[y])
        elif case == "nested":
            wp.launch(nested_kernel, dim=4, inputs=[x, counts, 3], outputs=[y])
        else:
            wp.launch(func_loop_kernel, dim=4, inputs=[x, counts], outputs=[y])
        wp.launch(sum_squares, dim=4, inputs=[y, loss])

    _check(forward, np.array([0.7, 1.1, 1.6, 0.4]), rtol=1e-5)


def test_dynamic_loop_bounds_are_bucketed():
    counts = wp.array(np.array([3, 5], dtype=np.int32), dtype=int)
    x = wp.array(np.array([0.5, 0.6]), dtype=f64, requires_grad=True)
    y = wp.zeros(2, dtype=f64, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(break_kernel, dim=2, inputs=[x, counts], outputs=[y])
    record = tape.launches[0]
    assert record.trips and max(record.trips.values()) == 5
    kernel = record.backward_kernel()
    assert max(b for _, b in kernel.signature.loop_bounds) == 8


def test_adjoint_launch_with_dynamic_loop():
    x = wp.array(np.array([0.7, 1.1]), dtype=f64)
    y = wp.zeros(2, dtype=f64)
    adj_x = wp.zeros(2, dtype=f64)
    adj_y = wp.array(np.array([1.0, 1.0]), dtype=f64)
    wp.launch(while_kernel, dim=2, inputs=[x], outputs=[y], adj_inputs=[adj_x], adj_outputs=[adj_y], adjoint=True)

    def value(v):
        xx, yy = wp.array(v, dtype=f64), wp.zeros(2, dtype=f64)
        wp.launch(while_kernel, dim=2, inputs=[xx], outputs=[yy])
        return float(yy.numpy().sum())

    np.testing.assert_allclose(adj_x.numpy(), _fd(value, np.array([0.7, 1.1])), rtol=1e-5)


# -- a 100-step simulation under one tape -----------------------------------------------------------


@wp.kernel
def sim_step(x: wp.array(dtype=wp.vec3d), v: wp.array(dtype=wp.vec3d), dt: f64,
             x_out: wp.array(dtype=wp.vec3d), v_out: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    p = x[i]
    f = wp.vec3d(f64(0.0), f64(-9.8), f64(0.0)) - v[i] * f64(0.2)
    if p[1] < f64(0.0):
        f = f + wp.vec3d(f64(0.0), f64(-300.0) * p[1], f64(0.0))
    vel = v[i] + f * dt
    v_out[i] = vel
    x_out[i] = p + vel * dt


@wp.kernel
def sim_loss(x: wp.array(dtype=wp.vec3d), loss: wp.array(dtype=f64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.dot(x[i], wp.vec3d(f64(1.0), f64(2.0), f64(3.0))) ** f64(2.0))


def test_hundred_step_simulation_matches_finite_differences():
    n, steps = 3, 100
    v0 = np.array([[1.0, 2.0, 0.0], [-1.0, 0.5, 0.3], [0.2, 0.0, -0.4]])

    def forward(x0, loss):
        xs = [x0] + [wp.zeros(n, dtype=wp.vec3d, requires_grad=True) for _ in range(steps)]
        vs = [wp.array(v0, dtype=wp.vec3d, requires_grad=True)]
        vs += [wp.zeros(n, dtype=wp.vec3d, requires_grad=True) for _ in range(steps)]
        for k in range(steps):
            wp.launch(sim_step, dim=n, inputs=[xs[k], vs[k], 0.01], outputs=[xs[k + 1], vs[k + 1]])
        wp.launch(sim_loss, dim=n, inputs=[xs[-1], loss])

    x0 = np.array([[0.0, 0.3, 0.0], [0.1, 0.2, 0.1], [0.0, 0.5, 0.2]])
    xa = wp.array(x0, dtype=wp.vec3d, requires_grad=True)
    loss = wp.zeros(1, dtype=f64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        forward(xa, loss)
    assert len(tape.launches) == steps + 1
    tape.backward(loss=loss)

    def value(flat):
        xx = wp.array(flat.reshape(n, 3), dtype=wp.vec3d)
        ll = wp.zeros(1, dtype=f64)
        forward(xx, ll)
        return float(ll.numpy()[0])

    fd = _fd(value, x0.reshape(-1)).reshape(n, 3)
    np.testing.assert_allclose(xa.grad.numpy(), fd, rtol=1e-5, atol=1e-6)


# -- bookkeeping -------------------------------------------------------------------------------------


def _chain32(record_middle: bool = True):
    x = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
    y = wp.zeros(3, requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(square32, dim=3, inputs=[x], outputs=[y], record_tape=record_middle)
        wp.launch(total32, dim=3, inputs=[y, loss])
    return tape, x, y, loss


def test_record_tape_false_and_launch_objects_are_not_recorded():
    tape, x, y, loss = _chain32(record_middle=False)
    assert len(tape.launches) == 1
    with tape:
        cmd = wp.launch(square32, dim=3, inputs=[x], outputs=[y], record_cmd=True)
        cmd.launch()
    assert len(tape.launches) == 1
    tape.backward(loss=loss)
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 1.0, 1.0])


def test_launches_without_gradients_are_not_recorded():
    a, b = wp.ones(3), wp.zeros(3)
    with wp.Tape() as tape:
        wp.launch(square32, dim=3, inputs=[a], outputs=[b])
    assert tape.launches == []


def test_accumulate_zero_reset():
    tape, x, y, loss = _chain32()
    tape.backward(loss=loss)
    tape.backward(loss=loss)
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 8.0, 12.0])
    np.testing.assert_array_equal(y.grad.numpy(), [0.0, 0.0, 0.0])
    assert set(map(id, tape.gradients)) == {id(x), id(y), id(loss)}
    tape.zero()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(loss.grad.numpy(), [0.0])
    tape.reset()
    assert tape.launches == [] and len(tape.gradients) == 3


def test_errors_match_warp():
    with wp.Tape():
        with pytest.raises(RuntimeError, match="entering a tape while one is already active"):
            with wp.Tape():
                pass
    tape, x, y, loss = _chain32()
    with pytest.raises(RuntimeError, match="requires_grad=True set before calling Tape.backward"):
        tape.backward(loss=wp.zeros(1))
    with pytest.raises(RuntimeError, match="Can only return gradients for scalar loss functions"):
        tape.backward(loss=y)


def test_enable_backward_false_is_skipped_with_a_warning():
    x = wp.array(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    y = wp.zeros(2, requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(square32_nb, dim=2, inputs=[x], outputs=[y])
        wp.launch(total32, dim=2, inputs=[y, loss])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tape.backward(loss=loss)
    assert any("enable_backward=False" in str(w.message) for w in caught)
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 1.0])


def test_record_func_runs_in_reverse_order():
    tape, x, y, loss = _chain32()
    calls = []
    extra = wp.zeros(3, requires_grad=True)
    tape.record_func(lambda: calls.append(y.grad.numpy().copy()), arrays=[extra])
    with wp.Tape() as second:
        pass
    assert second.launches == []
    tape.backward(loss=loss)
    assert len(calls) == 1 and extra in tape.gradients
    with pytest.raises(RuntimeError, match="missing a gradient array"):
        tape.record_func(lambda: None, arrays=[wp.zeros(3)])


def test_record_func_splits_fused_segments():
    x = wp.array(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    y = wp.zeros(2, requires_grad=True)
    z = wp.zeros(2, requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(square32, dim=2, inputs=[x], outputs=[y])
        # a hand-written adjoint for "z = 3 * y" done in Python
        z.assign(y.numpy() * 3.0)
        tape.record_func(lambda: y.grad.assign(y.grad.numpy() + 3.0 * z.grad.numpy()), arrays=[y, z])
        wp.launch(total32, dim=2, inputs=[z, loss])
    tape.backward(loss=loss)
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 12.0])


def test_backward_is_cached_by_structure():
    tape, x, y, loss = _chain32()
    tape.backward(loss=loss)
    size = len(tape_chain._CACHE)
    tape2, x2, y2, loss2 = _chain32()
    tape2.backward(loss=loss2)
    assert len(tape_chain._CACHE) == size
    np.testing.assert_array_equal(x2.grad.numpy(), [2.0, 4.0, 6.0])


def test_long_tapes_are_chunked_by_period():
    records = list(range(100))

    class R:
        def __init__(self, k):
            self.compiled = "step" if k < 99 else "loss"

    chunks = tape_chain._chunks([R(k) for k in records])
    assert all(len(c) == tape_chain.MAX_SEGMENT for c in chunks[:-1])
    assert sum(len(c) for c in chunks) == 100


def test_record_launch_and_get_adjoint():
    x = wp.array(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    y = wp.zeros(2, requires_grad=True)
    tape = wp.Tape()
    tape.record_launch(square32, dim=2, max_blocks=0, inputs=[x], outputs=[y], device=None)
    entry = tape.launches[0]
    assert entry[0] is square32 and entry[3] == [x] and entry[4] == [y]
    tape.backward(grads={y: wp.array(np.array([1.0, 1.0], dtype=np.float32))})
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])
    assert tape.get_adjoint(x) is x.grad and tape.get_adjoint(3.0) is None


def test_visualize_writes_dot(tmp_path):
    tape, x, y, loss = _chain32()
    path = tmp_path / "tape.dot"
    dot = tape.visualize(str(path))
    assert dot.startswith("digraph") and "square32" in dot and "total32" in dot
    assert path.read_text() == dot


def test_requires_grad_and_grad_replacement():
    a = wp.zeros(3, requires_grad=True)
    assert a.grad is not None and a.grad.numpy().sum() == 0
    g = wp.zeros_like(a.grad)
    assert not g.requires_grad
    a.grad = g
    assert a.grad is g and a.requires_grad
    with pytest.raises(ValueError, match="expected shape"):
        a.grad = wp.zeros(4)
    a.requires_grad = False
    assert a.grad is None and not a.retain_grad
    with pytest.raises(ValueError, match="retain_grad=True requires requires_grad=True"):
        a.retain_grad = True
    b = wp.zeros(4, requires_grad=True, retain_grad=True)
    assert b.retain_grad and b[1:3].grad.shape == (2,)


@wp.kernel
def _taped_step(x: wp.array(dtype=float), s: float, y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.sin(x[i]) * s


@wp.kernel
def _taped_loss(y: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, y[i] * y[i])


def test_repeated_taped_launches_take_the_launch_plan_and_record_the_same():
    """From the second iteration on, taped launches reuse the launch plan (no argument binding);
    the records and gradients must be those of the full path."""
    from jwarp.runtime import fastpath

    x = wp.array(np.linspace(0.1, 1.0, 8).astype(np.float32), requires_grad=True)
    y = wp.zeros(8, requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    results = []
    for _ in range(3):
        tape = wp.Tape()
        with tape:
            wp.launch(_taped_step, 8, inputs=[x, 2.0], outputs=[y])
            wp.launch(_taped_loss, 8, inputs=[y, loss])
        tape.backward(loss=loss)
        entry = tape.launches[0]
        results.append((x.grad.numpy().copy(), entry[3], entry[4], entry[1]))
        tape.zero()
        loss.zero_()
    assert fastpath.plans_of(_taped_step), "the taped launch should have left a plan"
    expected = 2.0 * 2.0 * np.sin(x.numpy()) * 2.0 * np.cos(x.numpy())
    for grad, inputs, outputs, dim in results:
        np.testing.assert_allclose(grad, expected, rtol=1e-5)
        assert inputs[0] is x and inputs[1] == 2.0 and outputs[0] is y and tuple(dim) == (8,)
