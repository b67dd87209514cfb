"""``wp.tile_arange``: a 1-D tile of evenly spaced values, with Warp's exact range rules.

The bounds are compile-time constants. They are first rounded to the output dtype (integers
must be representable and integral; floats are rounded once, correctly, from the exact value),
then the element count ``ceil((stop - start) / step)`` is computed exactly (rationals), so a
range of ``int64`` values past 2**53, or a float32 range whose bounds round onto the step, has
the length Warp gives it. Empty ranges, zero steps (also after rounding) and non-numeric
dtypes are errors at the call.

Example (kernel code):
    a = wp.tile_arange(8, dtype=int)           # 0..7 (float32 without dtype, as in Warp)
    b = wp.tile_arange(0.0, 1.0, 0.25)         # float32: 0, 0.25, 0.5, 0.75
    c = wp.tile_arange(10, 0, -3, dtype=int)   # 10, 7, 4, 1
"""

from __future__ import annotations

import math
from fractions import Fraction

import jax.numpy as jnp
import numpy as np

from jwarp.builtins.common import STATIC, Call, Value
from jwarp.compiler import tiles
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import is_const
from jwarp.errors import WarpCodegenError, WarpCodegenTypeError, WarpCodegenValueError
from jwarp.lang import scalars

_NAMES = ("start", "stop", "step")
_MAX_COUNT = 2**31 - 1


def _exact(v: Value, name: str) -> int | float:
    """The Python value of a constant bound (a float literal keeps its full precision)."""
    if v.type is STATIC and isinstance(v.data, (int, float)) and not isinstance(v.data, bool):
        return v.data
    if not is_const(v.data) or not scalars.is_scalar_type(v.type) or v.type is scalars.bool_:
        raise WarpCodegenError(f"tile_arange() arguments must be compile time constants, but {name} is not")
    literal = getattr(v.data, "literal", None)
    if literal is not None:
        return literal
    return int(v.data) if scalars.is_int(v.type) else float(v.data)


def _round_to_float(x: int | float, np_dtype: type) -> np.floating:
    """``x`` rounded once, to nearest (ties to even), to the float type ``np_dtype``."""
    with np.errstate(all="ignore"):
        first = np_dtype(float(x)) if abs(x) < 2**1023 else np_dtype(math.copysign(math.inf, x))
    if isinstance(x, float) or not np.isfinite(first):
        return first
    best, best_err = first, None
    for cand in (np.nextafter(first, np_dtype(-np.inf)), first, np.nextafter(first, np_dtype(np.inf))):
        if not np.isfinite(cand):
            continue
        err = abs(Fraction(float(cand)) - x)
        even = int(np.asarray(cand).view(np.uint16 if np_dtype is np.float16 else
                                          np.uint32 if np_dtype is np.float32 else np.uint64)) % 2 == 0
        if best_err is None or err < best_err or (err == best_err and even):
            best, best_err = cand, err
    return best


def _convert(x: int | float, name: str, dtype: type) -> int | np.floating:
    np_dtype = np.dtype(dtype._np_dtype).type
    if scalars.is_int(dtype):
        if isinstance(x, float):
            if not math.isfinite(x) or x != int(x):
                raise WarpCodegenValueError(f"tile_arange() {name}={x!r} has a fractional part; an integer dtype "
                                            f"({dtype.__name__}) needs integral bounds")
            x = int(x)
        info = np.iinfo(np_dtype)
        if not info.min <= x <= info.max:
            raise WarpCodegenValueError(f"tile_arange() {name}={x!r} is out of range for {dtype.__name__}")
        return x
    if isinstance(x, int) and not -(2**63) <= x < 2**64:  # Warp rounds integer bounds through (u)int64
        raise WarpCodegenValueError(f"tile_arange() {name}={x} is too wide to use as an integer bound; write it as "
                                    f"a floating-point literal to build a {dtype.__name__} range")
    value = _round_to_float(x, np_dtype)
    if not np.isfinite(value):
        raise WarpCodegenValueError(f"tile_arange() {name}={x!r} is out of range for {dtype.__name__}")
    return value


def _frac(x: int | np.floating) -> Fraction:
    return Fraction(x) if isinstance(x, int) else Fraction(float(x))


@builtin("tile_arange", group="Tile Primitives", kernel_only=True)
def tile_arange(call: Call, *args: Value, dtype: Value | None = None, storage: Value | None = None) -> Value:
    """``[start, stop)`` in steps of ``step`` as a 1-D tile (``tile_arange(stop)``,
    ``tile_arange(start, stop)``, ``tile_arange(start, stop, step)``; compile-time bounds)."""
    call.require_kernel()
    if len(args) > 3:
        raise WarpCodegenTypeError(f"tile_arange() accepts at most 3 positional arguments, got {len(args)}")
    if not args:
        raise WarpCodegenTypeError("tile_arange() needs at least a stop value")
    names = ("stop",) if len(args) == 1 else _NAMES[: len(args)]
    raw = {name: _exact(a, name) for name, a in zip(names, args)}
    t = scalars.float32 if dtype is None else tiles.static_dtype(dtype)  # float32 by default, as Warp
    if not scalars.is_scalar_type(t) or t is scalars.bool_:
        raise WarpCodegenTypeError(f"tile_arange() requires a numeric scalar dtype, got {getattr(t, '__name__', t)}")
    start = _convert(raw.get("start", 0), "start", t)
    stop = _convert(raw["stop"], "stop", t)
    step = _convert(raw.get("step", 1), "step", t)
    if step == 0:
        raise WarpCodegenValueError("tile_arange() step cannot be zero")
    span = (_frac(stop) - _frac(start)) / _frac(step)
    if scalars.is_int(t):
        count = math.ceil(span)
    else:  # Warp counts with the quotient as the float type holds it (0.3f / 0.1f is 3)
        with np.errstate(all="ignore"):
            quotient = np.dtype(t._np_dtype).type(float(span)) if abs(span) < 2**1023 else np.inf
        if not np.isfinite(quotient):
            raise WarpCodegenValueError("tile_arange() range spans more elements than can be counted")
        count = math.ceil(quotient)
        if count == 0 and span > 0:  # the quotient underflowed: the range still holds its start
            count = 1
    if count <= 0:
        raise WarpCodegenValueError(f"tile_arange() needs a non-empty range, got start={raw.get('start', 0)!r}, "
                                    f"stop={raw['stop']!r}, step={raw.get('step', 1)!r}")
    if count > _MAX_COUNT:
        raise WarpCodegenValueError(f"tile_arange() range spans more elements than can be counted ({count})")
    if scalars.is_int(t):
        values = np.array([start + k * step for k in range(count)], dtype=t._np_dtype)
    else:
        with np.errstate(all="ignore"):
            values = (np.float64(start) + np.arange(count, dtype=np.float64) * np.float64(step)).astype(t._np_dtype)
    n = len(call.ctx.grid)
    data = jnp.asarray(values).reshape((1,) * n + values.shape)
    return tiles.make_tile(call.ctx, t, values.shape, data, tiles.static_storage(storage))


__all__ = ["tile_arange"]
