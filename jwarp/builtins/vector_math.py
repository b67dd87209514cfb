"""Vector Math group: ``dot ddot cross outer skew length length_sq normalize argmax argmin cw_mul
cw_div transpose trace diag get_diag identity matrix_from_rows matrix_from_cols`` and the norms
``norm_l1 norm_l2 norm_huber norm_pseudo_huber smooth_normalize``. Matrix algebra
(``determinant inverse inverse_approx svd3 svd2 qr3 eig3``) lives in :mod:`jwarp.builtins.linalg`;
the ``vector``/``matrix`` constructors in :mod:`jwarp.builtins.construct`.

Semantics follow Warp 1.19 (``warp/native/vec.h``, ``mat.h``, ``quat.h``, ``warp/_src/math.py``):

- Sums are accumulated left to right in the operands' own precision; integer vectors wrap.
- ``length``, ``length_sq``, ``dot`` and ``normalize`` accept quaternions as well as vectors;
  ``length``/``normalize`` need float components, ``dot``/``length_sq`` accept any numeric vector.
- ``normalize(v)`` divides each component by ``length(v)`` when it is > 0 and gives the zero vector
  otherwise (NaN input included); a quaternion is multiplied by ``1 / length`` and becomes the
  identity ``(0, 0, 0, 1)`` when its length is 0.
- ``argmax``/``argmin`` return ``uint32``, skip NaN components (first extremum wins; all-NaN gives 0).
- Integer ``cw_div`` by zero gives 0 (undefined in Warp).
- ``norm_l1``, ``norm_huber``, ``norm_pseudo_huber`` and ``smooth_normalize`` are ``wp.func`` in
  Warp, typed for float32 (``delta: float = 1.0``); ``norm_l2`` is ``length``.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from jwarp.builtins import common as c
from jwarp.builtins.common import STATIC, Call, Value
from jwarp.builtins.linalg import div_sqrt, safe_sqrt, sum_products, typed
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import is_const, leaves_of, value_from_leaves, xp
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import resolve_annotation, type_name
from jwarp.compiler.selects import where

# -- type predicates ---------------------------------------------------------------------------------


def _numeric(v: Value) -> bool:
    return c.scalar_type(v)._kind in "fiu"


def _vec(v: Value, length: int | None = None) -> bool:
    """A vector of numeric components (optionally of a given length)."""
    return c.is_vector(v) and _numeric(v) and (length is None or v.type._length_ == length)


def _float_vec(v: Value) -> bool:
    return c.is_vector(v) and scalars.is_float(c.scalar_type(v))


def _float_quat(v: Value) -> bool:
    return c.is_quat(v) and scalars.is_float(c.scalar_type(v))


def _mat(v: Value) -> bool:
    return c.is_matrix(v) and _numeric(v)


def _names(*args: Value) -> list[str]:
    return [type_name(a.type) for a in args]


def _exactly_same(a: Value, b: Value) -> None:
    if a.type is not b.type:
        raise RuntimeError(f"Input types must be exactly the same, got {_names(a, b)}")


def _same(a: Value, b: Value) -> None:
    if a.type is not b.type:
        raise RuntimeError(f"Input types must be the same, got {_names(a, b)}")


def _square(call: Call, m: Value, message: str) -> int:
    rows, cols = m.type._shape_
    if rows != cols:
        raise RuntimeError(message.format(shape=(rows, cols)))
    return rows


# -- products ----------------------------------------------------------------------------------------


@builtin("dot", group="Vector Math")
def dot(call: Call, a: Value, b: Value) -> Value:
    """Dot product of two vectors, or of the four components of two quaternions."""
    c.require((_vec(a) and _vec(b)) or (_float_quat(a) and _float_quat(b)), call, a, b)
    _exactly_same(a, b)
    return Value(c.scalar_type(a), sum_products(leaves_of(a), leaves_of(b)))


@builtin("ddot", group="Vector Math")
def ddot(call: Call, a: Value, b: Value) -> Value:
    """Double dot product (sum of component-wise products) of two matrices of the same type."""
    c.require(_mat(a) and _mat(b), call, a, b)
    _exactly_same(a, b)
    return Value(c.scalar_type(a), sum_products(leaves_of(a), leaves_of(b)))


@builtin("cross", group="Vector Math")
def cross(call: Call, a: Value, b: Value) -> Value:
    """Cross product of two 3D vectors."""
    c.require(_vec(a, 3) and _vec(b, 3), call, a, b)
    _same(a, b)
    (x0, x1, x2), (y0, y1, y2) = leaves_of(a), leaves_of(b)
    out = [
        c.sub(c.mul(x1, y2), c.mul(x2, y1)),
        c.sub(c.mul(x2, y0), c.mul(x0, y2)),
        c.sub(c.mul(x0, y1), c.mul(x1, y0)),
    ]
    return value_from_leaves(a.type, out)


@builtin("outer", group="Vector Math")
def outer(call: Call, a: Value, b: Value) -> Value:
    """Outer product ``a b^T`` of two vectors (any lengths, same scalar type)."""
    c.require(_vec(a) and _vec(b), call, a, b)
    ta, tb = c.scalar_type(a), c.scalar_type(b)
    if ta is not tb:
        raise RuntimeError(
            f"Couldn't figure out return type as arguments have multiple precisions: {[ta.__name__, tb.__name__]}"
        )
    xs, ys = leaves_of(a), leaves_of(b)
    out = [c.mul(x, y) for x in xs for y in ys]
    return value_from_leaves(composites.matrix((len(xs), len(ys)), ta), out)


@builtin("skew", group="Vector Math")
def skew(call: Call, vec: Value) -> Value:
    """The skew-symmetric matrix ``[v]x`` with ``[v]x w == cross(v, w)``."""
    c.require(_vec(vec, 3), call, vec)
    x, y, z = leaves_of(vec)
    zero = c.constant(c.scalar_type(vec), 0)
    out = [zero, c.neg(z), y, z, zero, c.neg(x), c.neg(y), x, zero]
    return value_from_leaves(composites.matrix((3, 3), c.scalar_type(vec)), out)


def _componentwise(call: Call, a: Value, b: Value, fn) -> Value:
    c.require((_vec(a) and _vec(b)) or (_mat(a) and _mat(b)), call, a, b)
    _same(a, b)
    return c.leafwise(fn, a, b)


@builtin("cw_mul", group="Vector Math")
def cw_mul(call: Call, a: Value, b: Value) -> Value:
    """Component-wise product of two vectors or two matrices of the same type."""
    return _componentwise(call, a, b, c.mul)


@builtin("cw_div", group="Vector Math")
def cw_div(call: Call, a: Value, b: Value) -> Value:
    """Component-wise quotient of two vectors or matrices (integers truncate; x / 0 == 0)."""
    xla = c.xla_target(call)
    if scalars.is_float(c.scalar_type(a)):
        return _componentwise(call, a, b, lambda x, y: _quiet_fdiv(x, y, xla))
    return _componentwise(call, a, b, lambda x, y: c.int_div(x, y, xla))


def _quiet_fdiv(x: Any, y: Any, via_float: bool = False) -> Any:
    with np.errstate(divide="ignore", invalid="ignore"):
        return c.fdiv(x, y, via_float)


# -- lengths -----------------------------------------------------------------------------------------


@builtin("length_sq", group="Vector Math")
def length_sq(call: Call, a: Value) -> Value:
    """Squared length of a vector (any numeric type) or of a float quaternion."""
    c.require(_vec(a) or _float_quat(a), call, a)
    leaves = leaves_of(a)
    return Value(c.scalar_type(a), sum_products(leaves, leaves))


@builtin("length", group="Vector Math")
def length(call: Call, a: Value) -> Value:
    """Euclidean length of a float vector or quaternion."""
    c.require(_float_vec(a) or _float_quat(a), call, a)
    leaves = leaves_of(a)
    # the derivative is Warp's rule (adjoints.py overrides "length"), so no guard is needed here;
    # div_sqrt keeps XLA from turning ``v / length(v)`` into an approximate rsqrt
    return Value(c.scalar_type(a), div_sqrt(sum_products(leaves, leaves)))


@builtin("normalize", group="Vector Math")
def normalize(call: Call, a: Value) -> Value:
    """``a / length(a)``; zero vector (identity quaternion) when the length is not > 0."""
    c.require(_float_vec(a) or _float_quat(a), call, a)
    leaves = leaves_of(a)
    d = sum_products(leaves, leaves)
    is_quat = c.is_quat(a)
    zero, one = typed(d, 0), typed(d, 1)
    fallback = [zero, zero, zero, one] if is_quat else [zero] * len(leaves)
    if xp(d) is np:
        if not d > 0:
            return value_from_leaves(a.type, fallback)
        norm = np.sqrt(d)
        if is_quat:
            inv = one / norm
            return value_from_leaves(a.type, [x * inv for x in leaves])
        return value_from_leaves(a.type, [x / norm for x in leaves])
    positive = d > 0
    norm = div_sqrt(where(positive, d, one))
    if is_quat:
        inv = c.fdiv(one, norm)
        scaled = [c.mul(x, inv) for x in leaves]
    else:
        scaled = [c.fdiv(x, norm) for x in leaves]
    return value_from_leaves(a.type, [where(positive, s, f) for s, f in zip(scaled, fallback)])


def _arg_extremum(call: Call, a: Value, better) -> Value:
    c.require(_vec(a), call, a)
    leaves = leaves_of(a)
    is_float = scalars.is_float(c.scalar_type(a))
    if all(is_const(x) for x in leaves):
        best = None
        for i, x in enumerate(leaves):
            if is_float and np.isnan(x):
                continue
            if best is None or better(x, leaves[best]):
                best = i
        return Value(scalars.uint32, np.uint32(best or 0))
    leaves = [jnp.asarray(x) for x in leaves]
    index = jnp.zeros(jnp.shape(leaves[0]), jnp.uint32)
    value = leaves[0]
    found = ~jnp.isnan(value) if is_float else None
    for i, x in enumerate(leaves[1:], start=1):
        if is_float:
            valid = ~jnp.isnan(x)
            take = valid & (~found | better(x, value))
            found = found | valid
        else:
            take = better(x, value)
        index = where(take, np.uint32(i), index)
        value = where(take, x, value)
    return Value(scalars.uint32, index)


@builtin("argmax", group="Vector Math")
def argmax(call: Call, a: Value) -> Value:
    """Index (uint32) of the largest component, skipping NaNs (all-NaN gives 0)."""
    return _arg_extremum(call, a, lambda x, y: x > y)


@builtin("argmin", group="Vector Math")
def argmin(call: Call, a: Value) -> Value:
    """Index (uint32) of the smallest component, skipping NaNs (all-NaN gives 0)."""
    return _arg_extremum(call, a, lambda x, y: x < y)


# -- matrices ----------------------------------------------------------------------------------------


@builtin("transpose", group="Vector Math")
def transpose(call: Call, a: Value) -> Value:
    """Transpose of a matrix."""
    c.require(_mat(a), call, a)
    rows, cols = a.type._shape_
    flat = leaves_of(a)
    out = [flat[i * cols + j] for j in range(cols) for i in range(rows)]
    return value_from_leaves(composites.matrix((cols, rows), c.scalar_type(a)), out)


@builtin("trace", group="Vector Math")
def trace(call: Call, a: Value) -> Value:
    """Sum of the diagonal of a square matrix."""
    c.require(_mat(a), call, a)
    n = _square(call, a, "Matrix shape is {shape}. Cannot find the trace of non square matrices")
    flat = leaves_of(a)
    total = flat[0]
    for i in range(1, n):
        total = c.add(total, flat[i * n + i])
    return Value(c.scalar_type(a), total)


@builtin("diag", group="Vector Math")
def diag(call: Call, vec: Value) -> Value:
    """Square matrix with the components of ``vec`` on its diagonal."""
    c.require(_vec(vec), call, vec)
    leaves = leaves_of(vec)
    n = len(leaves)
    zero = c.constant(c.scalar_type(vec), 0)
    out = [leaves[i] if i == j else zero for i in range(n) for j in range(n)]
    return value_from_leaves(composites.matrix((n, n), c.scalar_type(vec)), out)


@builtin("get_diag", group="Vector Math")
def get_diag(call: Call, mat: Value) -> Value:
    """The diagonal of a square matrix, as a vector."""
    c.require(_mat(mat), call, mat)
    n = _square(call, mat, "Matrix shape is {shape}; get_diag is only available for square matrices.")
    flat = leaves_of(mat)
    return value_from_leaves(composites.vector(n, c.scalar_type(mat)), [flat[i * n + i] for i in range(n)])


def _static_value(v: Value) -> Any:
    if v.type is STATIC:
        return v.data
    if c.is_scalar(v) and is_const(v.data):
        return v.data.item()
    return None


@builtin("identity", group="Vector Math")
def identity(call: Call, n: Value | None = None, dtype: Value | None = None) -> Value:
    """``identity(n, dtype)``: the n x n identity matrix; both arguments are compile-time values."""
    args = [x for x in (n, dtype) if x is not None]
    if n is None or dtype is None:
        raise call.no_overload(*args)
    size = _static_value(n)
    scalar = resolve_annotation(dtype.data) if dtype.type is STATIC else None
    if not isinstance(size, (int, np.integer)) or isinstance(size, bool):
        if c.is_int_scalar(n):
            raise RuntimeError("'n' must be a constant when calling identity()")
        raise call.no_overload(*args)
    if not scalars.is_scalar_type(scalar) or scalar._kind not in "fiu":
        raise call.no_overload(*args)
    if size < 1:
        raise ValueError(f"wp.identity(): n must be at least 1, got {size}")
    size = int(size)
    one, zero = c.constant(scalar, 1), c.constant(scalar, 0)
    out = [one if i == j else zero for i in range(size) for j in range(size)]
    return value_from_leaves(composites.matrix((size, size), scalar), out)


def _matrix_from_vectors(call: Call, args: tuple[Value, ...], cols: bool) -> Value:
    if not args:
        raise call.no_overload()
    if not all(_vec(a) for a in args):
        raise RuntimeError("all arguments are expected to be vectors")
    n = args[0].type._length_
    if any(a.type._length_ != n for a in args):
        raise RuntimeError("all vectors are expected to have the same length")
    scalar = c.scalar_type(args[0])
    if any(c.scalar_type(a) is not scalar for a in args):
        raise RuntimeError("all vectors are expected to have the same dtype")
    vecs = [leaves_of(a) for a in args]
    k = len(vecs)
    if cols:
        out = [vecs[j][i] for i in range(n) for j in range(k)]
        return value_from_leaves(composites.matrix((n, k), scalar), out)
    return value_from_leaves(composites.matrix((k, n), scalar), [x for v in vecs for x in v])


@builtin("matrix_from_cols", group="Vector Math")
def matrix_from_cols(call: Call, *args: Value) -> Value:
    """Matrix whose columns are the given vectors (same length and dtype)."""
    return _matrix_from_vectors(call, args, cols=True)


@builtin("matrix_from_rows", group="Vector Math")
def matrix_from_rows(call: Call, *args: Value) -> Value:
    """Matrix whose rows are the given vectors (same length and dtype)."""
    return _matrix_from_vectors(call, args, cols=False)


# -- norms (``wp.func`` in Warp's warp/_src/math.py, typed for float32) -------------------------------


def _float32_vector(call: Call, v: Value, *rest: Value) -> None:
    c.require(c.is_vector(v) or c.is_quat(v), call, v, *rest)
    if c.scalar_type(v) is not scalars.float32:
        raise RuntimeError(f"Input types must be the same, got ['float32', '{type_name(c.scalar_type(v))}']")


def _delta(call: Call, v: Value, delta: Value | None) -> Any:
    if delta is None:
        return c.constant(scalars.float32, 1.0)
    if delta.type is not scalars.float32:
        raise call.no_overload(v, delta)
    return delta.data


@builtin("norm_l1", group="Vector Math")
def norm_l1(call: Call, v: Value) -> Value:
    """L1 norm: sum of the absolute values of the components (float32)."""
    _float32_vector(call, v)
    total = c.constant(scalars.float32, 0.0)
    for x in leaves_of(v):
        total = c.add(total, xp(x).abs(x))
    return Value(scalars.float32, total)


@builtin("norm_l2", group="Vector Math")
def norm_l2(call: Call, v: Value) -> Value:
    """L2 norm: ``length(v)``."""
    c.require(_float_vec(v) or _float_quat(v), call, v)
    return length.impl(call, v)


def _squared(call: Call, v: Value, delta: Value | None) -> tuple[Any, Any]:
    d = _delta(call, v, delta)
    _float32_vector(call, v, *([delta] if delta is not None else []))
    leaves = leaves_of(v)
    return sum_products(leaves, leaves), d


def _pseudo_huber(a: Any, d: Any) -> Any:
    one = typed(a, 1.0)
    return c.mul(d, xp(a, d).sqrt(c.add(one, c.fdiv(a, c.mul(d, d)))))


@builtin("norm_huber", group="Vector Math")
def norm_huber(call: Call, v: Value, delta: Value | None = None) -> Value:
    """Huber norm: ``|v|^2 / 2`` where ``|v| <= delta``, else ``delta * (|v| - delta / 2)``."""
    a, d = _squared(call, v, delta)
    half = typed(a, 0.5)
    inner = c.mul(half, a)
    outer_ = c.mul(d, c.sub(safe_sqrt(a), c.mul(half, d)))
    return Value(scalars.float32, c.where(a <= c.mul(d, d), inner, outer_))


@builtin("norm_pseudo_huber", group="Vector Math")
def norm_pseudo_huber(call: Call, v: Value, delta: Value | None = None) -> Value:
    """Pseudo-Huber norm: ``delta * sqrt(1 + |v|^2 / delta^2)``."""
    a, d = _squared(call, v, delta)
    return Value(scalars.float32, _pseudo_huber(a, d))


@builtin("smooth_normalize", group="Vector Math")
def smooth_normalize(call: Call, v: Value, delta: Value | None = None) -> Value:
    """``v / norm_pseudo_huber(v, delta)``."""
    a, d = _squared(call, v, delta)
    norm = _pseudo_huber(a, d)
    return c.broadcast_scalar(c.fdiv, v, norm)


__all__ = ["cross", "dot", "length", "normalize"]
