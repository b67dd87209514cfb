"""Warp's hand-written adjoints of the matrix decompositions ``svd3 svd2 qr3 eig3``.

Warp does not differentiate its Jacobi/Givens iterations: each decomposition has a closed-form
adjoint (``warp/native/svd.h``), and so has jwarp — differentiating the iteration itself gives
other values wherever the factors are not unique (repeated eigenvalues), and reads only the
lower triangle of ``eig3``'s input where Warp's adjoint spreads over the whole matrix.

:func:`with_adjoint` runs a decomposition forward on leaves and routes its gradient through a
``jax.custom_vjp`` whose backward is one of the ``*_adjoint`` functions here. Matrices are
row-major lists of leaves (``m[i * n + j]``)::

    outs = with_adjoint(lambda a: eig3_forward(a), eig3_adjoint, a_leaves)

The formulas, as in Warp:

- ``eig3`` (Giles 2008): ``adj_A = Q (diag(adj_d) + F * (Q^T adj_Q)) Q^T`` with
  ``F[i][j] = 1 / (d[j] - d[i])``, gaps closer to 0 than 1e-6 (but not exactly 0) widened to
  +-1e-6; where ``adj_Q`` is all zero only the eigenvalue term is used (finite at repeated
  eigenvalues).
- ``svd3``/``svd2``: the PyTorch formula with ``F[i][j] = 1 / min(s_j^2 - s_i^2, -eps)`` above the
  diagonal (``-F`` below), ``eps`` = 1e-6 (1e-12 for float64).
- ``qr3`` (arXiv 2009.10071, eq. 3): ``M = R adj_R^T - adj_Q^T Q``,
  ``adj_A = (adj_Q + Q copyltu(M)) R^-T``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jwarp.compiler.values import is_const
from jwarp.compiler.selects import where

Leaves = list  # row-major n x n matrix (or vector) as a list of jnp leaves


def with_adjoint(forward: Callable[[Leaves], Leaves], backward: Callable[[Leaves, Leaves, Leaves], Leaves],
                 inputs: Sequence[Any]) -> Leaves:
    """``forward(inputs)`` whose derivative is ``backward(inputs, outputs, output_adjoints) ->
    input_adjoints`` instead of JAX's derivative of ``forward``. Constant inputs run plainly."""
    if all(is_const(x) for x in inputs):
        return forward(list(inputs))
    arrays = [jnp.asarray(x) for x in inputs]
    shape = jnp.broadcast_shapes(*(x.shape for x in arrays))
    ins = tuple(jnp.broadcast_to(x, shape) for x in arrays)

    @jax.custom_vjp
    def decompose(ins: tuple) -> tuple:
        return tuple(jnp.broadcast_to(jnp.asarray(o), shape) for o in forward(list(ins)))

    def fwd(ins: tuple) -> tuple:
        outs = decompose(ins)
        return outs, (ins, outs)

    def bwd(res: tuple, cts: tuple) -> tuple:
        ins, outs = res
        adj = backward(list(ins), list(outs), list(cts))
        return (tuple(jnp.broadcast_to(a, x.shape).astype(x.dtype) for a, x in zip(adj, ins)),)

    decompose.defvjp(fwd, bwd)
    return list(decompose(ins))


# -- small dense helpers on row-major leaf lists ---------------------------------------------------------


def _n(m: Leaves) -> int:
    return int(round(len(m) ** 0.5))


def _mul(a: Leaves, b: Leaves) -> Leaves:
    n = _n(a)
    out = []
    for i in range(n):
        for j in range(n):
            total = a[i * n] * b[j]
            for k in range(1, n):
                total = total + a[i * n + k] * b[k * n + j]
            out.append(total)
    return out


def _t(a: Leaves) -> Leaves:
    n = _n(a)
    return [a[j * n + i] for i in range(n) for j in range(n)]


def _add(a: Leaves, b: Leaves) -> Leaves:
    return [x + y for x, y in zip(a, b)]


def _sub(a: Leaves, b: Leaves) -> Leaves:
    return [x - y for x, y in zip(a, b)]


def _cw(a: Leaves, b: Leaves) -> Leaves:
    return [x * y for x, y in zip(a, b)]


def _diag(d: Leaves) -> Leaves:
    n = len(d)
    zero = jnp.zeros_like(d[0])
    return [d[i] if i == j else zero for i in range(n) for j in range(n)]


def _skew_factors(f: Leaves) -> Leaves:
    """``F`` with ``f = [F01, F02, F12]`` (3x3) or ``[F01]`` (2x2) above the diagonal, negated below."""
    zero = jnp.zeros_like(f[0])
    if len(f) == 1:
        return [zero, f[0], -f[0], zero]
    f01, f02, f12 = f
    return [zero, f01, f02, -f01, zero, f12, -f02, -f12, zero]


def _svd_epsilon(dtype: Any) -> float:
    return 1e-12 if np.dtype(dtype) == np.float64 else 1e-6


# -- adjoints ----------------------------------------------------------------------------------------------


def eig3_adjoint(a: Leaves, outs: Leaves, cts: Leaves) -> Leaves:
    """Warp's ``adj_eig3`` for ``outs = Q (9 leaves) + d (3)``, ``cts`` likewise."""
    q, d = outs[:9], outs[9:]
    adj_q, adj_d = cts[:9], cts[9:]
    dtype = q[0].dtype
    qt = _t(q)
    values_only = _mul(q, _mul(_diag(adj_d), qt))
    tiny = jnp.asarray(1e-6, dtype)

    def widened(gap: Any) -> Any:
        gap = where((gap < 0) & (gap > -tiny), -tiny, gap)
        return where((gap > 0) & (gap < tiny), tiny, gap)

    one = jnp.asarray(1, dtype)
    f = _skew_factors([one / widened(d[1] - d[0]), one / widened(d[2] - d[0]), one / widened(d[2] - d[1])])
    full = _mul(q, _mul(_add(_diag(adj_d), _cw(f, _mul(qt, adj_q))), qt))
    no_vectors = jnp.all(jnp.stack([x == 0 for x in adj_q]), axis=0)
    return [where(no_vectors, v, g) for v, g in zip(values_only, full)]


def svd_adjoint(a: Leaves, outs: Leaves, cts: Leaves) -> Leaves:
    """Warp's ``adj_svd3``/``adj_svd2`` for ``outs = U + sigma + V``, ``cts`` likewise."""
    n = _n(a)
    nn = n * n
    u, s, v = outs[:nn], outs[nn:nn + n], outs[nn + n:]
    adj_u, adj_s, adj_v = cts[:nn], cts[nn:nn + n], cts[nn + n:]
    dtype = u[0].dtype
    eps = jnp.asarray(-_svd_epsilon(dtype), dtype)
    one = jnp.asarray(1, dtype)
    sq = [x * x for x in s]
    pairs = [(0, 1)] if n == 2 else [(0, 1), (0, 2), (1, 2)]
    f = _skew_factors([one / jnp.minimum(sq[j] - sq[i], eps) for i, j in pairs])
    ut, vt = _t(u), _t(v)
    s_mat = _diag(s)
    sigma_term = _mul(u, _mul(_diag(adj_s), vt))
    skew_u = _cw(f, _sub(_mul(ut, adj_u), _mul(_t(adj_u), u)))
    u_term = _mul(_mul(u, _mul(skew_u, s_mat)), vt)
    skew_v = _cw(f, _sub(_mul(vt, adj_v), _mul(_t(adj_v), v)))
    v_term = _mul(u, _mul(s_mat, _mul(skew_v, vt)))
    return _add(_add(u_term, v_term), sigma_term)


def _inverse3(m: Leaves) -> Leaves:
    """Adjugate / determinant (Warp's 3x3 ``inverse``: a singular matrix inverts to zero)."""
    a, b, c, d, e, f, g, h, i = m
    cof = [e * i - f * h, c * h - b * i, b * f - c * e,
           f * g - d * i, a * i - c * g, c * d - a * f,
           d * h - e * g, b * g - a * h, a * e - b * d]  # fmt: skip
    det = a * cof[0] + b * cof[3] + c * cof[6]
    singular = det == 0
    inv_det = where(singular, 0, 1 / where(singular, 1, det)).astype(det.dtype)
    return [x * inv_det for x in cof]


def qr3_adjoint(a: Leaves, outs: Leaves, cts: Leaves) -> Leaves:
    """Warp's ``adj_qr3`` for ``outs = Q + R``, ``cts`` likewise."""
    q, r = outs[:9], outs[9:]
    adj_q, adj_r = cts[:9], cts[9:]
    m = _sub(_mul(r, _t(adj_r)), _mul(_t(adj_q), q))
    lower_to_upper = [m[0], m[3], m[6], m[3], m[4], m[7], m[6], m[7], m[8]]
    return _mul(_add(adj_q, _mul(q, lower_to_upper)), _inverse3(_t(r)))


__all__ = ["eig3_adjoint", "qr3_adjoint", "svd_adjoint", "with_adjoint"]
