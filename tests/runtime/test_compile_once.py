"""A kernel compiles once per signature: whatever its first launch could donate (a buffer held
elsewhere, an active tape, a program XLA cannot update in place), later launches of the same
signature — ``wp.launch``, launch plans, ``Launch`` objects, taped launches — compile nothing.

Compiles are counted with JAX's monitoring hook (one event per XLA compile, cache hits included),
not timed."""

from __future__ import annotations

import jax
import jax.monitoring
import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime import execution
from tests.runtime.test_zero_buffers import _sum_squares, _write_double

_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
_compiles = [0]


def _count(event: str, duration: float, **kwargs) -> None:
    if event == _COMPILE_EVENT:
        _compiles[0] += 1


jax.monitoring.register_event_duration_secs_listener(_count)


class CompileCounter:
    def __enter__(self):
        jax.effects_barrier()
        self.start = _compiles[0]
        return self

    def __exit__(self, *exc):
        self.count = _compiles[0] - self.start


def _compiles_of(fn) -> int:
    with CompileCounter() as counter:
        fn()
    return counter.count


@wp.kernel
def _bump(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


@wp.kernel
def _rotate(a: wp.array(dtype=float)):
    # reads other elements of the array it writes: XLA cannot donate it in place
    i = wp.tid()
    a[i] = a[(i + 1) % 16] * 2.0


@pytest.fixture(autouse=True)
def donation_on():
    saved = wp.config.donate_buffers
    wp.config.donate_buffers = True
    yield
    wp.config.donate_buffers = saved


def _fresh(kernel):
    """A new kernel object from the same function (its own, empty executable cache)."""
    return wp.Kernel(kernel.func, key=f"{kernel.key}_{id(object())}")


def test_first_launch_with_a_held_buffer_then_a_donating_launch():
    kernel = _fresh(_bump)
    a = wp.zeros(16)
    held = wp.to_jax(a)  # the first launch cannot donate a's buffer
    assert _compiles_of(lambda: wp.launch(kernel, 16, inputs=[a])) >= 1
    del held
    assert _compiles_of(lambda: wp.launch(kernel, 16, inputs=[a])) == 0  # may donate now: same program
    assert _compiles_of(lambda: [wp.launch(kernel, 16, inputs=[a]) for _ in range(3)]) == 0
    np.testing.assert_array_equal(a.numpy(), np.full(16, 5.0))


def test_first_launch_under_a_tape_then_untaped():
    kernel = _fresh(_bump)
    a = wp.zeros(16, requires_grad=True)
    with wp.Tape():
        wp.launch(kernel, 16, inputs=[a])
    assert _compiles_of(lambda: wp.launch(kernel, 16, inputs=[a])) == 0
    with wp.Tape():
        assert _compiles_of(lambda: wp.launch(kernel, 16, inputs=[a])) == 0
    np.testing.assert_array_equal(a.numpy(), np.full(16, 3.0))


def test_rejected_donation_compiles_once():
    kernel = _fresh(_rotate)
    a = wp.array(np.arange(16, dtype=np.float32))
    wp.launch(kernel, 16, inputs=[a])
    assert _compiles_of(lambda: wp.launch(kernel, 16, inputs=[a])) == 0
    cmd = wp.launch(kernel, 16, inputs=[a], record_cmd=True)
    assert _compiles_of(cmd.launch) == 0
    expected = np.arange(16, dtype=np.float32)
    for _ in range(3):
        expected = np.roll(expected, -1) * 2
    np.testing.assert_array_equal(a.numpy(), expected)


def test_launch_objects_share_the_program():
    kernel = _fresh(_bump)
    a = wp.zeros(16)
    cmd = wp.launch(kernel, 16, inputs=[a], record_cmd=True)
    cmd.launch()
    held = a.numpy()  # a host copy: the next launch still donates
    assert _compiles_of(lambda: (cmd.launch(), wp.launch(kernel, 16, inputs=[a]))) == 0
    np.testing.assert_array_equal(held, np.full(16, 1.0))
    np.testing.assert_array_equal(a.numpy(), np.full(16, 3.0))


def test_undonatable_runs_keep_the_buffers_they_read():
    kernel = _fresh(_bump)
    a = wp.zeros(16)
    wp.launch(kernel, 16, inputs=[a])
    for _ in range(execution.PLAIN_AFTER + 2):  # held buffers: copies, then the plain program
        before = wp.to_jax(a)
        wp.launch(kernel, 16, inputs=[a])
        np.testing.assert_array_equal(np.asarray(before) + 1.0, a.numpy())
    np.testing.assert_array_equal(a.numpy(), np.full(16, execution.PLAIN_AFTER + 3.0))


def test_taped_loops_keep_one_program():
    kernel = _fresh(_bump)
    a = wp.zeros(16, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(kernel, 16, inputs=[a])
        later = _compiles_of(lambda: [wp.launch(kernel, 16, inputs=[a]) for _ in range(execution.PLAIN_AFTER + 4)])
    assert later == 0
    assert len(tape.launches) == execution.PLAIN_AFTER + 5
    np.testing.assert_array_equal(a.numpy(), np.full(16, execution.PLAIN_AFTER + 5.0))


@wp.struct
class _Particle:
    x: float
    v: float


@wp.kernel
def _step(p: wp.array(dtype=_Particle)):
    i = wp.tid()
    q = p[i]
    q.x = q.x + q.v
    p[i] = q


def test_struct_arrays_keep_one_program():
    """Struct arrays (one buffer per field) are never donated: their kernels get the plain program
    at once, and no launch compiles again."""
    kernel = _fresh(_step)
    particles = []
    for i in range(8):
        q = _Particle()
        q.x, q.v = 0.0, float(i)
        particles.append(q)
    p = wp.array(particles, dtype=_Particle)
    wp.launch(kernel, 8, inputs=[p])
    runs = execution.PLAIN_AFTER + 4
    later = _compiles_of(lambda: [wp.launch(kernel, 8, inputs=[p]) for _ in range(runs)])  # plans rebind fields
    assert later == 0
    np.testing.assert_array_equal(p.numpy()["x"], np.arange(8) * (runs + 1.0))


@wp.kernel
def _powers(x: wp.array(dtype=float), n: int, y: wp.array(dtype=float)):
    i = wp.tid()
    acc = float(0.0)
    for _j in range(n):  # a dynamic loop: a tape runs the variant that measures its trip count
        acc = acc * x[i] + 1.0
    y[i] = acc


@pytest.fixture
def small_memory_budget():
    """A budget that the launches below exceed by their traced upper bound, so that preparing them
    compiles the program to measure its temporaries (the compile the launch must then reuse)."""
    saved = wp.config.launch_memory_budget
    wp.config.launch_memory_budget = 64 << 10
    yield
    wp.config.launch_memory_budget = saved


@pytest.mark.usefixtures("small_memory_budget")
def test_taped_launch_with_a_dynamic_loop_compiles_only_the_program_it_runs():
    """Only the trip-measuring, non-donating program is compiled (it used to be three: the donating
    program without trip counts, the donating one with them, then the plain one the tape runs)."""
    kernel = _fresh(_powers)
    n = 8192
    x = wp.array(np.linspace(0.0, 1.0, n, dtype=np.float32), requires_grad=True)
    y = wp.zeros(n, requires_grad=True)
    with wp.Tape() as tape:
        assert _compiles_of(lambda: wp.launch(kernel, n, inputs=[x, 3], outputs=[y])) == 1
    xs = x.numpy()
    np.testing.assert_allclose(y.numpy(), xs * xs + xs + 1.0, rtol=1e-6)
    tape.backward(grads={y: wp.ones(n)})
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * xs + 1.0, rtol=1e-6)
    assert _compiles_of(lambda: wp.launch(kernel, n, inputs=[x, 3], outputs=[y])) == 1  # untaped: its own


def test_first_backward_pass_compiles_the_program_later_ones_reuse():
    """Fresh gradients hold the shared zero buffer that ``Tape.zero`` hands out, so an optimisation
    loop's first backward pass builds the program every later iteration runs."""
    double, squares = _fresh(_write_double), _fresh(_sum_squares)
    n = 64
    x = wp.array(np.linspace(-1.0, 1.0, n, dtype=np.float32), requires_grad=True)
    y = wp.zeros(n, requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)

    def iteration():
        tape = wp.Tape()
        with tape:
            wp.launch(double, n, inputs=[x], outputs=[y])
            wp.launch(squares, n, inputs=[y, loss])
        tape.backward(loss)
        grad = x.grad.numpy().copy()
        tape.zero()
        loss.zero_()
        return grad

    first = iteration()
    assert _compiles_of(iteration) == 0
    np.testing.assert_allclose(first, 8.0 * x.numpy(), rtol=1e-6)


@wp.kernel
def _scaled(x: wp.array(dtype=float), t: float, k: float, y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * t * k


def test_scalar_arguments_seen_once_or_again_keep_one_backward_program():
    """A taped launch served by a plan passes a scalar it sees for the first time as numpy and one it
    has seen as a device array (fastpath.LaunchPlan.convert); the tape records both as device arrays,
    so the jitted backward pass does not compile again when a value's kind changes between iterations
    (``t`` changes at every iteration, ``k`` repeats)."""
    kernel = _fresh(_scaled)
    n = 32
    x = wp.array(np.linspace(0.0, 1.0, n, dtype=np.float32), requires_grad=True)

    def iteration(t: float) -> np.ndarray:
        y = wp.zeros(n, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(kernel, n, inputs=[x, t, 2.0], outputs=[y])
        tape.backward(grads={y: wp.ones(n, dtype=float)})
        grad = x.grad.numpy().copy()
        tape.zero()
        return grad

    iteration(0.5)
    for step in range(4):
        t = 0.75 + 0.25 * step
        with CompileCounter() as counter:
            grad = iteration(t)
        assert counter.count == 0, (step, counter.count)
        np.testing.assert_allclose(grad, np.full(n, 2.0 * t, np.float32), rtol=1e-6)
