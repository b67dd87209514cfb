"""Geometry builtins that need no acceleration structure: ``closest_point_edge_edge`` and
``intersect_tri_tri``.

Every branch of the classic algorithms is evaluated for every lane and the lane's branch is picked
with ``where`` (no Python control flow on traced values), so the builtins vectorise over a launch.

Semantics follow Warp 1.19:

- ``closest_point_edge_edge(p1, q1, p2, q2, epsilon) -> vec3(s, t, dist)`` (float32 only): the
  closest points ``p1 + s (q1 - p1)`` and ``p2 + t (q2 - p2)`` of two segments (Ericson,
  *Real-Time Collision Detection* 5.1.9). An edge whose squared length is ``<= epsilon`` is a point
  and gets weight 0; parallel edges take ``s = 0`` and let ``t`` correct. ``a e - b^2`` and
  ``b f - c e`` are evaluated with an error-free product so near-parallel edges keep their
  accuracy. Gradients follow Warp's adjoint: the chain rule through the active branch, except that
  near-parallel edges (``a e - b^2 <= 1e-6 a e``) treat ``s`` as a constant.
- ``intersect_tri_tri(v0, v1, v2, u0, u1, u2) -> int`` (``vec3`` or ``vec3d``): Möller's
  interval-overlap test with its ``1e-6`` coplanarity snap; coplanar triangles are tested in the
  plane that maximises their projected area. Not differentiable.

Example:
    >>> import jwarp as wp
    >>> @wp.kernel
    ... def k(out: wp.array(dtype=wp.vec3)):
    ...     out[0] = wp.closest_point_edge_edge(wp.vec3(0.0, 0.0, 0.0), wp.vec3(1.0, 0.0, 0.0),
    ...                                         wp.vec3(0.5, 1.0, 1.0), wp.vec3(0.5, 1.0, -1.0), 1.0e-6)
    >>> out = wp.zeros(1, dtype=wp.vec3)
    >>> wp.launch(k, dim=1, inputs=[out])
    >>> [round(float(x), 3) for x in out.numpy()[0]]
    [0.5, 0.5, 1.0]
"""

from __future__ import annotations

from typing import Any, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from jwarp.builtins.common import Call, Value
from jwarp.builtins.linalg import safe_sqrt, sum_products
from jwarp.builtins.quaternion import cross3, float_scalar_of
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import leaves_of, value_from_leaves
from jwarp.lang import scalars
from jwarp.compiler.selects import where

Leaves = list

# the relative tolerance on sin^2 of the angle between two edges below which Warp's adjoint
# treats ``s`` as a constant (the forward result is unaffected)
PARALLEL_GRADIENT_TOLERANCE = 1.0e-6
# Möller's snap: a signed plane distance whose magnitude is below this counts as 0
COPLANAR_EPSILON = 1.0e-6


def _lanes(v: Value, dtype: Any) -> Leaves:
    return [jnp.asarray(x, dtype) for x in leaves_of(v)]


def _sub(a: Sequence, b: Sequence) -> Leaves:
    return [x - y for x, y in zip(a, b)]


def _dot(a: Sequence, b: Sequence) -> Any:
    return sum_products(list(a), list(b))


def _clamp01(x: Any) -> Any:
    """``clamp(x, 0, 1)`` whose derivative reaches ``x`` on the closed interval (Warp's adj_clamp)."""
    zero, one = jnp.zeros_like(x), jnp.ones_like(x)
    return where(x < zero, zero, where(x > one, one, x))


def _safe(den: Any, usable: Any) -> Any:
    """``den`` where it is used, 1 elsewhere (inactive lanes must not make inf/NaN derivatives)."""
    return where(usable, den, jnp.ones_like(den))


def _two_product(a: Any, b: Any) -> tuple[Any, Any]:
    """``a * b == p + err`` exactly (Dekker's product with Veltkamp's split, no FMA needed)."""
    bits = jnp.finfo(a.dtype).nmant + 1
    splitter = jnp.asarray(2.0 ** ((bits + 1) // 2) + 1.0, a.dtype)

    def split(x: Any) -> tuple[Any, Any]:
        t = splitter * x
        hi = t - (t - x)
        return hi, x - hi

    p = a * b
    ah, al = split(a)
    bh, bl = split(b)
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, err


def _diff_product(a: Any, b: Any, c_: Any, d: Any) -> Any:
    """``a b - c d`` without cancellation error; its derivative is that of the plain expression."""
    plain = a * b - c_ * d
    p1, e1 = jax.lax.stop_gradient(_two_product(a, b))
    p2, e2 = jax.lax.stop_gradient(_two_product(c_, d))
    accurate = (p1 - p2) + (e1 - e2)
    return plain + jax.lax.stop_gradient(accurate - plain)


# -- closest points of two edges ----------------------------------------------------------------------


def edge_edge_parameters(p1: Leaves, q1: Leaves, p2: Leaves, q2: Leaves, epsilon: Any) -> tuple[Any, Any]:
    """The weights ``(s, t)`` of the closest points of segments ``[p1, q1]`` and ``[p2, q2]``."""
    d1, d2, r = _sub(q1, p1), _sub(q2, p2), _sub(p1, p2)
    a, e, f = _dot(d1, d1), _dot(d2, d2), _dot(d2, r)
    c_, b = _dot(d1, r), _dot(d1, d2)
    zero, one = jnp.zeros_like(a), jnp.ones_like(a)
    point1, point2 = a <= epsilon, e <= epsilon
    a_ok, e_ok = _safe(a, ~point1), _safe(e, ~point2)

    denom = _diff_product(a, e, b, b)
    positive = denom > zero
    stable = positive & (denom > PARALLEL_GRADIENT_TOLERANCE * a * e)
    s_free = where(positive, _clamp01(_diff_product(b, f, c_, e) / _safe(denom, positive)), zero)
    s_init = where(stable, s_free, jax.lax.stop_gradient(s_free))
    t_init = (b * s_init + f) / e_ok
    s_at_t0 = _clamp01(-c_ / a_ok)  # also the answer when edge 2 is a point
    s_at_t1 = _clamp01((b - c_) / a_ok)

    s_general = where(t_init < zero, s_at_t0, where(t_init > one, s_at_t1, s_init))
    t_general = where(t_init < zero, zero, where(t_init > one, one, t_init))

    s = where(point1, zero, where(point2, s_at_t0, s_general))
    t = where(point1, where(point2, zero, _clamp01(f / e_ok)), where(point2, zero, t_general))
    return s, t


@builtin("closest_point_edge_edge", group="Geometry")
def closest_point_edge_edge(call: Call, p1: Value, q1: Value, p2: Value, q2: Value, epsilon: Value) -> Value:
    """``vec3(s, t, dist)``: the closest points ``p1 + s (q1 - p1)`` and ``p2 + t (q2 - p2)`` of two
    segments and their distance; an edge with squared length ``<= epsilon`` counts as a point."""
    t = float_scalar_of(call, p1, q1, p2, q2, epsilon, kinds=("vec3",) * 4 + ("scalar",))
    if t is not scalars.float32:
        raise call.no_overload(p1, q1, p2, q2, epsilon)
    dtype = np.dtype(np.float32)
    pts = [_lanes(v, dtype) for v in (p1, q1, p2, q2)]
    eps = jax.lax.stop_gradient(jnp.asarray(epsilon.data, dtype))
    s, w = edge_edge_parameters(*pts, eps)
    a1, b1, a2, b2 = pts
    on1 = [x + s * (y - x) for x, y in zip(a1, b1)]
    on2 = [x + w * (y - x) for x, y in zip(a2, b2)]
    gap = _sub(on2, on1)
    dist = safe_sqrt(_dot(gap, gap))
    s, w, dist = jnp.broadcast_arrays(s, w, dist)
    return value_from_leaves(p1.type, [s, w, dist])


# -- triangle / triangle intersection -----------------------------------------------------------------


def _snap(d: Any) -> Any:
    """Möller's coplanarity snap ``|d| < 1e-6 -> 0``, the bound compared in double precision."""
    # |d| < 1e-6 (double) <=> |d| <= the largest value of d's type below 1e-6
    lim = np.asarray(COPLANAR_EPSILON, d.dtype)
    if float(lim) >= COPLANAR_EPSILON:
        lim = np.nextafter(lim, np.asarray(0, d.dtype))
    return where(jnp.abs(d) <= lim, jnp.zeros_like(d), d)


def _plane_distances(tri: Sequence[Leaves], others: Sequence[Leaves]) -> tuple[Leaves, Leaves]:
    """The plane normal of ``tri`` and the snapped signed distances of ``others`` to its plane."""
    n = cross3(_sub(tri[1], tri[0]), _sub(tri[2], tri[0]))
    d = -_dot(n, tri[0])
    return n, [_snap(_dot(n, p) + d) for p in others]


def _select(conds: Sequence[Any], options: Sequence[Sequence[Any]]) -> list[Any]:
    """The first option whose condition holds (the last option is the default), per lane."""
    out = list(options[-1])
    for cond, option in zip(reversed(conds), reversed(options[:-1])):
        out = [where(cond, x, y) for x, y in zip(option, out)]
    return out


def _interval(vp: Sequence[Any], d: Sequence[Any]) -> tuple[list[Any], Any]:
    """Möller's division-free interval ``(A, B, C, X0, X1)`` of a triangle on the intersection line,
    and whether the triangle lies in the other's plane."""
    d0, d1, d2 = d
    zero = jnp.zeros_like(d0)

    def around(i: int, j: int, k: int) -> list[Any]:  # vertex i alone on its side
        return [vp[i], (vp[j] - vp[i]) * d[i], (vp[k] - vp[i]) * d[i], d[i] - d[j], d[i] - d[k]]

    conds = [d0 * d1 > zero, d0 * d2 > zero, (d1 * d2 > zero) | (d0 != zero), d1 != zero, d2 != zero]
    options = [around(2, 0, 1), around(1, 0, 2), around(0, 1, 2), around(1, 0, 2), around(2, 0, 1)]
    coplanar = ~(conds[0] | conds[1] | conds[2] | conds[3] | conds[4])
    return _select(conds, options + [around(0, 1, 2)]), coplanar


def _projection_axes(n: Leaves) -> tuple[Any, Any]:
    """The two axes kept when projecting along the dominant component of ``n`` (Möller's choice)."""
    a0, a1, a2 = (jnp.abs(x) for x in n)
    x_max = (a0 > a1) & (a0 > a2)
    z_max = where(a0 > a1, ~(a0 > a2), a2 > a1)
    i0 = where(x_max, 1, 0)
    i1 = where(x_max | ~z_max, 2, 1)
    return i0, i1


def _pick(p: Leaves, axis: Any) -> Any:
    return where(axis == 0, p[0], where(axis == 1, p[1], p[2]))


def _edges_cross(v0: Sequence, v1: Sequence, u0: Sequence, u1: Sequence) -> Any:
    """2D segment test of Antonio's 'Faster Line Segment Intersection' on projected points."""
    ax, ay = v1[0] - v0[0], v1[1] - v0[1]
    bx, by = u0[0] - u1[0], u0[1] - u1[1]
    cx, cy = v0[0] - u0[0], v0[1] - u0[1]
    f = ay * bx - ax * by
    d = by * cx - bx * cy
    e = ax * cy - ay * cx
    zero = jnp.zeros_like(f)
    pos = (f > zero) & (d >= zero) & (d <= f) & (e >= zero) & (e <= f)
    neg = (f < zero) & (d <= zero) & (d >= f) & (e <= zero) & (e >= f)
    return pos | neg


def _point_in_triangle(p: Sequence, u0: Sequence, u1: Sequence, u2: Sequence) -> Any:
    def side(a: Sequence, b: Sequence) -> Any:
        ka = b[1] - a[1]
        kb = -(b[0] - a[0])
        kc = -ka * a[0] - kb * a[1]
        return ka * p[0] + kb * p[1] + kc

    d0, d1, d2 = side(u0, u1), side(u1, u2), side(u2, u0)
    zero = jnp.zeros_like(d0)
    return (d0 * d1 > zero) & (d0 * d2 > zero)


def _coplanar_overlap(n: Leaves, v: Sequence[Leaves], u: Sequence[Leaves]) -> Any:
    i0, i1 = _projection_axes(n)
    pv = [(_pick(p, i0), _pick(p, i1)) for p in v]
    pu = [(_pick(p, i0), _pick(p, i1)) for p in u]
    hit = _point_in_triangle(pv[0], *pu) | _point_in_triangle(pu[0], *pv)
    for i in range(3):
        for j in range(3):
            hit = hit | _edges_cross(pv[i], pv[(i + 1) % 3], pu[j], pu[(j + 1) % 3])
    return hit


def triangles_intersect(v: Sequence[Leaves], u: Sequence[Leaves]) -> Any:
    """Per lane, whether triangles ``v`` and ``u`` (three points of leaves each) intersect."""
    n1, du = _plane_distances(v, u)
    n2, dv = _plane_distances(u, v)
    zero = jnp.zeros_like(du[0])
    u_apart = (du[0] * du[1] > zero) & (du[0] * du[2] > zero)
    v_apart = (dv[0] * dv[1] > zero) & (dv[0] * dv[2] > zero)

    line = [jnp.abs(x) for x in cross3(n1, n2)]
    axis = where(line[1] > line[0], 1, 0)
    axis = where(line[2] > jnp.maximum(line[0], line[1]), 2, axis)
    (a, b, c_, x0, x1), v_flat = _interval([_pick(p, axis) for p in v], dv)
    (d, e, f, y0, y1), u_flat = _interval([_pick(p, axis) for p in u], du)
    xx, yy = x0 * x1, y0 * y1
    xxyy = xx * yy
    lo1, hi1 = a * xxyy + b * x1 * yy, a * xxyy + c_ * x0 * yy
    lo2, hi2 = d * xxyy + e * xx * y1, d * xxyy + f * xx * y0
    lo1, hi1 = jnp.minimum(lo1, hi1), jnp.maximum(lo1, hi1)
    lo2, hi2 = jnp.minimum(lo2, hi2), jnp.maximum(lo2, hi2)
    overlap = ~((hi1 < lo2) | (hi2 < lo1))
    hit = where(v_flat | u_flat, _coplanar_overlap(n1, v, u), overlap)
    return ~u_apart & ~v_apart & hit


@builtin("intersect_tri_tri", group="Geometry")
def intersect_tri_tri(call: Call, v0: Value, v1: Value, v2: Value, u0: Value, u1: Value, u2: Value) -> Value:
    """1 if triangles ``(v0, v1, v2)`` and ``(u0, u1, u2)`` intersect (Möller's test), else 0."""
    args = (v0, v1, v2, u0, u1, u2)
    t = float_scalar_of(call, *args, kinds=("vec3",) * 6)
    if t not in (scalars.float32, scalars.float64):
        raise call.no_overload(*args)
    dtype = np.dtype(np.float32 if t is scalars.float32 else np.float64)
    pts = [[jax.lax.stop_gradient(x) for x in _lanes(v, dtype)] for v in args]
    hit = triangles_intersect(pts[:3], pts[3:])
    return Value(scalars.int32, where(hit, 1, 0).astype(np.int32))
