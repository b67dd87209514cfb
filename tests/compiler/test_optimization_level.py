"""Warp's ``optimization_level`` (``wp.config`` and the module option) sets XLA's backend
optimisation level of every program built from the kernel: the launch, the adjoint launch and the
tape's backward pass (jwarp/compiler/emitters.py ``level_options``, runtime/preparation.py)."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from jax._src import compiler as jax_compiler

import jwarp as wp

LEVEL_KEY = "xla_backend_optimization_level"


def spy_on_compiles(monkeypatch) -> list:
    """The backend optimisation level (None: not set) of each XLA compile from now on, but for
    programs of a single ``jax.lax`` operation (making an array of zeros, a cast: they compile at
    XLA's default level)."""
    seen: list = []
    original = jax_compiler.compile_or_get_cached

    def spy(backend, computation, devices, compile_options, *args, **kwargs):
        name = str(computation.operation.attributes["sym_name"]).strip('"')
        if not hasattr(jax.lax, name.removeprefix("jit_")):
            seen.append(dict(compile_options.env_option_overrides).get(LEVEL_KEY))
        return original(backend, computation, devices, compile_options, *args, **kwargs)

    monkeypatch.setattr(jax_compiler, "compile_or_get_cached", spy)
    return seen


def _square_kernel(offset: float):
    @wp.kernel(module="unique")
    def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = x[i] * x[i] + offset

    return square


def _levels(seen: list) -> set:
    return {int(v) if v is not None else None for v in seen}


def test_config_level_reaches_launch_and_tape_programs(monkeypatch):
    monkeypatch.setattr(wp.config, "optimization_level", 0)
    kernel = _square_kernel(0.25)
    x = wp.array(np.linspace(-1.0, 1.0, 8, dtype=np.float32), requires_grad=True)
    y = wp.zeros(8, requires_grad=True)
    seed = wp.ones(8)
    x.grad.numpy(), y.grad.numpy()
    compiles = spy_on_compiles(monkeypatch)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, 8, inputs=[x], outputs=[y])
    tape.backward(grads={y: seed})
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * x.numpy(), rtol=1e-6)
    np.testing.assert_allclose(y.numpy(), x.numpy() ** 2 + 0.25, rtol=1e-6)
    assert len(compiles) >= 2  # the launch and the backward pass
    assert _levels(compiles) == {0}


def test_adjoint_launch_uses_the_module_option(monkeypatch):
    kernel = _square_kernel(0.5)
    kernel.module.options["optimization_level"] = 1
    x = wp.array(np.arange(4, dtype=np.float32))
    y = wp.zeros(4)
    x_grad, y_grad = wp.zeros(4), wp.ones(4)
    compiles = spy_on_compiles(monkeypatch)
    wp.launch(kernel, 4, inputs=[x], outputs=[y], adj_inputs=[x_grad], adj_outputs=[y_grad], adjoint=True)
    np.testing.assert_allclose(x_grad.numpy(), 2.0 * np.arange(4), rtol=1e-6)
    assert compiles and _levels(compiles) == {1}


def test_default_level_passes_no_option(monkeypatch):
    kernel = _square_kernel(0.75)
    x, y = wp.array(np.ones(4, dtype=np.float32)), wp.zeros(4)
    compiles = spy_on_compiles(monkeypatch)
    wp.launch(kernel, 4, inputs=[x], outputs=[y])
    assert y.numpy().tolist() == [1.75] * 4
    assert compiles and _levels(compiles) == {None}


def test_level_zero_computes_what_the_default_computes(monkeypatch):
    @wp.kernel(module="unique")
    def mix(x: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
        i = wp.tid()
        v = x[i]
        s = float(0.0)
        for k in range(7):
            s += wp.sin(v[0] * float(k)) * wp.exp(-v[1]) + wp.sqrt(wp.abs(v[2]) + float(k))
        out[i] = s

    rng = np.random.default_rng(3)
    x = wp.array(rng.standard_normal((257, 3)).astype(np.float32), dtype=wp.vec3)
    results = []
    for level in (None, 0):
        monkeypatch.setattr(wp.config, "optimization_level", level)
        out = wp.zeros(257)
        wp.launch(mix, 257, inputs=[x], outputs=[out])
        results.append(out.numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("level", [4, -1, 1.5, True])
def test_invalid_level_names_the_kernel_and_option(monkeypatch, level):
    monkeypatch.setattr(wp.config, "optimization_level", level)
    kernel = _square_kernel(1.0)
    y = wp.zeros(2)
    with pytest.raises(ValueError, match=r"kernel '.*square.*'.*optimization_level"):
        wp.launch(kernel, 2, inputs=[wp.ones(2)], outputs=[y])
    assert y.numpy().tolist() == [0.0, 0.0]
