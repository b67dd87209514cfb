"""Per-lane triangle and box arithmetic shared by the mesh and BVH queries.

Points are tuples ``(x, y, z)`` of lane arrays. Every branch of a branching algorithm is
evaluated for every lane and the lane's branch picked with ``where``, with denominators made safe
on the lanes that do not use them, so the functions are differentiable where Warp's are.

Semantics follow Warp 1.19's native geometry:

- :func:`closest_point_to_triangle`: Ericson's Voronoi-region test, returning the barycentric
  weights ``(u, v)`` of vertices ``a`` and ``b``.
- :func:`intersect_ray_triangle`: the watertight test of Woop et al. (JCGT 2013) with float64
  2x2 determinants and a float64 retry on zero determinants, as Warp's ``intersect_ray_tri_woop``.
- :func:`ray_box_entry`: the slab test (a "robust" variant for rays with zero components).

Example:
    >>> import jax.numpy as jnp
    >>> z, o = jnp.zeros(1), jnp.ones(1)
    >>> u, v = closest_point_to_triangle((z, z, z), (o, z, z), (z, o, z), (z + 0.25, z + 0.25, o))
    >>> float(u[0]), float(v[0])
    (0.5, 0.25)
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from jwarp.builtins import inverse_trig
from jwarp.compiler.selects import where


Vec = tuple


def sub(a: Vec, b: Vec) -> Vec:
    return tuple(x - y for x, y in zip(a, b))


def add(a: Vec, b: Vec) -> Vec:
    return tuple(x + y for x, y in zip(a, b))


def scale(a: Vec, s: Any) -> Vec:
    return tuple(x * s for x in a)


def dot(a: Vec, b: Vec) -> Any:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a: Vec, b: Vec) -> Vec:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def length(a: Vec) -> Any:
    return jnp.sqrt(dot(a, a))


def normalize(a: Vec) -> Vec:
    n = length(a)
    safe = where(n > 0, n, jnp.ones_like(n))
    return tuple(where(n > 0, x / safe, jnp.zeros_like(x)) for x in a)


def closest_point_to_triangle(a: Vec, b: Vec, c: Vec, p: Vec) -> tuple[Any, Any]:
    """Barycentric weights ``(u, v)`` of the point of triangle ``abc`` closest to ``p``
    (the point is ``u a + v b + (1 - u - v) c``)."""
    ab, ac, ap = sub(b, a), sub(c, a), sub(p, a)
    d1, d2 = dot(ab, ap), dot(ac, ap)
    bp = sub(p, b)
    d3, d4 = dot(ab, bp), dot(ac, bp)
    cp = sub(p, c)
    d5, d6 = dot(ab, cp), dot(ac, cp)
    vc = d1 * d4 - d3 * d2
    vb = d5 * d2 - d1 * d6
    va = d3 * d6 - d5 * d4
    one, zero = jnp.ones_like(d1), jnp.zeros_like(d1)

    in_a = (d1 <= 0) & (d2 <= 0)
    in_b = (d3 >= 0) & (d4 <= d3)
    on_ab = (vc <= 0) & (d1 >= 0) & (d3 <= 0)
    in_c = (d6 >= 0) & (d5 <= d6)
    on_ac = (vb <= 0) & (d2 >= 0) & (d6 <= 0)
    on_bc = (va <= 0) & ((d4 - d3) >= 0) & ((d5 - d6) >= 0)
    # Warp's branches in order; each is taken only when every earlier one is not
    take_ab = ~in_a & ~in_b & on_ab
    take_ac = ~in_a & ~in_b & ~on_ab & ~in_c & on_ac
    take_bc = ~in_a & ~in_b & ~on_ab & ~in_c & ~on_ac & on_bc
    inside = ~(in_a | in_b | on_ab | in_c | on_ac | on_bc)

    # each lane divides once: its branch's quotient (the same operands as Warp's, so the same value)
    num = where(take_ab, d1, where(take_ac, d2, where(take_bc, d4 - d3, one)))
    den = where(take_ab, d1 - d3, where(take_ac, d2 - d6, where(
        take_bc, (d4 - d3) + (d5 - d6), where(inside, va + vb + vc, one))))
    quotient = num / den
    v_ab = w_ac = w_bc = denom = quotient
    v_in, w_in = vb * denom, vc * denom

    v = where(in_a, zero, where(in_b, one, where(take_ab, v_ab, where(
        in_c, zero, where(take_ac, zero, where(take_bc, one - w_bc, v_in))))))
    w = where(in_a | in_b | take_ab, zero, where(in_c, one, where(
        take_ac, w_ac, where(take_bc, w_bc, w_in))))
    return one - v - w, v


def furthest_point_to_triangle(a: Vec, b: Vec, c: Vec, p: Vec) -> tuple[Any, Any]:
    """Barycentric weights of the vertex of ``abc`` furthest from ``p`` (Warp's tie order)."""
    da, db, dc = dot(sub(p, a), sub(p, a)), dot(sub(p, b), sub(p, b)), dot(sub(p, c), sub(p, c))
    pick_a = (da > db) & (da > dc)
    pick_b = ~pick_a & (db > dc)
    one, zero = jnp.ones_like(da), jnp.zeros_like(da)
    return where(pick_a, one, zero), where(pick_b, one, zero)


def is_sliver(a: Vec, b: Vec, c: Vec) -> Any:
    """Warp's sliver test: |normal| / (sum of squared edge lengths) < 1e-6."""
    e0, e1, e2 = sub(b, a), sub(c, a), sub(c, b)
    n = cross(e0, e1)
    total = dot(e0, e0) + dot(e1, e1) + dot(e2, e2)
    return length(n) / where(total > 0, total, jnp.ones_like(total)) < 1e-6


def distance_to_box_sq(p: Vec, lower: Vec, upper: Vec) -> Any:
    d = [jnp.minimum(hi, jnp.maximum(lo, x)) - x for x, lo, hi in zip(p, lower, upper)]
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2]


def furthest_distance_to_box_sq(p: Vec, lower: Vec, upper: Vec) -> Any:
    d = [jnp.maximum(jnp.abs(x - lo), jnp.abs(x - hi)) for x, lo, hi in zip(p, lower, upper)]
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2]


def boxes_overlap(a_lower: Vec, a_upper: Vec, b_lower: Vec, b_upper: Vec) -> Any:
    out = None
    for al, au, bl, bu in zip(a_lower, a_upper, b_lower, b_upper):
        ok = ~((al > bu) | (au < bl))
        out = ok if out is None else out & ok
    return out


def fmin(a: Any, b: Any) -> Any:
    """Warp's float ``min`` on the host (C ``fmin``: the other operand when one is NaN)."""
    return where(a <= b, a, where(b == b, b, a))


def fmax(a: Any, b: Any) -> Any:
    """Warp's float ``max`` on the host (C ``fmax``: the other operand when one is NaN)."""
    return where(a >= b, a, where(b == b, b, a))


def _min_plain(a: Any, b: Any) -> Any:
    """:func:`fmin` where neither operand is NaN (one compare and select, a single vector min)."""
    return where(a < b, a, b)


def _max_plain(a: Any, b: Any) -> Any:
    """:func:`fmax` where neither operand is NaN."""
    return where(a > b, a, b)


def ray_box_entry(start: Vec, direction: Vec, rcp: Vec, lower: Vec, upper: Vec, robust: Any) -> tuple[Any, Any]:
    """(hit, entry t) of a ray and a box. Robust lanes skip axes where the direction is 0 (the
    origin must then lie in the slab); the others use the plain slab test with ``rcp``. Minima
    and maxima are Warp's (:func:`fmin`), so an infinite reciprocal times a zero distance (a NaN)
    is ignored as in Warp."""
    big = jnp.asarray(jnp.finfo(jnp.float32).max, jnp.float32)
    slabs = _slabs(start, rcp, lower, upper, fmin, fmax)
    lmin, lmax = _overlap(slabs, fmin, fmax)
    r_min, r_max = -big, big
    inside = None
    for k, (lo, hi) in enumerate(slabs):
        zero = direction[k] == 0
        slab = ~((start[k] < lower[k]) | (start[k] > upper[k]))
        ok = where(zero, slab, True)
        inside = ok if inside is None else inside & ok
        r_min = where(zero, r_min, fmax(lo, r_min))
        r_max = where(zero, r_max, fmin(hi, r_max))
    fast_hit = (lmax >= 0) & (lmax >= lmin)
    robust_hit = inside & (r_max >= 0) & (r_max >= r_min)
    return where(robust, robust_hit, fast_hit), where(robust, r_min, lmin)


def ray_box_entry_fast(start: Vec, rcp: Vec, lower: Vec, upper: Vec) -> tuple[Any, Any]:
    """(hit, entry t) of the plain slab test (Warp's ``intersect_ray_aabb``): what
    :func:`ray_box_entry` gives lanes that are not robust, with less arithmetic. Exact for rays
    whose reciprocal direction is finite (no NaN arises, so plain minima do)."""
    lmin, lmax = _overlap(_slabs(start, rcp, lower, upper, _min_plain, _max_plain), _min_plain, _max_plain)
    return (lmax >= 0) & (lmax >= lmin), lmin


def _slabs(start: Vec, rcp: Vec, lower: Vec, upper: Vec, lo_of: Any, hi_of: Any) -> list:
    """Per axis, the ray's (entry, exit) t of the box's slab (plain reciprocal arithmetic)."""
    out = []
    for k in range(3):
        l1 = (lower[k] - start[k]) * rcp[k]
        l2 = (upper[k] - start[k]) * rcp[k]
        out.append((lo_of(l1, l2), hi_of(l1, l2)))
    return out


def _overlap(slabs: list, lo_of: Any, hi_of: Any) -> tuple:
    """(latest entry, earliest exit) over the slabs."""
    lmin, lmax = slabs[0]
    for lo, hi in slabs[1:]:
        lmin, lmax = hi_of(lo, lmin), lo_of(hi, lmax)
    return lmin, lmax


def _pick(v: Vec, axis: Any) -> Any:
    return where(axis == 0, v[0], where(axis == 1, v[1], v[2]))


def ray_setup(direction: Vec) -> tuple:
    """The per-ray constants of Woop's test: the axes ``(kx, ky, kz)`` (``kz`` the dominant one,
    first on ties) and the shear ``(sx, sy, sz)``; compute once per ray, test many triangles."""
    ax_, ay_, az_ = (jnp.abs(x) for x in direction)
    kz = where(az_ > jnp.maximum(ax_, ay_), 2, where(ay_ > ax_, 1, 0)).astype(jnp.int32)
    kx = where(kz == 2, 0, kz + 1)
    ky = where(kx == 2, 0, kx + 1)
    dz = _pick(direction, kz)
    flip = dz < 0
    kx, ky = where(flip, ky, kx), where(flip, kx, ky)
    return kx, ky, kz, _pick(direction, kx) / dz, _pick(direction, ky) / dz, 1.0 / dz


def intersect_ray_triangle(start: Vec, direction: Vec, a: Vec, b: Vec, c: Vec, setup: tuple | None = None) -> tuple:
    """(hit, t, u, v, sign) of a ray and triangle ``abc`` (Warp's ``intersect_ray_tri_woop``);
    ``sign`` is the determinant (positive when the ray meets the front of a counter-clockwise face).
    The 2x2 determinants are evaluated from exact float64 products (Warp: error-free FMA
    products, then float64 where one is zero)."""
    kx, ky, kz, sx, sy, sz = ray_setup(direction) if setup is None else setup
    A, B, C = sub(a, start), sub(b, start), sub(c, start)

    def project(P: Vec) -> tuple[Any, Any, Any]:
        pz = _pick(P, kz)
        return _pick(P, kx) - sx * pz, _pick(P, ky) - sy * pz, pz

    Ax, Ay, Az = project(A)
    Bx, By, Bz = project(B)
    Cx, Cy, Cz = project(C)
    f64 = jnp.float64

    def det2(x: Any, y: Any, z: Any, w: Any) -> Any:
        return (x.astype(f64) * y.astype(f64) - z.astype(f64) * w.astype(f64)).astype(x.dtype)

    U, V, W = det2(Cx, By, Cy, Bx), det2(Ax, Cy, Ay, Cx), det2(Bx, Ay, By, Ax)
    mixed = ((U < 0) | (V < 0) | (W < 0)) & ((U > 0) | (V > 0) | (W > 0))
    det = U + V + W
    T = U * (sz * Az) + V * (sz * Bz) + W * (sz * Cz)
    behind = (T != 0) & (jnp.signbit(T) != jnp.signbit(det))
    hit = ~mixed & (det != 0) & ~behind
    rcp = 1.0 / where(det != 0, det, jnp.ones_like(det))
    return hit, T * rcp, U * rcp, V * rcp, det


def solid_angle(a: Vec, b: Vec, c: Vec, p: Vec) -> Any:
    """The signed solid angle of triangle ``abc`` seen from ``p`` (Van Oosterom and Strackee)."""
    A, B, C = sub(a, p), sub(b, p), sub(c, p)
    la, lb, lc = length(A), length(B), length(C)
    det = dot(A, cross(B, C))
    den = la * lb * lc + dot(A, B) * lc + dot(B, C) * la + dot(C, A) * lb
    return 2.0 * inverse_trig.atan2(det, den)  # (geometry kernels always lower through XLA)


__all__ = ["boxes_overlap", "closest_point_to_triangle", "cross", "distance_to_box_sq", "dot", "fmax", "fmin",
           "furthest_distance_to_box_sq", "furthest_point_to_triangle", "intersect_ray_triangle", "is_sliver",
           "length", "normalize", "ray_box_entry", "ray_box_entry_fast", "ray_setup", "solid_angle", "sub"]
