"""Which hash-grid query loops are lowered as a pass over (lane, candidate) pairs
(jwarp/compiler/pair_loop.py, jwarp/compiler/pair_while.py): accumulating ``for`` loops and the
equivalent ``while wp.hash_grid_query_next(query, index)`` loops; not loops whose results depend on
the visiting order or whose index or query is looked at after the loop. Results are compared with
Warp in tests/differential/programs/geometry_hash_grid_pairs.py; here, the routing and, against a
brute-force numpy sum, the values of a planned while loop."""

import numpy as np
import pytest

import jwarp as wp
from jwarp.compiler import pair_loop


@wp.kernel
def routed(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=float)):
    i = wp.tid()
    p = x[i]
    s = float(0.0)
    for a in wp.hash_grid_query(grid, p, h):  # planned
        s += wp.length(x[a] - p)
    q1 = wp.hash_grid_query(grid, p, h)
    b = int(0)
    while wp.hash_grid_query_next(q1, b):  # planned
        d = x[b] - p
        if wp.dot(d, d) < h * h:
            s += 1000.0
    q2 = wp.hash_grid_query(grid, p, h)
    c = int(0)
    while wp.hash_grid_query_next(q2, c):  # not planned: c is read after the loop
        s += 1.0
    s += float(c)
    q3 = wp.hash_grid_query(grid, p, h)
    d3 = int(0)
    while wp.hash_grid_query_next(q3, d3):  # not planned: q3 is read again below
        s += 2.0
    e = int(0)
    while wp.hash_grid_query_next(q3, e):  # not planned (and finds nothing)
        s += 3.0
    q4 = wp.hash_grid_query(grid, p, h)
    f = int(0)
    g = float(0.0)
    while wp.hash_grid_query_next(q4, f):  # not planned: an order-dependent update
        g = g * 0.5 + float(f)
    out[i] = s + g


def _route(monkeypatch, kernel, seed: int) -> set:
    """Launch ``kernel(grid, x, 0.3, out)`` over 64 random points; the targets of the query loops
    offered to the pair pass, and of those it took (both must agree: a loop it is offered, it takes)."""
    seen = []
    real = pair_loop.lower_pairs

    def spy(lw, node, *args, **kwargs):
        done = real(lw, node, *args, **kwargs)
        seen.append((node.target.id, done))
        return done

    monkeypatch.setattr(pair_loop, "lower_pairs", spy)
    x = wp.array(np.random.default_rng(seed).random((64, 3)).astype(np.float32), dtype=wp.vec3)
    grid = wp.HashGrid(4, 4, 4)
    grid.build(x, 0.3)
    wp.launch(kernel, dim=64, inputs=[grid.id, x, 0.3, wp.zeros(64, dtype=float)])
    assert {name for name, done in seen if done} == {name for name, _ in seen}
    return {name for name, _ in seen}


def test_routing_of_query_loops(monkeypatch):
    assert _route(monkeypatch, routed, 3) == {"a", "b"}


@wp.kernel
def routed_extremes(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=float)):
    i = wp.tid()
    p = x[i]
    best = float(h)
    k = int(-1)
    for a in wp.hash_grid_query(grid, p, h):  # planned: a key and its payload
        d = wp.length(x[a] - p)
        if d < best and a != i:
            best = d
            k = a
    m = float(0.0)
    q = wp.hash_grid_query(grid, p, h)
    b = int(0)
    while wp.hash_grid_query_next(q, b):  # planned: an extreme
        m = wp.max(m, float(b))
    low = float(h)
    c = int(-1)
    for e in wp.hash_grid_query(grid, p, h):  # not planned: <= keeps the last equal candidate
        r = wp.length(x[e] - p)
        if r <= low:
            low = r
            c = e
    out[i] = best + float(k) + m + low + float(c)


def test_routing_of_loops_that_keep_extremes(monkeypatch):
    assert _route(monkeypatch, routed_extremes, 4) == {"a", "b"}


@wp.kernel
def routed_reuse(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=float)):
    i = wp.tid()
    p = x[i]
    s = float(0.0)
    for a in wp.hash_grid_query(grid, p, h):  # planned: d is assigned before any read after the loop
        d = wp.length(x[a] - p)
        s += d
    for b in wp.hash_grid_query(grid, p, h):  # planned
        d = wp.length(x[b] - p) * 2.0
        if d < h:
            s += d
    e = float(0.0)
    for k in range(2):
        for c in wp.hash_grid_query(grid, p, h):  # not planned: inside a loop, f is read below
            f = float(c)
            s += f
        s += f * float(k)
    for g in wp.hash_grid_query(grid, p, h):  # not planned: m is read after the loop before any assignment
        m = float(g)
        e += m
    out[i] = s + e + m


def test_routing_of_loops_whose_temporaries_later_code_assigns_first(monkeypatch):
    assert _route(monkeypatch, routed_reuse, 5) == {"a", "b"}


def test_loops_reusing_temporaries_give_the_per_lane_results(monkeypatch):
    """The kernel above with its loops planned or all per-lane gives the same values."""
    from jwarp.compiler import pair_analysis
    from jwarp.runtime.kernel import forget_compiled

    x = wp.array(np.random.default_rng(8).random((64, 3)).astype(np.float32), dtype=wp.vec3)
    grid = wp.HashGrid(4, 4, 4)
    grid.build(x, 0.3)
    outs = []
    for planned in (True, False):
        if not planned:
            monkeypatch.setattr(pair_analysis, "accumulators", lambda *args: None)
        forget_compiled()
        out = wp.zeros(64, dtype=float)
        wp.launch(routed_reuse, dim=64, inputs=[grid.id, x, 0.3, out])
        outs.append(out.numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5)
    assert np.abs(outs[0]).max() > 1.0


@wp.kernel
def counts(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=int)):
    i = wp.tid()
    query = wp.hash_grid_query(grid, x[i], h)
    j = int(0)
    n = int(0)
    while wp.hash_grid_query_next(query, j):
        if wp.length(x[j] - x[i]) < h:
            n += 1
    out[i] = n


@pytest.mark.parametrize("dims", [(4, 4, 4), (2, 3, 1), (16, 16, 16)])
def test_planned_while_counts_neighbours(dims):
    pts = (np.random.default_rng(5).random((200, 3)) * 1.6 - 0.3).astype(np.float32)
    x = wp.array(pts, dtype=wp.vec3)
    grid = wp.HashGrid(*dims)
    grid.build(x, 0.25)
    out = wp.zeros(200, dtype=int)
    wp.launch(counts, dim=200, inputs=[grid.id, x, 0.25, out])
    dist = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=-1)
    np.testing.assert_array_equal(out.numpy(), (dist < 0.25).sum(axis=1))


@wp.kernel
def clustered_sums(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, n: wp.array(dtype=int),
                   s: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    p = x[i]
    c = int(0)
    acc = wp.vec2()
    if i % 7 != 3:  # some lanes skip the loop
        for j in wp.hash_grid_query(grid, p, h):
            r = wp.length(x[j] - p)
            if r < h:
                c += 1
                acc += wp.vec2(h - r, float(j % 4))
    n[i] = c
    s[i] = acc


@pytest.mark.parametrize("cell", [0.1, 0.05])  # one step of box rows per query, then several
def test_groups_of_lanes_with_very_different_counts(cell):
    """Two thousand lanes (two groups; a count that is no multiple of a tile), half of them in a
    dense cluster with many times the candidates of the others: the lanes are reordered by count,
    and every lane's sums must still land in that lane (checked against brute force)."""
    rng = np.random.default_rng(9)
    pts = np.concatenate([rng.random((1000, 3)) * 2.0, 0.9 + rng.random((1001, 3)) * 0.3]).astype(np.float32)
    pts = pts[rng.permutation(len(pts))]
    x = wp.array(pts, dtype=wp.vec3)
    grid = wp.HashGrid(8, 8, 8)  # smaller than the domain: cells wrap around
    grid.build(x, cell)
    h = 0.1
    n = wp.zeros(len(pts), dtype=int)
    s = wp.zeros(len(pts), dtype=wp.vec2)
    wp.launch(clustered_sums, dim=len(pts), inputs=[grid.id, x, h, n, s])
    _check_sums(pts, h, n, s, lambda d: h - d)


def _check_sums(pts, h, n, s, weight):
    """``clustered_sums``/``filtered_sums`` against brute force: per lane (but every 7th, which skips the
    loop) the count of points within ``h`` and the sums of ``weight(distance)`` and of ``index % 4``."""
    d = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=-1)
    near = d < h
    near[np.arange(len(pts)) % 7 == 3] = False
    np.testing.assert_array_equal(n.numpy(), near.sum(axis=1))
    expect = np.stack([np.where(near, weight(d), 0.0).sum(axis=1), (near * (np.arange(len(pts)) % 4)).sum(axis=1)], -1)
    np.testing.assert_allclose(s.numpy(), expect, rtol=1e-4, atol=1e-4)


@wp.func
def bump(d: wp.vec3):
    return 1.0 / (wp.dot(d, d) + 1.0)


@wp.kernel(enable_backward=False)
def scratch_routed(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=float)):
    i = wp.tid()
    p = x[i]
    n = wp.vec3(0.0, 1.0, 0.0)
    m = float(0.5)
    w = float(-1.0)
    u = float(0.0)
    f = wp.dot(n, p)
    for a in wp.hash_grid_query(grid, p, h):  # planned: n is scratch (assigned first, never read after)
        if a != i:
            n = p - x[a]
            d = wp.length(n)
            if d < h:
                n = n / d
                f += n[0] * (h - d)
    for q in wp.hash_grid_query(grid, p, h):  # planned: subtracted terms, wp.grad of a pure function
        f -= wp.grad(bump)(p - x[q])[0]
        f = f - 0.5
    for b in wp.hash_grid_query(grid, p, h):  # not planned: m may be read before it is assigned
        if wp.length(p - x[b]) < h:
            m = 1.0
        f -= m
    for c in wp.hash_grid_query(grid, p, h):  # not planned: w's last value is read after the loop
        w = float(c)
        f = f - w
    f += w
    for k in range(2):
        f += u
        for e in wp.hash_grid_query(grid, p, h):  # not planned: the enclosing loop reads u first
            u = float(e)
            f += u
    out[i] = f


def test_scratch_variables_of_the_enclosing_scope(monkeypatch):
    assert _route(monkeypatch, scratch_routed, 4) == {"a", "q"}


@wp.func
def _falloff(r: float, h: float):
    q = r / h
    w = (1.0 - q) * (1.0 - q) * (1.0 + 2.0 * q) + 0.25 * q * q * q
    return w * wp.exp(-q) / (1.0 + q * q)


@wp.kernel
def filtered_sums(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, n: wp.array(dtype=int),
                  s: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    p = x[i]
    c = int(0)
    acc = wp.vec2()
    if i % 7 != 3:  # some lanes skip the loop
        for j in wp.hash_grid_query(grid, p, h):
            r = wp.length(x[j] - p)
            if r < h:  # enough work under the test to run filtered (pair_analysis.GUARDED_WORK)
                c += 1
                acc += wp.vec2(_falloff(r, h), float(j % 4))
    n[i] = c
    s[i] = acc


@pytest.mark.parametrize("most", [None, -1, 1000], ids=["as chosen", "unfiltered blocks", "filtered blocks"])
def test_filtered_blocks_agree_with_brute_force(monkeypatch, most):
    """A loop that adds only under a data-dependent test runs its blocks of candidates filtered (the
    pairs that pass, one per lane at a time) or not (all pairs, when a lane of the group has many
    that pass); either way every lane's sums are exact counts and match brute force. Forced each
    way here (``SPARSE_PER_ROUND``), and as chosen at run time (the cluster's blocks unfiltered, the
    loose points' filtered)."""
    from jwarp.runtime.kernel import forget_compiled

    assert pair_loop.BLOCK == 32
    if most is not None:
        monkeypatch.setattr(pair_loop, "SPARSE_PER_ROUND", most)
    forget_compiled()  # (lowered again with the constant above)
    rng = np.random.default_rng(21)
    pts = np.concatenate([rng.random((700, 3)) * 2.0, 0.9 + rng.random((300, 3)) * 0.1]).astype(np.float32)
    x = wp.array(pts, dtype=wp.vec3)
    grid = wp.HashGrid(8, 8, 8)
    grid.build(x, 0.2)
    h = 0.1
    n = wp.zeros(len(pts), dtype=int)
    s = wp.zeros(len(pts), dtype=wp.vec2)
    wp.launch(filtered_sums, dim=len(pts), inputs=[grid.id, x, h, n, s])
    _check_sums(pts, h, n, s, lambda d: ((1 - d / h) ** 2 * (1 + 2 * d / h) + 0.25 * (d / h) ** 3)
                * np.exp(-d / h) / (1 + (d / h) ** 2))


_HEAVY = "a[i] * b[j] * (c - e) * (g - k) / m + q[i] * q[j] - w[i]"  # 18 operations
_GUARDS = {
    f"if d < r:\n    f += {_HEAVY}": True,
    f"if index != i:\n    n = x - p[index]\n    if wp.length(n) < r:\n        f = f + n * {_HEAVY}": True,
    f"if index != i:\n    f += {_HEAVY}": False,  # an identity test lets nearly every pair through
    f"f += w\nif d < r:\n    f += {_HEAVY}": False,  # an unguarded term
    "if d < r:\n    f += d * a[j] * 2.0": False,  # not enough work to skip
    f"if d < r:\n    g = 1.0\nelse:\n    f += {_HEAVY}": True,
    f"if d < r:\n    f += {_HEAVY}\ng += 1": True,  # g: not an accumulator here
}


@pytest.mark.parametrize("code", list(_GUARDS), ids=range(len(_GUARDS)))
def test_which_bodies_run_filtered(code):
    import ast

    from jwarp.compiler.pair_analysis import guarded_accumulations

    assert guarded_accumulations(ast.parse(code).body, {"f"}) is _GUARDS[code]


@wp.func
def _support(r: float, h: float):  # zero beyond the support radius (Warp's SPH kernels' shape)
    if r < h:
        q = r / h
        return (1.0 - q) * (1.0 - q) * (1.0 + 2.0 * q) * wp.exp(-q) / (1.0 + q * q) + q * q * q
    else:
        return 0.0


@wp.func
def _everywhere(r: float, h: float):  # its last return is not a constant zero
    if r < h:
        q = r / h
        return (1.0 - q) * (1.0 - q) * (1.0 + 2.0 * q) * wp.exp(-q) / (1.0 + q * q) + q * q * q
    return r


@pytest.mark.parametrize("code, expected", [
    ("s += _support(r, h)", True),
    ("s = s - _support(r, h)", True),
    ("s += _everywhere(r, h)", False),
    ("s += 2.0 * _support(r, h)", False),  # only a call's own result counts (0 * inf is not 0)
    ("if index != i:\n    s += _support(r, h)", True),
])
def test_terms_of_functions_that_are_zero_beyond_a_test(code, expected):
    """An unguarded term may still run filtered when it is a call to a user function whose returns
    are constant zeros except under a test on the data (the lowering then records, per pair, whether
    a return other than a constant zero was reached)."""
    import ast

    from jwarp.compiler.pair_analysis import guarded_accumulations

    scope = {"_support": _support, "_everywhere": _everywhere}

    def lookup(name):
        if name not in scope:
            raise LookupError(name)
        return scope[name]

    assert guarded_accumulations(ast.parse(code).body, {"s"}, lookup) is expected


@wp.func_grad(_support)
def _adj_support(r: float, h: float, adj_ret: float):
    wp.adjoint[r] += adj_ret


@wp.func
def _bump(d: wp.vec3):
    return 1.0 / (wp.dot(d, d) + 0.5) + wp.sin(wp.length(d)) * wp.cos(d[0]) * d[1] * d[2]


@wp.kernel(enable_backward=False)
def _traced_terms(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, out: wp.array(dtype=float),
                  grads: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = x[i]
    s = float(0.0)
    for j in wp.hash_grid_query(grid, p, h * 3.0):
        s += _support(wp.length(x[j] - p), h)  # a function with a custom adjoint: inlined in its own trace
    out[i] = s
    g = wp.vec3()
    for k in wp.hash_grid_query(grid, p, h * 3.0):
        d = x[k] - p
        if wp.length(d) < h:
            g += wp.grad(_bump)(d)  # wp.grad: lowered inside a jax.vjp
    grads[i] = g


def test_filtered_terms_whose_functions_are_lowered_in_a_trace_of_their_own():
    """A filter pass records which pairs reach a nonzero return only for calls lowered in the
    kernel's own trace; a function with a custom adjoint or under ``wp.grad`` counts every pair (a
    record made inside their traces would leak out). Checked against brute force."""
    rng = np.random.default_rng(2)
    pts = (rng.random((800, 3)) * 2).astype(np.float32)
    x = wp.array(pts, dtype=wp.vec3)
    grid = wp.HashGrid(8, 8, 8)
    grid.build(x, 0.2)
    h = 0.15
    out, grads = wp.zeros(800, dtype=float), wp.zeros(800, dtype=wp.vec3)
    wp.launch(_traced_terms, 800, [grid.id, x, h, out, grads])
    diff = pts[None, :, :] - pts[:, None, :]
    d = np.linalg.norm(diff, axis=-1)
    q = d / h
    support = np.where(d < h, (1 - q) ** 2 * (1 + 2 * q) * np.exp(-q) / (1 + q * q) + q ** 3, 0.0)
    np.testing.assert_allclose(out.numpy(), support.sum(axis=1), rtol=1e-4, atol=1e-4)
    near = (d < h)[..., None]
    s2 = (diff ** 2).sum(-1, keepdims=True)
    length = np.sqrt(s2)
    d0, d1, d2 = diff[..., 0:1], diff[..., 1:2], diff[..., 2:3]
    partial = np.concatenate([-np.sin(d0) * d1 * d2, np.cos(d0) * d2, np.cos(d0) * d1], axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        grad = (-2 * diff / (s2 + 0.5) ** 2 + np.cos(length) * np.where(length > 0, diff / length, 0.0)
                * np.cos(d0) * d1 * d2 + np.sin(length) * partial)
    np.testing.assert_allclose(grads.numpy(), np.where(near, grad, 0.0).sum(axis=1), rtol=1e-4, atol=1e-4)
