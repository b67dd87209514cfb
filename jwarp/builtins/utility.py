"""Utility group: ``tid``, ``block_dim``, ``len``, ``where``/``select``, ``print``/``printf``,
``lerp``, ``smoothstep``, ``expect_*``, ``breakpoint``.

``print`` and ``printf`` write to ``sys.stdout`` on the host through ordered
``jax.debug.callback``s. As on Warp's CPU backend, a launch's output comes in thread order:
all of thread 0's prints (in program order), then thread 1's, and so on — each print appends
its lines to a buffer that the kernel's last callback writes out.
"""

from __future__ import annotations

import re
import sys

import jax
import jax.numpy as jnp
from jax import lax
import numpy as np

from jwarp.builtins import common as c
from jwarp.builtins.common import STATIC, Call, Value
from jwarp.compiler import array_views
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import Affine, TupleType, leaves_of, scalar_value, select_value, xp
from jwarp.lang import composites, scalars
from jwarp.lang.tile_types import TileType
from jwarp.lang.arrays import ArrayType, type_name
from jwarp.lang.struct import StructType


@builtin("tid", group="Utility", kernel_only=True)
def tid(call: Call) -> Value:
    """The current thread's index; a tuple of indices for multi-dimensional launches."""
    call.require_kernel()
    ctx = call.ctx
    _check_tid_extents(ctx.grid[: ctx.kernel_dim])
    if ctx.thread_coords is not None:  # chunked launch (max_blocks): computed ids, no affine fast paths
        comps = [Value(scalars.int32, ctx.thread_coords[a]) for a in range(ctx.kernel_dim)]
    else:
        comps = [Value(scalars.int32, ctx.tid[a], Affine(a, 0)) for a in range(ctx.kernel_dim)]
    if len(comps) == 1:
        return comps[0]
    return Value(TupleType((scalars.int32,) * len(comps)), tuple(comps))


TID_EXTENT_LIMIT = 2**31  # Warp's bound: coordinates are signed 32-bit, extents up to 2**31


def _check_tid_extents(extents: tuple) -> None:
    """As in Warp: a kernel that uses ``wp.tid()`` (signed 32-bit coordinates) cannot be launched
    with an extent above 2**31 in one of its tid dimensions (kernels whose ``wp.tid()`` is never
    reached, e.g. under a constant-false ``if``, can)."""
    for axis, extent in enumerate(extents):
        if extent > TID_EXTENT_LIMIT:
            raise ValueError(
                f"Warp cannot launch a kernel using wp.tid() with extent {extent} in dimension {axis}. "
                f"wp.tid() returns signed 32-bit coordinates and supports extents up to {TID_EXTENT_LIMIT}."
            )


@builtin("block_dim", group="Utility", kernel_only=True)
def block_dim(call: Call) -> Value:
    """The launch's resolved block size (1 on CPU unless ``wp.config.enable_cpu_blocks``)."""
    call.require_kernel()
    return scalar_value(scalars.int32, call.ctx.block_dim)


@builtin("len", group="Utility")
def len_(call: Call, a: Value) -> Value:
    """Length of an array's first remaining dimension, or of a vector/matrix/tuple."""
    if isinstance(a.type, ArrayType):
        n = array_views.first_extent(a.data, call.ctx.slots[a.data.slot].shape)
        return scalar_value(scalars.int32, n) if isinstance(n, (int, np.integer)) else Value(scalars.int32, n)
    if composites.is_composite(a.type):
        return scalar_value(scalars.int32, a.type._shape_[0])
    if isinstance(a.type, TupleType):
        return scalar_value(scalars.int32, len(a.type.types))
    if isinstance(a.type, TileType):  # the first dimension of a tile
        return scalar_value(scalars.int32, a.type.shape[0])
    raise call.no_overload(a)


def _condition(call: Call, cond: Value, *rest: Value):
    from jwarp.compiler.operators import truth

    if not (c.is_scalar(cond) or isinstance(cond.type, ArrayType)):
        raise call.no_overload(cond, *rest)
    if isinstance(cond.type, ArrayType):
        return np.bool_(True)
    return truth(cond)


@builtin("where", group="Utility")
def where(call: Call, cond: Value, value_if_true: Value, value_if_false: Value) -> Value:
    """``value_if_true`` where ``cond`` is true (non-zero), else ``value_if_false``."""
    leaf = _condition(call, cond, value_if_true, value_if_false)
    if value_if_true.type != value_if_false.type:
        raise call.no_overload(cond, value_if_true, value_if_false)
    return select_value(leaf, value_if_true, value_if_false)


@builtin("select", group="Utility")
def select(call: Call, cond: Value, value_if_false: Value, value_if_true: Value) -> Value:
    """Deprecated form of ``where`` with the two values swapped."""
    leaf = _condition(call, cond, value_if_true, value_if_false)
    if value_if_true.type != value_if_false.type:
        raise call.no_overload(cond, value_if_false, value_if_true)
    return select_value(leaf, value_if_true, value_if_false)


_PENDING: list[tuple[int, int, str]] = []  # (lane, order, text) of the launch being run


def _flush_prints() -> None:
    lines = sorted(_PENDING, key=lambda p: (p[0], p[1]))
    _PENDING.clear()
    sys.stdout.write("".join(text for _, _, text in lines))
    sys.stdout.flush()


def _host_print(call: Call, render, values: list[Value]) -> None:
    """Print ``render(...)`` (text with its newline) for each active lane, in thread order."""
    leaves = [jnp.asarray(x) for v in values for x in leaves_of(v)]
    # 64-bit leaves travel as pairs of 32-bit words: the host callback would otherwise see them
    # narrowed to 32 bits when 64-bit types are off in JAX (uint64(-1) printed as 4294967295)
    wide = [x.dtype if x.dtype.itemsize == 8 else None for x in leaves]
    leaves = [lax.bitcast_convert_type(x, jnp.uint32) if w is not None else x for x, w in zip(leaves, wide)]
    mask = call.mask
    grid = call.ctx.grid if call.ctx is not None else ()
    shapes = [len(leaves_of(v)) for v in values]

    def emit(mask_arr, *arrs):
        mask_arr = np.broadcast_to(np.asarray(mask_arr), grid).reshape(-1)
        arrs = [a if w is None else np.ascontiguousarray(np.asarray(a, np.uint32)).view(w)[..., 0]
                for a, w in zip(arrs, wide)]
        flat = [np.broadcast_to(np.asarray(a), grid).reshape(-1) for a in arrs]
        for lane in range(mask_arr.shape[0]):
            if not mask_arr[lane]:
                continue
            parts, k = [], 0
            for v, n in zip(values, shapes):
                parts.append([flat[k + j][lane] for j in range(n)])
                k += n
            _PENDING.append((lane, len(_PENDING), render(parts)))

    if call.ctx is None:
        emit(np.asarray(True), *leaves)
        _flush_prints()
        return
    m = jnp.asarray(True) if mask is None else jnp.asarray(mask)
    jax.debug.callback(emit, m, *leaves, ordered=True)
    call.ctx.finish_hooks.setdefault("print", lambda: jax.debug.callback(_flush_prints, ordered=True))


def _format(v: Value, comps: list) -> str:
    if composites.is_composite(v.type):
        return "".join(_scalar_text(x) + " " for x in comps)  # Warp prints a trailing space
    return _scalar_text(comps[0])


def _scalar_text(x) -> str:
    x = np.asarray(x).item()
    if isinstance(x, float):
        return f"{x:g}"
    return str(x)


@builtin("print", group="Utility")
def print_(call: Call, *args: Value) -> None:
    """Print values from each active thread (best effort, on the host)."""
    statics = [a for a in args if a.type is STATIC]
    values = [a for a in args if a.type is not STATIC]

    def render(parts):
        texts, k = [], 0
        for a in args:
            if a.type is STATIC:
                texts.append(str(a.data))
            else:
                texts.append(_format(a, parts[k]))
                k += 1
        return " ".join(texts) + "\n"

    del statics
    unprintable = [v for v in values if _unprintable(v.type)]
    if unprintable:  # Warp: arrays and structs print as a placeholder, and only on their own
        if len(args) > 1:
            raise call.no_overload(*args)
        _host_print(call, lambda parts: "<type without print implementation>\n", [])
        return None
    if any(isinstance(v.type, TileType) for v in values):
        _print_tiles(call, args)
        return None
    _host_print(call, render, values)
    return None


def _unprintable(t) -> bool:
    """Types Warp's ``print`` has no text for (arrays, structs)."""
    return isinstance(t, (ArrayType, StructType))


# a C conversion with a length modifier (``%lld``, ``%hu``, ``%zu``): Python's % takes none
_C_LENGTH_MODIFIER = re.compile(r"%([-+ #0]*\d*(?:\.\d+)?)(hh|h|ll|l|L|z|j|t)([diouxXeEfFgGcs])")
_MAX_PRINTF_ARGS = 32  # Warp's limit on printf's variadic arguments


def _tile_text(t: TileType, data: np.ndarray) -> str:
    """Warp's tile print: the elements, then ``= tile(shape=(M,N), storage=...)``."""
    body = np.array2string(np.asarray(data), separator=" ", threshold=1 << 30,
                           formatter={"float_kind": lambda v: f"{v:g}"})
    shape = ",".join(str(d) for d in t.shape)
    return f"{body} = tile(shape=({shape}), storage={t.storage})"


def _print_tiles(call: Call, args: tuple) -> None:
    """``wp.print`` with tile arguments: once per block (its first thread), as Warp prints them."""
    from jwarp.compiler import tiles

    ctx = call.ctx
    grid = tiles.block_grid(ctx)
    n = len(ctx.grid)
    lane = tiles.lane_axis(ctx)
    stride = ctx.block_dim if lane is not None else 1
    values = [a for a in args if a.type is not STATIC]
    datas = [jnp.broadcast_to(jnp.asarray(v.data), grid + jnp.shape(v.data)[n:]) if isinstance(v.type, TileType)
             else jnp.stack([jnp.broadcast_to(tiles.lead_leaf(ctx, jnp.asarray(x)), grid) for x in leaves_of(v)], -1)
             for v in values]
    active = jnp.asarray(True) if call.mask is None else jnp.asarray(tiles.block_mask(ctx, call.mask))

    def emit(mask_arr, *arrs):
        mask_arr = np.broadcast_to(np.asarray(mask_arr), grid).reshape(-1)
        for block in range(mask_arr.shape[0]):
            if not mask_arr[block]:
                continue
            texts, k = [], 0
            index = np.unravel_index(block, grid) if grid else ()
            for a in args:
                if a.type is STATIC:
                    texts.append(str(a.data))
                    continue
                arr = np.asarray(arrs[k])
                k += 1
                if isinstance(a.type, TileType):
                    texts.append(_tile_text(a.type, arr[index]))
                else:
                    texts.append(_format(a, list(arr[index])))
            _PENDING.append((block * stride, len(_PENDING), " ".join(texts) + "\n"))

    jax.debug.callback(emit, active, *datas, ordered=True)
    call.ctx.finish_hooks.setdefault("print", lambda: jax.debug.callback(_flush_prints, ordered=True))


@builtin("printf", group="Utility")
def printf(call: Call, fmt: Value, *args: Value) -> None:
    """C-style formatted print from each active thread (best effort, on the host)."""
    if fmt.type is not STATIC or not isinstance(fmt.data, str):
        raise TypeError("wp.printf() needs a constant format string")
    if len(args) > _MAX_PRINTF_ARGS:
        raise RuntimeError(f"the maximum number of variadic arguments that can be passed to `printf` is "
                           f"{_MAX_PRINTF_ARGS}")

    python_fmt = _C_LENGTH_MODIFIER.sub(r"%\1\3", fmt.data)

    def render(parts):
        vals = tuple(np.asarray(p[0]).item() for p in parts)
        try:
            return python_fmt % vals  # C printf: no newline of its own
        except (TypeError, ValueError):
            return fmt.data + " " + " ".join(map(str, vals)) + "\n"

    _host_print(call, render, list(args))
    return None


@builtin("lerp", group="Utility")
def lerp(call: Call, a: Value, b: Value, t: Value) -> Value:
    """``a * (1 - t) + b * t`` for scalars or composites (``t`` a scalar of their type)."""
    c.require(a.type == b.type and t.type is c.scalar_type(a) and scalars.is_float(t.type), call, a, b, t)
    one = c.constant(t.type, 1)
    omt = xp(one, t.data).subtract(one, t.data)
    return c.leafwise(lambda x, y: c.add(c.mul(x, omt), c.mul(y, t.data)), a, b)


@builtin("smoothstep", group="Utility")
def smoothstep(call: Call, a: Value, b: Value, x: Value) -> Value:
    """Hermite interpolation between 0 and 1 as ``x`` goes from ``a`` to ``b``."""
    c.require(a.type == b.type == x.type and scalars.is_float(a.type), call, a, b, x)
    m = xp(a.data, b.data, x.data)
    t = m.clip(m.divide(m.subtract(x.data, a.data), m.subtract(b.data, a.data)), 0, 1).astype(a.type._np_dtype)
    two, three = c.constant(a.type, 2), c.constant(a.type, 3)
    return Value(a.type, t * t * (three - two * t))


def _expect(call: Call, ok, args: list[Value], text: str) -> None:
    def report(ok_arr):
        if not np.all(ok_arr):
            print(f"Warp: {text} failed in kernel", flush=True)

    if call.ctx is None:
        report(np.asarray(ok))
        return
    ok = jnp.asarray(ok)
    if call.mask is not None:  # lanes a branch leaves inactive never report
        ok = ok | ~jnp.asarray(call.mask)
    jax.debug.callback(report, ok)


@builtin("expect_eq", group="Utility")
def expect_eq(call: Call, a: Value, b: Value) -> None:
    """Prints a message if ``a != b`` in any active thread."""
    from jwarp.compiler.operators import compare
    import ast

    _same_composite_types(a, b)
    _expect(call, compare(ast.Eq, a, b).data, [a, b], "expect_eq")


def _same_composite_types(a: Value, b: Value) -> None:
    if (c.is_composite(a) or c.is_composite(b)) and a.type != b.type:
        raise RuntimeError("Can't test equality for objects with different types")


@builtin("expect_neq", group="Utility")
def expect_neq(call: Call, a: Value, b: Value) -> None:
    from jwarp.compiler.operators import compare
    import ast

    _same_composite_types(a, b)
    _expect(call, compare(ast.NotEq, a, b).data, [a, b], "expect_neq")


@builtin("expect_near", group="Utility")
def expect_near(call: Call, a: Value, b: Value, tolerance: Value | None = None) -> None:
    tol = 1e-6 if tolerance is None else tolerance.data
    ok = None
    for x, y in zip(leaves_of(a), leaves_of(b)):
        m = xp(x, y)
        term = m.abs(m.subtract(x, y)) <= tol
        ok = term if ok is None else ok & term
    _expect(call, ok, [a, b], "expect_near")


@builtin("breakpoint", group="Utility")
def breakpoint_(call: Call) -> None:
    """No-op (there is no debugger inside XLA programs)."""
    return None


__all__ = ["tid", "type_name"]


@builtin("grad", group="Utility")
def grad(call: Call, func: Value) -> Value:
    """``wp.grad(f)``: a callable giving the gradient of the float-valued ``@wp.func`` or builtin ``f``
    with respect to each argument, per thread (see :mod:`jwarp.compiler.grad_call`)."""
    from jwarp.compiler.grad_call import GradOf
    from jwarp.compiler.registry import Builtin

    target = func.data if func.type is STATIC else None
    if not (isinstance(target, Builtin) or getattr(target, "_jwarp_function", False)):
        raise TypeError("wp.grad() expects a @wp.func function or a Warp builtin")
    return Value(STATIC, GradOf(target))
