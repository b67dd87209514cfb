"""Composite constructors in kernels, with Warp's rules and messages.

Two spellings reach the same rules: the generic builtins (``wp.vector``, ``wp.types.vector``,
``wp.matrix``, ``wp.quaternion``, ``wp.transformation``) and a call of a concrete type
(``wp.vec3(...)``, ``wp.mat22d(...)``, ``wp.quat(...)``), which is the builtin with the type's
``length``/``shape``/``dtype`` filled in.

- no argument: zeros (``length``/``shape`` must be known); ``dtype`` defaults to float32.
- one composite argument of the same kind: a copy, converting the scalar type (``wp.vec3d(v)``).
- one scalar: fills every component.
- several scalars: the components; ``dtype`` given means runtime values must already have it
  (compile-time constants are converted); otherwise all must share one scalar type.
- ``wp.quat(ijk, w)``, ``wp.transform(p, q)`` and ``wp.spatial_vector(w, v)`` join parts.

``length``, ``shape`` and ``dtype`` must be compile-time values: literals, module constants,
``wp.constant`` values, or ``wp.static`` expressions.

Example (kernel code):
    >>> import jwarp as wp
    >>> @wp.kernel
    ... def k(out: wp.array(dtype=wp.vec3d)):
    ...     out[0] = wp.vec3d(wp.vector(1.0, length=3))
"""

from __future__ import annotations

from typing import Any

from jwarp.builtins import common as c
from jwarp.builtins.common import STATIC, Call, Value
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import TupleType, cast_leaf, is_const, leaves_of, zeros_value
from jwarp.errors import WarpCodegenError
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import type_name


# -- compile-time parameters ------------------------------------------------------------------------
def _static_python(v: Value) -> Any:
    """The Python value of a compile-time argument, or raise if it is a runtime value."""
    if v.type is STATIC:
        return v.data
    if isinstance(v.type, TupleType):
        return tuple(_static_python(x) for x in v.data)
    if c.is_scalar(v) and is_const(v.data):
        return v.data.item()
    raise _NotStatic()


class _NotStatic(Exception):
    pass


def static_length(call: Call, v: Value | None) -> int | None:
    if v is None:
        return None
    try:
        n = _static_python(v)
    except _NotStatic:
        n = None
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise WarpCodegenError(f"wp.{call.name}(): `length` must be a positive compile-time integer")
    return n


def static_shape(call: Call, v: Value | None) -> tuple[int, int] | None:
    if v is None:
        return None
    try:
        shape = _static_python(v)
    except _NotStatic:
        shape = None
    if (
        not isinstance(shape, tuple)
        or len(shape) != 2
        or any(isinstance(d, bool) or not isinstance(d, int) or d <= 0 for d in shape)
    ):
        raise WarpCodegenError(f"wp.{call.name}(): `shape` must be a compile-time (rows, cols) tuple of integers")
    return shape


def static_dtype(call: Call, v: Value | None) -> type | None:
    if v is None:
        return None
    scalar = scalars.canonical_scalar(v.data) if v.type is STATIC else None
    if scalar is None:
        raise WarpCodegenError(f"wp.{call.name}(): `dtype` must be a scalar type known at compile time")
    return scalar


# -- value checks (Warp's value functions) ----------------------------------------------------------
def _check_runtime_dtype(args: list[Value], dtype: type, message: str) -> None:
    """Runtime values must already have ``dtype``; compile-time constants are converted later."""
    for a in args:
        if c.is_composite(a) or c.is_scalar(a):
            if not is_const_value(a) and c.scalar_type(a) is not dtype:
                raise RuntimeError(message)


def is_const_value(v: Value) -> bool:
    return all(is_const(x) for x in leaves_of(v))


def _infer_dtype(args: list[Value], what: str) -> type:
    kinds = {c.scalar_type(a) for a in args if c.is_scalar(a) or c.is_composite(a)}
    if len(kinds) != 1:
        raise RuntimeError(f"all values given when constructing a {what} must have the same type")
    return kinds.pop()


def _require_values(call: Call, args: list[Value]) -> None:
    for a in args:
        if not (c.is_scalar(a) or c.is_composite(a)):
            raise call.no_overload(*args)


def _scalar_leaves(call: Call, args: list[Value], dtype: type) -> list:
    if any(not c.is_scalar(a) for a in args):
        raise call.no_overload(*args)
    return [cast_leaf(a.data, dtype) for a in args]


def _fill(t: type, value: Value) -> Value:
    return Value(t, (cast_leaf(value.data, t._wp_scalar_type_),) * t._length_)


def _copy(t: type, value: Value) -> Value:
    return Value(t, tuple(cast_leaf(x, t._wp_scalar_type_) for x in leaves_of(value)))


def _fill_dtype(value: Value, dtype: type | None, what: str) -> type:
    if dtype is None:
        return value.type
    if value.type is not dtype:
        _check_runtime_dtype([value], dtype, f"the value used to fill this {what} is expected to be of the type `{dtype.__name__}`")
    return dtype


# -- vectors ----------------------------------------------------------------------------------------
def build_vector(call: Call, args: list[Value], length: int | None, dtype: type | None) -> Value:
    """Warp's ``wp.types.vector(*args, length=None, dtype=None)`` in a kernel."""
    _require_values(call, args)
    if not args:
        if length is None:
            raise RuntimeError("the `length` argument must be specified when zero-initializing a vector")
        return zeros_value(composites.vector(length, dtype or scalars.float32))
    if len(args) == 1:
        (a,) = args
        if c.is_composite(a):
            if not c.is_vector(a):
                raise call.no_overload(*args)
            if length is None:
                length = a.type._length_
            elif a.type._length_ != length:
                raise RuntimeError(
                    f"incompatible vector of length {length} given when copy constructing "
                    f"a vector of length {a.type._length_}"
                )
            return _copy(composites.vector(length, dtype or c.scalar_type(a)), a)
        if length is None:
            raise RuntimeError("the `length` argument must be specified when filling a vector with a value")
        return _fill(composites.vector(length, _fill_dtype(a, dtype, "vector")), a)
    if len(args) == 2 and length == 6 and all(c.is_vector(a) for a in args):
        return _spatial_vector(args, dtype)
    if length is None:
        length = len(args)
    elif length != len(args):
        raise RuntimeError(
            f"incompatible number of values given ({len(args)}) when constructing a vector of length {length}"
        )
    if dtype is not None:
        _check_runtime_dtype(
            args, dtype, f"all values used to initialize this vector are expected to be of the type `{dtype.__name__}`"
        )
    else:
        dtype = _infer_dtype(args, "vector")
    t = composites.vector(length, dtype)
    return Value(t, tuple(_scalar_leaves(call, args, dtype)))


def _spatial_vector(args: list[Value], dtype: type | None) -> Value:
    """``wp.spatial_vector(w, v)``: two 3D vectors joined."""
    if any(a.type._length_ != 3 for a in args):
        raise RuntimeError("arguments `w` and `v` are expected to be vectors of length 3")
    value_type = _infer_dtype(args, "spatial vector")
    if dtype is not None and value_type is not dtype:
        raise RuntimeError(
            f"all values used to initialize this spatial vector are expected to be of the type `{dtype.__name__}`"
        )
    t = composites.vector(6, value_type)
    return Value(t, tuple(leaves_of(args[0]) + leaves_of(args[1])))


# -- matrices ---------------------------------------------------------------------------------------
def build_matrix(call: Call, args: list[Value], shape: tuple[int, int] | None, dtype: type | None) -> Value:
    """Warp's ``wp.types.matrix(*args, shape=None, dtype=None)`` in a kernel."""
    _require_values(call, args)
    if not args:
        if shape is None:
            raise RuntimeError("the `shape` argument must be specified when zero-initializing a matrix")
        return zeros_value(composites.matrix(shape, dtype or scalars.float32))
    if len(args) == 1:
        (a,) = args
        if c.is_composite(a):
            if not c.is_matrix(a):
                raise call.no_overload(*args)
            if shape is None:
                shape = a.type._shape_
            elif tuple(a.type._shape_) != tuple(shape):
                raise RuntimeError(
                    f"incompatible matrix of shape {tuple(shape)} given when copy constructing "
                    f"a matrix of shape {tuple(a.type._shape_)}"
                )
            return _copy(composites.matrix(shape, dtype or c.scalar_type(a)), a)
        if shape is None:
            raise RuntimeError("the `shape` argument must be specified when filling a matrix with a value")
        return _fill(composites.matrix(shape, _fill_dtype(a, dtype, "matrix")), a)
    if shape is None:
        raise RuntimeError("the `shape` argument must be specified when initializing a matrix by value")
    if any(c.is_vector(a) for a in args):
        raise TypeError(
            "Passing vectors to `wp.matrix()` isn't supported, use `wp.matrix_from_rows()` or "
            "`wp.matrix_from_cols()` instead."
        )
    if shape[0] * shape[1] != len(args):
        raise RuntimeError(
            f"incompatible number of values given ({len(args)}) when constructing a matrix of shape {tuple(shape)}"
        )
    if dtype is not None:
        _check_runtime_dtype(
            args, dtype, f"all values used to initialize this matrix are expected to be of the type `{dtype.__name__}`"
        )
    else:
        dtype = _infer_dtype(args, "matrix")
    return Value(composites.matrix(shape, dtype), tuple(_scalar_leaves(call, args, dtype)))


# -- quaternions ------------------------------------------------------------------------------------
def build_quaternion(call: Call, args: list[Value], dtype: type | None) -> Value:
    """Warp's ``wp.quaternion()``: zeros, ``(x, y, z, w)``, ``(ijk, real)`` or a copy."""
    _require_values(call, args)
    if not args:
        dtype = dtype or scalars.float32
        if not scalars.is_float(dtype):
            raise RuntimeError(
                f"a float type is expected when zero-initializing a quaternion but got `{dtype.__name__}` instead"
            )
        return zeros_value(composites.quaternion(dtype))
    if len(args) == 1:
        (a,) = args
        if not c.is_quat(a):
            raise call.no_overload(*args)
        return _copy(composites.quaternion(dtype or c.scalar_type(a)), a)
    if len(args) == 2:
        ijk, real = args
        if not (c.is_vector(ijk) and ijk.type._length_ == 3 and c.is_scalar(real)):
            raise call.no_overload(*args)
    elif len(args) != 4 or not all(c.is_scalar(a) for a in args):
        raise call.no_overload(*args)
    if dtype is not None:
        _check_runtime_dtype(
            args, dtype, f"all values used to initialize this quaternion are expected to be of the type `{dtype.__name__}`"
        )
    else:
        dtype = _infer_dtype(args, "quaternion")
    if not scalars.is_float(dtype):
        raise call.no_overload(*args)
    leaves = [x for a in args for x in leaves_of(a)]
    return Value(composites.quaternion(dtype), tuple(cast_leaf(x, dtype) for x in leaves))


# -- transformations --------------------------------------------------------------------------------
def build_transformation(call: Call, args: list[Value], kwargs: dict[str, Value], dtype: type | None) -> Value:
    """Warp's ``wp.transformation()``: ``(p, q=identity)``, zeros, one fill value, 7 components or a copy."""
    if "p" in kwargs or "q" in kwargs or (args and c.is_vector(args[0])):
        return _transform_pq(call, args, kwargs, dtype)
    if kwargs:
        raise WarpCodegenError(f"wp.{call.name}() got unexpected keyword arguments {sorted(kwargs)}")
    _require_values(call, args)
    if not args:
        return zeros_value(composites.transformation(dtype or scalars.float32))
    if len(args) == 1:
        (a,) = args
        if c.is_transform(a):
            source = c.scalar_type(a)
            if dtype is not None and dtype is not source:
                raise RuntimeError(
                    "copy constructing a transform requires matching source and target dtypes, "
                    f"got `{source.__name__}` and `{dtype.__name__}`"
                )
            return _copy(a.type, a)
        if not c.is_scalar(a):
            raise call.no_overload(*args)
        return _fill(composites.transformation(_fill_dtype(a, dtype, "transform")), a)
    if len(args) != 7:
        raise RuntimeError(
            f"incompatible number of values given ({len(args)}) when constructing a transform; expected 0, 1, or 7"
        )
    if dtype is not None:
        _check_runtime_dtype(
            args, dtype, f"all values used to initialize this transform are expected to be of the type `{dtype.__name__}`"
        )
    else:
        dtype = _infer_dtype(args, "transform")
    return Value(composites.transformation(dtype), tuple(_scalar_leaves(call, args, dtype)))


def _transform_pq(call: Call, args: list[Value], kwargs: dict[str, Value], dtype: type | None) -> Value:
    names = ("p", "q")
    if len(args) > 2:
        raise call.no_overload(*args, *kwargs.values())
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in bound:
            raise WarpCodegenError(f"wp.{call.name}() got an unexpected or repeated argument '{k}'")
        bound[k] = v
    p, q = bound.get("p"), bound.get("q")
    if p is None or not (c.is_vector(p) and p.type._length_ == 3) or (q is not None and not c.is_quat(q)):
        raise call.no_overload(*[v for v in (p, q) if v is not None])
    parts = [p] if q is None else [p, q]
    value_type = _infer_dtype(parts, "transformation matrix")
    if not scalars.is_float(value_type):
        raise call.no_overload(*parts)
    if dtype is not None and value_type is not dtype:
        raise RuntimeError(
            f"all values used to initialize this transformation matrix are expected to be of the type `{dtype.__name__}`"
        )
    rotation = leaves_of(q) if q is not None else [c.constant(value_type, x) for x in (0, 0, 0, 1)]
    return Value(composites.transformation(value_type), tuple(leaves_of(p) + list(rotation)))


# -- a call of a concrete composite type ------------------------------------------------------------
def construct_composite(call: Call, t: type, args: list[Value], kwargs: dict[str, Value] | None = None) -> Value:
    """``T(*args)`` for a concrete composite type ``T`` (``wp.vec3(...)``, ``wp.transform(p, q)``)."""
    kwargs = _drop_type_args(call, t, dict(kwargs or {}))
    scalar = t._wp_scalar_type_
    kind = t._wp_type_kind_
    if kind == "transformation":
        return build_transformation(call, args, kwargs, scalar)
    if kwargs:
        raise TypeError(f"{type_name(t)}() takes no keyword arguments")
    if kind == "vector":
        return build_vector(call, args, t._length_, scalar)
    if kind == "matrix":
        return build_matrix(call, args, t._shape_, scalar)
    return build_quaternion(call, args, scalar)


def _drop_type_args(call: Call, t: type, kwargs: dict[str, Value]) -> dict[str, Value]:
    """``wp.mat22(m, shape=(2, 2))``: a keyword repeating the type's own parameter is allowed
    when equal (Warp keeps that form for compatibility), and an error otherwise."""
    readers = {"length": static_length, "shape": static_shape, "dtype": static_dtype}
    for name, expected in t._wp_type_args_.items():
        if name in kwargs:
            value = kwargs.pop(name)
            readers[name](call, value)  # validates
            given = value.data if name == "dtype" else readers[name](call, value)  # `float` is not float32 here
            if given != (tuple(expected) if name == "shape" else expected):
                raise RuntimeError(
                    f"Remove the extraneous `{name}` parameter when calling the templated version of "
                    f"`wp.{t._wp_generic_type_str_}()`"
                )
    return kwargs


# -- the generic builtins ---------------------------------------------------------------------------
def _params(call: Call, kwargs: dict[str, Value], allowed: tuple[str, ...]) -> dict[str, Value]:
    unknown = [k for k in kwargs if k not in allowed]
    if unknown:
        raise WarpCodegenError(f"wp.{call.name}() got an unexpected keyword argument '{unknown[0]}'")
    return kwargs


@builtin("vector", group="Vector Math")
def vector(call: Call, *args: Value, **kwargs: Value) -> Value:
    """Construct a vector: ``wp.vector(*components, length=None, dtype=None)``; with no components
    a zero vector of ``length``, with one a copy (another vector) or a fill value (a scalar)."""
    kw = _params(call, kwargs, ("length", "dtype"))
    return build_vector(call, list(args), static_length(call, kw.get("length")), static_dtype(call, kw.get("dtype")))


@builtin("matrix", group="Vector Math")
def matrix(call: Call, *args: Value, **kwargs: Value) -> Value:
    """Construct a matrix: ``wp.matrix(*components, shape=None, dtype=None)`` (row-major components,
    one fill value, a matrix to copy, or nothing for zeros)."""
    kw = _params(call, kwargs, ("shape", "dtype"))
    return build_matrix(call, list(args), static_shape(call, kw.get("shape")), static_dtype(call, kw.get("dtype")))


@builtin("quaternion", group="Quaternion Math")
def quaternion(call: Call, *args: Value, **kwargs: Value) -> Value:
    """Construct a quaternion: zeros, ``(x, y, z, w)``, ``(ijk: vec3, real)``, or a copy of a quaternion
    (optionally converting its ``dtype``)."""
    kw = _params(call, kwargs, ("dtype",))
    return build_quaternion(call, list(args), static_dtype(call, kw.get("dtype")))


@builtin("transformation", group="Transformations")
def transformation(call: Call, *args: Value, **kwargs: Value) -> Value:
    """Construct a transform: ``(p: vec3, q: quat = identity)``, zeros, one fill value, 7 components
    ``(px, py, pz, qx, qy, qz, qw)``, or a copy."""
    kw = dict(kwargs)
    dtype = static_dtype(call, kw.pop("dtype", None))
    return build_transformation(call, list(args), kw, dtype)


__all__ = ["build_matrix", "build_quaternion", "build_transformation", "build_vector", "construct_composite"]
