"""Vector, matrix, quaternion and transformation types (Warp's composite types).

A composite type is a class made once per (kind, shape, scalar type) by the factories
:func:`vector`, :func:`matrix`, :func:`quaternion` and :func:`transformation`. In kernel
annotations it names a dtype; in Python scope its instances are small numpy-backed values
that index, iterate and do arithmetic like Warp's.

Inside kernels the compiler keeps composite values as flat tuples of scalar lanes
(structure of arrays, row-major for matrices); this module only describes the types.

Example:
    >>> import jwarp as wp
    >>> v = wp.vec3(1.0, 2.0, 3.0)
    >>> v.y, len(v), v * 2.0
    (2.0, 3, vec3f([2.0, 4.0, 6.0]))
    >>> wp.types.matrix(shape=(2, 2), dtype=wp.float64)(1, 2, 3, 4)[1, 0]
    3.0
"""

from __future__ import annotations

import functools
import math
from typing import Any, TypeVar

import numpy as np

from jwarp.lang import scalars
from jwarp.lang.scalars import canonical_scalar


class composite_base:
    """Base of every composite instance; ``_v`` holds the components (numpy, shape ``_shape_``)."""

    _shape_: tuple[int, ...] = ()
    _length_: int = 0
    _wp_scalar_type_: type = scalars.float32
    _wp_type_kind_: str = "vector"
    _wp_generic_type_str_: str = "vec_t"
    _wp_generic_: bool = False

    __slots__ = ("_v",)

    def __init__(self, *args: Any):
        if self._wp_generic_:
            raise TypeError(f"Cannot create an instance of the generic type {type(self).__name__}")
        dtype = self._wp_scalar_type_._np_dtype
        n = self._length_
        if len(args) == 0:
            flat = np.zeros(n, dtype)
        elif len(args) == 1:
            a = args[0]
            if isinstance(a, composite_base) or hasattr(a, "__len__") or isinstance(a, np.ndarray):
                arr = np.asarray(a._v if isinstance(a, composite_base) else a)
                if arr.size == 1 and n != 1:
                    flat = np.full(n, arr.reshape(()), dtype)
                elif arr.size != n:
                    raise ValueError(
                        f"Invalid number of arguments in {type(self).__name__} constructor, "
                        f"expected {n} elements, got {arr.size}"
                    )
                else:
                    flat = arr.reshape(-1).astype(dtype)
            else:
                flat = np.full(n, _scalar_value(a), dtype)
        elif len(args) == n:
            flat = np.array([_scalar_value(a) for a in args]).astype(dtype)
        elif self._wp_type_kind_ == "matrix" and len(args) == self._shape_[0]:
            if any(isinstance(a, composite_base) and a._wp_type_kind_ == "vector" for a in args):
                raise TypeError(
                    "Passing vectors to `wp.matrix()` isn't supported, use `wp.matrix_from_rows()` or "
                    "`wp.matrix_from_cols()` instead."
                )
            flat = np.array([[_scalar_value(x) for x in row] for row in args]).reshape(-1).astype(dtype)
        elif self._wp_type_kind_ == "transformation" and len(args) == 2:
            flat = np.concatenate([np.asarray(args[0], dtype).reshape(3), np.asarray(args[1], dtype).reshape(4)])
        else:
            raise ValueError(
                f"Invalid number of arguments in {type(self).__name__} constructor, expected {n} elements, "
                f"got {len(args)}"
            )
        self._v = flat.reshape(self._shape_)

    # -- sequence protocol -------------------------------------------------------------------
    def __len__(self) -> int:
        return self._shape_[0]

    def __getitem__(self, key: Any) -> Any:
        out = self._v[key]
        if isinstance(out, np.ndarray):  # a row, column or slice: a vector or matrix, as in Warp
            if out.ndim == 1:
                return vector(out.shape[0], self._wp_scalar_type_)(out.copy())
            if out.ndim == 2 and 0 not in out.shape:
                return matrix(out.shape, self._wp_scalar_type_)(out.copy())
            return out.copy()
        return out.item()

    def __setitem__(self, key: Any, value: Any) -> None:
        self._v[key] = np.asarray(value._v if isinstance(value, composite_base) else _scalar_value(value))

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._v.astype(dtype) if dtype is not None else self._v.copy()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._v.tolist()})"

    def __str__(self) -> str:
        if self._v.ndim == 2:  # Warp prints one matrix row per line
            return "[" + ",\n ".join(str(row) for row in self._v.tolist()) + "]"
        return str(self._v.tolist())

    def __eq__(self, other: object) -> bool:
        try:
            return bool(np.array_equal(self._v, np.asarray(other).reshape(self._shape_)))
        except (ValueError, TypeError):
            return False

    def __hash__(self) -> int:
        return hash(self._v.tobytes())

    # -- arithmetic (Python scope) -------------------------------------------------------------
    def _wrap(self, result: np.ndarray):
        return type(self)(result.astype(self._wp_scalar_type_._np_dtype))

    @staticmethod
    def _operand(x: Any) -> Any:
        if isinstance(x, composite_base):
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
        if isinstance(y, composite_base):
            product = _PRODUCTS.get((self._wp_type_kind_, y._wp_type_kind_))
            if product is not None:
                return type(self)(product(self._v, y._v))
            return self.__matmul__(y)
        return self._wrap(self._v * self._operand(y))

    def __rmul__(self, x):
        if isinstance(x, composite_base):
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
        if kind == "matrix":
            return matrix(result.shape, self._wp_scalar_type_)(result)
        return vector(result.shape[0], self._wp_scalar_type_)(result)

    def __rmatmul__(self, x):
        return vector(self._shape_[-1], self._wp_scalar_type_)(np.asarray(x) @ self._v)


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


def _scalar_value(x: Any) -> Any:
    if isinstance(x, scalars.scalar_base):
        return x.value
    if isinstance(x, np.ndarray) and x.size == 1:
        return x.reshape(()).item()
    return x


_COMPONENT_NAMES = {"x": 0, "y": 1, "z": 2, "w": 3}


class _vector_instance(composite_base):
    """Vectors and quaternions: components read and written as ``.x .y .z .w``; other attribute
    names may be set freely (as on Warp's vectors), except swizzles (``v.xy = ...``), which Warp
    does not have."""

    __slots__ = ("__dict__",)

    def __getattr__(self, name: str) -> Any:
        index = _COMPONENT_NAMES.get(name)
        if index is None or index >= self._length_:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return self._v[index].item()

    def __setattr__(self, name: str, value: Any) -> None:
        index = _COMPONENT_NAMES.get(name)
        if index is not None and index < self._length_:
            self._v[index] = _scalar_value(value)
        elif name and all(ch in _COMPONENT_NAMES for ch in name):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        else:
            super().__setattr__(name, value)


class _matrix_instance(composite_base):
    """Matrices in Python scope: ``m[i, j]``, ``m[i]`` (a row vector), and Warp's row/column
    accessors ``get_row``/``set_row``/``get_col``/``set_col``."""

    __slots__ = ()

    def get_row(self, r: int) -> Any:
        return vector(self._shape_[1], self._wp_scalar_type_)(self._v[r].copy())

    def set_row(self, r: int, value: Any) -> None:
        self._v[r] = np.asarray(value._v if isinstance(value, composite_base) else value)

    def get_col(self, c: int) -> Any:
        return vector(self._shape_[0], self._wp_scalar_type_)(self._v[:, c].copy())

    def set_col(self, c: int, value: Any) -> None:
        self._v[:, c] = np.asarray(value._v if isinstance(value, composite_base) else value)


_IDENTITY_Q = (0.0, 0.0, 0.0, 1.0)


def _is_sequence(x: Any) -> bool:
    return isinstance(x, (composite_base, np.ndarray, list, tuple))


def _is_fill_scalar(x: Any) -> bool:
    return isinstance(x, (int, float, bool, np.number, np.bool_, scalars.scalar_base))


def _transform_part(name: str, x: Any, n: int) -> np.ndarray:
    if not _is_sequence(x):
        raise TypeError(
            f"Invalid argument '{name}' in transformation constructor: expected a sequence, got {type(x).__name__}"
        )
    part = np.asarray(x._v if isinstance(x, composite_base) else [_scalar_value(c) for c in x], np.float64)
    if part.size != n:
        raise ValueError(f"Invalid argument '{name}' in transformation constructor: expected {n} elements, "
                         f"got {part.size}")
    return part.reshape(n)


class _transform_instance(composite_base):
    """Rigid transforms (p: vec3, q: quat) in Python scope, constructed as Warp's are:
    ``transform()`` (identity), ``transform(1.5)`` (fill), seven components, ``transform(p)``
    (identity rotation), ``transform(p, q)``, ``transform(p=..., q=...)``, or a copy of another
    transform (any scalar type). ``t.p`` and ``t.q`` read and write the two parts."""

    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any):
        for name in kwargs:
            if name not in ("p", "q"):
                raise TypeError(f"got an unexpected keyword argument '{name}'")
            if len(args) == 7 or len(args) > ("p", "q").index(name):
                raise TypeError(f"multiple values for argument '{name}'")
        p, q = kwargs.get("p"), kwargs.get("q")
        if self._wp_generic_ or len(args) == 7:
            super().__init__(*args)
            return
        if p is None and q is None and len(args) == 1 and not _is_sequence(args[0]):
            if not _is_fill_scalar(args[0]):
                raise TypeError("Invalid argument in transformation constructor: expected a scalar value, got "
                                f"{type(args[0]).__name__}")
            super().__init__(args[0])
            return
        if p is None and q is None and len(args) == 1 and np.size(_as_array(args[0])) == 7:
            super().__init__(_as_array(args[0]))
            return
        if len(args) > 2:
            raise ValueError(f"Invalid number of arguments in {type(self).__name__} constructor, expected 0, 1, 2 "
                             f"or 7, got {len(args)}")
        parts = list(args) + [None] * (2 - len(args))
        p = parts[0] if p is None else p
        q = parts[1] if q is None else q
        flat = np.concatenate([
            np.zeros(3) if p is None else _transform_part("p", p, 3),
            np.asarray(_IDENTITY_Q) if q is None else _transform_part("q", q, 4),
        ])
        super().__init__(flat)

    @property
    def p(self):
        return vector(3, self._wp_scalar_type_)(self._v[:3])

    @p.setter
    def p(self, value: Any) -> None:
        self._v[:3] = _transform_part("p", value, 3)

    @property
    def q(self):
        return quaternion(self._wp_scalar_type_)(self._v[3:])

    @q.setter
    def q(self, value: Any) -> None:
        self._v[3:] = _transform_part("q", value, 4)


def _as_array(x: Any) -> np.ndarray:
    return np.asarray(x._v if isinstance(x, composite_base) else x)


_SUFFIX = {
    "float16": "h",
    "bfloat16": "bf",
    "float32": "f",
    "float64": "d",
    "int8": "b",
    "uint8": "ub",
    "int16": "s",
    "uint16": "us",
    "int32": "i",
    "uint32": "ui",
    "int64": "l",
    "uint64": "ul",
    "bool": "bool",
}


def _is_generic_scalar(dtype: Any) -> bool:
    return dtype is Any or isinstance(dtype, TypeVar)


def _resolve_dtype(dtype: Any) -> Any:
    """Canonical scalar class of ``dtype``; ``Any`` and the TypeVars (``wp.Float`` ...) stay generic."""
    if _is_generic_scalar(dtype):
        return dtype
    scalar = canonical_scalar(dtype)
    if scalar is None:
        raise TypeError(f"Invalid scalar type {dtype!r} for a composite type")
    return scalar


def _resolve_dim(n: Any, what: str) -> int:
    """A composite dimension: a positive int, or 0 for ``Any`` (a generic dimension, as in Warp)."""
    if n is Any:
        return 0
    try:
        value = int(n)
    except (TypeError, ValueError):
        raise TypeError(f"Invalid {what} {n!r} for a composite type: expected an int or typing.Any") from None
    if value <= 0:
        raise TypeError(f"Invalid {what} {n!r} for a composite type: expected a positive int")
    return value


_KIND_NAMES = {
    "vector": ("vec_t", "vector", _vector_instance),
    "matrix": ("mat_t", "matrix", _matrix_instance),
    "quaternion": ("quat_t", "quaternion", _vector_instance),
    "transformation": ("transform_t", "transformation", _transform_instance),
}


def _type_args(kind: str, shape: tuple[int, ...], scalar: Any) -> dict[str, Any]:
    dims = tuple(Any if d == 0 else d for d in shape)
    if kind == "vector":
        return {"length": dims[0], "dtype": scalar}
    if kind == "matrix":
        return {"shape": dims, "dtype": scalar}
    return {"dtype": scalar}


def _type_name(kind: str, shape: tuple[int, ...], scalar: Any, generic: bool) -> str:
    if generic:  # e.g. "vector(length=Any, dtype=Float)", "matrix(shape=(Any, Any), dtype=float32)"

        def show(x: Any) -> str:
            if isinstance(x, tuple):
                return "(" + ", ".join(show(d) for d in x) + ")"
            return "Any" if x is Any else getattr(x, "__name__", str(x))

        args = ", ".join(f"{k}={show(v)}" for k, v in _type_args(kind, shape, scalar).items())
        return f"{_KIND_NAMES[kind][1]}({args})"
    suffix = _SUFFIX[scalar.__name__]
    if kind == "vector":
        return f"vec{shape[0]}{suffix}"
    if kind == "matrix":
        return f"mat{shape[0]}{shape[1]}{suffix}"
    return ("quat" if kind == "quaternion" else "transform") + suffix


@functools.lru_cache(maxsize=None)
def _make_composite(kind: str, shape: tuple[int, ...], scalar: Any, empty: bool = False) -> type:
    """``empty``: a 0 in ``shape`` is a real zero length (Warp's empty vector, the value of an empty
    slice), not a generic (``Any``) dimension."""
    generic = (0 in shape and not empty) or _is_generic_scalar(scalar)
    generic_str, constructor, base = _KIND_NAMES[kind]
    type_args = _type_args(kind, shape, scalar)
    attrs = {
        "_shape_": shape,
        "_length_": 0 if 0 in shape else math.prod(shape),
        "_wp_scalar_type_": scalar,
        "_type_": getattr(scalar, "_type_", None),  # the scalar's ctypes type (generic composites: None)
        "_wp_type_kind_": kind,
        "_wp_generic_type_str_": generic_str,
        "_wp_constructor_": constructor,
        "_wp_type_args_": type_args,
        "_wp_type_params_": tuple(type_args["shape"]) + (scalar,) if kind == "matrix" else tuple(type_args.values()),
        "_wp_generic_": generic,
        "_wp_empty_": empty,
        "__slots__": (),
        "__module__": "jwarp.types",
    }
    if kind == "matrix":
        attrs["_wp_row_type_"] = _make_composite("vector", (shape[1],), scalar)
        attrs["_wp_col_type_"] = _make_composite("vector", (shape[0],), scalar)
    return type(_type_name(kind, shape, scalar, generic), (base,), attrs)


def vector(length: Any, dtype: Any = float) -> type:
    """The vector type of ``length`` components of scalar ``dtype`` (``wp.types.vector``).

    ``length=typing.Any`` or a generic ``dtype`` (``typing.Any``, ``wp.Float``, ``wp.Int``,
    ``wp.Scalar``) make a generic type, usable only as an annotation:

        >>> import jwarp as wp
        >>> from typing import Any, TypeVar
        >>> wp.types.vector(length=Any, dtype=wp.Float)
        <class 'jwarp.types.vector(length=Any, dtype=Float)'>
    """
    if not isinstance(length, bool) and isinstance(length, (int, np.integer)) and length == 0:  # Warp's empty vector
        return _make_composite("vector", (0,), _resolve_dtype(dtype), empty=True)
    return _make_composite("vector", (_resolve_dim(length, "vector length"),), _resolve_dtype(dtype))


def matrix(shape: tuple[Any, Any], dtype: Any = float) -> type:
    """The matrix type of ``shape`` (rows, cols) with scalar ``dtype`` (``wp.types.matrix``);
    ``typing.Any`` dimensions or dtype make a generic annotation type."""
    if len(shape) != 2:
        label = "dimension" if len(shape) == 1 else "dimensions"
        raise ValueError(
            f"Matrix shape must have exactly two dimensions, got {len(shape)} {label} in shape {tuple(shape)!r}"
        )
    dims = (_resolve_dim(shape[0], "matrix rows"), _resolve_dim(shape[1], "matrix cols"))
    if 0 in dims:
        dims = (0, 0)  # as Warp: one generic dimension makes the whole shape generic
    return _make_composite("matrix", dims, _resolve_dtype(dtype))


def quaternion(dtype: Any = Any) -> type:
    """The quaternion type (x, y, z, w) with scalar ``dtype``."""
    return _make_composite("quaternion", (4,), _resolve_dtype(dtype))


def transformation(dtype: Any = Any) -> type:
    """The rigid transform type (p: vec3, q: quat; 7 components) with scalar ``dtype``."""
    return _make_composite("transformation", (7,), _resolve_dtype(dtype))


def is_generic_composite(t: Any) -> bool:
    """A composite annotation with a generic dimension or dtype (``vector(Any, wp.Float)``)."""
    return isinstance(t, type) and issubclass(t, composite_base) and getattr(t, "_wp_generic_", False)


def scalar_matches_template(template: Any, scalar: Any) -> bool:
    """Whether a concrete scalar type matches a (possibly generic) scalar template."""
    if template is Any:
        return True
    if isinstance(template, TypeVar):
        allowed = tuple(canonical_scalar(c) for c in template.__constraints__)
        return not allowed or scalar in allowed
    return canonical_scalar(template) is scalar


def matches_template(template: type, t: Any) -> bool:
    """Whether concrete composite ``t`` matches generic composite ``template`` (Warp's rule: same
    number of axes, equal non-generic dimensions, scalar type accepted by the template's dtype)."""
    if not is_composite(t):
        return False
    if len(template._shape_) != len(t._shape_):
        return False
    generic_dims = not template._wp_empty_
    if any((d != 0 or not generic_dims) and d != n for d, n in zip(template._shape_, t._shape_)):
        return False
    return scalar_matches_template(template._wp_scalar_type_, t._wp_scalar_type_)


def is_composite(t: Any) -> bool:
    """A concrete composite type (generic annotation types excluded)."""
    return (
        isinstance(t, type)
        and issubclass(t, composite_base)
        and t is not composite_base
        and not t._wp_generic_
    )


def is_vector_like(t: Any) -> bool:
    """Vectors, quaternions and transforms: one index axis."""
    return is_composite(t) and t._wp_type_kind_ != "matrix"


def is_vector(t: Any) -> bool:
    return is_composite(t) and t._wp_type_kind_ == "vector"


def is_matrix(t: Any) -> bool:
    return is_composite(t) and t._wp_type_kind_ == "matrix"


def is_quaternion(t: Any) -> bool:
    return is_composite(t) and t._wp_type_kind_ == "quaternion"


def is_transformation(t: Any) -> bool:
    return is_composite(t) and t._wp_type_kind_ == "transformation"


def with_scalar(t: type, scalar: type) -> type:
    """The same kind and shape of composite as ``t``, over another scalar type."""
    return _make_composite(t._wp_type_kind_, t._shape_, scalar, t._wp_empty_)


# -- the named aliases Warp exports ----------------------------------------------------------------
def _aliases() -> dict[str, type]:
    out: dict[str, type] = {}
    for scalar in scalars.scalar_types:
        if scalar is scalars.bfloat16:
            continue  # Warp exports no bfloat16 composite aliases
        suffix = _SUFFIX[scalar.__name__]
        for n in (2, 3, 4):
            out[f"vec{n}{suffix}"] = vector(n, scalar)
        if scalar in scalars.float_types:
            for n in (2, 3, 4):
                out[f"mat{n}{n}{suffix}"] = matrix((n, n), scalar)
            out[f"quat{suffix}"] = quaternion(scalar)
            out[f"transform{suffix}"] = transformation(scalar)
            out[f"spatial_vector{suffix}"] = vector(6, scalar)
            out[f"spatial_matrix{suffix}"] = matrix((6, 6), scalar)
    for n in (2, 3, 4):
        out[f"vec{n}"] = out[f"vec{n}f"]
        out[f"mat{n}{n}"] = out[f"mat{n}{n}f"]
    out["quat"] = out["quatf"]
    out["transform"] = out["transformf"]
    out["spatial_vector"] = out["spatial_vectorf"]
    out["spatial_matrix"] = out["spatial_matrixf"]
    return out


ALIASES = _aliases()
globals().update(ALIASES)
