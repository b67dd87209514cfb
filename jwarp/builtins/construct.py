"""Type constructors and casts in kernels: ``float(x)``, ``wp.int64(i)``, ``wp.vec3(...)``,
``wp.mat33(...)``, ``wp.quat(...)``, ``wp.transform(p, q)``, ``MyStruct(...)``, and the
generic ``wp.vector``/``wp.matrix``/``wp.quaternion``/``wp.transformation`` builtins.

Casts follow C: float→int truncates, anything→bool is ``!= 0``. Constructors accept
compile-time constants of another scalar type (``wp.vec3(1)``) but, like Warp, reject a
runtime value of the wrong scalar type (``wp.vec3(wp.float64(x))``).
"""

from __future__ import annotations

import builtins as py
from typing import Any

from jwarp.builtins import common as c
from jwarp.builtins.common import STATIC, Call, Value
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import cast_leaf, is_const, leaves_of, value_from_leaves, zeros_value
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import resolve_annotation, type_name
from jwarp.lang.struct import StructType

_PY_TYPES = {py.float: scalars.float32, py.int: scalars.int32, py.bool: scalars.bool_}


def cast_scalar(call: Call, t: type, v: Value) -> Value:
    if not c.is_scalar(v):
        raise call.no_overload(v)
    return Value(t, cast_leaf(v.data, t))


def _component(call: Call, scalar: type, v: Value) -> Any:
    if not c.is_scalar(v):
        raise call.no_overload(v)
    if v.type is scalar:
        return v.data
    if is_const(v.data):
        return cast_leaf(v.data, scalar)
    raise RuntimeError(f"the value used to fill this vector is expected to be of the type `{scalar.__name__}`")


def construct_composite(call: Call, t: type, args: list[Value]) -> Value:
    scalar = t._wp_scalar_type_
    n = t._length_
    if not args:
        return zeros_value(t)
    if len(args) == 1:
        a = args[0]
        if c.is_composite(a):
            if a.type._shape_ != t._shape_:
                raise call.no_overload(a)
            return Value(t, tuple(cast_leaf(x, scalar) for x in leaves_of(a)))
        return Value(t, (_component(call, scalar, a),) * n)
    if len(args) == n and all(c.is_scalar(a) for a in args):
        return Value(t, tuple(_component(call, scalar, a) for a in args))
    if composites.is_matrix(t) and any(c.is_vector(a) for a in args):
        raise TypeError(
            "Passing vectors to `wp.matrix()` isn't supported, use `wp.matrix_from_rows()` or "
            "`wp.matrix_from_cols()` instead."
        )
    flat: list = []
    for a in args:  # concatenation of components, e.g. transform(p, q), quat(ijk, w), spatial_vector(w, v)
        if c.is_composite(a) and c.scalar_type(a) is not scalar:
            what = "transformation matrix" if composites.is_transformation(t) else t._wp_type_kind_
            raise RuntimeError(
                f"all values used to initialize this {what} are expected to be of the type `{scalar.__name__}`"
            )
        flat.extend(leaves_of(a) if c.is_composite(a) else [_component(call, scalar, a)])
    if len(flat) == n and not composites.is_matrix(t):
        return Value(t, tuple(cast_leaf(x, scalar) for x in flat))
    raise call.no_overload(*args)


def construct_struct(call: Call, t: StructType, args: list[Value], kwargs: dict[str, Value]) -> Value:
    fields = {name: zeros_value(var.type).data if not _is_array_field(var.type) else None for name, var in t.vars.items()}
    names = list(t.vars)
    for name, v in zip(names, args):
        kwargs = {**kwargs, name: v}
    for name, v in kwargs.items():
        if name not in t.vars:
            raise TypeError(f"Struct '{t.key}' has no field '{name}'")
        if v.type != t.vars[name].type:
            raise TypeError(
                f"Struct '{t.key}' field '{name}' expects {type_name(t.vars[name].type)}, got {type_name(v.type)}"
            )
        fields[name] = v.data
    if any(v is None for v in fields.values()):
        raise TypeError(f"Struct '{t.key}' has array fields; construct it outside the kernel")
    return Value(t, tuple(fields[n] for n in names))


def _is_array_field(t: Any) -> bool:
    from jwarp.lang.arrays import ArrayType

    return isinstance(t, ArrayType)


@builtin("_construct", group="Code Generation")
def construct(call: Call, target: Value, *args: Value, **kwargs: Value) -> Value:
    """Call of a type: cast, composite constructor or struct constructor."""
    t = _PY_TYPES.get(target.data, target.data)
    if isinstance(t, StructType):
        return construct_struct(call, t, list(args), dict(kwargs))
    if kwargs:
        raise TypeError(f"{type_name(t)}() takes no keyword arguments")
    if scalars.is_scalar_type(t):
        call.name = t.__name__
        if not args:
            return zeros_value(t)
        if len(args) != 1:
            raise call.no_overload(*args)
        return cast_scalar(call, t, args[0])
    if composites.is_composite(t):
        call.name = t.__name__
        return construct_composite(call, t, list(args))
    raise TypeError(f"'{type_name(t)}' cannot be constructed in kernels")


def _dtype(call: Call, kwargs: dict, default: Any, args: list[Value]) -> type:
    d = kwargs.pop("dtype", None)
    if d is None:
        for a in args:
            if c.is_scalar(a) or c.is_composite(a):
                return c.scalar_type(a)
        return default
    resolved = resolve_annotation(c.require_static(call, d, "dtype"))
    if not scalars.is_scalar_type(resolved):
        raise TypeError(f"wp.{call.name}(): dtype must be a scalar type")
    return resolved


def _static_int(call: Call, v: Value, what: str) -> int:
    if v.type is STATIC:
        return int(v.data)
    if c.is_int_scalar(v) and is_const(v.data):
        return int(v.data)
    raise TypeError(f"wp.{call.name}(): {what} must be a compile-time integer")


@builtin("vector", group="Vector Math")
def vector(call: Call, *args: Value, **kwargs: Value) -> Value:
    """Construct a vector: ``wp.vector(*components, length=None, dtype=None)``."""
    kwargs = dict(kwargs)
    length = _static_int(call, kwargs.pop("length"), "length") if "length" in kwargs else None
    dtype = _dtype(call, kwargs, scalars.float32, list(args))
    if length is None:
        length = len(args) if len(args) > 1 else (args[0].type._length_ if args and c.is_composite(args[0]) else 0)
    if not length:
        raise TypeError("wp.vector() needs a length or several components")
    return construct_composite(call, composites.vector(length, dtype), list(args))


@builtin("matrix", group="Vector Math")
def matrix(call: Call, *args: Value, **kwargs: Value) -> Value:
    """Construct a matrix: ``wp.matrix(*components, shape=(r, c), dtype=None)``."""
    kwargs = dict(kwargs)
    shape_v = kwargs.pop("shape", None)
    dtype = _dtype(call, kwargs, scalars.float32, list(args))
    if shape_v is None:
        raise TypeError("wp.matrix() needs shape=(rows, cols)")
    shape = tuple(shape_v.data) if shape_v.type is STATIC else tuple(int(x.data) for x in shape_v.data)
    return construct_composite(call, composites.matrix(shape, dtype), list(args))


@builtin("quaternion", group="Quaternion Math")
def quaternion(call: Call, *args: Value, **kwargs: Value) -> Value:
    """Construct a quaternion from (x, y, z, w), (ijk: vec3, w), or another quaternion."""
    kwargs = dict(kwargs)
    dtype = _dtype(call, kwargs, scalars.float32, list(args))
    if not args:
        return Value(composites.quaternion(dtype), tuple(c.constant(dtype, x) for x in (0, 0, 0, 1)))
    return construct_composite(call, composites.quaternion(dtype), list(args))


@builtin("transformation", group="Transformations")
def transformation(call: Call, *args: Value, **kwargs: Value) -> Value:
    """Construct a transform from a translation (vec3) and a rotation (quat)."""
    kwargs = dict(kwargs)
    dtype = _dtype(call, kwargs, scalars.float32, list(args))
    if "p" in kwargs or "q" in kwargs:
        args = tuple(args) + tuple(kwargs.pop(k) for k in ("p", "q") if k in kwargs)
    if not args:
        leaves = [c.constant(dtype, x) for x in (0, 0, 0, 0, 0, 0, 1)]
        return Value(composites.transformation(dtype), tuple(leaves))
    return construct_composite(call, composites.transformation(dtype), list(args))


__all__ = ["construct", "cast_scalar", "construct_composite", "value_from_leaves"]
