"""Array helpers available inside kernels: ``wp.zeros`` (a thread-local fixed-size array),
``lower_bound`` (binary search in a sorted array), ``cast`` (bit reinterpretation),
``tuple``, and ``div_approx``.

A thread-local array is a kernel memory slot with one private copy per lane: its planes
have the launch grid's axes in front of the array's own, and every access indexes the
calling lane's copy.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.builtins import common as c
from jwarp.builtins.common import STATIC, Call, Value
from jwarp.compiler import array_views, memory
from jwarp.compiler.context import SlotState
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import Affine, ArrayRef, TupleType, leaves_of, value_from_leaves
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import ArrayType, dtype_leaf_shapes, resolve_annotation, type_name
from jwarp.lang.struct import StructType
from jwarp.compiler.selects import where


def _static_shape(call: Call, shape: Value) -> tuple[int, ...]:
    if shape.type is STATIC:
        raw = shape.data
        return tuple(int(s) for s in (raw if isinstance(raw, (tuple, list)) else (raw,)))
    if isinstance(shape.type, TupleType):
        items = [x.data for x in shape.data]
    else:
        items = [shape.data]
    if not all(c.is_const(x) for x in items):
        raise RuntimeError(
            "wp.zeros() in a kernel makes a fixed-size array: the `shape` argument must be specified as a constant "
            "when zero-initializing an array"
        )
    return tuple(int(x) for x in items)


@builtin("zeros", group="Utility", kernel_only=True)
def zeros(call: Call, shape: Value, dtype: Value | None = None) -> Value:
    """A zero-initialised fixed-size array private to each thread: ``wp.zeros(shape, dtype)``."""
    call.require_kernel()
    dims = _static_shape(call, shape)
    t = resolve_annotation(dtype.data) if dtype is not None and dtype.type is STATIC else scalars.float32
    if t is None:
        raise TypeError(f"wp.zeros(): unsupported dtype {dtype.data!r}")
    ctx = call.ctx
    planes = []
    for comp_shape, scalar in dtype_leaf_shapes(t):
        n = int(np.prod(comp_shape)) if comp_shape else 1
        planes.extend(jnp.zeros(ctx.grid + dims, scalar._np_dtype) for _ in range(n))
    ctx.slots.append(SlotState(t, ctx.grid + dims, planes, written=False, local=True))
    lanes = tuple(Value(scalars.int32, ctx.tid[g], Affine(g, 0)) for g in range(len(ctx.grid)))
    return Value(ArrayType(t, len(dims)), ArrayRef(len(ctx.slots) - 1, lanes))


def _array_len(call: Call, arr: Value) -> int:
    n = array_views.first_extent(arr.data, call.ctx.slots[arr.data.slot].shape)
    if not isinstance(n, (int, np.integer)):
        raise TypeError("wp.lower_bound() needs an array whose length is known when compiling (not a run-time slice)")
    return int(n)


@builtin("lower_bound", group="Other", kernel_only=True)
def lower_bound(call: Call, arr: Value, *args: Value) -> Value:
    """Index of the first element ``>= value`` in a sorted array (or in ``arr[begin:end]``)."""
    call.require_kernel()
    if not isinstance(arr.type, ArrayType) or len(args) not in (1, 3):
        raise call.no_overload(arr, *args)
    value = args[-1]
    slot = call.ctx.slots[arr.data.slot]
    if value.type != slot.dtype or not scalars.is_scalar_type(value.type):
        raise call.no_overload(arr, *args)
    slot.read = True
    n = _array_len(call, arr)
    lo = args[0].data if len(args) == 3 else np.int32(0)
    hi = args[1].data if len(args) == 3 else np.int32(n)
    lo, hi = jnp.asarray(lo, jnp.int32), jnp.asarray(hi, jnp.int32) - 1  # Warp never returns past end - 1
    for _ in range(max(1, int(np.ceil(np.log2(n + 1))) + 1)):
        mid = lo + (hi - lo) // 2
        full, _ = array_views.index(arr.data, slot.shape, [Value(scalars.int32, mid)])
        element = memory.load(call.ctx, slot.planes, slot.shape, list(full), 0, call.mask)[0]
        active = lo < hi
        below = element < value.data
        lo = where(active & below, mid + 1, lo)
        hi = where(active & ~below, mid, hi)
    return Value(scalars.int32, lo)


def _leaf_layout(t: Any) -> tuple[int, int, list]:
    """C layout of a scalar, composite or struct type: (size, alignment, [(offset, scalar)] per leaf)."""
    if scalars.is_scalar_type(t):
        n = t._np_dtype.itemsize
        return n, n, [(0, t)]
    if composites.is_composite(t):
        scalar = t._wp_scalar_type_
        n = scalar._np_dtype.itemsize
        return n * t._length_, n, [(k * n, scalar) for k in range(t._length_)]
    if isinstance(t, StructType):
        offset, align, leaves = 0, 1, []
        for var in t.vars.values():
            size, field_align, field_leaves = _leaf_layout(var.type)
            offset = -(-offset // field_align) * field_align
            leaves.extend((offset + o, s) for o, s in field_leaves)
            offset += size
            align = max(align, field_align)
        return -(-offset // align) * align, align, leaves
    raise TypeError(f"wp.cast() cannot reinterpret a value of type {type_name(t)}")


_UINTS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _leaf_bits(x: Any, scalar: Any) -> Any:
    """The bits of a scalar leaf as an unsigned integer of its size."""
    dtype = scalar._np_dtype
    if dtype == np.bool_:
        return jnp.asarray(x, np.bool_).astype(np.uint8)
    return lax.bitcast_convert_type(jnp.asarray(x, dtype), _UINTS[dtype.itemsize])


def _field(bits: Any, src_offset: int, lo: int, hi: int, dst_offset: int, size: int) -> Any:
    """Bytes ``[lo, hi)`` of a leaf at ``src_offset`` (``bits``), placed at their position in a leaf of
    ``size`` bytes at ``dst_offset`` (little-endian; other bytes zero)."""
    uint = _UINTS[size]
    if lo > src_offset:
        bits = lax.shift_right_logical(bits, jnp.asarray(8 * (lo - src_offset), bits.dtype))
    bits = bits.astype(uint)
    if hi - lo < size:
        bits = bits & uint((1 << (8 * (hi - lo))) - 1)
    if lo > dst_offset:
        bits = lax.shift_left(bits, jnp.asarray(8 * (lo - dst_offset), uint))
    return bits


@builtin("cast", group="Utility")
def cast(call: Call, a: Value, dtype: Value) -> Value:
    """Reinterpret the bits of ``a`` (a scalar, vector, matrix or struct, in C layout) as ``dtype``
    (a type of the same size)."""
    target = resolve_annotation(dtype.data) if dtype.type is STATIC else None
    if target is None or not (c.is_scalar(a) or c.is_composite(a) or isinstance(a.type, StructType)):
        raise call.no_overload(a, dtype)
    if isinstance(a.type, StructType) and a.type.has_arrays:
        raise call.no_overload(a, dtype)
    src_size, _, src_layout = _leaf_layout(a.type)
    dst_size, _, dst_layout = _leaf_layout(target)
    if src_size != dst_size:
        raise TypeError(f"wp.cast(): {type_name(a.type)} and {type_name(target)} have different sizes")
    leaves = leaves_of(a)
    lanes = jnp.broadcast_shapes(*(jnp.shape(x) for x in leaves))
    sources = [(offset, scalar._np_dtype.itemsize, _leaf_bits(x, scalar)) for (offset, scalar), x in zip(src_layout, leaves)]
    out = []
    for offset, scalar in dst_layout:  # each target leaf from the source bytes it overlaps (padding reads as zero)
        size = scalar._np_dtype.itemsize
        bits = jnp.zeros((), _UINTS[size])
        for src_offset, src_size, src_bits in sources:
            lo, hi = max(offset, src_offset), min(offset + size, src_offset + src_size)
            if lo < hi:
                bits = bits | _field(src_bits, src_offset, lo, hi, offset, size)
        bits = jnp.broadcast_to(bits, lanes)
        out.append(bits != 0 if scalar._np_dtype == np.bool_ else lax.bitcast_convert_type(bits, scalar._np_dtype))
    return value_from_leaves(target, out)


@builtin("tuple", group="Utility")
def tuple_(call: Call, *args: Value) -> Value:
    """Construct a tuple value from its items."""
    return Value(TupleType(tuple(a.type for a in args)), tuple(args))


@builtin("div_approx", group="Operators")
def div_approx(call: Call, a: Value, b: Value) -> Value:
    """Division with approximate GPU intrinsics in Warp; exact division here (as Warp on CPU)."""
    from jwarp.builtins.operators import div

    if not scalars.is_float(c.scalar_type(a)) or c.is_matrix(a) or c.is_matrix(b):
        raise call.no_overload(a, b)
    return div.impl(call, a, b)
