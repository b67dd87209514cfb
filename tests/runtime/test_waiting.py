"""Interruptible waits: ``wait_ready`` polls in Python until every array is computed."""

from __future__ import annotations

import jax.numpy as jnp
import pytest

from jwarp.runtime.waiting import wait_ready


class _SlowResult:
    """Stands in for a device array that becomes ready after ``polls`` checks."""

    def __init__(self, polls: int, interrupt_at: int | None = None):
        self.polls, self.checked, self.interrupt_at = polls, 0, interrupt_at

    def is_ready(self) -> bool:
        self.checked += 1
        if self.interrupt_at is not None and self.checked >= self.interrupt_at:
            raise KeyboardInterrupt  # what Python raises in the waiting thread on Ctrl-C
        return self.checked > self.polls


def test_waits_until_every_array_is_ready():
    slow, slower = _SlowResult(50), _SlowResult(400)
    wait_ready([slow, jnp.ones(2), (slower,)])
    assert slow.checked == 51 and slower.checked == 401


def test_ctrl_c_while_waiting_propagates():
    never = _SlowResult(10**9, interrupt_at=30)
    with pytest.raises(KeyboardInterrupt):
        wait_ready(never)
    assert never.checked == 30
