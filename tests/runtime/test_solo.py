"""Lone launches (jwarp/runtime/solo.py): once single launches keep being observed one by one, they run
at once instead of joining a chain; two launches in a row make chains again. Results are the same as
with chains off."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime import chain, deferred, solo


@wp.kernel
def _scale(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s + 1.0


@pytest.fixture(autouse=True)
def _chains_on():
    saved = wp.config.fuse_launch_chains
    wp.config.fuse_launch_chains = True
    chain.reset()
    yield
    wp.config.fuse_launch_chains = saved
    chain.reset()


def _lone_mode(a):
    for _ in range(solo.AFTER + 1):  # single launches, each observed: chains of one
        wp.launch(_scale, a.shape[0], inputs=[a, 1.0])
        wp.synchronize()


def test_observed_single_launches_run_at_once():
    a = wp.zeros(8, dtype=float)
    _lone_mode(a)
    wp.launch(_scale, 8, inputs=[a, 2.0])
    assert deferred.pending is not None and deferred.pending[0] is solo.MARK  # ran; only the marker waits
    assert chain.pending_length() == 0
    got = a.numpy()  # a read clears the marker
    assert deferred.pending is None
    np.testing.assert_allclose(got, np.full(8, (solo.AFTER + 1) * 2.0 + 1.0, np.float32))


def test_two_launches_in_a_row_chain_again():
    a = wp.zeros(8, dtype=float)
    _lone_mode(a)
    wp.launch(_scale, 8, inputs=[a, 2.0])  # lone
    wp.launch(_scale, 8, inputs=[a, 3.0])  # finds the marker: deferred
    assert chain.pending_length() == 1
    wp.launch(_scale, 8, inputs=[a, 0.5])
    assert chain.pending_length() == 2
    want = (((solo.AFTER + 1) * 2.0 + 1.0) * 3.0 + 1.0) * 0.5 + 1.0
    np.testing.assert_allclose(a.numpy(), np.full(8, want, np.float32))


def test_same_results_as_launches_run_at_once():
    def run(fuse: bool) -> np.ndarray:
        wp.config.fuse_launch_chains = fuse
        a = wp.array(np.linspace(0.0, 1.0, 16, dtype=np.float32))
        out = []
        for step in range(12):  # lone stretches, pairs, reads in between
            wp.launch(_scale, 16, inputs=[a, 0.5 + step * 0.1])
            if step % 5 == 3:
                wp.launch(_scale, 16, inputs=[a, 1.5])
            out.append(a.numpy().copy() if step % 2 else None)
            if step % 3 == 0:
                wp.synchronize()
        wp.synchronize()
        return np.concatenate([o for o in out if o is not None] + [a.numpy()])

    np.testing.assert_allclose(run(True), run(False), rtol=1e-6)
