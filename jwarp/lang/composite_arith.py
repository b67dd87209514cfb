"""Python-scope arithmetic of composite values (``v + w``, ``2.0 * v``, ``m @ v``, ``q * q``, ``t * t``).

Results keep the left operand's type; ``%`` is C's ``fmod`` (the sign follows the dividend), as in
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

    def _wrap(self, result: np.ndarray):
        return type(self)(result.astype(self._wp_scalar_type_._np_dtype))

    @staticmethod
    def _operand(x: Any) -> Any:
        if isinstance(x, CompositeArithmetic):
            return x._v
        if isinstance(x, scalars.scalar_base):
            return x.value
        return x

    def __add__(self, y):
        return self._wrap(self._v + self._operand(y))

    __radd__ = __add__

    def __sub__(self, y):
        return self._wrap(self._v - self._operand(y))

    def __rsub__(self, y):
        return self._wrap(self._operand(y) - self._v)

    def __mul__(self, y):
        if isinstance(y, CompositeArithmetic):
            product = _PRODUCTS.get((self._wp_type_kind_, y._wp_type_kind_))
            if product is not None:
                return type(self)(product(self._v, y._v))
            return self.__matmul__(y)
        return self._wrap(self._v * self._operand(y))

    def __rmul__(self, x):
        if isinstance(x, CompositeArithmetic):
            return x.__mul__(self)
        return self._wrap(self._operand(x) * self._v)

    def __mod__(self, y):
        with np.errstate(all="ignore"):  # C's fmod: the sign follows the dividend
            return self._wrap(np.fmod(self._v, self._operand(y)))

    def __rmod__(self, x):
        with np.errstate(all="ignore"):
            return self._wrap(np.fmod(self._operand(x), self._v))

    def __truediv__(self, y):
        return self._wrap(self._v / self._operand(y))

    def __rtruediv__(self, x):
        return self._wrap(self._operand(x) / self._v)

    def __neg__(self):
        return self._wrap(-self._v)

    def __pos__(self):
        return self

    def __matmul__(self, y):
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
    conj = np.concatenate([-q[:3], q[3:]])
    return _quat_product(_quat_product(q, np.concatenate([v, [0]]).astype(q.dtype)), conj)[:3]


def _transform_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a * b`` of (p, q) transforms: apply ``b`` then ``a``."""
    p = a[:3] + _quat_rotate(a[3:], b[:3])
    return np.concatenate([p, _quat_product(a[3:], b[3:])]).astype(a.dtype)


# Python-scope products of two composites that are not matrix products
_PRODUCTS = {("quaternion", "quaternion"): _quat_product, ("transformation", "transformation"): _transform_product}
