"""Calls of a type in kernels: casts (``float(x)``, ``wp.int64(i)``), composite constructors
(``wp.vec3(...)``, ``wp.mat33(...)``, ``wp.quat(...)``, ``wp.transform(p, q)``; their rules live in
:mod:`jwarp.builtins.composite_construct`) and struct constructors (``MyStruct(...)``).

Casts follow C: float→int truncates, anything→bool is ``!= 0``.
"""

from __future__ import annotations

import builtins as py
from typing import Any

from jwarp.builtins import common as c
from jwarp.builtins.common import Call, Value
from jwarp.builtins.composite_construct import construct_composite
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import cast_leaf, value_from_leaves, zeros_value
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import type_name
from jwarp.lang.struct import StructType

_PY_TYPES = {py.float: scalars.float32, py.int: scalars.int32, py.bool: scalars.bool_}


def cast_scalar(call: Call, t: type, v: Value) -> Value:
    if not c.is_scalar(v):
        raise call.no_overload(v)
    return Value(t, cast_leaf(v.data, t))


def construct_struct(call: Call, t: StructType, args: list[Value], kwargs: dict[str, Value]) -> Value:
    names = list(t.vars)
    for name, v in zip(names, args):
        kwargs = {**kwargs, name: v}
    fields = {}
    for name, v in kwargs.items():
        if name not in t.vars:
            raise TypeError(f"Struct '{t.key}' has no field '{name}'")
        if v.type != t.vars[name].type:
            raise TypeError(
                f"Struct '{t.key}' field '{name}' expects {type_name(t.vars[name].type)}, got {type_name(v.type)}"
            )
        fields[name] = v.data
    for name, var in t.vars.items():  # fields not given are zero (only given fields may hold arrays)
        if name not in fields:
            if _has_array(var.type):
                raise TypeError(f"Struct '{t.key}' has array fields; construct it outside the kernel")
            fields[name] = zeros_value(var.type).data
    return Value(t, tuple(fields[n] for n in names))


def _has_array(t: Any) -> bool:
    from jwarp.lang.arrays import ArrayType

    return isinstance(t, ArrayType) or (isinstance(t, StructType) and t.has_arrays)


@builtin("_construct", group="Code Generation")
def construct(call: Call, target: Value, *args: Value, **kwargs: Value) -> Value:
    """Call of a type: cast, composite constructor or struct constructor."""
    t = _PY_TYPES.get(target.data, target.data)
    if isinstance(t, StructType):
        return construct_struct(call, t, list(args), dict(kwargs))
    if composites.is_composite(t):
        call.name = t._wp_constructor_  # Warp reports the builtin's name ('vector', 'quaternion')
        return construct_composite(call, t, list(args), dict(kwargs))
    if kwargs:
        raise TypeError(f"{type_name(t)}() takes no keyword arguments")
    if scalars.is_scalar_type(t):
        call.name = t.__name__
        if not args:
            return zeros_value(t)
        if len(args) != 1:
            raise call.no_overload(*args)
        return cast_scalar(call, t, args[0])
    if composites.is_generic_composite(t):
        raise TypeError(f"The generic type {type_name(t)} cannot be constructed; give its length and dtype")
    raise TypeError(f"'{type_name(t)}' cannot be constructed in kernels")


__all__ = ["construct", "cast_scalar", "construct_composite", "value_from_leaves"]
