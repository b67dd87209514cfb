"""Transformations group: rigid transforms ``(p: vec3, q: quat)`` stored as 7 components.

``transform_identity transform_get_translation transform_get_rotation transform_set_translation
transform_set_rotation transform_set_translation_copy transform_set_rotation_copy transform_multiply
transform_point transform_vector transform_inverse`` (native in Warp; ``transform_point`` and
``transform_vector`` also take a 4x4 matrix) and ``transform_from_matrix transform_to_matrix
transform_compose transform_decompose`` (``wp.func`` in Warp's ``math.py``), plus ``t * u``.

The ``transform_set_*`` builtins change the caller's variable in place, as Warp's reference
parameters do; the ``*_copy`` variants return a new transform.

Example:
    >>> import jwarp as wp
    >>> t = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat_identity())
    >>> [float(x) for x in wp.transform_point(t, wp.vec3(1.0, 0.0, 0.0))]
    [2.0, 2.0, 3.0]
"""

from __future__ import annotations

from typing import Sequence

from jwarp.builtins import common as c
from jwarp.builtins.common import Call, Value
from jwarp.builtins.linalg import safe_sqrt, sum_products
from jwarp.builtins.operators import MUL_RULES
from jwarp.builtins.quaternion import (
    float_scalar_of,
    quat_from_matrix_leaves,
    quat_inverse_leaves,
    quat_mul,
    quat_of,
    quat_rotate_leaves,
    quat_to_matrix_leaves,
    rows_of,
    static_dtype,
    vec3_of,
    where,
)
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import TupleType, leaves_of, value_from_leaves, value_to_python
from jwarp.lang import composites


def transform_of(t: type) -> type:
    return composites.transformation(t)


def split(xform: Value) -> tuple[list, list]:
    """``(p, q)`` leaves of a transform."""
    leaves = list(leaves_of(xform))
    return leaves[:3], leaves[3:]


def multiply_leaves(a: Sequence, b: Sequence) -> list:
    """``a * b``: ``(rotate(a.q, b.p) + a.p, a.q * b.q)``."""
    pa, qa, pb, qb = a[:3], a[3:], b[:3], b[3:]
    p = [r + x for r, x in zip(quat_rotate_leaves(qa, pb), pa)]
    return p + quat_mul(qa, qb)


@builtin("transform_identity", group="Transformations")
def transform_identity(call: Call, dtype: Value | None = None) -> Value:
    """The identity transform (zero translation, identity rotation); ``dtype`` defaults to float32."""
    t = static_dtype(call, dtype)
    return value_from_leaves(transform_of(t), [c.constant(t, x) for x in (0, 0, 0, 0, 0, 0, 1)])


@builtin("transform_get_translation", group="Transformations")
def transform_get_translation(call: Call, xform: Value) -> Value:
    """The translation ``p`` of a transform."""
    t = float_scalar_of(call, xform, kinds=("transform",))
    return value_from_leaves(vec3_of(t), split(xform)[0])


@builtin("transform_get_rotation", group="Transformations")
def transform_get_rotation(call: Call, xform: Value) -> Value:
    """The rotation ``q`` of a transform."""
    t = float_scalar_of(call, xform, kinds=("transform",))
    return value_from_leaves(quat_of(t), split(xform)[1])


def _with_part(call: Call, xform: Value, part: Value, kind: str) -> Value:
    float_scalar_of(call, xform, part, kinds=("transform", kind))
    p, q = split(xform)
    new = leaves_of(part)
    return value_from_leaves(xform.type, list(new) + q if kind == "vec3" else p + list(new))


def _set_in_place(call: Call, xform: Value, part: Value, kind: str) -> None:
    updated = _with_part(call, xform, part, kind)
    if not call.in_kernel:  # Python scope: update the transform object passed in, as Warp does
        target = call.python_args[0] if call.python_args else None
        if not isinstance(target, composites.composite_base):
            raise RuntimeError(f"wp.{call.name}() changes its argument in place: pass a transform object")
        target._v[...] = value_to_python(updated)._v
        return
    call.assign_back(0, updated)


@builtin("transform_set_translation", group="Transformations")
def transform_set_translation(call: Call, xform: Value, p: Value) -> None:
    """Set the translation of the transform variable ``xform`` in place."""
    _set_in_place(call, xform, p, "vec3")


@builtin("transform_set_rotation", group="Transformations")
def transform_set_rotation(call: Call, xform: Value, q: Value) -> None:
    """Set the rotation of the transform variable ``xform`` in place."""
    _set_in_place(call, xform, q, "quat")


@builtin("transform_set_translation_copy", group="Transformations")
def transform_set_translation_copy(call: Call, xform: Value, p: Value) -> Value:
    """A copy of ``xform`` with translation ``p``."""
    return _with_part(call, xform, p, "vec3")


@builtin("transform_set_rotation_copy", group="Transformations")
def transform_set_rotation_copy(call: Call, xform: Value, q: Value) -> Value:
    """A copy of ``xform`` with rotation ``q``."""
    return _with_part(call, xform, q, "quat")


@builtin("transform_multiply", group="Transformations")
def transform_multiply(call: Call, a: Value, b: Value) -> Value:
    """Composition ``a * b`` (apply ``b`` first, then ``a``)."""
    float_scalar_of(call, a, b, kinds=("transform", "transform"))
    return value_from_leaves(a.type, multiply_leaves(leaves_of(a), leaves_of(b)))


MUL_RULES[("transformation", "transformation")] = transform_multiply.impl


def _matrix_apply(m: Value, v: Sequence, w: float) -> list:
    rows = rows_of(m)
    out = []
    for r in rows[:3]:
        acc = r[0] * v[0] + r[1] * v[1] + r[2] * v[2]
        out.append(acc + r[3] if w else acc + r[3] * 0)
    return out


def _apply(call: Call, xform: Value, vec: Value, point: bool) -> Value:
    if c.is_matrix(xform):
        float_scalar_of(call, xform, vec, kinds=("mat44", "vec3"))
        return value_from_leaves(vec.type, _matrix_apply(xform, leaves_of(vec), 1.0 if point else 0.0))
    float_scalar_of(call, xform, vec, kinds=("transform", "vec3"))
    p, q = split(xform)
    rotated = quat_rotate_leaves(q, leaves_of(vec))
    return value_from_leaves(vec.type, [x + r for x, r in zip(p, rotated)] if point else rotated)


@builtin("transform_point", group="Transformations")
def transform_point(call: Call, xform: Value, point: Value) -> Value:
    """Apply a transform (or a 4x4 matrix, with w = 1) to a point: rotation and translation."""
    return _apply(call, xform, point, point=True)


@builtin("transform_vector", group="Transformations")
def transform_vector(call: Call, xform: Value, vec: Value) -> Value:
    """Apply the rotation of a transform (or a 4x4 matrix, with w = 0) to a direction."""
    return _apply(call, xform, vec, point=False)


@builtin("transform_inverse", group="Transformations")
def transform_inverse(call: Call, xform: Value) -> Value:
    """The inverse transform ``(-rotate(q^-1, p), q^-1)``."""
    float_scalar_of(call, xform, kinds=("transform",))
    p, q = split(xform)
    q_inv = quat_inverse_leaves(q)
    return value_from_leaves(xform.type, [-x for x in quat_rotate_leaves(q_inv, p)] + q_inv)


# -- Warp's math.py helpers (float16/32/64) --------------------------------------------------------------


def _mat44(t: type, rows3: Sequence[Sequence], p: Sequence) -> Value:
    zero, one = c.constant(t, 0), c.constant(t, 1)
    flat = [x for r, pr in zip(rows3, p) for x in (*r, pr)] + [zero, zero, zero, one]
    return value_from_leaves(composites.matrix((4, 4), t), flat)


@builtin("transform_from_matrix", group="Transformations")
def transform_from_matrix(call: Call, mat: Value) -> Value:
    """The transform of a 4x4 matrix ``[[R, p], [0, 1]]``."""
    t = float_scalar_of(call, mat, kinds=("mat44",))
    rows = rows_of(mat)
    p = [rows[0][3], rows[1][3], rows[2][3]]
    return value_from_leaves(transform_of(t), p + quat_from_matrix_leaves(call, rows, quat_of(t)))


@builtin("transform_to_matrix", group="Transformations")
def transform_to_matrix(call: Call, xform: Value) -> Value:
    """The 4x4 matrix ``[[R, p], [0, 1]]`` of a transform."""
    t = float_scalar_of(call, xform, kinds=("transform",))
    p, q = split(xform)
    r = quat_to_matrix_leaves(q)
    return _mat44(t, [r[0:3], r[3:6], r[6:9]], p)


@builtin("transform_compose", group="Transformations")
def transform_compose(call: Call, position: Value, rotation: Value, scale: Value) -> Value:
    """The 4x4 matrix of a translation, a rotation and a per-axis scale (columns scaled)."""
    t = float_scalar_of(call, position, rotation, scale, kinds=("vec3", "quat", "vec3"))
    r = quat_to_matrix_leaves(leaves_of(rotation))
    s = leaves_of(scale)
    rows = [[s[j] * r[3 * i + j] for j in range(3)] for i in range(3)]
    return _mat44(t, rows, leaves_of(position))


@builtin("transform_decompose", group="Transformations")
def transform_decompose(call: Call, m: Value) -> Value:
    """``position, rotation, scale = transform_decompose(m)`` (the inverse of :func:`transform_compose`)."""
    t = float_scalar_of(call, m, kinds=("mat44",))
    rows = rows_of(m)
    position = [rows[0][3], rows[1][3], rows[2][3]]
    cols = [[rows[i][j] for i in range(3)] for j in range(3)]
    scale = [safe_sqrt(sum_products(col, col)) for col in cols]
    unit = [[where(s != 0, x / where(s != 0, s, s * 0 + 1), x) for x in col] for col, s in zip(cols, scale)]
    r = [[unit[j][i] for j in range(3)] for i in range(3)]
    values = (
        value_from_leaves(vec3_of(t), position),
        value_from_leaves(quat_of(t), quat_from_matrix_leaves(call, r, quat_of(t))),
        value_from_leaves(vec3_of(t), scale),
    )
    return Value(TupleType(tuple(v.type for v in values)), values)


__all__ = ["split", "multiply_leaves", "transform_of"]
