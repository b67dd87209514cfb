"""Values of kernel code during lowering.

A :class:`Value` pairs a jwarp type with its data. Data is built from *leaves*:

- a **constant** leaf is a numpy scalar (``np.float32(2.0)``): known while compiling, so
  ``range`` bounds, component indices and ``wp.static`` fold in Python;
- a **uniform** leaf is a 0-d jax array: the same for every thread (kernel scalars,
  loads at launch-uniform indices);
- a **varying** leaf is a jax array with one axis per launch dimension (extent 1 where it
  does not vary along that axis): one value per thread ("lane").

Composite values (vectors, matrices, quaternions, transforms) keep one leaf per component
(structure of arrays); struct values keep a tuple of their fields' data; arrays are
references into the kernel's memory (:class:`ArrayRef`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.lang import composites, scalars
from jwarp.errors import WarpCodegenError
from jwarp.lang.arrays import ArrayType, TupleType, type_name
from jwarp.lang.struct import StructType
from jwarp.lang.tile_types import TileType
from jwarp.compiler.selects import where


class StaticType:
    """Type of compile-time Python objects met in kernel code (modules, builtins, types…)."""

    def __repr__(self) -> str:
        return "static"


STATIC = StaticType()


@dataclass(frozen=True)
class Affine:
    """An integer known to equal ``scale * tid[axis] + offset`` (enables whole-array access by
    shifted or strided copies instead of gathers)."""

    axis: int
    offset: int
    scale: int = 1


@dataclass(frozen=True)
class ArrayRef:
    """An array as kernel code sees it: a memory slot plus leading indices already applied.

    A view made by slicing in kernel code (``a[i, 1:3]``) instead lists every axis of the slot
    in ``axes`` (see :mod:`jwarp.compiler.array_views`); ``prefix`` is then unused."""

    slot: int
    prefix: tuple = ()
    axes: tuple | None = None
    null: bool = False  # a null array (None passed for it): false as a condition, as in Warp


@dataclass(frozen=True, eq=False)
class StoredArrayField:
    """An array field of a struct element loaded from an array of structs: the leaves of its
    descriptor record (Warp's ``array_t``), carried through copies of the struct; jwarp cannot turn
    an address back into an array inside a kernel."""

    leaves: tuple


@dataclass(frozen=True, eq=False)
class Value:
    type: Any
    data: Any
    affine: Affine | None = None

    def __repr__(self) -> str:
        return f"Value({type_name(self.type)})"


# ----------------------------------------------------------------------------------------------
# leaves


def is_const(leaf: Any) -> bool:
    return isinstance(leaf, np.generic)


def is_varying_leaf(leaf: Any) -> bool:
    return not is_const(leaf) and jnp.ndim(leaf) > 0


def xp(*leaves: Any):
    """numpy when every leaf is a compile-time constant, else jax.numpy."""
    return np if all(is_const(x) for x in leaves) else jnp


class FloatLiteral(np.float32):
    """A ``float32`` constant leaf made from a Python float (a literal, a ``wp.constant``), which
    remembers the Python value: a cast to another type (``wp.float64(0.1)``, ``wp.vec3d(x, …)``)
    converts the full-precision value, as Warp does, instead of the rounded ``float32``."""

    literal: float


def float_literal(x: float) -> FloatLiteral:
    """The constant leaf of Python float ``x`` (a ``float32`` that keeps ``x`` for later casts)."""
    with np.errstate(all="ignore"):
        leaf = FloatLiteral(x)
    leaf.literal = float(x)
    return leaf


def plain_const(leaf: Any) -> Any:
    """``leaf`` without a literal's memory (what arithmetic on it would give)."""
    return np.float32(leaf) if isinstance(leaf, FloatLiteral) else leaf


def const(value: Any, scalar: type) -> np.generic:
    """A constant leaf of ``scalar`` type."""
    with np.errstate(all="ignore"):
        return np.asarray(value).astype(scalar._np_dtype)[()]


def leaf_dtype(leaf: Any) -> np.dtype:
    return leaf.dtype


# traced Python-scope calls being traced (compiler/python_scope.py): each counts the float32 values
# converted to another type, where a float literal would have converted its full-precision value
CAST_PROBE: list = []


def cast_leaf(leaf: Any, scalar: type) -> Any:
    """Convert a leaf to ``scalar`` with C semantics (float→int truncates, x→bool is x != 0)."""
    target = scalar._np_dtype
    if leaf.dtype == target:
        return plain_const(leaf)
    if CAST_PROBE and leaf.dtype == np.float32 and not is_const(leaf):
        CAST_PROBE[-1].casts += 1
    if isinstance(leaf, FloatLiteral):
        leaf = np.float64(leaf.literal)  # convert the literal's full value, not its float32 rounding
    if scalar is scalars.bool_:
        return leaf != leaf.dtype.type(0) if is_const(leaf) else leaf != 0
    if is_const(leaf):
        with np.errstate(all="ignore"):
            if np.issubdtype(leaf.dtype, np.floating) and np.issubdtype(target, np.integer):
                if not np.isfinite(leaf):
                    return target.type(0)
                return np.asarray(np.trunc(leaf)).astype(np.int64).astype(target)[()]
            return np.asarray(leaf).astype(target)[()]
    return leaf.astype(target)


_LAUNCH_MASKS: list = []  # the innermost launch's "real thread" mask (lanes past the launch's end are off)


class launch_mask:
    """While active, ``mask`` marks the lanes that are threads of the launch (a Pallas block or a chunk
    running past the launch's end): code under exactly that mask is unconditional for every thread,
    so constructs that need it (reassigning an array field of a local struct, returning a
    fixed-size array) stay allowed.

    Example::

        with launch_mask(active):
            FunctionLowerer(ctx, source, env, active, frame).run()
    """

    def __init__(self, mask: Any):
        self.mask = mask

    def __enter__(self) -> None:
        _LAUNCH_MASKS.append(self.mask)

    def __exit__(self, *exc: Any) -> None:
        _LAUNCH_MASKS.pop()


def is_launch_mask(mask: Any) -> bool:
    """Whether ``mask`` is the current launch's thread mask (see :class:`launch_mask`)."""
    return bool(_LAUNCH_MASKS) and mask is _LAUNCH_MASKS[-1]


def leaf_where(mask: Any, a: Any, b: Any) -> Any:
    if mask is None:
        return a
    if is_const(mask):
        return a if bool(mask) else b
    if a is b:
        return a
    if isinstance(a, ArrayRef) or isinstance(b, ArrayRef):  # an array field of a local struct
        if a == b or is_launch_mask(mask):  # lanes outside the launch's threads never use it
            return a
        raise WarpCodegenError("An array field of a local struct can only be reassigned unconditionally "
                               "(not under a branch that depends on the thread)")
    extra = jnp.ndim(a) - jnp.ndim(mask)
    if extra > 0 and jnp.ndim(mask) > 0:  # a tile's data: the lane mask covers its leading axes
        mask = jnp.reshape(mask, jnp.shape(mask) + (1,) * extra)
    if _same_aval(mask, a, b):  # the common case, without jnp.where's nested jit (cheaper to trace)
        return lax.select(mask, a, b)
    return where(mask, a, b)


def _same_aval(mask: Any, a: Any, b: Any) -> bool:
    """Whether ``lax.select(mask, a, b)`` is ``jnp.where(mask, a, b)``: traced operands of one shape,
    ``a`` and ``b`` of one dtype, a boolean mask."""
    if not (isinstance(a, jax.core.Tracer) and isinstance(b, jax.core.Tracer) and isinstance(mask, jax.core.Tracer)):
        return False
    ta, tb, tm = a.aval, b.aval, mask.aval
    return (ta.shape == tb.shape == tm.shape and ta.dtype == tb.dtype and tm.dtype == np.bool_
            and ta.weak_type == tb.weak_type)


def broadcast_leaf(leaf: Any, shape: tuple[int, ...]) -> Any:
    return jnp.broadcast_to(jnp.asarray(leaf), shape)


def to_device_leaf(leaf: Any) -> Any:
    """A traced-compatible leaf (numpy constants become 0-d jax arrays)."""
    return jnp.asarray(leaf) if is_const(leaf) else leaf


# ----------------------------------------------------------------------------------------------
# values


def leaves_of(value: Value) -> list:
    """Flat list of a scalar/composite/struct value's leaves."""
    out: list = []
    _collect(value.type, value.data, out)
    return out


def _collect(t: Any, data: Any, out: list) -> None:
    if scalars.is_scalar_type(t) or isinstance(t, TileType):
        out.append(data)
    elif composites.is_composite(t):
        out.extend(data)
    elif isinstance(t, StructType):
        for var, field in zip(t.vars.values(), data, strict=True):
            _collect(var.type, field, out)
    elif isinstance(t, TupleType):
        for sub in data:
            _collect(sub.type, sub.data, out)
    elif isinstance(t, ArrayType) and isinstance(data, ArrayRef):  # an array field: one opaque leaf
        out.append(data)
    elif isinstance(t, ArrayType) and isinstance(data, StoredArrayField):  # read from an array of structs
        out.extend(data.leaves)
    else:
        raise TypeError(f"Value of type {type_name(t)} has no numeric leaves")


def from_leaves(t: Any, leaves: list, start: int = 0) -> tuple[Any, int]:
    """Rebuild data of type ``t`` from ``leaves[start:]``; returns (data, next index)."""
    if scalars.is_scalar_type(t) or isinstance(t, TileType):
        return leaves[start], start + 1
    if composites.is_composite(t):
        n = t._length_
        return tuple(leaves[start : start + n]), start + n
    if isinstance(t, StructType):
        fields = []
        for var in t.vars.values():
            field, start = from_leaves(var.type, leaves, start)
            fields.append(field)
        return tuple(fields), start
    if isinstance(t, TupleType):
        subs = []
        for sub_t in t.types:
            data, start = from_leaves(sub_t, leaves, start)
            subs.append(Value(sub_t, data))
        return tuple(subs), start
    if isinstance(t, ArrayType) and isinstance(leaves[start], ArrayRef):
        return leaves[start], start + 1
    if isinstance(t, ArrayType):  # an array field of a struct read from an array: its descriptor record
        from jwarp.lang.array_descriptors import descriptor_leaf_shapes

        n = sum(int(np.prod(comp)) if comp else 1 for comp, _ in descriptor_leaf_shapes(t))
        return StoredArrayField(tuple(leaves[start:start + n])), start + n
    raise TypeError(f"Cannot rebuild a value of type {type_name(t)}")


def value_from_leaves(t: Any, leaves: list) -> Value:
    data, end = from_leaves(t, list(leaves))
    assert end == len(leaves)
    return Value(t, data)


def map_value(fn: Callable, *values: Value, out_type: Any = None) -> Value:
    """Apply ``fn`` leaf by leaf across values of the same structure."""
    t = values[0].type
    columns = [leaves_of(v) for v in values]
    new = [fn(*group) for group in zip(*columns, strict=True)]
    return value_from_leaves(out_type or t, new)


def select_value(mask: Any, a: Value, b: Value) -> Value:
    """``mask ? a : b`` lane by lane; both must have the same type."""
    if mask is None:
        return a
    if is_const(mask):
        return a if bool(mask) else b
    return map_value(lambda x, y: leaf_where(mask, x, y), a, b)


def is_varying(value: Value) -> bool:
    if value.type is STATIC or isinstance(value.type, ArrayType):
        return False
    return any(is_varying_leaf(x) for x in leaves_of(value))


def is_constant_value(value: Value) -> bool:
    if value.type is STATIC:
        return True
    if isinstance(value.type, ArrayType):
        return False
    return all(is_const(x) for x in leaves_of(value))


def constant_python(value: Value) -> Any:
    """The Python number of a constant scalar value."""
    return value.data.item()


def scalar_value(scalar: type, x: Any) -> Value:
    return Value(scalar, const(x, scalar))


def zeros_value(t: Any) -> Value:
    """Zero of a scalar/composite/struct type, as constants."""
    if scalars.is_scalar_type(t):
        return Value(t, const(0, t))
    if composites.is_composite(t):
        z = const(0, t._wp_scalar_type_)
        return Value(t, (z,) * t._length_)
    if isinstance(t, StructType):
        return Value(t, tuple(zeros_value(v.type).data for v in t.vars.values()))
    if isinstance(t, TileType):  # one leaf; its leading (grid) axes broadcast where it is carried
        return Value(t, np.zeros(t.shape + t.dtype_shape, t.scalar._np_dtype))
    raise TypeError(f"No zero value for type {type_name(t)}")


def python_to_value(obj: Any) -> Value | None:
    """Lift a Python-scope value (number, boxed scalar, composite instance, struct instance)."""
    from jwarp.lang.struct import StructInstance

    if isinstance(obj, bool):
        return scalar_value(scalars.bool_, obj)
    if isinstance(obj, int):
        return scalar_value(scalars.int32, obj)
    if isinstance(obj, float):
        return Value(scalars.float32, float_literal(obj))
    if isinstance(obj, scalars.scalar_base):
        return scalar_value(type(obj), obj.value)
    if isinstance(obj, np.generic):
        scalar = scalars.canonical_scalar(obj.dtype)
        if scalar is not None:
            return scalar_value(scalar, obj)
    if isinstance(obj, composites.composite_base):
        t = composites.canonical(type(obj))
        flat = np.asarray(obj._v).reshape(-1)
        return Value(t, tuple(const(x, t._wp_scalar_type_) for x in flat))
    if isinstance(obj, StructInstance) and not obj._cls.has_arrays:
        fields = []
        for name, var in obj._cls.vars.items():
            field = getattr(obj, name)
            if scalars.is_scalar_type(var.type):  # a field keeps its declared type (0.1 in a float64 field)
                sub = scalar_value(var.type, field.value if isinstance(field, scalars.scalar_base) else field)
            else:
                sub = python_to_value(field)
            fields.append(sub.data)
        return Value(obj._cls, tuple(fields))
    return None


def value_to_python(value: Value) -> Any:
    """Turn a concrete value back into a Python-scope object (inverse of python_to_value)."""
    t = value.type
    if isinstance(t, TupleType):
        return tuple(value_to_python(v) for v in value.data)
    if scalars.is_scalar_type(t):
        return np.asarray(value.data).astype(t._np_dtype).item()
    if composites.is_composite(t):
        flat = np.array([np.asarray(x) for x in value.data], dtype=t._wp_scalar_type_._np_dtype)
        return t(flat.reshape(t._shape_))
    if isinstance(t, StructType):
        inst = t()
        for (name, var), field in zip(t.vars.items(), value.data, strict=True):
            setattr(inst, name, value_to_python(Value(var.type, field)))
        return inst
    if t is STATIC:
        return value.data
    raise TypeError(f"Cannot convert a value of type {type_name(t)} to Python")


def stop_affine(value: Value) -> Value:
    return Value(value.type, value.data) if value.affine is not None else value


def jax_dtype_of(scalar: type) -> jnp.dtype:
    return jnp.dtype(scalar._np_dtype)


__all__ = [
    "STATIC",
    "Affine",
    "ArrayRef",
    "ArrayType",
    "TupleType",
    "Value",
    "jax",
]
