"""Vector Math group, matrix algebra: ``determinant inverse inverse_approx svd3 svd2 qr3 eig3``,
plus the leaf helpers the vector builtins share (:func:`sum_products`, :func:`div_sqrt`).

Semantics follow Warp 1.19's native code (``warp/native/mat.h``, ``svd.h``):

- ``determinant``/``inverse`` exist for 2x2, 3x3 and 4x4 float matrices. A singular matrix
  (determinant exactly 0) inverts to the zero matrix. The 3x3 determinant is
  ``dot(row0, cross(row1, row2))``; inverses are the adjugate times ``1 / det``. The 4x4 forms
  use Laplace expansion with some float64 intermediates, as Warp does. ``inverse_approx`` is
  ``inverse`` (Warp's CPU backend uses the same method for both).
- ``svd3``/``eig3``/``qr3`` run the same branch-free algorithm as Warp (McAdams et al. 2011,
  "Computing the SVD of 3x3 matrices with minimal branching"): a fixed number of cyclic Jacobi
  sweeps with approximate Givens quaternions (4 sweeps, 8 for float64), columns sorted by
  decreasing norm with sign-preserving swaps (``det(V) == +1``), then a Givens QR (``det(Q) == +1``;
  ``sigma[2]`` carries the sign of ``det(A)``). So signs, ordering and the eigenvector basis agree
  with Warp's outputs, not just the reconstruction. The QR factor ``Q`` is formed from its
  expanded closed form in the three Givens half-angles, as Warp does; entries of ``R`` below the diagonal are the computed
  near-zero residues, as in Warp.
- Gradients of ``svd3``/``svd2``/``qr3``/``eig3`` are Warp's closed-form adjoints
  (:mod:`jwarp.builtins.linalg_adjoints`), not the derivative of the iterations.
- ``svd2`` is Warp's closed form: eigen-analysis of ``A^T A``, nonnegative sorted singular values,
  ``U = V = I`` when both singular values are equal.

Everything is written leaf by leaf (structure of arrays), branch-free with ``where`` and safe
denominators in untaken branches so that JAX can differentiate it without NaNs. A division by a
square root goes through :func:`div_sqrt`, which keeps XLA from rewriting it into its slow
scalarised ``rsqrt`` on CPU. The Jacobi sweeps run in a ``lax.fori_loop``: fully unrolled, a
kernel with several decompositions took minutes and gigabytes for XLA to compile.

Known difference: XLA contracts ``a * b + c`` into fused multiply-adds and Warp's CPU build does
not. On *exactly* degenerate inputs (repeated singular values or eigenvalues, e.g. the identity,
``diag(2, 2, 1)``, a permutation) the Jacobi iteration is steered by last-bit rounding, so jwarp
may return another equally valid basis than Warp (e.g. ``svd3(I)`` gives ``U == V`` = some rotation,
``sigma`` = 1 within 1e-6). Reconstructions, singular values/eigenvalues, ``det(U) = det(V) = +1``
and ``U V^T`` (where unique) agree; Warp documents these bases as unspecified.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.builtins import common as c
from jwarp.builtins.common import Call, Value
from jwarp.builtins.linalg_adjoints import eig3_adjoint, qr3_adjoint, svd_adjoint, with_adjoint
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import TupleType, leaves_of, value_from_leaves, xp
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import type_name
from jwarp.compiler.selects import where

# -- leaf helpers ------------------------------------------------------------------------------------


def sum_products(xs: Sequence[Any], ys: Sequence[Any]) -> Any:
    """``xs[0]*ys[0] + xs[1]*ys[1] + ...`` accumulated left to right (Warp's order)."""
    total = c.mul(xs[0], ys[0])
    for x, y in zip(xs[1:], ys[1:]):
        total = c.add(total, c.mul(x, y))
    return total


def div_sqrt(x: Any) -> Any:
    """``sqrt(x)`` meant as a divisor: for traced leaves the result passes through a no-op
    ``reduce_precision`` so XLA keeps ``a / sqrt(x)`` instead of its slow scalarised rsqrt."""
    if xp(x) is np:
        return np.sqrt(x)
    x = jnp.asarray(x)
    info = jnp.finfo(x.dtype)
    return lax.reduce_precision(jnp.sqrt(x), exponent_bits=info.nexp, mantissa_bits=info.nmant)


def safe_sqrt(x: Any) -> Any:
    """``sqrt(x)`` whose derivative at ``x == 0`` is 0 instead of inf (Warp's ``length`` adjoint)."""
    if xp(x) is np:
        return np.sqrt(x)
    zero = x == 0
    return where(zero, jnp.zeros_like(x), jnp.sqrt(where(zero, jnp.ones_like(x), x)))


def typed(leaf: Any, value: float) -> np.generic:
    """A constant of ``leaf``'s dtype."""
    return np.asarray(value).astype(leaf.dtype)[()]


def _rows(m: Value) -> list[list[Any]]:
    r, k = m.type._shape_
    flat = leaves_of(m)
    return [flat[i * k : (i + 1) * k] for i in range(r)]


def _float_square(v: Value, sizes: tuple[int, ...]) -> bool:
    return c.is_matrix(v) and scalars.is_float(c.scalar_type(v)) and v.type._shape_ in [(n, n) for n in sizes]


# -- determinant and inverse ---------------------------------------------------------------------


def _det2(m: list[list[Any]]) -> Any:
    return c.sub(c.mul(m[0][0], m[1][1]), c.mul(m[1][0], m[0][1]))


def _det3(m: list[list[Any]]) -> Any:
    (a, b, d), (e, f, g), (h, i, j) = m
    cross = [c.sub(c.mul(f, j), c.mul(g, i)), c.sub(c.mul(g, h), c.mul(e, j)), c.sub(c.mul(e, i), c.mul(f, h))]
    return sum_products([a, b, d], cross)


def _f64(x: Any) -> Any:
    return x.astype(np.float64)


def _laplace4(m: list[list[Any]]) -> tuple[Any, dict[tuple[int, int], Any]]:
    """Determinant and cofactors ``z[r, col]`` of a 4x4 matrix by Laplace expansion over 2x2 minors.

    As in Warp, 2x2 minors are formed in the matrix's precision and widened to float64; cofactors
    of columns 0 and 1 are rounded back to the matrix's precision, those of columns 2 and 3 stay
    float64; the determinant sums ``m[r][0] * z[r, 0]`` in the matrix's precision."""
    t = m[0][0].dtype

    def minors(p: int, q: int) -> dict[tuple[int, int], Any]:
        return {
            (i, j): _f64(c.sub(c.mul(m[i][p], m[j][q]), c.mul(m[j][p], m[i][q])))
            for i in range(4)
            for j in range(i + 1, 4)
        }

    last, first = minors(2, 3), minors(0, 1)
    pair = {0: last, 1: last, 2: first, 3: first}  # the two columns kept as 2x2 minors
    single = {0: 1, 1: 0, 2: 3, 3: 2}  # the column the 3x3 minor is expanded along

    def cofactor(r: int, col: int) -> Any:
        rows = [k for k in range(4) if k != r]
        total = None
        for k, rk in enumerate(rows):
            term = c.mul(_f64(m[rk][single[col]]), pair[col][tuple(q for q in rows if q != rk)])
            positive = (r + col + k) % 2 == 0  # signs on the terms, so exact cancellation gives +0
            if total is None:
                total = term if positive else c.neg(term)
            else:
                total = c.add(total, term) if positive else c.sub(total, term)
        return total

    z = {(r, col): cofactor(r, col) for r in range(4) for col in range(4)}
    z = {key: value.astype(t) if key[1] < 2 else value for key, value in z.items()}
    det = sum_products([m[3][0], m[2][0], m[1][0], m[0][0]], [z[3, 0], z[2, 0], z[1, 0], z[0, 0]])
    return det, z


def _nonzero_guard(det: Any, nonzero: Any) -> Any:
    one = typed(det, 1)
    return c.where(nonzero, det, one)


def _inverse(call: Call, a: Value) -> Value:
    m = _rows(a)
    n = a.type._shape_[0]
    t = c.scalar_type(a)
    zero = c.constant(t, 0)
    if n == 2:
        det = _det2(m)
        ok = xp(det).abs(det) > 0  # NaN -> singular, as Warp's ``det > 0 || det < 0``
        rcp = c.fdiv(typed(det, 1), _nonzero_guard(det, ok))
        adj = [m[1][1], c.neg(m[0][1]), c.neg(m[1][0]), m[0][0]]
        out = [c.where(ok, c.mul(x, rcp), zero) for x in adj]
    elif n == 3:
        det = _det3(m)
        ok = det != 0
        rcp = c.fdiv(typed(det, 1), _nonzero_guard(det, ok))
        adj = [[None] * 3 for _ in range(3)]
        for i in range(3):
            for j in range(3):
                # adjugate: transpose of the cofactor matrix
                r0, r1 = [r for r in range(3) if r != j]
                k0, k1 = [k for k in range(3) if k != i]
                if (i + j) % 2:  # sign by operand order, so an exact zero stays +0
                    k0, k1 = k1, k0
                adj[i][j] = c.sub(c.mul(m[r0][k0], m[r1][k1]), c.mul(m[r0][k1], m[r1][k0]))
        out = [c.where(ok, c.mul(adj[i][j], rcp), zero) for i in range(3) for j in range(3)]
    else:
        det, z = _laplace4(m)
        det64 = _f64(det)
        ok = xp(det64).abs(det64) > 0
        rcp = c.fdiv(np.float64(1.0), c.where(ok, det64, np.float64(1.0)))
        out = [c.where(ok, c.mul(_f64(z[j, i]), rcp).astype(t._np_dtype), zero) for i in range(4) for j in range(4)]
    return value_from_leaves(a.type, out)


@builtin("determinant", group="Vector Math")
def determinant(call: Call, a: Value) -> Value:
    """Determinant of a 2x2, 3x3 or 4x4 float matrix."""
    c.require(_float_square(a, (2, 3, 4)), call, a)
    m = _rows(a)
    n = a.type._shape_[0]
    det = _det2(m) if n == 2 else _det3(m) if n == 3 else _laplace4(m)[0]
    return Value(c.scalar_type(a), det)


@builtin("inverse", group="Vector Math")
def inverse(call: Call, a: Value) -> Value:
    """Inverse of a 2x2, 3x3 or 4x4 float matrix; a singular matrix gives the zero matrix."""
    c.require(_float_square(a, (2, 3, 4)), call, a)
    return _inverse(call, a)


@builtin("inverse_approx", group="Vector Math")
def inverse_approx(call: Call, a: Value) -> Value:
    """Approximate inverse; the same computation as ``inverse`` (as on Warp's CPU backend)."""
    c.require(_float_square(a, (2, 3, 4)), call, a)
    return _inverse(call, a)


# -- 3x3 decompositions (McAdams et al. 2011) ---------------------------------------------------------

_FOUR_GAMMA_SQUARED = 5.82842712474619  # 3 + 2 * sqrt(2)
_COS_PI_8 = 0.9238795325112867
_SIN_PI_8 = 0.3826834323650898
_SQRT_HALF = 0.7071067811865476  # Python floats stay in the matrix's precision inside jnp expressions


def _jnp_leaves(v: Value) -> list:
    return [jnp.asarray(x) for x in leaves_of(v)]


def _sweeps(dtype: Any) -> int:
    return 8 if np.dtype(dtype) == np.float64 else 4


def _givens_eps(dtype: Any) -> float:
    return 1e-12 if np.dtype(dtype) == np.float64 else 1e-6


def _rsqrt(x: Any) -> Any:
    return 1.0 / div_sqrt(x)


def _approx_givens(a11: Any, a12: Any, a22: Any) -> tuple[Any, Any]:
    """Half-angle cosine/sine of a rotation that approximately annihilates ``a12`` of the
    symmetric 2x2 block; falls back to the pi/8 rotation where the angle estimate is unreliable."""
    ch = 2.0 * (a11 - a22)
    sh = a12
    accurate = _FOUR_GAMMA_SQUARED * sh * sh < ch * ch
    w = _rsqrt(where(accurate, ch * ch + sh * sh, 1.0))
    return where(accurate, w * ch, _COS_PI_8), where(accurate, w * sh, _SIN_PI_8)


def _conjugate(s: list, q: list, axes: tuple[int, int, int]) -> tuple[list, list]:
    """One Jacobi step on the (0, 1) block of the symmetric ``s = [s11, s21, s22, s31, s32, s33]``;
    ``q`` (x, y, z, w) accumulates the rotation about axis ``axes[2]``. The block is then cycled so
    the next step works on the next pair."""
    s11, s21, s22, s31, s32, s33 = s
    ch, sh = _approx_givens(s11, s21, s22)
    scale = ch * ch + sh * sh
    a = (ch * ch - sh * sh) / scale
    b = (2.0 * sh * ch) / scale
    n11 = a * (a * s11 + b * s21) + b * (a * s21 + b * s22)
    n21 = a * (-b * s11 + a * s21) + b * (-b * s21 + a * s22)
    n22 = -b * (-b * s11 + a * s21) + a * (-b * s21 + a * s22)
    n31 = a * s31 + b * s32
    n32 = -b * s31 + a * s32
    # q <- q * (sh along axis z, ch)
    x, y, z = axes
    v = [q[0] * sh, q[1] * sh, q[2] * sh]
    shw = sh * q[3]
    nq = [q[0] * ch, q[1] * ch, q[2] * ch, q[3] * ch]
    nq[z] = nq[z] + shw
    nq[3] = nq[3] - v[z]
    nq[x] = nq[x] + v[y]
    nq[y] = nq[y] - v[x]
    return [n22, n32, s33, n21, n31, n11], nq


def _jacobi(s: list, sweeps: int) -> list:
    """Quaternion (x, y, z, w) of the rotation that (approximately) diagonalises ``s``."""
    s = list(jnp.broadcast_arrays(*s))
    zero = jnp.zeros_like(s[0])
    q = [zero, zero, zero, zero + 1.0]

    def sweep(_: Any, state: tuple) -> tuple:
        s, q = list(state[0]), list(state[1])
        s, q = _conjugate(s, q, (0, 1, 2))
        s, q = _conjugate(s, q, (1, 2, 0))
        s, q = _conjugate(s, q, (2, 0, 1))
        return tuple(s), tuple(q)

    # a loop, not an unrolled chain: XLA's fusion of the fully unrolled sweeps grows super-linearly
    # (several svd3/eig3 calls in one kernel took minutes and GBs to compile)
    _, q = lax.fori_loop(0, sweeps, sweep, (tuple(s), tuple(q)))
    return list(q)


def _quat_to_mat(q: list) -> list:
    x, y, z, w = q
    xx, yy, zz, xz, xy, yz, wx, wy, wz = x * x, y * y, z * z, x * z, x * y, y * z, w * x, w * y, w * z
    return [
        1.0 - 2.0 * (yy + zz), 2.0 * (xy - wz), 2.0 * (xz + wy),
        2.0 * (xy + wz), 1.0 - 2.0 * (xx + zz), 2.0 * (yz - wx),
        2.0 * (xz - wy), 2.0 * (yz + wx), 1.0 - 2.0 * (xx + yy),
    ]  # fmt: skip


def _matmul3(a: list, b: list, transpose_a: bool = False) -> list:
    """3x3 product (``a^T b`` with ``transpose_a``), each entry summed left to right."""

    def at(i: int, k: int) -> Any:
        return a[k * 3 + i] if transpose_a else a[i * 3 + k]

    return [at(i, 0) * b[j] + at(i, 1) * b[3 + j] + at(i, 2) * b[6 + j] for i in range(3) for j in range(3)]


def _qr_givens(a1: Any, a2: Any, eps: float) -> tuple[Any, Any]:
    """Half-angle cosine/sine of the Givens rotation that zeroes ``a2`` against pivot ``a1``."""
    rho = safe_sqrt(a1 * a1 + a2 * a2)
    sh = where(rho > eps, a2, 0.0)
    ch = jnp.abs(a1) + jnp.maximum(rho, eps)
    neg = a1 < 0
    ch, sh = where(neg, sh, ch), where(neg, ch, sh)
    w = _rsqrt(ch * ch + sh * sh)
    return ch * w, sh * w


def _qr3(b: list, eps: float) -> tuple[list, list]:
    """Givens QR of a 3x3 matrix: rows (0,1), then (0,2), then (1,2). Returns (Q, R)."""
    halves = []
    r = list(b)
    for p, k in ((0, 1), (0, 2), (1, 2)):
        ch, sh = _qr_givens(r[p * 3 + p], r[k * 3 + p], eps)
        halves.append((ch, sh))
        cs = 1.0 - 2.0 * sh * sh
        sn = 2.0 * ch * sh
        new = list(r)
        for j in range(3):
            new[p * 3 + j] = cs * r[p * 3 + j] + sn * r[k * 3 + j]
            new[k * 3 + j] = -sn * r[p * 3 + j] + cs * r[k * 3 + j]
        r = new
    return _qr_rotation(halves), r


def _qr_rotation(halves: list) -> list:
    """``Q = G01 G02 G12`` from the three Givens half-angles, expanded entry by entry in the
    half-angle cosines/sines (the form Warp evaluates: in float16 the rounding of each entry
    then matches Warp's, where the product of the rounded rotations drifts from orthogonal)."""
    (c1, s1), (c2, s2), (c3, s3) = halves
    m1, m2, m3 = 2.0 * (s1 * s1) - 1.0, 2.0 * (s2 * s2) - 1.0, 2.0 * (s3 * s3) - 1.0  # -cos of each angle
    return [
        m1 * m2,
        4.0 * c2 * c3 * m1 * s2 * s3 + 2.0 * c1 * s1 * m3,
        4.0 * c1 * c3 * s1 * s3 - 2.0 * c2 * m1 * s2 * m3,
        -2.0 * c1 * s1 * m2,
        -8.0 * c1 * c2 * c3 * s1 * s2 * s3 + m1 * m3,
        -2.0 * c3 * s3 + 4.0 * s1 * (c3 * s1 * s3 + c1 * c2 * s2 * m3),
        2.0 * c2 * s2,
        -2.0 * c3 * m2 * s3,
        m2 * m3,
    ]


def _sort_columns(b: list, v: list) -> tuple[list, list]:
    """Order the columns of ``b`` (and ``v``) by decreasing norm; each swap negates one column so
    ``det(v)`` stays +1."""
    rho = [b[j] * b[j] + b[3 + j] * b[3 + j] + b[6 + j] * b[6 + j] for j in range(3)]
    b, v = list(b), list(v)
    for i, j, swap_rho in ((0, 1, True), (0, 2, True), (1, 2, False)):
        swap = rho[i] < rho[j]
        for m in (b, v):
            for row in range(3):
                x, y = m[row * 3 + i], m[row * 3 + j]
                m[row * 3 + i] = where(swap, y, x)
                m[row * 3 + j] = where(swap, -x, y)
        if swap_rho:
            rho[i], rho[j] = where(swap, rho[j], rho[i]), where(swap, rho[i], rho[j])
    return b, v


def _out_args(call: Call, args: tuple[Value, ...], types: tuple[type, ...], inputs: tuple[Value, ...]) -> bool:
    """Validate the caller-provided output arguments of the in-out overloads."""
    if not args:
        return False
    if len(args) != len(types) or any(a.type is not t for a, t in zip(args, types)):
        raise call.no_overload(*inputs, *args)
    if not call.in_kernel:
        raise RuntimeError(f"wp.{call.name}() with output arguments can only be called inside a kernel")
    return True


def _result(call: Call, values: list[Value], outs: tuple[Value, ...], first_out: int) -> Value | None:
    if outs:
        for k, v in enumerate(values):
            call.assign_back(first_out + k, v)
        return None
    return Value(TupleType(tuple(v.type for v in values)), tuple(values))


def _mat3_input(call: Call, a: Value, outs: tuple[Value, ...]) -> None:
    if not _float_square(a, (3,)):
        raise call.no_overload(a, *outs)


@builtin("svd3", group="Vector Math")
def svd3(call: Call, A: Value, *outs: Value) -> Value | None:
    """``U, sigma, V = svd3(A)`` (or ``svd3(A, U, sigma, V)``): ``A = U diag(sigma) V^T`` with
    ``det(U) = det(V) = +1`` and sigma sorted by decreasing magnitude."""
    _mat3_input(call, A, outs)
    mt, vt = A.type, composites.vector(3, c.scalar_type(A))
    _out_args(call, outs, (mt, vt, mt), (A,))
    out = with_adjoint(_svd3_leaves, svd_adjoint, list(leaves_of(A)))
    values = [value_from_leaves(mt, out[:9]), value_from_leaves(vt, out[9:12]), value_from_leaves(mt, out[12:])]
    return _result(call, values, outs, 1)


def _svd3_leaves(a: list) -> list:
    a = [jnp.asarray(x) for x in a]
    dt = a[0].dtype
    ata = _matmul3(a, a, transpose_a=True)
    q = _jacobi([ata[0], ata[3], ata[4], ata[6], ata[7], ata[8]], _sweeps(dt))
    v = _quat_to_mat(q)
    b, v = _sort_columns(_matmul3(a, v), v)
    u, r = _qr3(b, _givens_eps(dt))
    return [*u, r[0], r[4], r[8], *v]


@builtin("qr3", group="Vector Math")
def qr3(call: Call, A: Value, *outs: Value) -> Value | None:
    """``Q, R = qr3(A)`` (or ``qr3(A, Q, R)``): ``A = Q R``, ``det(Q) = +1``, ``R`` upper triangular."""
    _mat3_input(call, A, outs)
    _out_args(call, outs, (A.type, A.type), (A,))
    out = with_adjoint(_qr3_leaves, qr3_adjoint, list(leaves_of(A)))
    return _result(call, [value_from_leaves(A.type, out[:9]), value_from_leaves(A.type, out[9:])], outs, 1)


def _qr3_leaves(a: list) -> list:
    a = [jnp.asarray(x) for x in a]
    q, r = _qr3(a, _givens_eps(a[0].dtype))
    return [*q, *r]


@builtin("eig3", group="Vector Math")
def eig3(call: Call, A: Value, *outs: Value) -> Value | None:
    """``Q, d = eig3(A)`` (or ``eig3(A, Q, d)``) for a symmetric 3x3 ``A`` (its lower triangle is
    read): ``A = Q diag(d) Q^T`` with ``Q`` a right-handed orthonormal basis."""
    _mat3_input(call, A, outs)
    vt = composites.vector(3, c.scalar_type(A))
    _out_args(call, outs, (A.type, vt), (A,))
    out = with_adjoint(_eig3_leaves, eig3_adjoint, list(leaves_of(A)))
    return _result(call, [value_from_leaves(A.type, out[:9]), value_from_leaves(vt, out[9:])], outs, 1)


def _eig3_leaves(a: list) -> list:
    a = [jnp.asarray(x) for x in a]
    q = _quat_to_mat(_jacobi([a[0], a[3], a[4], a[6], a[7], a[8]], _sweeps(a[0].dtype)))
    t = _matmul3(q, a, transpose_a=True)
    d = [t[i * 3] * q[i] + t[i * 3 + 1] * q[3 + i] + t[i * 3 + 2] * q[6 + i] for i in range(3)]
    return [*q, *d]


@builtin("svd2", group="Vector Math")
def svd2(call: Call, A: Value, *outs: Value) -> Value | None:
    """``U, sigma, V = svd2(A)`` (or ``svd2(A, U, sigma, V)``) of a 2x2 float matrix; singular
    values are nonnegative and sorted, ``U = V = I`` when they are equal."""
    if not _float_square(A, (2,)):
        raise call.no_overload(A, *outs)
    mt, vt = A.type, composites.vector(2, c.scalar_type(A))
    _out_args(call, outs, (mt, vt, mt), (A,))
    out = with_adjoint(_svd2_leaves, svd_adjoint, list(leaves_of(A)))
    values = [value_from_leaves(mt, out[:4]), value_from_leaves(vt, out[4:6]), value_from_leaves(mt, out[6:])]
    return _result(call, values, outs, 1)


def _svd2_leaves(a: list) -> list:
    a11, a12, a21, a22 = (jnp.asarray(x) for x in a)
    ata11 = a11 * a11 + a21 * a21
    ata12 = a11 * a12 + a21 * a22
    ata22 = a12 * a12 + a22 * a22
    trace = ata11 + ata22
    diff = ata11 - ata22
    disc = diff * diff + 4.0 * ata12 * ata12
    equal = disc == 0
    root = jnp.sqrt(where(equal, 1.0, disc))
    lam1 = (trace + root) * 0.5
    lam2 = (trace - root) * 0.5
    inv_s1 = _rsqrt(lam1)
    s1 = 1.0 / inv_s1
    s2 = jnp.sqrt(where(equal, 0.0, lam2))
    vy = diff - root + 2.0 * ata12
    vx = diff + root - 2.0 * ata12
    len_sq = vx * vx + vy * vy
    degenerate = len_sq == 0
    inv_len = _rsqrt(where(degenerate, 1.0, len_sq))
    v11 = where(degenerate, _SQRT_HALF, vx * inv_len)
    v21 = where(degenerate, _SQRT_HALF, vy * inv_len)
    u11 = (a11 * v11 + a12 * v21) * inv_s1
    u21 = (a21 * v11 + a22 * v21) * inv_s1
    sign = where(a11 * a22 - a12 * a21 < 0, -1.0, 1.0).astype(a11.dtype)
    s_eq = jnp.sqrt(0.5 * trace)
    one, zero = jnp.ones_like(a11), jnp.zeros_like(a11)

    def pick(general: Any, same: Any) -> Any:
        return where(equal, same, general)

    u = [pick(u11, one), pick(-u21 * sign, zero), pick(u21, zero), pick(u11 * sign, one)]
    v = [pick(v11, one), pick(-v21, zero), pick(v21, zero), pick(v11, one)]
    return [*u, pick(s1, s_eq), pick(s2, s_eq), *v]


__all__ = ["div_sqrt", "safe_sqrt", "sum_products", "type_name", "typed"]
