"""Which loop bodies keep extremes and best candidates that a pass over pairs can reduce
(jwarp/compiler/pair_reductions.py), and the reductions' pieces against numpy. Results of whole
kernels are compared with Warp in tests/differential/programs/geometry_pair_extremes.py."""

import ast
import builtins
import textwrap

import jax.numpy as jnp
import numpy as np
import pytest

import jwarp as wp
from jwarp.compiler import pair_reductions as red


def _kinds(code: str, names: set[str]):
    body = ast.parse(textwrap.dedent(code)).body
    scope = {"wp": wp, **vars(builtins)}
    return red.reductions(body, names, lambda name: scope[name])


def _summary(kinds):
    return None if kinds is None else {k: (v.kind, v.less, v.key) for k, v in kinds.items()}


@pytest.mark.parametrize("code, names, expected", [
    ("f += d\ng = g - d", {"f", "g"}, {"f": ("sum", True, None), "g": ("sum", True, None)}),
    ("m = wp.max(m, d)\nn = wp.min(e, n)\nk = max(k, j)", {"m", "n", "k"},
     {"m": ("max", True, None), "n": ("min", True, None), "k": ("max", True, None)}),
    ("if d < r:\n    m = wp.max(m, d)\n    m = wp.max(m, e)", {"m"}, {"m": ("max", True, None)}),
    ("if d < best and j != i:\n    best = d\n    k = j\n    p = x[j]", {"best", "k", "p"},
     {"best": ("key", True, None), "k": ("payload", True, "best"), "p": ("payload", True, "best")}),
    ("if best < d:\n    k = j\n    best = d", {"best", "k"},
     {"best": ("key", False, None), "k": ("payload", True, "best")}),
    ("if j != i:\n    d = r * 2.0\n    if best > d:\n        best = d", {"best"}, {"best": ("key", True, None)}),
    ("if d < r:\n    best = d\n    hit = 1\nk = j", {"best", "hit", "k"},
     {"best": ("last", True, None), "hit": ("last", True, None), "k": ("last", True, None)}),
    ("if d < best:\n    best = d\nif d < r:\n    k = j", {"best", "k"},
     {"best": ("key", True, None), "k": ("last", True, None)}),
], ids=["sums", "extremes", "extreme under if", "key and payloads", "larger key", "nested key", "lasts",
        "key and last"])
def test_accepted_bodies(code, names, expected):
    assert _summary(_kinds(code, names)) == expected


@pytest.mark.parametrize("code, names", [
    ("if d <= best:\n    best = d", {"best"}),  # <=: the last equal candidate wins
    ("if d < best:\n    best = d\ns += best", {"best", "s"}),  # the best read elsewhere
    ("if d < best:\n    best = e", {"best"}),  # assigned something else than tested
    ("if d < best:\n    d = d * 2.0\n    best = d", {"best"}),  # the tested value changed first
    ("if d < best or j == i:\n    best = d", {"best"}),  # not a conjunction
    ("if d < best:\n    best = d\nif d < best:\n    best = d", {"best"}),  # two tests of one key
    ("if d < best:\n    best = d\n    k = j\nk = 3", {"best", "k"}),  # a payload assigned elsewhere
    ("if d < best:\n    best = d\n    k = k + 1", {"best", "k"}),  # a payload that reads itself
    ("if d < best:\n    best = d\nif e < other:\n    other = e\n    best = e", {"best", "other"}),
    ("m = wp.max(m, m * d)", {"m"}),  # the term reads the extreme
    ("m = wp.max(m, d)\nm += 1.0", {"m"}),  # two kinds of one name
    ("m = wp.clamp(m, d, e)", {"m"}),
    ("k = j\nk = k + 1", {"k"}),  # a last value that reads itself
    ("if d < best:\n    best = d\nbest = 0.5", {"best"}),  # a key also assigned plainly
], ids=["<=", "read elsewhere", "other value", "value changed", "or", "two tests", "payload elsewhere",
        "payload reads itself", "payload of two keys", "term reads extreme", "two kinds", "other call",
        "last reads itself", "key assigned plainly"])
def test_rejected_bodies(code, names):
    assert _kinds(code, names) is None


def test_flagged_body_marks_each_assignment_of_a_last_value():
    body = ast.parse("if d < r:\n    k = j\n    m = 2\nk = 3").body
    out = red.flagged_body(body, {"k"})
    text = ast.unparse(out)
    assert text.count("__assigned_k = True") == 2 and "__assigned_m" not in text
    assert ast.unparse(body).count("__assigned") == 0  # the loop's own statements stay as they were
    flag = out[0].body[1]
    assert (flag.lineno, flag.col_offset) == (2, 4)  # errors point at the assignment


def test_last_columns():
    flags = np.array([[0, 1, 0, 1], [0, 0, 0, 0], [1, 0, 0, 0]], bool)
    np.testing.assert_array_equal(np.asarray(red.last_columns(jnp.asarray(flags))), [3, -1, 0])


def test_starting_values():
    assert np.isnan(red.start_of(red.Reduction(red.MAX), np.float32))
    assert red.start_of(red.Reduction(red.MIN), np.int32) == np.iinfo(np.int32).max
    assert red.start_of(red.Reduction(red.MAX), np.int64) == np.iinfo(np.int64).min
    assert red.start_of(red.Reduction(red.KEY), np.float32) == np.inf
    assert red.start_of(red.Reduction(red.KEY, less=False), np.uint32) == 0
    assert red.start_of(red.Reduction(red.PAYLOAD, key="k"), np.int32) == 0


def test_extremes_skip_nans():
    a = jnp.asarray([np.nan, 1.0, np.nan, -np.inf], jnp.float32)
    b = jnp.asarray([2.0, np.nan, np.nan, 3.0], jnp.float32)
    np.testing.assert_array_equal(np.asarray(red.combine_extreme(red.MAX, a, b)), [2.0, 1.0, np.nan, 3.0])
    np.testing.assert_array_equal(np.asarray(red.combine_extreme(red.MIN, a, b)), [2.0, 1.0, np.nan, -np.inf])


@pytest.mark.parametrize("less", [True, False])
def test_best_columns_take_the_first_of_equal_keys(less):
    rng = np.random.default_rng(4)
    keys = rng.integers(0, 4, (200, 8)).astype(np.float32)
    start = np.inf if less else -np.inf
    keys[rng.random((200, 8)) < 0.3] = start  # pairs that did not pass their test
    keys[:5] = start
    best, column = (np.asarray(x) for x in red.best_columns(jnp.asarray(keys), less))
    expected = keys.min(axis=1) if less else keys.max(axis=1)
    np.testing.assert_array_equal(best, expected)
    passed = expected != start
    np.testing.assert_array_equal(column[~passed], 8)
    first = np.argmax(keys == expected[:, None], axis=1)
    np.testing.assert_array_equal(column[passed], first[passed])


@wp.kernel
def nearest_energy(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, energy: wp.array(dtype=float)):
    i = wp.tid()
    p = x[i]
    best = float(h)
    q = p
    m = float(0.0)
    for j in wp.hash_grid_query(grid, p, h):
        d = wp.length(x[j] - p)
        if d < best and j != i:
            best = d
            q = x[j]
        if d < h:
            m = wp.max(m, d)
    energy[i] = wp.length(q - p) + 0.5 * m


def test_gradients_through_the_best_candidate_match_finite_differences():
    """The tape's gradient of a loop keeping the nearest neighbour's position and a running maximum
    equals central differences of the forward launches (the pass over pairs), point by point. (Real
    Warp's adjoint of this dynamic loop does not replay the best candidate's state: 0.25 where the
    differences give 1.01, so the differential program compares the forward values only.)"""
    # clusters of three points 0.5 apart (beyond the radius 0.2): a corner, one at 0.05 and one at 0.09
    # from it at a right angle, so each point's nearest neighbour and farthest point within the radius
    # are unique by at least 0.013 and the energy is smooth within the differences' steps
    rng = np.random.default_rng(21)
    corners = np.stack(np.meshgrid(*[np.arange(4) * 0.5] * 3, indexing="ij"), -1).reshape(-1, 3)
    u = rng.normal(size=corners.shape)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    v = np.cross(u, rng.normal(size=corners.shape))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    pts = np.concatenate([corners, corners + 0.05 * u, corners + 0.09 * v]).astype(np.float32)

    def total(p: np.ndarray) -> float:
        x = wp.array(p, dtype=wp.vec3)
        grid = wp.HashGrid(4, 4, 4)
        grid.build(x, 0.2)
        e = wp.zeros(len(p), dtype=float)
        wp.launch(nearest_energy, dim=len(p), inputs=[grid.id, x, 0.2, e])
        return float(e.numpy().astype(np.float64).sum())

    x = wp.array(pts, dtype=wp.vec3, requires_grad=True)
    grid = wp.HashGrid(4, 4, 4)
    grid.build(x, 0.2)
    energy = wp.zeros(len(pts), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(nearest_energy, dim=len(pts), inputs=[grid.id, x, 0.2, energy])
    tape.backward(grads={energy: wp.ones(len(pts), dtype=float)})
    grad = x.grad.numpy()
    assert np.abs(grad).max() > 0.5
    eps = 1e-4
    for i, k in ((0, 0), (1, 1), (70, 2), (100, 0), (130, 1), (191, 2)):
        up, down = pts.copy(), pts.copy()
        up[i, k] += eps
        down[i, k] -= eps
        assert abs((total(up) - total(down)) / (2 * eps) - grad[i, k]) < 1e-2
