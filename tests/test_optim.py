"""``jwarp.optim``: Adam and SGD follow real Warp's trajectories on a small quadratic."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import jwarp as wp
import jwarp.optim
from tests.differential.harness import real_warp

STEPS = 20
TARGET = np.array([1.0, -2.0, 0.5, 3.0, -0.25, 0.0], dtype=np.float32)
START = np.array([0.0, 0.5, -1.0, 2.0, 1.0, -3.0], dtype=np.float32)
SCALE = np.array([1.0, 4.0, 0.5, 2.0, 8.0, 1.0], dtype=np.float32)  # loss = sum(scale * (x - target)^2)


def _optim(lib):
    return importlib.import_module(f"{lib.__name__}.optim")


def _trajectory(lib, make, dtype_name: str = "float32", steps: int = STEPS) -> np.ndarray:
    """Optimise the quadratic with ``make(optim_module, params)``; returns the parameters after each step."""
    dtype = getattr(lib, dtype_name)
    np_dtype = np.float16 if dtype_name == "float16" else np.float32
    start, target, scale = START, TARGET, SCALE
    if dtype_name == "vec3":
        start, target, scale = (v.reshape(2, 3) for v in (START, TARGET, SCALE))
    x = lib.array(start.astype(np_dtype), dtype=dtype)
    grad = lib.zeros_like(x)
    opt = make(_optim(lib), [x])
    out = []
    for _ in range(steps):
        grad.assign((2.0 * scale * (x.numpy().astype(np.float32) - target)).astype(np_dtype))
        opt.step([grad])
        out.append(x.numpy().astype(np.float64).copy())
    return np.stack(out)


def _compare(make, dtype_name: str = "float32", rtol: float = 1e-5, atol: float = 1e-6) -> np.ndarray:
    ours = _trajectory(wp, make, dtype_name)
    warp = real_warp()
    if warp is None:
        pytest.skip("real Warp is not installed")
    np.testing.assert_allclose(ours, _trajectory(warp, make, dtype_name), rtol=rtol, atol=atol)
    return ours


ADAMS = {
    "default": lambda o, p: o.Adam(p),
    "fast": lambda o, p: o.Adam(p, lr=0.1),
    "betas": lambda o, p: o.Adam(p, lr=0.05, betas=(0.5, 0.9), eps=1e-4),
}
SGDS = {
    "plain": lambda o, p: o.SGD(p, lr=0.02),
    "momentum": lambda o, p: o.SGD(p, lr=0.02, momentum=0.9),
    "dampening": lambda o, p: o.SGD(p, lr=0.02, momentum=0.8, dampening=0.3),
    "nesterov": lambda o, p: o.SGD(p, lr=0.02, momentum=0.9, nesterov=True),
    "weight_decay": lambda o, p: o.SGD(p, lr=0.02, momentum=0.5, weight_decay=0.1),
}


@pytest.mark.parametrize("name", sorted(ADAMS))
def test_adam_matches_warp(name):
    _compare(ADAMS[name])


@pytest.mark.parametrize("name", sorted(SGDS))
def test_sgd_matches_warp(name):
    _compare(SGDS[name])


def test_adam_vec3_and_float16_match_warp():
    _compare(ADAMS["fast"], "vec3")
    _compare(ADAMS["fast"], "float16", rtol=2e-3, atol=2e-3)


def test_sgd_vec3_matches_warp():
    _compare(SGDS["momentum"], "vec3")


def test_optimizers_decrease_the_loss():
    for make in (ADAMS["fast"], SGDS["nesterov"]):
        xs = _trajectory(wp, make, steps=60)
        loss = lambda x: float(np.sum(SCALE * (x - TARGET) ** 2))  # noqa: E731
        assert loss(xs[-1]) < 0.1 * loss(START)


def test_reset_and_set_params():
    x = wp.array(START)
    adam = jwarp.optim.Adam([x], lr=0.1)
    adam.step([wp.ones_like(x)])
    assert adam.t == 1 and np.any(adam.m[0].numpy() != 0)
    m0 = adam.m[0]
    adam.set_params([x])  # same shape and dtype: moments kept
    assert adam.m[0] is m0
    adam.reset_internal_state()
    assert adam.t == 0 and not adam.m[0].numpy().any() and not adam.v[0].numpy().any()
    adam.set_params([wp.zeros(3)])
    assert adam.m[0].shape == (3,)
    half = wp.zeros(4, dtype=wp.float16)
    adam.set_params([half])
    assert adam.m[0].dtype == wp.float32  # fp32 moments for fp16 parameters, as in Warp
    sgd = jwarp.optim.SGD([x], momentum=0.9)
    sgd.step([wp.ones_like(x)])
    sgd.reset_internal_state()
    assert sgd.t == 0 and not sgd.b[0].numpy().any()


@pytest.mark.parametrize("lib_name", ["jwarp", "warp"])
def test_errors_match_warp(lib_name):
    lib = wp if lib_name == "jwarp" else real_warp()
    if lib is None:
        pytest.skip("real Warp is not installed")
    optim = _optim(lib)
    x = lib.zeros(4)
    with pytest.raises(RuntimeError, match="Adam parameters must be set before calling step"):
        optim.Adam().step([])
    with pytest.raises(RuntimeError, match="SGD parameters must be set before calling step"):
        optim.SGD().step([])
    with pytest.raises(RuntimeError, match="Unsupported dtype for Warp Adam optimizer"):
        optim.Adam([lib.zeros(4, dtype=lib.float64)])
    with pytest.raises(TypeError, match="Adam gradient dtype must match parameter dtype float32, got float64"):
        optim.Adam([x]).step([lib.zeros(4, dtype=lib.float64)])
    with pytest.raises(ValueError, match=r"Adam gradient shape must match parameter shape \(4,\), got \(5,\)"):
        optim.Adam([x]).step([lib.zeros(5)])
    with pytest.raises(TypeError, match="SGD gradient dtype must match parameter dtype float32, got float64"):
        optim.SGD([x]).step([lib.zeros(4, dtype=lib.float64)])
    with pytest.raises(ValueError, match=r"SGD gradient shape must match parameter shape \(4,\), got \(2,\)"):
        optim.SGD([x]).step([lib.zeros(2)])


def test_optim_is_imported_explicitly_as_in_warp():
    warp = real_warp()
    if warp is not None:
        import warp.optim  # noqa: F401

        assert set(dir(warp.optim)) >= {"Adam", "SGD"}
    assert jwarp.optim.Adam is wp.optim.Adam and jwarp.optim.SGD is wp.optim.SGD
