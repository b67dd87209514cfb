"""Huge grids under a small memory budget, run by ``test_memory_budget.py`` in a child process each
(``python -m tests.runtime.memory_cases CASE``): a launch that runs out of memory or never finishes
fails its test after a timeout instead of taking the suite down. A case raises on a wrong result."""

from __future__ import annotations

import sys

import numpy as np

import jwarp as wp
from benchmarks.bench_memory import peak_rss_bytes


@wp.kernel
def histogram(h: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_add(h, i % 16, 1)


@wp.kernel
def tickets(counter: wp.array(dtype=int), order: wp.array(dtype=int)):
    i = wp.tid()
    slot = wp.atomic_add(counter, 0, 1)
    order[slot] = i


@wp.kernel
def grid_stats(total: wp.array(dtype=int), top: wp.array(dtype=float), sums: wp.array(dtype=wp.vec3)):
    i, j = wp.tid()
    v = (i * 7 + j * 3) % 11
    wp.atomic_add(total, 0, v)
    wp.atomic_max(top, 0, wp.sin(float(i * 512 + j)))
    wp.atomic_add(sums, v % 4, wp.vec3(1.0, float(v), float(i % 3)))


@wp.kernel
def stencil(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    n = x.shape[0]
    y[i] = 2.0 * x[i] + x[(i + 1) % n] - wp.sqrt(wp.abs(x[(i + 7) % n]))


def chunks_of(kernel) -> set:
    """Threads per chunk of every program the kernel compiled (0: one pass)."""
    return {dict(compiled.signature.extra).get("chunk", 0) for compiled in kernel._cache.values()}


def run_all(n1: int, n2: tuple) -> dict:
    h = wp.zeros(16, dtype=int)
    wp.launch(histogram, dim=n1, inputs=[h])
    counter, order = wp.zeros(1, dtype=int), wp.zeros(n1, dtype=int)
    wp.launch(tickets, dim=n1, inputs=[counter, order])
    total, top, sums = wp.zeros(1, dtype=int), wp.full(1, -2.0, dtype=float), wp.zeros(4, dtype=wp.vec3)
    wp.launch(grid_stats, dim=n2, inputs=[total, top, sums])
    x = wp.array(np.cos(np.arange(n1, dtype=np.float32)))
    y = wp.zeros(n1, dtype=float)
    wp.launch(stencil, dim=n1, inputs=[x, y])
    return {"h": h.numpy(), "counter": counter.numpy(), "order": order.numpy(), "total": total.numpy(),
            "top": top.numpy(), "sums": sums.numpy(), "y": y.numpy()}


def case_small_budget_matches_unchunked() -> None:
    """With a 1 MiB budget the launches run in chunks; results equal the one-pass launches'."""
    n1, n2 = 1 << 20, (512, 512)
    expected = run_all(n1, n2)
    assert chunks_of(histogram) == {0} and chunks_of(tickets) == {0}, (chunks_of(histogram), chunks_of(tickets))
    wp.config.launch_memory_budget = 1 << 20
    got = run_all(n1, n2)
    for kernel in (histogram, tickets, grid_stats):
        assert len(chunks_of(kernel) - {0}) == 1, (kernel.key, chunks_of(kernel))
    for key, want in expected.items():
        np.testing.assert_allclose(got[key], want, rtol=1e-6, err_msg=key)
    np.testing.assert_array_equal(got["h"], np.full(16, n1 // 16))
    np.testing.assert_array_equal(got["order"], np.arange(n1))  # atomics return values in thread order


def case_max_blocks_bounds_cpu_memory() -> None:
    """``max_blocks`` on the CPU: chunks of ``max_blocks`` blocks of 256 threads, same results."""
    counter, order = wp.zeros(1, dtype=int), wp.zeros(5000, dtype=int)
    wp.launch(tickets, dim=5000, inputs=[counter, order], max_blocks=3)
    assert chunks_of(tickets) == {768}, chunks_of(tickets)  # 3 blocks of 256 threads
    np.testing.assert_array_equal(order.numpy(), np.arange(5000))
    assert counter.numpy()[0] == 5000


def case_huge_atomic_launch_peak_memory() -> None:
    """2^28 threads of ``atomic_add(h, i % 16, 1)`` with the default budget peak under 1 GiB."""
    h = wp.zeros(16, dtype=int)
    wp.launch(histogram, dim=1 << 28, inputs=[h])
    np.testing.assert_array_equal(h.numpy(), np.full(16, 1 << 24))
    peak = peak_rss_bytes()
    assert peak <= 1 << 30, f"peak memory {peak / 2**20:.0f} MiB"



def case_more_threads_than_int32() -> None:
    """2^31 + 2^16 threads (dim=(65536, 32769)): chunked flat thread ids go past int32."""
    @wp.kernel
    def hist2(h: wp.array(dtype=int)):
        i, j = wp.tid()
        wp.atomic_add(h, (i + j) % 16, 1)

    h = wp.zeros(16, dtype=int)
    wp.launch(hist2, dim=(65536, 32769), inputs=[h])
    rows, cols = np.bincount(np.arange(65536) % 16, minlength=16), np.bincount(np.arange(32769) % 16, minlength=16)
    expected = np.array([sum(rows[r] * cols[(k - r) % 16] for r in range(16)) for k in range(16)])
    np.testing.assert_array_equal(h.numpy(), expected)


if __name__ == "__main__":
    globals()["case_" + sys.argv[1]]()
    print("OK")
