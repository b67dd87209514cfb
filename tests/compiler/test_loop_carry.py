"""Loop carries (jwarp/compiler/loop_carry.py): a leaf that is a compile-time constant when a loop
starts and that the body leaves the same constant is not carried, so the body sees the constant
(what depends on it is decided at compile time); a body that changes it (on some lanes, or after
some iterations) gets it carried, with the right values."""

from __future__ import annotations

import numpy as np

import jwarp as wp
from tests.compiler.jaxprs import compiled_program, count_primitive


@wp.struct
class Pair:
    scale: float
    count: int


@wp.kernel(module="unique")
def constant_field(n: int, out: wp.array(dtype=float)):
    i = wp.tid()
    p = Pair()
    p.scale = 1.5  # a constant the loop never changes
    p.count = 0
    while p.count < n + i:
        if p.scale > 1.0:  # decided at compile time when the scale is a constant in the body
            p.count = p.count + 1
        else:
            p.count = p.count + 2
    out[i] = p.scale * float(p.count)


@wp.kernel(module="unique")
def varying_field(n: int, out: wp.array(dtype=float)):
    i = wp.tid()
    p = Pair()
    p.scale = 1.5 + float(i)  # per lane
    p.count = 0
    while p.count < n + i:
        if p.scale > 1.0:
            p.count = p.count + 1
        else:
            p.count = p.count + 2
    out[i] = p.scale * float(p.count)


@wp.kernel(module="unique")
def changed_later(n: int, out: wp.array(dtype=float), seen: wp.array(dtype=float)):
    i = wp.tid()
    x = float(2.0)  # constant at the start, changed on some lanes after some iterations
    y = float(3.0)  # assigned the same constant by every iteration: stays one
    k = int(0)
    total = float(0.0)
    while k < n:
        total += x
        if k == 2 and i % 2 == 1:
            x = float(i)
        y = float(3.0)
        k += 1
    out[i] = total
    seen[i] = x + y


def _count(kernel, primitive: str) -> int:
    """Equations of ``primitive`` in the kernel's compiled program, nested jaxprs included."""
    return count_primitive(compiled_program(kernel).closed_jaxpr.jaxpr, primitive)


def test_an_unchanged_constant_field_stays_a_constant_in_the_body():
    out = {}
    for kernel in (constant_field, varying_field):
        out[kernel] = wp.zeros(8, dtype=float)
        wp.launch(kernel, dim=8, inputs=[3, out[kernel]])
    counts = 3 + np.arange(8)
    np.testing.assert_allclose(out[constant_field].numpy(), 1.5 * counts)
    np.testing.assert_allclose(out[varying_field].numpy(), (1.5 + np.arange(8)) * counts)
    assert _count(constant_field, "gt") == 0 < _count(varying_field, "gt")


def test_a_constant_the_body_changes_is_carried_with_its_values():
    n = 6
    out, seen = wp.zeros(8, dtype=float), wp.zeros(8, dtype=float)
    wp.launch(changed_later, dim=8, inputs=[n, out, seen])
    lanes = np.arange(8)
    odd = lanes % 2 == 1
    # iterations 0..2 add 2.0; from iteration 3 on odd lanes add their index
    np.testing.assert_allclose(out.numpy(), np.where(odd, 3 * 2.0 + (n - 3) * lanes, n * 2.0))
    np.testing.assert_allclose(seen.numpy(), np.where(odd, lanes, 2.0) + 3.0)
