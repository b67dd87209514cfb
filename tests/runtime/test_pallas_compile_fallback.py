"""A Pallas program that fails to *compile* (docs/launch.md, the Pallas path).

On a GPU the Triton compile of a kernel that lowered can still fail; under ``pallas="auto"`` the
launch then compiles on the XLA path (remembered for the signature), under ``"always"`` it raises
naming the kernel. Here the failure is injected into the compile step (``compile_program``) of
programs holding a ``pallas_call`` while launches run in interpret mode with the plan's mode forced.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

import jwarp as wp
from jwarp.compiler import kernel_compile
from jwarp.compiler.pallas_lower import PallasFallback, PallasPlan
from jwarp.runtime import preparation


@wp.kernel
def axpy_count(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float, hist: wp.array(dtype=int)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]
    wp.atomic_add(hist, i % 5, 1)


def _holds_pallas_call(jitted, args) -> bool:
    with jax.enable_x64(True):
        return "pallas_call" in str(jitted.trace(*args).jaxpr)


@pytest.fixture
def failing_pallas(monkeypatch):
    """Launches get an interpret-mode plan of the mode set in ``state["mode"]``; compiling a program that
    holds a ``pallas_call`` raises (counted in ``state["failures"]``)."""
    state = {"mode": "auto", "failures": 0}
    original = kernel_compile.compile_program

    def plan(kernel, device, block_dim, max_blocks):
        return PallasPlan(backend="interpret", mode=state["mode"], block_dim=32, lanes=32,
                          verbose=bool(wp.config.verbose))

    def compile_program(jitted, *args, **options):
        if _holds_pallas_call(jitted, args):
            state["failures"] += 1
            raise RuntimeError("INTERNAL: Failed to compile the Triton kernel (injected)\nsecond line")
        return original(jitted, *args, **options)

    monkeypatch.setattr(preparation, "pallas_plan", plan)
    monkeypatch.setattr(kernel_compile, "compile_program", compile_program)
    axpy_count._forget_compiled()  # compiled signatures and launch plans
    yield state
    axpy_count._forget_compiled()


def _inputs(n: int = 100):
    return (wp.array(np.arange(n, dtype=np.float32)), wp.array(np.ones(n, np.float32)), 2.0, wp.zeros(5, dtype=int))


def _expected(n: int = 100):
    return 2 * np.arange(n, dtype=np.float32) + 1, np.bincount(np.arange(n) % 5)


@pytest.mark.parametrize("donate", [True, False])
def test_auto_falls_back_to_xla_when_the_pallas_program_fails_to_compile(failing_pallas, capsys, monkeypatch, donate):
    monkeypatch.setattr(wp.config, "donate_buffers", donate)
    monkeypatch.setattr(wp.config, "verbose", True)
    x, y, a, hist = _inputs()
    wp.launch(axpy_count, 100, inputs=[x, y, a, hist])
    want_y, want_hist = _expected()
    np.testing.assert_allclose(y.numpy(), want_y)
    np.testing.assert_array_equal(hist.numpy(), want_hist)
    assert failing_pallas["failures"] == 1
    out = capsys.readouterr().out
    assert ("Kernel 'axpy_count': the Pallas kernel failed to compile (interpret backend), falling back to XLA: "
            "RuntimeError: INTERNAL: Failed to compile the Triton kernel (injected)") in out
    (compiled,) = axpy_count._cache.values()
    assert "pallas_call" not in str(compiled.closed_jaxpr)  # the signature now holds the XLA path
    for _ in range(2):  # remembered: no new attempt, no new message
        wp.launch(axpy_count, 100, inputs=[x, y, a, hist])
    assert failing_pallas["failures"] == 1
    assert "falling back" not in capsys.readouterr().out
    np.testing.assert_allclose(y.numpy(), 3 * want_y - 2 * np.ones(100))  # y = 2x + y three times
    np.testing.assert_array_equal(hist.numpy(), 3 * want_hist)


def test_auto_fallback_also_serves_launch_objects_and_tapes(failing_pallas):
    x, y, a, hist = _inputs()
    cmd = wp.launch(axpy_count, 100, inputs=[x, y, a, hist], record_cmd=True)
    cmd.launch()
    np.testing.assert_allclose(y.numpy(), _expected()[0])
    xg = wp.array(np.arange(100, dtype=np.float32), requires_grad=True)
    yg = wp.array(np.ones(100, np.float32), requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(axpy_count, 100, inputs=[xg, yg, 3.0, wp.zeros(5, dtype=int)])
    yg.grad = wp.array(np.ones(100, np.float32))
    tape.backward()
    np.testing.assert_allclose(xg.grad.numpy(), np.full(100, 3.0))
    assert failing_pallas["failures"] >= 1


def test_always_raises_naming_the_kernel_and_changes_nothing(failing_pallas, monkeypatch):
    failing_pallas["mode"] = "always"
    monkeypatch.setattr(wp.config, "donate_buffers", True)
    x, y, a, hist = _inputs()
    with pytest.raises(PallasFallback, match=r"Kernel 'axpy_count' cannot run on the Pallas path \(interpret "
                                             r"backend\): its program failed to compile: RuntimeError: INTERNAL"):
        wp.launch(axpy_count, 100, inputs=[x, y, a, hist])
    np.testing.assert_array_equal(y.numpy(), np.ones(100))
    np.testing.assert_array_equal(hist.numpy(), np.zeros(5))
