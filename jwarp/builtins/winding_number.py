"""Fast winding numbers: a BVH walk that replaces far clusters of faces by their multipole expansion.

``mesh_query_point_sign_winding_number`` decides inside/outside by the generalized winding number
``w(p) = Σ Ω_f(p) / 4π`` (Ω_f the signed solid angle of face f seen from p). Summing over every
face costs O(faces) per query; like Warp (and Barill et al. 2018, "Fast Winding Numbers for Soups
and Clouds"), a node of the mesh's BVH whose faces are all far from ``p`` contributes the
second-order Taylor expansion of its faces' solid angles about their area-weighted centre ``P``:

- ``S = Σ A n`` (area-weighted normals), ``N1[i, j] = Σ n_i ∫ (x - P)_j dA`` and
  ``N2[i, j, k] = Σ n_i ∫ (x - P)_j (x - P)_k dA`` over the node's triangles;
- with ``q = p - P``, ``r = |q|`` and ``u = q / r``:
  ``Ω ≈ -(u·S) / r² + (tr N1 - 3 uᵀN1u) / r³ + (1.5 Σ N2_ijk (δ_ij u_k + δ_ik u_j + δ_jk u_i)
  - 7.5 Σ N2_ijk u_i u_j u_k) / r⁴``.

A node is "far" when ``r² > accuracy² · d²``, ``d`` the distance from ``P`` to the farthest corner
of the node's bounding box (Warp's criterion); other nodes are opened, and leaves (one triangle
each) add their exact solid angle. The per-node table is built with the mesh and on ``refit``
(:mod:`jwarp.runtime.geometry.winding_table`), as Warp does.

The walk is a pre-order traversal of the heap-numbered halving tree (:mod:`jwarp.builtins.bvh_trail`):
its whole state is the current node, and skipping a subtree is ``k >> t`` then ``+ 1`` (``t`` the
trailing one bits of ``k``). Lanes run in a refilled pool (:mod:`jwarp.builtins.lane_pool`).

Example (inside a builtin; ``rows`` the mesh's bound table):
    >>> w = winding_numbers(rows, point, active, accuracy)  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from jwarp.builtins import triangle_math as tm
from jwarp.builtins.lane_pool import barrier, gather_rows, pooled_loop, uneven_width
from jwarp.compiler.selects import where

# row columns (the table: jwarp.runtime.geometry.winding_table): centre P (3), far radius² (1),
# S (3), N1 (9, row-major), N2 (18: i major, then the symmetric pairs (j, k) of PAIRS), the leaf
# flag; a leaf row holds its triangle's corners in columns 0..8
P, R2, S, N1, N2 = 0, 3, 4, 7, 16
FLAG = 34
WIDTH = 36
PAIRS = ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))
_INV_4PI = 0.07957747154
# lanes walked at once (`lane_pool.uneven_width`): how many nodes a point opens varies
# widely. `mesh_query_point_sign_winding_number` on the 16k-triangle sphere (with its
# closest-point walk), 1,024 / 4,096 / 65,536 queries: 45 / 167 / 873 ms with 4096 lanes, 30 / 112 /
# 803 ms with 256 (Warp 8 / 29 / 420 ms; benchmarks/bench_mesh_queries.py, one core); 1,024: 21 ms with 64
_CHUNK = 8


def _expansion(row: Any, p: tuple) -> tuple[Any, Any]:
    """``(far, omega)``: whether each lane's node is far enough to use its expansion, and that
    expansion's solid angle (lanes of ``row``: internal-node rows)."""
    col = lambda k: row[:, k]  # noqa: E731
    q = tuple(p[i] - col(P + i) for i in range(3))
    r2 = tm.dot(q, q)
    inv_r2 = 1.0 / r2
    inv_r = jnp.sqrt(inv_r2)
    u = tuple(x * inv_r for x in q)
    omega0 = -inv_r2 * sum(u[i] * col(S + i) for i in range(3))
    n1 = lambda i, j: col(N1 + 3 * i + j)  # noqa: E731
    trace = n1(0, 0) + n1(1, 1) + n1(2, 2)
    quad = sum(u[i] * u[j] * n1(i, j) for i in range(3) for j in range(3))
    omega1 = inv_r2 * inv_r * (trace - 3.0 * quad)
    lin = 0.0
    cubic = 0.0
    for i in range(3):
        for pair, (j, k) in enumerate(PAIRS):
            n2 = col(N2 + 6 * i + pair) * (1.0 if j == k else 2.0)  # (j, k) and (k, j)
            kron = (u[k] if i == j else 0.0) + (u[j] if i == k else 0.0) + (u[i] if j == k else 0.0)
            lin = lin + n2 * kron
            cubic = cubic + n2 * u[i] * u[j] * u[k]
    omega2 = inv_r2 * inv_r2 * (1.5 * lin - 7.5 * cubic)
    omega = omega0 + omega1 + omega2
    far = (r2 > col(R2) * p[3]) & jnp.isfinite(omega)
    return far, omega


def _skip(node: Any) -> Any:
    """The pre-order successor of ``node``'s subtree in a heap (0 after the root's subtree)."""
    ones = lax.population_count(node ^ (node + 1)) - 1  # trailing one bits
    up = jnp.right_shift(node, ones)
    return where(up == 0, 0, up + 1)


def winding_numbers(rows: Any, point: tuple, active: Any, accuracy: Any) -> Any:
    """The generalized winding number of the mesh of ``rows`` (the table of :mod:`jwarp.runtime.geometry.winding_table`) at each lane's
    ``point`` ((x, y, z) lane arrays); ``accuracy`` (lane array) as Warp's. Inactive lanes get 0."""
    shape = active.shape
    flat = {f"p{i}": jnp.broadcast_to(x, shape).reshape(-1).astype(jnp.float32) for i, x in enumerate(point)}
    acc = jnp.broadcast_to(accuracy, shape).reshape(-1).astype(jnp.float32)
    n = flat["p0"].shape[0]
    flat["acc2"] = acc * acc
    flat["total"] = jnp.zeros((n,), jnp.float32)
    flat["node"] = jnp.ones((n,), jnp.int32)

    def running(s: dict) -> Any:
        return s["node"] > 0

    def tests(s: dict, row: Any) -> tuple:
        p = (s["p0"], s["p1"], s["p2"], s["acc2"])
        is_leaf = row[:, FLAG] != 0
        corners = [tuple(row[:, 3 * v + i] for i in range(3)) for v in range(3)]
        exact = tm.solid_angle(*corners, p[:3])
        far, omega = _expansion(row, p)
        add = where(is_leaf, exact, where(far, omega, 0.0))
        return add, is_leaf | far

    def step(s: dict, go: Any) -> dict:
        run = running(s)
        row = barrier(go, gather_rows, rows, s["node"])
        add, done = barrier(go, tests, s, row)
        node = s["node"]
        out = dict(s)
        out["total"] = where(run, s["total"] + add, s["total"])
        out["node"] = where(run, where(done, _skip(node), 2 * node), node)
        return out

    out = pooled_loop(flat, active.reshape(-1), running, step, width=uneven_width(int(active.size)), chunk=_CHUNK,
                      outputs=("total", "node"))
    total = where(active.reshape(-1), out["total"], 0.0)
    return (total * _INV_4PI).reshape(shape)


__all__ = ["FLAG", "N1", "N2", "P", "PAIRS", "R2", "S", "WIDTH", "winding_numbers"]
