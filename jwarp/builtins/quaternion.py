"""Quaternion Math group: ``quat_identity quat_from_axis_angle quat_to_axis_angle quat_from_matrix
quat_rpy quat_inverse quat_rotate quat_rotate_inv quat_slerp quat_to_matrix`` (native in Warp) and
``quat_twist quat_twist_angle quat_twist_angle_signed quat_to_rpy quat_to_euler quat_from_euler``
(``wp.func`` in Warp's ``math.py``, typed for float32), plus the quaternion product ``q * r``.

Quaternions are ``(x, y, z, w)`` with the real part last. Formulas and their evaluation order follow
Warp 1.19's ``quat.h`` so results agree to the last bits in the common cases; gradients are JAX's
derivative of the same formulas, with the ``where`` branches guarded so an unselected branch never
turns a gradient into NaN.

Example:
    >>> import jwarp as wp
    >>> q = wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), wp.pi / 2.0)
    >>> [round(float(x), 6) for x in wp.quat_rotate(q, wp.vec3(1.0, 0.0, 0.0))]
    [0.0, 1.0, 0.0]
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.builtins import common as c
from jwarp.builtins import inverse_trig, trig
from jwarp.builtins.common import STATIC, Call, Value
from jwarp.builtins.linalg import safe_sqrt, sum_products
from jwarp.builtins.operators import MUL_RULES
from jwarp.builtins.vector_math import normalize as _normalize
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import TupleType, leaves_of, value_from_leaves
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import resolve_annotation

Leaves = list  # the flat components of a composite value

# -- leaf math: numpy for compile-time constants, jax.numpy otherwise ------------------------------


def _fn(np_fn: Any, jnp_fn: Any):
    return lambda *xs: np_fn(*xs) if all(c.is_const(x) for x in xs) else jnp_fn(*xs)


def sin(x: Any, exact: bool = False) -> Any:
    """Sine (vector code on XLA:CPU, see trig.py; ``exact``: traced for a Pallas kernel)."""
    return np.sin(x) if c.is_const(x) else trig.sin(x, exact)


def cos(x: Any, exact: bool = False) -> Any:
    """Cosine (vector code on XLA:CPU, see trig.py; ``exact``: traced for a Pallas kernel)."""
    return np.cos(x) if c.is_const(x) else trig.cos(x, exact)


def _atan2_finite(y: Any, x: Any, exact: bool) -> Any:
    """``arctan2`` whose derivative at ``(0, 0)`` is 0 instead of NaN (the value is unchanged)."""
    y, x = jnp.broadcast_arrays(y, x)
    origin = (x == 0) & (y == 0)
    safe = inverse_trig.atan2(y, where(origin, jnp.ones_like(x), x), exact)
    return where(origin, lax.stop_gradient(inverse_trig.atan2(y, x, exact)), safe)


def atan2(y: Any, x: Any, exact: bool) -> Any:
    """Arc tangent of ``y / x`` (vector code on XLA:CPU; ``exact``: traced for a Pallas kernel)."""
    return np.arctan2(y, x) if c.is_const(y) and c.is_const(x) else _atan2_finite(y, x, exact)


absolute = _fn(np.abs, jnp.abs)
where = c.where


def asin(x: Any, exact: bool) -> Any:
    """Warp's ``asin``: the argument is clamped to [-1, 1] (NaN to -1)."""
    if c.is_const(x):
        return np.arcsin(np.fmin(np.fmax(x, -1), 1))
    return inverse_trig.asin(inverse_trig.clamp_unit(x), exact)


def acos(x: Any, exact: bool) -> Any:
    """Warp's ``acos``: the argument is clamped to [-1, 1] (NaN to -1)."""
    if c.is_const(x):
        return np.arccos(np.fmin(np.fmax(x, -1), 1))
    return inverse_trig.acos(inverse_trig.clamp_unit(x), exact)


def guarded_sqrt(x: Any, selected: Any) -> Any:
    """``sqrt(x)`` of a branch that is only used where ``selected``: elsewhere it computes sqrt(1),
    so neither the value nor the gradient of an unused branch can be NaN."""
    return safe_sqrt(where(selected, x, x * 0 + 1))


# -- leaf algebra on quaternions and 3-vectors (lists of leaves) -----------------------------------


def cross3(a: Sequence, b: Sequence) -> Leaves:
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def quat_mul(a: Sequence, b: Sequence) -> Leaves:
    """Hamilton product, in Warp's operand order."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return [
        aw * bx + bw * ax + ay * bz - by * az,
        aw * by + bw * ay + az * bx - bz * ax,
        aw * bz + bw * az + ax * by - bx * ay,
        aw * bw - ax * bx - ay * by - az * bz,
    ]


def quat_rotate_leaves(q: Sequence, v: Sequence, inverse: bool = False) -> Leaves:
    """Rotate ``v`` by ``q`` (or by its inverse): Warp's closed form, same evaluation order."""
    qx, qy, qz, qw = q
    cw = 2.0 * qw * qw - 1.0
    d = 2.0 * (qx * v[0] + qy * v[1] + qz * v[2])
    twist = [(qy * v[2] - qz * v[1]) * qw * 2.0, (qz * v[0] - qx * v[2]) * qw * 2.0, (qx * v[1] - qy * v[0]) * qw * 2.0]
    base = [v[0] * cw + qx * d, v[1] * cw + qy * d, v[2] * cw + qz * d]
    return [b - t if inverse else b + t for b, t in zip(base, twist)]


def quat_inverse_leaves(q: Sequence) -> Leaves:
    return [-q[0], -q[1], -q[2], q[3]]


def quat_to_matrix_leaves(q: Sequence) -> Leaves:
    """Row-major 3x3 rotation matrix whose columns are the rotated unit axes."""
    zero, one = q[0] * 0, q[0] * 0 + 1
    cols = [quat_rotate_leaves(q, axis) for axis in ([one, zero, zero], [zero, one, zero], [zero, zero, one])]
    return [cols[j][i] for i in range(3) for j in range(3)]


def quat_from_axis_angle_leaves(axis: Sequence, angle: Any, exact: bool = False) -> Leaves:
    half = angle * 0.5
    s = sin(half, exact)
    return [axis[0] * s, axis[1] * s, axis[2] * s, cos(half, exact)]


def normalize_leaves(call: Call, t: type, leaves: Sequence) -> Leaves:
    return list(leaves_of(_normalize.impl(call, value_from_leaves(t, list(leaves)))))


def quat_to_axis_angle_leaves(call: Call, q: Sequence, vec3: type) -> tuple[Leaves, Any]:
    v = list(q[:3])
    unit = normalize_leaves(call, vec3, v)
    flip = q[3] < 0
    axis = [where(flip, -u, u) for u in unit]
    angle = 2.0 * atan2(safe_sqrt(sum_products(v, v)), absolute(q[3]), not c.xla_target(call))
    return axis, angle


def quat_from_matrix_leaves(call: Call, m: Sequence[Sequence], quat: type) -> Leaves:
    """Warp's trace / largest-diagonal branches, selected per lane, then normalized."""
    tr = m[0][0] + m[1][1] + m[2][2]
    use_trace = tr >= 0
    max1 = m[1][1] > m[0][0]
    diag_max = where(max1, m[1][1], m[0][0])
    max2 = m[2][2] > diag_max
    pick0 = ~use_trace & ~max1 & ~max2
    pick1 = ~use_trace & max1 & ~max2
    pick2 = ~use_trace & max2

    def branch(big: Any, selected: Any) -> tuple[Any, Any]:
        h = guarded_sqrt(big + 1.0, selected)
        return 0.5 * h, 0.5 / h

    w_t, h_t = branch(tr, use_trace)
    trace = [(m[2][1] - m[1][2]) * h_t, (m[0][2] - m[2][0]) * h_t, (m[1][0] - m[0][1]) * h_t, w_t]
    x_0, h_0 = branch(m[0][0] - (m[1][1] + m[2][2]), pick0)
    diag0 = [x_0, (m[0][1] + m[1][0]) * h_0, (m[2][0] + m[0][2]) * h_0, (m[2][1] - m[1][2]) * h_0]
    y_1, h_1 = branch(m[1][1] - (m[2][2] + m[0][0]), pick1)
    diag1 = [(m[0][1] + m[1][0]) * h_1, y_1, (m[1][2] + m[2][1]) * h_1, (m[0][2] - m[2][0]) * h_1]
    z_2, h_2 = branch(m[2][2] - (m[0][0] + m[1][1]), pick2)
    diag2 = [(m[2][0] + m[0][2]) * h_2, (m[1][2] + m[2][1]) * h_2, z_2, (m[1][0] - m[0][1]) * h_2]
    out = [
        where(use_trace, t, where(pick0, a, where(pick1, b, d))) for t, a, b, d in zip(trace, diag0, diag1, diag2)
    ]
    return normalize_leaves(call, quat, out)


# -- argument checks --------------------------------------------------------------------------------


def float_scalar_of(call: Call, *args: Value, kinds: Sequence[str]) -> type:
    """Check each argument's kind ('quat', 'vec3', 'mat33', 'mat44', 'scalar', 'transform', 'spatial')
    and that all share one float scalar type; return it (Warp raises 'no overload' otherwise)."""
    scalar = None
    for v, kind in zip(args, kinds):
        ok = _KIND_CHECKS[kind](v)
        t = c.scalar_type(v) if ok else None
        if not ok or not scalars.is_float(t) or (scalar is not None and t is not scalar):
            raise call.no_overload(*args)
        scalar = t
    return scalar


_KIND_CHECKS = {
    "quat": c.is_quat,
    "transform": c.is_transform,
    "scalar": c.is_scalar,
    "vec3": lambda v: c.is_vector(v) and v.type._length_ == 3,
    "spatial": lambda v: c.is_vector(v) and v.type._length_ == 6,
    "mat33": lambda v: c.is_matrix(v) and v.type._shape_ == (3, 3),
    "mat44": lambda v: c.is_matrix(v) and v.type._shape_ == (4, 4),
}


def float32_only(call: Call, *args: Value, kinds: Sequence[str]) -> None:
    """The ``wp.func`` helpers of Warp's ``math.py`` are typed for float32 (``wp.quat``/``wp.vec3``)."""
    if float_scalar_of(call, *args, kinds=kinds) is not scalars.float32:
        raise call.no_overload(*args)


def rows_of(m: Value) -> list[list[Any]]:
    r, k = m.type._shape_
    flat = leaves_of(m)
    return [list(flat[i * k : (i + 1) * k]) for i in range(r)]


def static_dtype(call: Call, dtype: Value | None) -> type:
    """The scalar type of an optional ``dtype=`` argument (float32 when omitted)."""
    if dtype is None:
        return scalars.float32
    scalar = resolve_annotation(dtype.data) if dtype.type is STATIC else None
    if not scalars.is_scalar_type(scalar) or not scalars.is_float(scalar):
        raise call.no_overload(dtype)
    return scalar


def vec3_of(t: type) -> type:
    return composites.vector(3, t)


def quat_of(t: type) -> type:
    return composites.quaternion(t)


# -- native builtins ----------------------------------------------------------------------------------


@builtin("quat_identity", group="Quaternion Math")
def quat_identity(call: Call, dtype: Value | None = None) -> Value:
    """The identity rotation ``(0, 0, 0, 1)``; ``dtype`` selects the float type (default float32)."""
    t = static_dtype(call, dtype)
    return value_from_leaves(quat_of(t), [c.constant(t, x) for x in (0, 0, 0, 1)])


@builtin("quat_from_axis_angle", group="Quaternion Math")
def quat_from_axis_angle(call: Call, axis: Value, angle: Value) -> Value:
    """Rotation of ``angle`` radians about the unit vector ``axis``."""
    t = float_scalar_of(call, axis, angle, kinds=("vec3", "scalar"))
    return value_from_leaves(quat_of(t), quat_from_axis_angle_leaves(leaves_of(axis), angle.data,
                                                                    not c.xla_target(call)))


@builtin("quat_to_axis_angle", group="Quaternion Math")
def quat_to_axis_angle(call: Call, quat: Value, *outs: Value) -> Value | None:
    """``axis, angle = quat_to_axis_angle(q)``, or ``quat_to_axis_angle(q, axis, angle)`` filling the
    caller's variables. The axis points so that the angle is in [0, pi]."""
    t = float_scalar_of(call, quat, kinds=("quat",))
    axis, angle = quat_to_axis_angle_leaves(call, leaves_of(quat), vec3_of(t))
    values = [value_from_leaves(vec3_of(t), axis), Value(t, angle)]
    if outs:
        if len(outs) != 2 or outs[0].type is not vec3_of(t) or outs[1].type is not t:
            raise call.no_overload(quat, *outs)
        call.require_kernel()
        call.assign_back(1, values[0])
        call.assign_back(2, values[1])
        return None
    return Value(TupleType((values[0].type, t)), tuple(values))


@builtin("quat_from_matrix", group="Quaternion Math")
def quat_from_matrix(call: Call, mat: Value) -> Value:
    """The rotation of a 3x3 rotation matrix (or the upper-left block of a 4x4 transform matrix)."""
    kind = "mat44" if c.is_matrix(mat) and mat.type._shape_ == (4, 4) else "mat33"
    t = float_scalar_of(call, mat, kinds=(kind,))
    return value_from_leaves(quat_of(t), quat_from_matrix_leaves(call, rows_of(mat), quat_of(t)))


@builtin("quat_rpy", group="Quaternion Math")
def quat_rpy(call: Call, roll: Value, pitch: Value, yaw: Value) -> Value:
    """Rotation from roll, pitch and yaw (about the fixed x, y, z axes, in that order)."""
    t = float_scalar_of(call, roll, pitch, yaw, kinds=("scalar",) * 3)
    exact = not c.xla_target(call)
    cy, sy = cos(yaw.data * 0.5, exact), sin(yaw.data * 0.5, exact)
    cr, sr = cos(roll.data * 0.5, exact), sin(roll.data * 0.5, exact)
    cp, sp = cos(pitch.data * 0.5, exact), sin(pitch.data * 0.5, exact)
    w = cy * cr * cp + sy * sr * sp
    x = cy * sr * cp - sy * cr * sp
    y = cy * cr * sp + sy * sr * cp
    z = sy * cr * cp - cy * sr * sp
    return value_from_leaves(quat_of(t), [x, y, z, w])


@builtin("quat_inverse", group="Quaternion Math")
def quat_inverse(call: Call, quat: Value) -> Value:
    """The conjugate ``(-x, -y, -z, w)`` (the inverse of a unit quaternion)."""
    float_scalar_of(call, quat, kinds=("quat",))
    return value_from_leaves(quat.type, quat_inverse_leaves(leaves_of(quat)))


@builtin("quat_rotate", group="Quaternion Math")
def quat_rotate(call: Call, quat: Value, vec: Value) -> Value:
    """Rotate ``vec`` by the unit quaternion ``quat``."""
    float_scalar_of(call, quat, vec, kinds=("quat", "vec3"))
    return value_from_leaves(vec.type, quat_rotate_leaves(leaves_of(quat), leaves_of(vec)))


@builtin("quat_rotate_inv", group="Quaternion Math")
def quat_rotate_inv(call: Call, quat: Value, vec: Value) -> Value:
    """Rotate ``vec`` by the inverse of the unit quaternion ``quat``."""
    float_scalar_of(call, quat, vec, kinds=("quat", "vec3"))
    return value_from_leaves(vec.type, quat_rotate_leaves(leaves_of(quat), leaves_of(vec), inverse=True))


@builtin("quat_slerp", group="Quaternion Math")
def quat_slerp(call: Call, a: Value, b: Value, t: Value) -> Value:
    """Spherical interpolation from ``a`` (t = 0) to ``b`` (t = 1)."""
    scalar = float_scalar_of(call, a, b, t, kinds=("quat", "quat", "scalar"))
    qa = leaves_of(a)
    rel = quat_mul(quat_inverse_leaves(qa), leaves_of(b))
    axis, angle = quat_to_axis_angle_leaves(call, rel, vec3_of(scalar))
    return value_from_leaves(a.type, quat_mul(qa, quat_from_axis_angle_leaves(axis, t.data * angle,
                                                                              not c.xla_target(call))))


@builtin("quat_to_matrix", group="Quaternion Math")
def quat_to_matrix(call: Call, quat: Value) -> Value:
    """The 3x3 rotation matrix of a unit quaternion."""
    t = float_scalar_of(call, quat, kinds=("quat",))
    return value_from_leaves(composites.matrix((3, 3), t), quat_to_matrix_leaves(leaves_of(quat)))


def _quat_product(call: Call, a: Value, b: Value) -> Value:
    float_scalar_of(call, a, b, kinds=("quat", "quat"))
    return value_from_leaves(a.type, quat_mul(leaves_of(a), leaves_of(b)))


MUL_RULES[("quaternion", "quaternion")] = _quat_product


# -- Warp's math.py helpers (float32) ------------------------------------------------------------------


@builtin("quat_twist", group="Quaternion Math")
def quat_twist(call: Call, axis: Value, q: Value) -> Value:
    """The twist component of ``q`` about the unit vector ``axis`` (swing-twist decomposition)."""
    float32_only(call, axis, q, kinds=("vec3", "quat"))
    ql, al = leaves_of(q), leaves_of(axis)
    proj = sum_products(ql[:3], al)
    return value_from_leaves(q.type, normalize_leaves(call, q.type, [proj * x for x in al] + [ql[3]]))


@builtin("quat_between_vectors", group="Quaternion Math")
def quat_between_vectors(call: Call, a: Value, b: Value) -> Value:
    """The shortest-arc rotation taking the direction of ``a`` onto that of ``b`` (opposite
    directions are not handled, as in Warp)."""
    float32_only(call, a, b, kinds=("vec3", "vec3"))
    ua, ub = normalize_leaves(call, a.type, leaves_of(a)), normalize_leaves(call, b.type, leaves_of(b))
    q = cross3(ua, ub) + [1.0 + sum_products(ua, ub)]
    return value_from_leaves(quat_of(scalars.float32), normalize_leaves(call, quat_of(scalars.float32), q))


def _twist_angle(call: Call, axis: Value, q: Value, signed: bool) -> Value:
    float32_only(call, axis, q, kinds=("vec3", "quat"))
    ql = leaves_of(q)
    s = sum_products(leaves_of(axis), ql[:3])
    return Value(scalars.float32, 2.0 * atan2(s if signed else absolute(s), ql[3], not c.xla_target(call)))


@builtin("quat_twist_angle", group="Quaternion Math")
def quat_twist_angle(call: Call, axis: Value, q: Value) -> Value:
    """Unsigned twist angle (radians) of ``q`` about ``axis``."""
    return _twist_angle(call, axis, q, signed=False)


@builtin("quat_twist_angle_signed", group="Quaternion Math")
def quat_twist_angle_signed(call: Call, axis: Value, q: Value) -> Value:
    """Signed twist angle (radians, right-hand rule) of ``q`` about ``axis``."""
    return _twist_angle(call, axis, q, signed=True)


@builtin("quat_to_rpy", group="Quaternion Math")
def quat_to_rpy(call: Call, q: Value) -> Value:
    """``(roll, pitch, yaw)`` of a unit quaternion (the inverse of :func:`quat_rpy`)."""
    float32_only(call, q, kinds=("quat",))
    x, y, z, w = leaves_of(q)
    exact = not c.xla_target(call)
    roll = atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y), exact)
    pitch = asin(2.0 * (w * y - z * x), exact)
    yaw = atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z), exact)
    return value_from_leaves(vec3_of(scalars.float32), [roll, pitch, yaw])


def _axis_index(call: Call, v: Value, args: Sequence[Value]) -> Any:
    if not c.is_int_scalar(v):
        raise call.no_overload(*args)
    return v.data


def _select(index: Any, options: Sequence[Any]) -> Any:
    """``options[index]`` for a (possibly per-lane) integer index."""
    out = options[-1]
    for k in range(len(options) - 2, -1, -1):
        out = where(index == k, options[k], out)
    return out


@builtin("quat_from_euler", group="Quaternion Math")
def quat_from_euler(call: Call, e: Value, i: Value, j: Value, k: Value) -> Value:
    """Rotation ``q_k * q_j * q_i`` for Euler angles ``e`` (indexed by axis) applied about the fixed
    axes ``i``, ``j``, ``k`` in that order."""
    float32_only(call, e, kinds=("vec3",))
    angles = leaves_of(e)
    zero = angles[0] * 0
    factors = []
    for index in (_axis_index(call, a, (e, i, j, k)) for a in (i, j, k)):
        half = _select(index, angles) * 0.5
        s, co = sin(half, not c.xla_target(call)), cos(half, not c.xla_target(call))
        factors.append([where(index == 0, s, zero), where(index == 1, s, zero), where(index == 2, s, zero), co])
    qi, qj, qk = factors
    return value_from_leaves(quat_of(scalars.float32), quat_mul(qk, quat_mul(qj, qi)))


@builtin("quat_to_euler", group="Quaternion Math")
def quat_to_euler(call: Call, q: Value, i: Value, j: Value, k: Value) -> Value:
    """Euler angles of ``q`` for the axis sequence ``i, j, k`` (the inverse of :func:`quat_from_euler`
    for Tait-Bryan sequences); see Warp's documentation for the proper-Euler layout."""
    float32_only(call, q, kinds=("quat",))
    i, j, k = (_axis_index(call, a, (q, i, j, k)) + 1 for a in (i, j, k))
    qx, qy, qz, q0 = leaves_of(q)
    comps = [qx, qy, qz]  # q1, q2, q3 of the scalar-first derivation
    proper = i == k
    k = where(proper, 6 - i - j, k)
    levi = ((i - j) * (j - k) * (k - i)).astype(np.float32) / 2.0
    qi, qj, qk = (_select(a - 1, comps) for a in (i, j, k))
    a, b, cc, d = q0, qi, qj, qk * levi
    a, b, cc, d = (where(proper, x, y) for x, y in ((a, a - qj), (b, b + qk * levi), (cc, cc + q0), (d, d - qi)))
    exact = not c.xla_target(call)
    t2 = acos(2.0 * (a * a + b * b) / (a * a + b * b + cc * cc + d * d) - 1.0, exact)
    tp, tm = atan2(b, a, exact), atan2(d, cc, exact)
    near_zero = absolute(t2) < 1e-6
    near_pi = absolute(t2 - np.float32(math.pi)) < 1e-6
    zero = t2 * 0
    t1 = where(near_zero | near_pi, zero, tp - tm)
    t3 = where(near_zero, 2.0 * tp - t1, where(near_pi, 2.0 * tm + t1, tp + tm))
    t2 = where(proper, t2, t2 - np.float32(math.pi / 2))
    t3 = where(proper, t3, t3 * levi)
    # place the angles by axis: the first at i, the second at j, the third at k (Warp starts from
    # (t1, t2, t3), which only shows for invalid sequences)
    out = []
    for axis, start in zip((1, 2, 3), (t1, t2, t3)):
        out.append(where(k == axis, t3, where(j == axis, t2, where(i == axis, t1, start))))
    return value_from_leaves(vec3_of(scalars.float32), out)


__all__ = [
    "quat_mul", "quat_rotate_leaves", "quat_inverse_leaves", "quat_to_matrix_leaves", "quat_from_matrix_leaves",
    "cross3", "float_scalar_of", "rows_of", "static_dtype", "vec3_of", "quat_of", "normalize_leaves",
]
