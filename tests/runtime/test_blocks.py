"""``block_dim``, ``max_blocks`` and ``grid_stride`` (Warp 1.19 rules), and chunked execution of
``max_blocks`` launches on non-CPU devices (simulated CUDA devices, and a forced chunk on CPU)."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp
from jwarp.runtime import launch_config, preparation
from jwarp.runtime.device import simulated_cuda_devices


@wp.kernel
def report_block_dim(out: wp.array(dtype=int)):
    out[wp.tid()] = wp.block_dim()


@wp.kernel(grid_stride=False)
def lean(out: wp.array(dtype=int)):
    out[wp.tid()] = 1


@wp.kernel
def mixed(a: wp.array(dtype=float), counts: wp.array(dtype=int), order: wp.array(dtype=int),
          ticket: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    for k in range(i % 5):  # a per-thread loop
        x = x * 0.5 + float(k)
    if i % 3 == 0:
        out[i] = x
    else:
        out[i] = -x
    wp.atomic_add(counts, i % 7, 1)
    order[i] = wp.atomic_add(ticket, 0, 1)


@wp.kernel
def grid2(out: wp.array2d(dtype=int), hits: wp.array(dtype=int)):
    i, j = wp.tid()
    out[i, j] = i * 100 + j
    wp.atomic_add(hits, 0, 1)


@pytest.fixture
def cpu_blocks():
    saved = wp.config.enable_cpu_blocks
    yield
    wp.config.enable_cpu_blocks = saved


def _block_dim(block_dim, device=None):
    out = wp.zeros(2, dtype=int, device=device)
    wp.launch(report_block_dim, 2, inputs=[out], block_dim=block_dim, device=device)
    return int(out.numpy()[0])


@pytest.mark.parametrize("requested, expected", [(None, 1), (0, 1), (-4, 1), (1, 1), (64, 1), (1024, 1)])
def test_cpu_block_dim_defaults_to_one(requested, expected):
    assert launch_config.resolve_block_dim(wp.get_device("cpu"), requested) == expected
    assert _block_dim(requested) == expected


def test_cpu_blocks_opt_in(cpu_blocks):
    wp.config.enable_cpu_blocks = True
    assert _block_dim(64) == 64 and _block_dim(None) == 1 and _block_dim(1024) == 1024


@pytest.mark.parametrize("enabled", [False, True])
def test_cpu_block_dim_above_1024_raises(cpu_blocks, enabled):
    wp.config.enable_cpu_blocks = enabled
    out = wp.zeros(2, dtype=int)
    with pytest.raises(ValueError, match="block_dim must be at most 1024 on CPU, got 2048"):
        wp.launch(report_block_dim, 2, inputs=[out], block_dim=2048)
    with pytest.raises(ValueError):  # checked before anything else, even for empty launches (as Warp)
        wp.launch(report_block_dim, 0, inputs=[out], block_dim=2048)


def test_cuda_block_dim_default_and_limit():
    with simulated_cuda_devices(1):
        assert _block_dim(None) == 256 and _block_dim(0) == 256 and _block_dim(32) == 32
        out = wp.zeros(2, dtype=int)
        with pytest.raises(RuntimeError, match="block_dim=2048 exceeds the maximum of 1024"):
            wp.launch(report_block_dim, 2, inputs=[out], block_dim=2048)


def test_max_blocks_on_cpu_needs_no_grid_stride():
    out = wp.zeros(4, dtype=int)
    # no grid-stride check on CPU; max_blocks only bounds memory there (chunks of max_blocks * 256 threads,
    # see memory_cases.case_max_blocks_bounds_cpu_memory), so a grid smaller than one chunk runs in one pass
    wp.launch(lean, 4, inputs=[out], max_blocks=1)
    np.testing.assert_array_equal(out.numpy(), [1] * 4)
    wp.launch(report_block_dim, 2, inputs=[wp.zeros(2, dtype=int)], max_blocks=3)
    assert not any(dict(key[0].extra).get("chunk") for key in report_block_dim._cache)


def test_grid_stride_false_with_max_blocks_on_cuda_raises():
    with simulated_cuda_devices(1):
        out = wp.zeros(4, dtype=int)
        with pytest.raises(RuntimeError, match="launched with max_blocks=2, but it was compiled without a grid-stride"):
            wp.launch(lean, 4, inputs=[out], max_blocks=2)
        np.testing.assert_array_equal(out.numpy(), [0] * 4)
        wp.launch(lean, 0, inputs=[out], max_blocks=2)  # empty launches skip the check, as in Warp
        wp.launch(lean, 4, inputs=[out], max_blocks=0)
        np.testing.assert_array_equal(out.numpy(), [1] * 4)


def _run_mixed(n, device, **kwargs):
    a = wp.array(np.linspace(-3, 3, n).astype(np.float32), device=device)
    counts, order = wp.zeros(7, dtype=int, device=device), wp.zeros(n, dtype=int, device=device)
    ticket, out = wp.zeros(1, dtype=int, device=device), wp.zeros(n, device=device)
    wp.launch(mixed, n, inputs=[a, counts, order, ticket, out], device=device, **kwargs)
    return [x.numpy() for x in (counts, order, ticket, out)]


@pytest.mark.parametrize("n, max_blocks, block_dim", [(1000, 2, 64), (1000, 1, 1000), (777, 3, 32), (5, 1, 2)])
def test_chunked_max_blocks_matches_unchunked(n, max_blocks, block_dim):
    expected = _run_mixed(n, "cpu")
    with simulated_cuda_devices(1):
        got = _run_mixed(n, "cuda:0", max_blocks=max_blocks, block_dim=block_dim)
        chunks = {dict(key[0].extra).get("chunk") for key in mixed._cache if key[-1] == "cuda:0"}
        assert (max_blocks * block_dim if max_blocks * block_dim < n else None) in chunks
    for e, g in zip(expected, got):
        np.testing.assert_allclose(g, e, rtol=1e-6)


def test_chunked_multi_dim_and_extra_dims():
    with simulated_cuda_devices(1):
        out, hits = wp.zeros((6, 5), dtype=int), wp.zeros(1, dtype=int)
        wp.launch(grid2, (6, 5), inputs=[out, hits], max_blocks=1, block_dim=4)
        np.testing.assert_array_equal(out.numpy(), np.arange(6)[:, None] * 100 + np.arange(5))
        assert hits.numpy()[0] == 30
        out, hits = wp.zeros((3, 2), dtype=int), wp.zeros(1, dtype=int)
        wp.launch(grid2, (3, 2, 4), inputs=[out, hits], max_blocks=2, block_dim=3)  # extra dim repeats coords
        np.testing.assert_array_equal(out.numpy(), np.arange(3)[:, None] * 100 + np.arange(2))
        assert hits.numpy()[0] == 24


def test_forced_chunking_on_cpu_and_debug_mode():
    n = 50
    a = wp.array(np.linspace(-3, 3, n).astype(np.float32))
    args = [a, wp.zeros(7, dtype=int), wp.zeros(n, dtype=int), wp.zeros(1, dtype=int), wp.zeros(n)]
    prepared = preparation.prepare(mixed, (n,), args, wp.get_device("cpu"), options={"chunk": 8})
    assert dict(prepared.compiled.signature.extra) == {"chunk": 8}
    prepared.run()
    expected = _run_mixed(n, "cpu")
    for e, g in zip(expected, [x.numpy() for x in args[1:]]):
        np.testing.assert_allclose(g, e, rtol=1e-6)

    @wp.kernel
    def oob(src: wp.array(dtype=float), dst: wp.array(dtype=float)):
        i = wp.tid()
        dst[i] = src[i + 20]

    saved = wp.config.mode
    wp.config.mode = "debug"
    try:
        with simulated_cuda_devices(1):
            s, d = wp.ones(24), wp.zeros(24)
            with pytest.raises(IndexError, match="src\\[i \\+ 20\\]"):
                wp.launch(oob, 24, inputs=[s, d], max_blocks=1, block_dim=4)
            np.testing.assert_array_equal(d.numpy(), np.zeros(24))
            wp.launch(oob, 4, inputs=[s, d], max_blocks=1, block_dim=3)  # masked tail lanes 4, 5 are not checked
            np.testing.assert_array_equal(d.numpy()[:5], [1, 1, 1, 1, 0])
    finally:
        wp.config.mode = saved


@wp.kernel
def square_sum(x: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, x[i] * x[i])


def test_chunked_launch_is_differentiable_on_a_tape():
    if not hasattr(wp, "Tape"):
        pytest.skip("wp.Tape is not available")

    def run(**kwargs):
        x = wp.array(np.arange(10, dtype=np.float32), requires_grad=True)
        loss = wp.zeros(1, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(square_sum, 10, inputs=[x, loss], **kwargs)
        tape.backward(loss)
        return loss.numpy(), x.grad.numpy()

    with simulated_cuda_devices(1):
        loss, grad = run(max_blocks=1, block_dim=3)
    assert loss[0] == 285.0
    np.testing.assert_array_equal(grad, 2 * np.arange(10))


@wp.func
def _ramp_table(base: float) -> wp.fixedarray(shape=(4,), dtype=float):
    t = wp.zeros(shape=(4,), dtype=float)
    for k in range(4):
        t[k] = base + float(k)
    return t


@wp.kernel
def fixed_return(out: wp.array(dtype=float)):
    i = wp.tid()
    t = _ramp_table(float(i))
    out[i] = t[3]


def test_chunk_tail_keeps_unconditional_constructs():
    # a chunk running past the launch's end masks its tail lanes; a @wp.func returning its own fixed-size
    # array at its top level is still unconditional for every thread (it was refused as "under a
    # per-thread condition")
    out = wp.zeros(300, dtype=float)
    wp.launch(fixed_return, 300, inputs=[out], max_blocks=1)  # chunks of 256 threads on CPU
    assert any(dict(key[0].extra).get("chunk") for key in fixed_return._cache)
    np.testing.assert_array_equal(out.numpy(), np.arange(300) + 3.0)
