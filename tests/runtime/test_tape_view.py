"""``Tape.visualize``: scopes as clusters, back-to-back repeated launches drawn once with a
``repeated Nx`` label (merged into a scope spanning exactly the run), array tooltips."""

from __future__ import annotations

import numpy as np

import jwarp as wp


@wp.kernel
def _accumulate(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, x[i])


@wp.kernel
def _scale(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i]


def _arrays():
    x = wp.array(np.ones(4, dtype=np.float32), requires_grad=True)
    return x, wp.zeros(4, dtype=float, requires_grad=True), wp.zeros(1, dtype=float, requires_grad=True)


def test_scope_spanning_a_repetition_takes_its_count():
    x, y, out = _arrays()
    tape = wp.Tape()
    with tape:
        tape.record_scope_begin("steps")
        for _ in range(5):
            wp.launch(_accumulate, 4, inputs=[x, out])
        tape.record_scope_end()
        wp.launch(_scale, 4, inputs=[x, y])
    dot = tape.visualize()
    assert 'label="steps (repeated 5x)"' in dot
    assert dot.count('label="_accumulate"') == 1 or dot.count("_accumulate") == 1
    assert "array: dtype=float32, shape=(4,)" in dot
    assert dot.count("subgraph") == 1


def test_repeated_pairs_outside_scopes_and_no_simplification():
    x, y, out = _arrays()
    tape = wp.Tape()
    with tape:
        for _ in range(3):
            wp.launch(_scale, 4, inputs=[x, y])
            wp.launch(_accumulate, 4, inputs=[y, out])
    dot = tape.visualize()
    assert 'label="repeated 3x"' in dot
    assert dot.count("_scale") == 1 and dot.count("_accumulate") == 1
    full = tape.visualize(simplify_graph=False)
    assert "repeated" not in full and full.count("_scale") == 3
