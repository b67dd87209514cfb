"""Calls of a type in kernels: casts (``float(x)``, ``wp.int64(i)``), composite constructors
(``wp.vec3(...)``, ``wp.mat33(...)``, ``wp.quat(...)``, ``wp.transform(p, q)``; their rules live in
:mod:`jwarp.builtins.composite_construct`) and struct constructors (``MyStruct(...)``).

Casts follow C: float→int truncates, anything→bool is ``!= 0``.
"""

from __future__ import annotations

import builtins as py
from typing import Any

import jax.numpy as jnp
import numpy as np

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
    for name, var in t.vars.items():  # fields not given are zero; an array field is a null array (Warp)
        if name not in fields:
            fields[name] = _default_field(call, var.type)
    return Value(t, tuple(fields[n] for n in names))


def _default_field(call: Call, t: Any) -> Any:
    from jwarp.lang.arrays import ArrayType

    if isinstance(t, ArrayType):
        return null_array(call, t).data
    if isinstance(t, StructType) and t.has_arrays:
        return tuple(_default_field(call, var.type) for var in t.vars.values())
    return zeros_value(t).data


def null_array(call: Call, t: Any) -> Value:
    """Warp's null array of type ``t`` (what a default-constructed struct's array field holds): its
    shape is 0 and it is false as a condition; it is backed by one scratch element, so stray
    accesses (undefined in Warp) read zeros and write nowhere that matters."""
    from jwarp.compiler.context import SlotState
    from jwarp.compiler.values import ArrayRef
    from jwarp.lang.arrays import dtype_leaf_shapes

    call.require_kernel()
    ctx = call.ctx
    shape = (1,) * t.ndim
    planes = [jnp.zeros(shape, scalar._np_dtype)
              for comp_shape, scalar in dtype_leaf_shapes(t.dtype) for _ in range(int(np.prod(comp_shape or (1,))))]
    ctx.slots.append(SlotState(t.dtype, shape, planes, local=True))
    empty_axes = tuple(("view", np.int32(0), np.int32(1), np.int32(0)) for _ in range(t.ndim))
    return Value(t, ArrayRef(len(ctx.slots) - 1, (), empty_axes, null=True))


@builtin("_construct", group="Code Generation")
def construct(call: Call, target: Value, *args: Value, **kwargs: Value) -> Value:
    """Call of a type: cast, composite constructor or struct constructor."""
    t = _PY_TYPES.get(target.data, target.data)
    if isinstance(t, StructType):
        return construct_struct(call, t, list(args), dict(kwargs))
    if composites.is_composite(t):
        call.name = t._wp_constructor_  # Warp reports the builtin's name ('vector', 'quaternion')
        return construct_composite(call, composites.canonical(t), list(args), dict(kwargs))
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
