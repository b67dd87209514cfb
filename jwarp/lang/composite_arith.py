"""Python-scope arithmetic of composite values (``v + w``, ``2.0 * v``, ``m @ v``, ``q * q``, ``t * t``).

Results have the left operand's canonical type (``wp.vec3f`` for a ``wp.types.vector(3, float)``
or a user subclass of it, as Warp); ``%`` is C's ``fmod`` (the sign follows the dividend), as in
Warp; quaternion and transform products are Hamilton and rigid-transform composition.

Example:
    >>> import jwarp as wp
    >>> wp.vec2(1.0, 2.0) * 3.0
    vec2f([3.0, 6.0])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jwarp.lang import scalars


class CompositeArithmetic:
    """Operators of composite values; subclasses provide ``_v`` (the components), the type
    attributes and ``_composite_of(kind, shape, scalar)`` (a composite type for a result)."""

    __slots__ = ()

    @staticmethod
    def _composite_of(kind: str, shape: tuple, scalar: Any) -> type:
        raise NotImplementedError

    @classmethod
    def _canonical_type(cls) -> type:
        raise NotImplementedError

    def _wrap(self, result: np.ndarray):
        return self._canonical_type()(result.astype(self._wp_scalar_type_._np_dtype))

    @staticmethod
    def _operand(x: Any) -> Any:
        if isinstance(x, CompositeArithmetic):
            return x._v
        if isinstance(x, scalars.scalar_base):
            return x.value
        return x

    def _check(self, other: Any, name: str, reverse: bool = False) -> None:
        """Warp's Python-scope operand rule: both sides have one scalar type (a Python ``float``
        is ``float32``, an ``int`` is ``int32``); lists, tuples and numpy arrays are refused."""
        mine = self._wp_scalar_type_
        if isinstance(other, CompositeArithmetic):
            vec_vec = name == "mul" and self._wp_type_kind_ == other._wp_type_kind_ == "vector"
            if other._wp_scalar_type_ is not mine or vec_vec:
                names = (type(other).__name__, type(self).__name__) if reverse else \
                    (type(self).__name__, type(other).__name__)
                raise RuntimeError(f"Couldn't find a function '{name}' compatible with the arguments '{', '.join(names)}'")
            return
        if isinstance(other, (list, tuple, np.ndarray)):
            raise TypeError(
                "Built-in functions cannot be called with non-Warp array types, such as lists, tuples, and NumPy "
                "arrays. Use a Warp type such as `wp.vec`, `wp.mat`, `wp.quat`, or `wp.transform`."
            )
        from jwarp.lang.scalar_arith import _operand_type

        t, other_name = _operand_type(other)
        if t is None or t is mine:
            return
        if isinstance(other, np.generic):
            own_name = type(self).__name__
        else:
            own_name = {scalars.float32: "float", scalars.int32: "int"}.get(mine, getattr(mine, "__name__", str(mine)))
        names = (other_name, own_name) if reverse else (own_name, other_name)
        raise RuntimeError(f"Couldn't find a function '{name}' compatible with the arguments '{', '.join(names)}'")

    def __add__(self, y):
        self._check(y, "add")
        return self._wrap(self._v + self._operand(y))

    def __radd__(self, x):
        self._check(x, "add", reverse=True)
        return self._wrap(self._operand(x) + self._v)

    def __sub__(self, y):
        self._check(y, "sub")
        return self._wrap(self._v - self._operand(y))

    def __rsub__(self, y):
        self._check(y, "sub", reverse=True)
        return self._wrap(self._operand(y) - self._v)

    def __mul__(self, y):
        self._check(y, "mul")
        if isinstance(y, CompositeArithmetic):
            product = _PRODUCTS.get((self._wp_type_kind_, y._wp_type_kind_))
            if product is not None:
                return self._canonical_type()(product(self._v, y._v))
            return self.__matmul__(y)
        return self._wrap(self._v * self._operand(y))

    def __rmul__(self, x):
        if isinstance(x, CompositeArithmetic):
            return x.__mul__(self)
        self._check(x, "mul", reverse=True)
        return self._wrap(self._operand(x) * self._v)

    def __mod__(self, y):
        self._check(y, "mod")
        with np.errstate(all="ignore"):  # C's fmod: the sign follows the dividend
            return self._wrap(np.fmod(self._v, self._operand(y)))

    def __rmod__(self, x):
        self._check(x, "mod", reverse=True)
        with np.errstate(all="ignore"):
            return self._wrap(np.fmod(self._operand(x), self._v))

    def __truediv__(self, y):
        self._check(y, "div")
        return self._wrap(self._v / self._operand(y))

    def __rtruediv__(self, x):
        self._check(x, "div", reverse=True)
        return self._wrap(self._operand(x) / self._v)

    def __neg__(self):
        return self._wrap(-self._v)

    def __pos__(self):
        return self

    def __matmul__(self, y):
        if isinstance(y, CompositeArithmetic):
            self._check(y, "mul")
        result = self._v @ self._operand(y)
        if np.ndim(result) == 0:
            return result.item()
        kind = "matrix" if np.ndim(result) == 2 else "vector"
        return self._composite_of(kind, result.shape, self._wp_scalar_type_)(result)

    def __rmatmul__(self, x):
        return self._composite_of("vector", (self._shape_[-1],), self._wp_scalar_type_)(np.asarray(x) @ self._v)


def _quat_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product of (x, y, z, w) quaternions."""
    av, aw, bv, bw = a[:3], a[3], b[:3], b[3]
    return np.concatenate([aw * bv + bw * av + np.cross(av, bv), [aw * bw - av @ bv]]).astype(a.dtype)


def _quat_rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Warp's ``quat_rotate`` formula (also for a non-unit ``q``): v(2w^2-1) + 2w(q_v x v) + 2q_v(q_v.v)."""
    qv, w = q[:3], q[3]
    return (v * (2 * w * w - 1) + np.cross(qv, v) * w * 2 + qv * (qv @ v) * 2).astype(q.dtype)


def _transform_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a * b`` of (p, q) transforms: apply ``b`` then ``a``."""
    p = a[:3] + _quat_rotate(a[3:], b[:3])
    return np.concatenate([p, _quat_product(a[3:], b[3:])]).astype(a.dtype)


# Python-scope products of two composites that are not matrix products
_PRODUCTS = {("quaternion", "quaternion"): _quat_product, ("transformation", "transformation"): _transform_product}
