"""Arrays a pair pass reads at the candidate's index, gathered as rows of one table
(jwarp/compiler/row_gathers.py): which reads are gathered together, and that the results equal a
brute-force numpy sum and the pass with every read gathering on its own. (Against Warp: the hash-grid
programs of tests/differential/programs.)"""

import numpy as np
import pytest

import jwarp as wp
from jwarp.compiler import row_gathers


@wp.kernel
def forces(grid: wp.uint64, x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), m: wp.array(dtype=float),
           w: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = x[i]
    f = wp.vec3()
    for j in wp.hash_grid_query(grid, p, h):
        d = x[j] - p
        if j != i and wp.dot(d, d) < h * h:
            f += d * m[j] + (v[j] - v[i]) * 0.5 + w[j] * 0.25
    out[i] = f


@wp.kernel
def forces_apart(grid: wp.uint64, x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), m: wp.array(dtype=float),
                 w: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = x[i]
    f = wp.vec3()
    for j in wp.hash_grid_query(grid, p, h):  # (forces, written another way: a trace of its own)
        d = x[j] - p
        if j != i and wp.dot(d, d) < h * h:
            f = f + (d * m[j] + (v[j] - v[i]) * 0.5 + w[j] * 0.25)
    out[i] = f


def _reference(x, v, m, w, h):
    out = np.zeros_like(x)
    for i in range(len(x)):
        d = x - x[i]
        near = (np.einsum("ij,ij->i", d, d) < h * h) & (np.arange(len(x)) != i)
        out[i] = (d[near] * m[near, None] + (v[near] - v[i]) * 0.5 + w[near] * 0.25).sum(axis=0)
    return out


def _launch(n_extra: int, seed: int, kernel=forces) -> tuple:
    rng = np.random.default_rng(seed)
    n = 200
    x = rng.random((n, 3)).astype(np.float32)
    v = rng.standard_normal((n, 3)).astype(np.float32)
    m = rng.random(n).astype(np.float32)
    w = rng.standard_normal((n + n_extra, 3)).astype(np.float32)  # longer: a table of its own
    grid = wp.HashGrid(8, 8, 8)
    xs = wp.array(x, dtype=wp.vec3)
    grid.build(xs, 0.15)
    out = wp.zeros(n, dtype=wp.vec3)
    wp.launch(kernel, n, inputs=[grid.id, xs, wp.array(v, dtype=wp.vec3), wp.array(m), wp.array(w, dtype=wp.vec3),
                                 0.15], outputs=[out])
    return out.numpy(), _reference(x, v, m, w[:n], 0.15)


@pytest.mark.parametrize("n_extra", [0, 5])
def test_reads_at_the_candidate_gather_together(monkeypatch, n_extra):
    """x, v, m and w (float planes of one length: vec3 arrays and a float array) are fetched as one
    table's rows; w, when longer, keeps gathering on its own; every result is the brute-force sum's."""
    tables = []
    real = row_gathers.prefetch

    def spy(*args):
        got = real(*args)
        tables.append(got)
        return got

    monkeypatch.setattr(row_gathers, "prefetch", spy)
    got, want = _launch(n_extra, 3 + n_extra)
    fetched = [t for t in tables if t]
    assert fetched, "the pair pass did not prefetch"
    arrays = {len(key[0]) for t in fetched for key in t}  # planes per prefetched array
    assert arrays == {3, 1}
    assert max(len(t) for t in fetched) == (4 if n_extra == 0 else 3)  # x, v, m (and w when of one length)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_prefetched_rows_equal_reads_gathered_apart(monkeypatch):
    with_rows, _ = _launch(0, 11)
    monkeypatch.setattr(row_gathers, "prefetch", lambda *args: None)
    apart, want = _launch(0, 11, forces_apart)
    np.testing.assert_allclose(with_rows, apart, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(apart, want, rtol=1e-4, atol=1e-5)
