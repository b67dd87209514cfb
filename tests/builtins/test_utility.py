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
