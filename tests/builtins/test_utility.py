"""print/printf (host prints in thread order: each active thread's lines in program order),
where/select, lerp/smoothstep in Python scope."""

from __future__ import annotations

import numpy as np

import jwarp as wp


@wp.kernel
def printer(a: wp.array(dtype=float)):
    i = wp.tid()
    if i < 2:
        print(a[i])
        wp.printf("i=%d v=%f\n", i, a[i])
        print(wp.vec3(1.0, 2.0, 3.0))


def test_print_and_printf(capfd):
    wp.launch(printer, 3, inputs=[wp.array(np.array([1.5, 2.5, 3.5], np.float32))])
    wp.synchronize()
    import jax

    jax.effects_barrier()
    out = capfd.readouterr().out
    assert "1.5\ni=0 v=1.500000\n1 2 3 \n2.5\ni=1 v=2.500000\n1 2 3 \n" in out
    assert "3.5" not in out


def test_python_scope_utilities():
    assert wp.where(True, 1.0, 2.0) == 1.0
    assert wp.select(True, 1.0, 2.0) == 2.0
    assert abs(wp.lerp(0.0, 10.0, 0.25) - 2.5) < 1e-6
    assert abs(wp.smoothstep(0.0, 1.0, 0.5) - 0.5) < 1e-6


@wp.func
def _expect_by_branch(t: float, x: float):
    if t == 0.0:
        wp.expect_eq(x > 0.0, True)
    elif t == 1.0:
        wp.expect_eq(x > 1.0, True)
    else:
        wp.expect_eq(x > 2.0, True)


@wp.kernel
def _expect_kernel(ts: wp.array(dtype=float), xs: wp.array(dtype=float)):
    i = wp.tid()
    _expect_by_branch(ts[i], xs[i])


def _expect_output(capfd, xs) -> str:
    import jax

    ts = wp.array(np.array([0.0, 1.0, 0.5], np.float32))
    wp.launch(_expect_kernel, 3, inputs=[ts, wp.array(np.array(xs, np.float32))])
    wp.synchronize()
    jax.effects_barrier()
    return capfd.readouterr().out


def test_expect_eq_ignores_lanes_a_branch_leaves_inactive(capfd):
    assert "expect_eq failed" not in _expect_output(capfd, [0.5, 1.5, 2.5])
    assert "expect_eq failed" in _expect_output(capfd, [0.5, 1.5, 1.5])
