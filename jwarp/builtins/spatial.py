"""Spatial Math group: 6-vectors ``(w, v)`` (angular part on top) and 6x6 spatial matrices.

``spatial_dot spatial_cross spatial_cross_dual spatial_top spatial_bottom spatial_adjoint``
(native in Warp) and ``transform_twist transform_wrench velocity_at_point`` (``wp.func`` in Warp's
``math.py``, typed for float32).

Example:
    >>> import jwarp as wp
    >>> qd = wp.spatial_vector(0.0, 0.0, 1.0, 1.0, 0.0, 0.0)
    >>> [float(x) for x in wp.velocity_at_point(qd, wp.vec3(1.0, 0.0, 0.0))]
    [1.0, 1.0, 0.0]
"""

from __future__ import annotations

from jwarp.builtins import common as c
from jwarp.builtins.common import Call, Value
from jwarp.builtins.linalg import sum_products
from jwarp.builtins.quaternion import cross3, float_scalar_of, float32_only, quat_rotate_leaves, vec3_of
from jwarp.builtins.transform import split
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import leaves_of, value_from_leaves
from jwarp.lang import composites


def _halves(v: Value) -> tuple[list, list]:
    leaves = list(leaves_of(v))
    return leaves[:3], leaves[3:]


def _add(a: list, b: list) -> list:
    return [x + y for x, y in zip(a, b)]


@builtin("spatial_dot", group="Spatial Math")
def spatial_dot(call: Call, a: Value, b: Value) -> Value:
    """Dot product of two spatial vectors."""
    t = float_scalar_of(call, a, b, kinds=("spatial", "spatial"))
    return Value(t, sum_products(leaves_of(a), leaves_of(b)))


@builtin("spatial_cross", group="Spatial Math")
def spatial_cross(call: Call, a: Value, b: Value) -> Value:
    """Motion cross product ``(wa x wb, va x wb + wa x vb)``."""
    float_scalar_of(call, a, b, kinds=("spatial", "spatial"))
    (wa, va), (wb, vb) = _halves(a), _halves(b)
    return value_from_leaves(a.type, cross3(wa, wb) + _add(cross3(va, wb), cross3(wa, vb)))


@builtin("spatial_cross_dual", group="Spatial Math")
def spatial_cross_dual(call: Call, a: Value, b: Value) -> Value:
    """Force cross product ``(wa x wb + va x vb, wa x vb)``."""
    float_scalar_of(call, a, b, kinds=("spatial", "spatial"))
    (wa, va), (wb, vb) = _halves(a), _halves(b)
    return value_from_leaves(a.type, _add(cross3(wa, wb), cross3(va, vb)) + cross3(wa, vb))


@builtin("spatial_top", group="Spatial Math")
def spatial_top(call: Call, svec: Value) -> Value:
    """The angular (first three) components of a spatial vector."""
    c.require(c.is_vector(svec) and svec.type._length_ == 6, call, svec)
    return value_from_leaves(vec3_of(c.scalar_type(svec)), _halves(svec)[0])


@builtin("spatial_bottom", group="Spatial Math")
def spatial_bottom(call: Call, svec: Value) -> Value:
    """The linear (last three) components of a spatial vector."""
    c.require(c.is_vector(svec) and svec.type._length_ == 6, call, svec)
    return value_from_leaves(vec3_of(c.scalar_type(svec)), _halves(svec)[1])


@builtin("spatial_adjoint", group="Spatial Math")
def spatial_adjoint(call: Call, r: Value, s: Value) -> Value:
    """The 6x6 block matrix ``[[R, 0], [S, R]]``."""
    t = float_scalar_of(call, r, s, kinds=("mat33", "mat33"))
    rl, sl = leaves_of(r), leaves_of(s)
    zero = c.constant(t, 0)
    rows = []
    for i in range(3):
        rows.extend(list(rl[3 * i : 3 * i + 3]) + [zero] * 3)
    for i in range(3):
        rows.extend(list(sl[3 * i : 3 * i + 3]) + list(rl[3 * i : 3 * i + 3]))
    return value_from_leaves(composites.matrix((6, 6), t), rows)


def _map_pair(call: Call, xform: Value, x: Value, rotate_first_half: bool) -> Value:
    float32_only(call, xform, x, kinds=("transform", "spatial"))
    p, q = split(xform)
    top, bottom = _halves(x)
    if rotate_first_half:  # twist (w, v): w' = R w, v' = R v + p x w'
        w = quat_rotate_leaves(q, top)
        return value_from_leaves(x.type, w + _add(quat_rotate_leaves(q, bottom), cross3(p, w)))
    f = quat_rotate_leaves(q, bottom)  # wrench (tau, f): f' = R f, tau' = R tau + p x f'
    return value_from_leaves(x.type, _add(quat_rotate_leaves(q, top), cross3(p, f)) + f)


@builtin("transform_twist", group="Spatial Math")
def transform_twist(call: Call, t: Value, x: Value) -> Value:
    """Express the twist ``x = (w, v)`` in the frame ``t`` maps to."""
    return _map_pair(call, t, x, rotate_first_half=True)


@builtin("transform_wrench", group="Spatial Math")
def transform_wrench(call: Call, t: Value, x: Value) -> Value:
    """Express the wrench ``x = (tau, f)`` in the frame ``t`` maps to."""
    return _map_pair(call, t, x, rotate_first_half=False)


@builtin("velocity_at_point", group="Spatial Math")
def velocity_at_point(call: Call, qd: Value, r: Value) -> Value:
    """Linear velocity ``v + w x r`` of a point at offset ``r`` on a body with twist ``qd = (w, v)``."""
    float32_only(call, qd, r, kinds=("spatial", "vec3"))
    w, v = _halves(qd)
    return value_from_leaves(r.type, _add(v, cross3(w, leaves_of(r))))
