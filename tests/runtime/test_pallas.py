"""The Pallas target of a launch (docs/launch.md): selection, eligibility, CUDA lowering, gradients.

Interpret mode runs on the CPU (``wp.config.pallas = "always"``); the Triton lowering is checked by
lowering for the CUDA platform on this machine (``lower_for_cuda``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jwarp as wp
from jwarp.compiler.pallas_lower import PallasFallback
from jwarp.runtime.pallas_cuda import lower_for_cuda
from jwarp.runtime.pallas_select import pallas_plan


@pytest.fixture
def pallas_always():
    previous = wp.config.pallas
    wp.config.pallas = "always"
    yield
    wp.config.pallas = previous


@wp.kernel
def saxpy_hist(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float, hist: wp.array(dtype=int)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]
    wp.atomic_add(hist, i % 7, 1)


@wp.kernel
def stencil(u: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    n = u.shape[0]
    m = u.shape[1]
    if i > 0 and j > 0 and i < n - 1 and j < m - 1:
        out[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]


@wp.kernel
def springs(x: wp.array(dtype=wp.vec3), pairs: wp.array(dtype=int), f: wp.array(dtype=wp.vec3), k: float):
    s = wp.tid()
    a = pairs[2 * s]
    b = pairs[2 * s + 1]
    d = x[b] - x[a]
    force = k * (wp.length(d) - 1.0) * wp.normalize(d)
    wp.atomic_add(f, a, force)
    wp.atomic_sub(f, b, force)


@wp.kernel
def counted(flags: wp.array(dtype=int), slots: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    if flags[i] != 0:
        k = wp.atomic_add(slots, 0, 1)
        out[k] = i


@wp.kernel
def local_table(out: wp.array(dtype=float)):
    i = wp.tid()
    table = wp.zeros(shape=(4,), dtype=float)
    table[0] = 1.0
    table[1] = 2.0
    table[2] = 3.0
    out[i] = table[i % 4]


@wp.kernel
def local_table3(out: wp.array(dtype=float)):
    i = wp.tid()
    table = wp.zeros(shape=(3,), dtype=float)
    out[i] = table[i % 3]


@wp.kernel
def scaled_indexed(a: wp.indexedarray(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s


def _run_saxpy(n: int, **launch) -> tuple[np.ndarray, np.ndarray]:
    x = wp.array(np.arange(n, dtype=np.float32))
    y = wp.array(np.ones(n, np.float32))
    hist = wp.zeros(7, dtype=int)
    wp.launch(saxpy_hist, n, inputs=[x, y, 2.0, hist], **launch)
    return y.numpy(), hist.numpy()


def _uses_pallas(kernel) -> bool:
    return any("pallas_call" in str(c.closed_jaxpr) for c in kernel._cache.values())


# -------------------------------------------------------------------------------------------- selection


def test_config_rejects_unknown_modes():
    with pytest.raises(ValueError, match="wp.config.pallas must be one of"):
        wp.config.pallas = "sometimes"
    with pytest.raises(ValueError, match="pallas must be 'auto', 'always' or 'never'"):
        wp.kernel(pallas="yes")(saxpy_hist.func)


def test_auto_keeps_the_xla_path_on_cpu():
    saxpy_hist._cache.clear()
    y, hist = _run_saxpy(100, max_blocks=2)
    np.testing.assert_allclose(y, 2 * np.arange(100) + 1)
    assert not _uses_pallas(saxpy_hist)
    assert pallas_plan(saxpy_hist, wp.get_device("cpu"), 1, 2) is None


def test_always_uses_interpret_mode_off_cuda(pallas_always):
    plan = pallas_plan(saxpy_hist, wp.get_device("cpu"), 1, 0)
    assert plan.backend == "interpret" and plan.lanes == plan.block_dim
    never = wp.kernel(pallas="never")(saxpy_hist.func)
    assert pallas_plan(never, wp.get_device("cpu"), 1, 0) is None


@pytest.mark.parametrize("max_blocks", [0, 3])
def test_always_matches_the_xla_path(pallas_always, max_blocks):
    saxpy_hist._cache.clear()
    y, hist = _run_saxpy(1000, max_blocks=max_blocks)
    assert _uses_pallas(saxpy_hist)
    np.testing.assert_allclose(y, 2 * np.arange(1000) + 1)
    np.testing.assert_array_equal(hist, np.bincount(np.arange(1000) % 7))


def test_module_option_and_tiles(pallas_always):
    @wp.kernel(module="unique")
    def fill(a: wp.array(dtype=float)):
        a[wp.tid()] = 1.0

    cpu = wp.get_device("cpu")
    assert pallas_plan(fill, cpu, 1, 0) is not None
    wp.set_module_options({"pallas": "never"}, module=fill.module)
    assert pallas_plan(fill, cpu, 1, 0) is None

    @wp.kernel
    def tiled(a: wp.array(dtype=float)):
        t = wp.tile_load(a, shape=4)
        wp.tile_store(a, t)

    assert tiled.uses_tiles and pallas_plan(tiled, cpu, 4, 0) is None  # tile kernels keep the XLA path


def test_kernel_option_selects_pallas():
    k = wp.kernel(pallas="always")(saxpy_hist.func)
    x = wp.array(np.arange(40, dtype=np.float32))
    y = wp.zeros(40, dtype=float)
    hist = wp.zeros(7, dtype=int)
    wp.launch(k, 40, inputs=[x, y, 3.0, hist])
    assert _uses_pallas(k)
    np.testing.assert_allclose(y.numpy(), 3 * np.arange(40))


@wp.kernel
def rows(out: wp.array2d(dtype=float)):
    i = wp.tid()
    for j in range(40):  # longer than max_unroll: a fori_loop whose body stores through a ref
        out[i, j] = float(i * 100 + j)


def test_stores_inside_lax_loops_reach_memory(pallas_always):
    out = wp.zeros((5, 40), dtype=float)
    wp.launch(rows, 5, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), np.arange(5)[:, None] * 100.0 + np.arange(40))


def test_atomic_return_values_follow_thread_order_in_interpret_mode(pallas_always):
    flags = wp.array(np.array([0, 1, 1, 0, 1] * 20, np.int32))
    slots = wp.zeros(1, dtype=int)
    out = wp.full(100, -1, dtype=int)
    wp.launch(counted, 100, inputs=[flags, slots, out], max_blocks=2)
    chosen = np.flatnonzero(flags.numpy())
    assert slots.numpy()[0] == len(chosen)
    np.testing.assert_array_equal(out.numpy()[: len(chosen)], chosen)


# -------------------------------------------------------------------------------------------- eligibility


def test_ineligible_kernel_under_always_names_kernel_and_construct(pallas_always):
    data = wp.array(np.arange(6, dtype=np.float32))
    view = wp.indexedarray(data, [wp.array(np.array([0, 2, 4], np.int32))])
    with pytest.raises(PallasFallback, match=r"Kernel 'scaled_indexed'.*indexed arrays"):
        wp.launch(scaled_indexed, 3, inputs=[view, 2.0])
    np.testing.assert_array_equal(data.numpy(), np.arange(6))  # a failed launch changes nothing


def test_kernel_code_errors_win_over_pallas_fallback(pallas_always):
    @wp.kernel
    def bad(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = undefined_name  # noqa: F821

    with pytest.raises(Exception, match="undefined_name") as info:
        wp.launch(bad, 4, inputs=[wp.zeros(4, dtype=float)])
    assert not isinstance(info.value, PallasFallback)


def test_triton_lowering_emits_a_triton_kernel():
    n = 1000
    x = wp.array(np.arange(n, dtype=np.float32))
    y = wp.zeros(n, dtype=float)
    hist = wp.zeros(7, dtype=int)
    text = lower_for_cuda(saxpy_hist, n, [x, y, 2.0, hist], max_blocks=3)
    assert "xla.gpu.triton" in text
    u = wp.zeros((24, 20), dtype=float)
    assert "xla.gpu.triton" in lower_for_cuda(stencil, (24, 20), [u, wp.zeros_like(u)], block_dim=64)
    xs = wp.zeros(10, dtype=wp.vec3)
    pairs = wp.array(np.arange(18, dtype=np.int32) % 10)
    f = wp.zeros(10, dtype=wp.vec3)
    assert "xla.gpu.triton" in lower_for_cuda(springs, 9, [xs, pairs, f, 0.5], block_dim=128, max_blocks=4)


def test_triton_rejects_value_gathers_and_auto_falls_back(capsys):
    out = wp.zeros(10, dtype=float)
    with pytest.raises(PallasFallback, match=r"shape \(256, 3\).*power-of-two block shapes"):
        lower_for_cuda(local_table3, 10, [out])
    with pytest.raises(PallasFallback, match=r"Kernel 'local_table'.*operation '\w+' has no Triton lowering"):
        lower_for_cuda(local_table, 10, [out])
    previous = wp.config.verbose
    wp.config.verbose = True
    try:
        text = lower_for_cuda(local_table, 10, [out], mode="auto")
    finally:
        wp.config.verbose = previous
    assert "xla.gpu.triton" not in text
    assert "Kernel 'local_table': Pallas path not used (triton backend), falling back to XLA" in capsys.readouterr().out


# -------------------------------------------------------------------------------------------- gradients


def _spring_inputs(requires_grad: bool):
    rng = np.random.default_rng(3)
    x = wp.array(rng.normal(size=(12, 3)).astype(np.float32), dtype=wp.vec3, requires_grad=requires_grad)
    pairs = wp.array(rng.integers(0, 12, size=40).astype(np.int32))
    f = wp.zeros(12, dtype=wp.vec3, requires_grad=requires_grad)
    return x, pairs, f


def _tape_gradient() -> tuple[np.ndarray, np.ndarray]:
    x, pairs, f = _spring_inputs(True)
    tape = wp.Tape()
    with tape:
        wp.launch(springs, 20, inputs=[x, pairs, f, 0.7])
    f.grad = wp.array(np.ones((12, 3), np.float32), dtype=wp.vec3)
    tape.backward()
    return f.numpy(), x.grad.numpy()


def test_gradients_through_pallas_equal_the_xla_path(pallas_always):
    springs._cache.clear()
    forces, grad = _tape_gradient()
    assert _uses_pallas(springs)
    wp.config.pallas = "never"
    springs._cache.clear()
    forces_xla, grad_xla = _tape_gradient()
    np.testing.assert_allclose(forces, forces_xla, rtol=1e-6)
    np.testing.assert_allclose(grad, grad_xla, rtol=1e-6)


def test_jax_grad_through_a_pallas_launch(pallas_always):
    def energy(xs):
        x = wp.from_jax(xs, dtype=wp.vec3)
        pairs = wp.array(np.array([0, 1, 1, 2, 2, 3], np.int32))
        f = wp.zeros(4, dtype=wp.vec3)
        wp.launch(springs, 3, inputs=[x, pairs, f, 1.0])
        return jnp.sum(wp.to_jax(f) ** 2)

    xs = jnp.asarray(np.random.default_rng(0).normal(size=(4, 3)), jnp.float32)
    grad = jax.grad(energy)(xs)
    wp.config.pallas = "never"
    np.testing.assert_allclose(np.asarray(grad), np.asarray(jax.grad(energy)(xs)), rtol=1e-5)
