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
    float64(3.0)
"""

from __future__ import annotations

import ctypes
import functools
import math
from typing import Any, TypeVar

import numpy as np

from jwarp.lang import composite_access as access
from jwarp.lang.composite_arith import CompositeArithmetic
from jwarp.lang import scalars
from jwarp.lang.composite_names import (
    SUFFIX as _SUFFIX,
    is_generic_scalar as _is_generic_scalar,
    resolve_dim as _resolve_dim,
    resolve_scalar as _resolve_dtype,
    type_args as _type_args,
    type_name as _type_name,
    value_type_name as _value_type_name,
)
from jwarp.lang.scalars import canonical_scalar


class composite_base(CompositeArithmetic):
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
                    flat = np.full(n, self._import(arr.reshape(())[()]), dtype)
                elif arr.size != n:
                    raise ValueError(self._count_error(arr.size))
                else:
                    flat = self._import_all(arr.reshape(-1))
            else:
                flat = np.full(n, self._import(a), dtype)
        elif len(args) == n:
            flat = self._import_all(args)
        elif self._wp_type_kind_ == "matrix" and len(args) == self._shape_[0]:
            if any(isinstance(a, composite_base) and a._wp_type_kind_ == "vector" for a in args):
                raise TypeError(
                    "Passing vectors to `wp.matrix()` isn't supported, use `wp.matrix_from_rows()` or "
                    "`wp.matrix_from_cols()` instead."
                )
            cols = self._shape_[1]
            for row in args:
                if not hasattr(row, "__len__") or len(row) != cols:
                    raise TypeError(
                        f"Invalid argument in matrix constructor, expected row of length {cols}, got {row}"
                    )
            flat = self._import_all([x for row in args for x in row])
        elif self._wp_type_kind_ == "transformation" and len(args) == 2:
            flat = np.concatenate([np.asarray(args[0], dtype).reshape(3), np.asarray(args[1], dtype).reshape(4)])
        else:
            raise ValueError(self._count_error(len(args)))
        self._v = flat.reshape(self._shape_)

    def _count_error(self, got: int) -> str:
        constructor = "matrix" if self._wp_type_kind_ == "matrix" else "vector"  # as Warp words it
        return (
            f"Invalid number of arguments in {constructor} constructor, expected {self._length_} elements, "
            f"got {got}"
        )

    def _import(self, x: Any) -> Any:
        """A constructor argument as a component value (integers wrap, as Warp's ctypes storage)."""
        return scalars.to_numpy_scalar(self._wp_scalar_type_, _scalar_value(x))

    def _import_all(self, values: Any) -> np.ndarray:
        return np.array([self._import(x) for x in values], self._wp_scalar_type_._np_dtype)

    # -- sequence protocol (key rules and messages: composite_access) -----------------------
    def __len__(self) -> int:
        return self._shape_[0]

    def _export(self, value: np.generic) -> Any:
        return access.export_scalar(self._wp_scalar_type_, value)

    def _sub_value(self, values: np.ndarray) -> Any:
        """A value read by a slice: a vector (1-d) or a matrix (2-d) of this scalar type."""
        if values.ndim == 2:
            return matrix(values.shape, self._wp_scalar_type_)(values)
        return vector(values.shape[0], self._wp_scalar_type_)(values)

    def __getitem__(self, key: Any) -> Any:
        if self._wp_type_kind_ == "matrix":
            return self._get_matrix_item(access.matrix_key(key))
        access.check_vector_key(key)
        if isinstance(key, slice):
            return self._sub_value(self._v[key])
        return self._export(self._v[access.normalize_index(key, self._length_, "invalid index")])

    def _get_matrix_item(self, key: tuple[Any, ...]) -> Any:
        rows, cols = self._shape_
        if len(key) == 1 and not isinstance(key[0], slice):
            return self.get_row(key[0])
        if len(key) == 2 and not any(isinstance(k, slice) for k in key):
            i = access.normalize_index(key[0], rows, "invalid index")
            return self._export(self._v[i, access.normalize_index(key[1], cols, "invalid index")])
        return self._sub_value(self._v[key])

    def __setitem__(self, key: Any, value: Any) -> None:
        scalar = self._wp_scalar_type_
        if self._wp_type_kind_ == "matrix":
            key = access.matrix_key(key)
            if len(key) == 1 and not isinstance(key[0], slice):
                self.set_row(key[0], value)
                return
            if len(key) == 2 and not any(isinstance(k, slice) for k in key):
                rows, cols = self._shape_
                if not isinstance(value, str) and np.ndim(value) != 0:
                    raise RuntimeError(
                        "The provided value is expected to be a scalar but got an object of shape "
                        f"{np.shape(value)} instead"
                    )
                i = access.normalize_index(key[0], rows, "invalid index")
                self._v[i, access.normalize_index(key[1], cols, "invalid index")] = access.import_scalar(scalar, value)
                return
            target = self._v[key]
            self._v[key] = access.import_sequence(scalar, np.asarray(value).reshape(-1), target.size).reshape(
                target.shape
            )
            return
        access.check_vector_key(key)
        if isinstance(key, slice):
            self._v[key] = access.import_sequence(scalar, value, len(range(*key.indices(self._length_))))
        else:
            self._v[access.normalize_index(key, self._length_, "invalid index")] = access.import_scalar(scalar, value)

    # -- matrix rows and columns (Warp's get_row/set_row/get_col/set_col) --------------------------
    def get_row(self, r: Any) -> Any:
        """Row ``r`` of a matrix as a vector (a copy)."""
        return self._sub_value(self._v[access.normalize_index(r, self._shape_[0], "Invalid row index")])

    def set_row(self, r: Any, value: Any) -> None:
        """Set row ``r`` of a matrix from a sequence of ``cols`` numbers, or fill it with one number."""
        r = access.normalize_index(r, self._shape_[0], "Invalid row index")
        self._v[r] = self._line_values(value, self._shape_[1])

    def get_col(self, c: Any) -> Any:
        """Column ``c`` of a matrix as a vector (a copy)."""
        return self._sub_value(self._v[:, access.normalize_index(c, self._shape_[1], "Invalid column index")])

    def set_col(self, c: Any, value: Any) -> None:
        """Set column ``c`` of a matrix from a sequence of ``rows`` numbers, or fill it with one number."""
        c = access.normalize_index(c, self._shape_[1], "Invalid col index")
        self._v[:, c] = self._line_values(value, self._shape_[0])

    def _line_values(self, value: Any, size: int) -> np.ndarray:
        if isinstance(value, composite_base) and value._wp_type_kind_ != "matrix":
            value = value._v
        if hasattr(value, "__len__") and not isinstance(value, str):
            return access.import_sequence(self._wp_scalar_type_, value, size)
        return np.full(size, access.import_scalar(self._wp_scalar_type_, value))

    @classmethod
    def from_ptr(cls, ptr: int):
        """A value copied from the memory at address ``ptr`` (components stored contiguously)."""
        if not ptr:
            raise RuntimeError("NULL pointer exception")
        dtype = cls._wp_scalar_type_._np_dtype
        raw = (ctypes.c_char * (cls._length_ * dtype.itemsize)).from_address(ptr)
        return cls(np.frombuffer(raw, dtype).copy())

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._v.astype(dtype) if dtype is not None else self._v.copy()

    def __repr__(self) -> str:
        name = _value_type_name(type(self))
        if self._wp_type_kind_ == "matrix":
            return f"{name}({self._v.tolist()})"
        # as Warp: float32/int32 components print as Python numbers, others as boxed scalars
        return f"{name}([{', '.join(repr(x) for x in self)}])"

    def __str__(self) -> str:
        if self._v.ndim == 2:  # Warp prints one matrix row per line
            return "[" + ",\n ".join(str(row) for row in self._v.tolist()) + "]"
        return str(self._v.tolist())

    def __eq__(self, other: object) -> bool:
        """Component-wise equality with another composite or any sequence of the same length (a bool)."""
        if isinstance(other, composite_base):
            return self._shape_ == other._shape_ and bool(np.array_equal(self._v, other._v))
        try:
            if len(other) != len(self):  # type: ignore[arg-type]
                return False
            return all(bool(a == b) for a, b in zip(self, other))  # type: ignore[call-overload]
        except (TypeError, ValueError):
            return False

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self._v.tobytes())

    # -- arithmetic (Python scope): composite_arith ------------------------------------------
    @staticmethod
    def _composite_of(kind: str, shape: tuple, scalar: Any) -> type:
        return vector(shape[0], scalar) if kind == "vector" else matrix(shape, scalar)

    @classmethod
    def _canonical_type(cls) -> type:
        return canonical(cls)


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
        return self._export(self._v[index])

    def __setattr__(self, name: str, value: Any) -> None:
        index = _COMPONENT_NAMES.get(name)
        if index is not None and index < self._length_:
            self._v[index] = access.import_scalar(self._wp_scalar_type_, value)
        elif name and all(ch in _COMPONENT_NAMES for ch in name):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        else:
            super().__setattr__(name, value)


class _matrix_instance(composite_base):
    """Matrices in Python scope: ``m[i, j]``, ``m[i]`` (a row vector), and Warp's row/column
    accessors ``get_row``/``set_row``/``get_col``/``set_col``; other attribute names may be set
    freely, as on Warp's matrices."""

    __slots__ = ("__dict__",)


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
    transform (any scalar type). ``t.p`` and ``t.q`` read and write the two parts; other attribute
    names may be set freely, as on Warp's transforms."""

    __slots__ = ("__dict__",)

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


_KIND_NAMES = {
    "vector": ("vec_t", "vector", _vector_instance),
    "matrix": ("mat_t", "matrix", _matrix_instance),
    "quaternion": ("quat_t", "quaternion", _vector_instance),
    "transformation": ("transform_t", "transformation", _transform_instance),
}


def _make_composite(kind: str, shape: tuple[int, ...], scalar: Any, empty: bool = False) -> type:
    """The one class of (kind, shape, scalar, empty); see :func:`_new_composite`."""
    return _new_composite(kind, tuple(shape), scalar, bool(empty))


@functools.lru_cache(maxsize=None)
def _new_composite(kind: str, shape: tuple[int, ...], scalar: Any, empty: bool) -> type:
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
    if generic or empty:
        return type(_type_name(kind, shape, scalar, generic), (base,), attrs)
    # As Warp: the type factories' class (``vec_t``) is distinct from the named type (``vec3f``),
    # which subclasses it; the named class is the canonical one kernel values and results use.
    factory = type(generic_str, (base,), attrs)
    named_attrs = {"__slots__": (), "__module__": "jwarp.types", "_wp_canonical_": True, "_wp_factory_": factory}
    return type(_type_name(kind, shape, scalar, False), (factory,), named_attrs)


def canonical(t: Any) -> Any:
    """The canonical class of composite type ``t``: ``wp.vec4d`` for ``wp.types.vector(4, wp.float64)``
    or for a user subclass of either; any other type is returned unchanged.

        >>> import jwarp as wp
        >>> from jwarp.lang.composites import canonical
        >>> canonical(wp.types.vector(length=4, dtype=wp.float64)) is wp.vec4d
        True
    """
    if not isinstance(t, type) or "_wp_canonical_" in t.__dict__ or not issubclass(t, composite_base):
        return t
    if getattr(t, "_wp_type_args_", None) is None:  # the instance base classes
        return t
    return _make_composite(t._wp_type_kind_, t._shape_, t._wp_scalar_type_, t._wp_empty_)


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
    if any(not isinstance(d, bool) and isinstance(d, (int, np.integer)) and d == 0 for d in shape):
        return _make_composite("matrix", (0, 0), _resolve_dtype(dtype), empty=True)  # Warp's empty matrix
    dims = (_resolve_dim(shape[0], "matrix rows"), _resolve_dim(shape[1], "matrix cols"))
    dims = (0, 0) if 0 in dims else dims  # as Warp: one generic dimension makes the whole shape generic
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
