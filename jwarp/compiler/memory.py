"""Array loads, stores and atomics, lowered to the cheapest XLA form that is exact.

Every index of an access is classified per array axis:

- ``lane``: ``s * tid[g] + c`` with a constant stride ``s >= 1`` (an
  :class:`~jwarp.compiler.values.Affine` integer);
- ``uniform``: the same for all lanes (a constant or a 0-d leaf);
- ``gather``: anything else (a per-lane leaf).

With no ``gather`` axis and lane axes in grid order, a load is a dynamic index plus a
shifted (``lax.pad``) or strided (``lax.slice``) copy and a store is a ``where`` over the whole
plane (strided stores place the values with interior padding) — no gather/scatter (see
lowering-recipes.md, recipes 1-2). Otherwise loads gather and stores scatter with masked-out or out-of-bounds lanes dropped. Atomics combine every lane's
contribution; the values they return are as if threads ran in increasing thread order.

Everything works plane by plane: a ``vec3`` array is three scalar planes. The gathers and
scatters that remain move float32 planes in complex64 pairs where that pays (:mod:`packing`).
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.compiler import packing, row_gathers
from jwarp.compiler.context import KernelContext
from jwarp.compiler.values import Value, is_const
from jwarp.compiler.selects import clip, where

Index = tuple  # ("lane", grid_axis, offset, scale) | ("uniform", leaf) | ("gather", leaf)


def wrap_negative(ctx: KernelContext, indices: list[Value], shape: tuple, keep_lanes: bool) -> list[Value]:
    """Indices with Warp's rule for negative ones applied: ``-n <= k < 0`` addresses ``k + n``
    (``a[-1]`` is the last element). Lane indices (``tid + c``) that can go negative stay affine when
    ``keep_lanes`` (loads wrap them on the shifted copy) and become explicit otherwise."""
    out = []
    for index, n in zip(indices, shape):
        leaf = index.data
        if index.affine is not None:
            if index.affine.offset >= 0 or keep_lanes:
                out.append(index)
                continue
            a = index.affine
            leaf = ctx.tid[a.axis] * a.scale + a.offset
        if is_const(leaf):
            k = int(leaf)
            out.append(Value(index.type, type(leaf)(k + n)) if -n <= k < 0 else index)
            continue
        leaf = jnp.asarray(leaf)
        if jnp.issubdtype(leaf.dtype, jnp.unsignedinteger):
            out.append(Value(index.type, leaf))
            continue
        out.append(Value(index.type, where(leaf < 0, leaf + jnp.asarray(n, leaf.dtype), leaf)))
    return out


def _in_ref_memory(ctx: KernelContext, planes: list) -> bool:
    """Whether ``planes`` are memory references of the Pallas target (see pallas_memory.py): the
    access is emitted as ref operations there instead of whole-plane XLA operations."""
    return ctx.ref_memory is not None and ctx.ref_memory.owns(planes)


def classify(index: Value) -> Index:
    leaf = index.data
    if index.affine is not None:
        return ("lane", index.affine.axis, index.affine.offset, index.affine.scale)
    if is_const(leaf) or jnp.ndim(leaf) == 0:
        return ("uniform", leaf)
    return ("gather", leaf)


def _shift(x: Any, axis: int, length_out: int, offset: int) -> Any:
    """out[t] = x[t + offset] along ``axis`` for t < length_out; zero outside x."""
    n = x.shape[axis]
    low, high = -offset, length_out - n + offset
    if low == 0 and high == 0:
        return x
    lo_valid, hi_valid = max(0, -offset), min(length_out, n - offset)
    if hi_valid <= lo_valid:
        shape = list(x.shape)
        shape[axis] = length_out
        return jnp.zeros(shape, x.dtype)
    config = [(0, 0, 0)] * x.ndim
    config[axis] = (low, high, 0)
    return lax.pad(x, jnp.zeros((), x.dtype), config)


def _shift_strided(x: Any, axis: int, length_out: int, offset: int, scale: int) -> Any:
    """out[t] = x[scale * t + offset] along ``axis`` for t < length_out; zero outside x."""
    n = x.shape[axis]
    last = offset + scale * (length_out - 1)
    pad_low, pad_high = max(0, -offset), max(0, last + 1 - n)
    if pad_low or pad_high:
        config = [(0, 0, 0)] * x.ndim
        config[axis] = (pad_low, pad_high, 0)
        x = lax.pad(x, jnp.zeros((), x.dtype), config)
    start = offset + pad_low
    return lax.slice_in_dim(x, start, start + scale * (length_out - 1) + 1, stride=scale, axis=axis)


def _fast_layout(kinds: list[Index], grid: tuple[int, ...]) -> list[int] | None:
    """Grid axes used by the lane indices (shifted or strided), or None when the whole-plane fast
    path does not apply (a gathered index, or lane axes out of order)."""
    if any(k[0] == "gather" for k in kinds):
        return None
    lane_axes = [k[1] for k in kinds if k[0] == "lane"]
    if any(b <= a for a, b in zip(lane_axes, lane_axes[1:])):
        return None
    return lane_axes


def _uniform_valid(kinds: list[Index], shape: tuple[int, ...]) -> Any:
    valid = None
    for k, n in zip(kinds, shape):
        if k[0] == "uniform":
            ok = (k[1] >= 0) & (k[1] < n)
            valid = ok if valid is None else valid & ok
    return valid


def _and(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    return a & b


def _lane_valid(ctx: KernelContext, kinds: list[Index], shape: tuple[int, ...]) -> Any:
    """Per-lane in-bounds predicate of an access (None when statically always in bounds)."""
    valid = None
    for k, n in zip(kinds, shape):
        if k[0] == "lane":
            g, c, scale = k[1], k[2], k[3]
            if 0 <= c and scale * (ctx.grid[g] - 1) + c < n:
                continue
            if -n <= c and scale * (ctx.grid[g] - 1) + c < n:
                continue  # lanes below 0 wrap (Warp's negative index rule)
            t = ctx.tid[g] * scale + c
            ok = (t >= -n) & (t < n)
        else:
            leaf = k[1]
            if is_const(leaf) and 0 <= int(leaf) < n:
                continue
            ok = (leaf >= 0) & (leaf < n)
        valid = _and(valid, ok)
    return valid


def _check(ctx: KernelContext, site: int, kinds: list[Index], shape: tuple[int, ...], mask: Any) -> Any:
    valid = _lane_valid(ctx, kinds, shape)
    if ctx.debug and valid is not None:
        active = jnp.asarray(True) if mask is None else mask
        ctx.flag_out_of_bounds(site, active & ~valid)
    return valid


def _full_indices(ctx: KernelContext, kinds: list[Index], shape: tuple[int, ...]) -> list:
    out = []
    for k, n in zip(kinds, shape):
        if k[0] == "lane":
            leaf = ctx.tid[k[1]] * k[3] + k[2]
        else:
            leaf = k[1]
        out.append(jnp.broadcast_to(jnp.asarray(leaf), ctx.grid))
    return out


def _dynamic_slice_uniform(plane: Any, kinds: list[Index]) -> tuple[Any, list]:
    """Slice out the uniform axes (kept with extent 1); returns (sub-plane, start indices)."""
    if not any(k[0] == "uniform" for k in kinds):
        return plane, [0] * plane.ndim
    starts, sizes = [], []
    for k, n in zip(kinds, plane.shape):
        if k[0] == "uniform":
            starts.append(jnp.asarray(k[1], jnp.int32) if not is_const(k[1]) else int(np.clip(int(k[1]), 0, n - 1)))
            sizes.append(1)
        else:
            starts.append(0)
            sizes.append(n)
    if all(isinstance(s, int) for s in starts):
        sub = lax.slice(plane, starts, [s + z for s, z in zip(starts, sizes)])
    else:
        sub = lax.dynamic_slice(plane, [jnp.asarray(s, jnp.int32) for s in starts], sizes)
    return sub, starts


def load(ctx: KernelContext, planes: list, shape: tuple, indices: list[Value], site: int, mask: Any) -> list:
    """Load every plane at ``indices``; returns one leaf per plane."""
    if _in_ref_memory(ctx, planes):
        return ctx.ref_memory.load(ctx, planes, shape, indices, site, mask)
    if (rows := row_gathers.prefetched(ctx, planes, indices)) is not None:  # (a pair pass's candidate rows)
        return rows
    kinds = [classify(i) for i in wrap_negative(ctx, indices, shape, keep_lanes=True)]
    valid = _check(ctx, site, kinds, shape, mask)
    lane_axes = _fast_layout(kinds, ctx.grid)
    if lane_axes is not None:
        return zero_outside([_load_fast(ctx, p, kinds, lane_axes) for p in planes], valid)
    full = [where(i < 0, i + n, i) if k[0] == "lane" else i  # (gathered indices are wrapped: wrap_negative)
            for i, n, k in zip(_full_indices(ctx, kinds, shape), shape, kinds)]
    full = [clip(i, 0, n - 1) for i, n in zip(full, shape)]
    if ctx.ref_memory is None:
        # computed once: XLA would otherwise fuse the index computation into every gather that uses
        # it (diffray's four texture reads recomputed the texture coordinate four times, 19 ms each
        # per million rays; its backward 1.85 -> 1.58 s at 1.9M rays, other benchmarks unchanged)
        full = list(lax.optimization_barrier(full))
    return zero_outside(packing.gather(planes, tuple(full), ctx.num_threads), valid)


def zero_outside(leaves: list, valid: Any) -> list:
    """The out-of-bounds read rule (release mode), the same for every index form (constant, affine
    ``tid + c``, launch-time offsets, gathered): a read outside the array (after Warp's wrap of
    indices in ``[-n, 0)``) gives 0. ``valid`` is the per-lane in-bounds predicate of the access
    (None: statically in bounds)."""
    if valid is None:
        return leaves
    return [where(valid, leaf, jnp.zeros((), jnp.asarray(leaf).dtype)) for leaf in leaves]


def _load_fast(ctx: KernelContext, plane: Any, kinds: list[Index], lane_axes: list[int]) -> Any:
    if not lane_axes and all(is_const(k[1]) for k in kinds):
        idx = tuple(int(np.clip(int(k[1]), 0, n - 1)) for k, n in zip(kinds, plane.shape))
        return plane[idx]
    sub, _ = _dynamic_slice_uniform(plane, kinds)
    keep = [a for a, k in enumerate(kinds) if k[0] == "lane"]
    sub = sub.reshape([sub.shape[a] for a in keep])
    for pos, a in enumerate(keep):
        _, g, c, scale = kinds[a]
        if c < 0:  # lanes at negative indices read from the end: put the tail in front
            n = sub.shape[pos]
            p = min(-c, n)
            sub = jnp.concatenate([lax.slice_in_dim(sub, n - p, n, axis=pos), sub], axis=pos)
            c += p
        sub = _shift(sub, pos, ctx.grid[g], c) if scale == 1 else _shift_strided(sub, pos, ctx.grid[g], c, scale)
    if not lane_axes:
        return sub.reshape(())
    out_shape = [1] * len(ctx.grid)
    for pos, g in enumerate(lane_axes):
        out_shape[g] = ctx.grid[g]
    return sub.reshape(out_shape)


def _is_bijective(ctx: KernelContext, kinds: list[Index]) -> bool:
    """True when each lane maps to its own element (every grid axis of extent > 1 is indexed)."""
    used = {k[1] for k in kinds if k[0] == "lane"}
    return all(g in used or n == 1 for g, n in enumerate(ctx.grid))


def store(
    ctx: KernelContext, planes: list, shape: tuple, indices: list[Value], leaves: list, mask: Any, site: int
) -> list:
    """Plain store of ``leaves`` into ``planes`` at ``indices`` under ``mask``; returns new planes."""
    if _in_ref_memory(ctx, planes):
        return ctx.ref_memory.store(ctx, planes, shape, indices, leaves, mask, site)
    kinds = [classify(i) for i in wrap_negative(ctx, indices, shape, keep_lanes=False)]
    valid = _check(ctx, site, kinds, shape, mask)
    lane_axes = _fast_layout(kinds, ctx.grid)
    if lane_axes is not None and _is_bijective(ctx, kinds):
        return [_store_fast(ctx, p, kinds, v, mask) for p, v in zip(planes, leaves)]
    if not any(k[0] != "uniform" for k in kinds):
        return [_store_uniform(ctx, p, kinds, v, _and(mask, valid)) for p, v in zip(planes, leaves)]
    idx = _scatter_indices(ctx, kinds, shape, _and(mask, valid))
    values = [jnp.broadcast_to(v, ctx.grid).astype(p.dtype) for p, v in zip(planes, leaves)]
    return packing.scatter(planes, idx, values, "set", ctx.num_threads, unique=ctx.distinct_stores)


def _scatter_indices(ctx: KernelContext, kinds: list[Index], shape: tuple, keep: Any) -> tuple:
    full = _full_indices(ctx, kinds, shape)
    if keep is None:
        return tuple(full)
    keep = jnp.broadcast_to(keep, ctx.grid)
    return tuple(where(keep, i, n) for i, n in zip(full, shape))


def _to_array_coords(ctx: KernelContext, x: Any, kinds: list[Index], sub_shape: tuple) -> Any:
    """Grid-shaped leaf → leaf laid out like the sub-plane (uniform axes of extent 1)."""
    lane = [k for k in kinds if k[0] == "lane"]
    x = jnp.broadcast_to(x, ctx.grid)
    x = x.reshape([ctx.grid[k[1]] for k in lane]) if lane else x.reshape(())
    for pos, k in enumerate(lane):
        n = sub_shape[[i for i, kk in enumerate(kinds) if kk[0] == "lane"][pos]]
        x = _place(x, pos, n, k[2], k[3])
    return x.reshape(sub_shape)


def _place(x: Any, axis: int, length_out: int, offset: int, scale: int) -> Any:
    """out[scale * t + offset] = x[t] along ``axis`` (zero elsewhere; positions outside dropped):
    the inverse of :func:`_shift_strided`, built by padding (interior padding for the stride)."""
    if scale == 1:
        return _shift(x, axis, length_out, -offset)
    lanes = x.shape[axis]
    config = [(0, 0, 0)] * x.ndim
    config[axis] = (offset, length_out - (offset + scale * (lanes - 1) + 1), scale - 1)
    return lax.pad(x, jnp.zeros((), x.dtype), config)


def _store_fast(ctx: KernelContext, plane: Any, kinds: list[Index], value: Any, mask: Any) -> Any:
    sub, starts = _dynamic_slice_uniform(plane, kinds)
    value = jnp.asarray(value, plane.dtype)
    shifted = _to_array_coords(ctx, value, kinds, sub.shape)
    if mask is None and sub.shape == plane.shape and _covers(ctx, kinds, plane.shape):
        return shifted  # every element is stored by its own lane: the values are the new plane
    m = jnp.asarray(True) if mask is None else mask
    keep = _to_array_coords(ctx, m, kinds, sub.shape)
    uvalid = _uniform_valid(kinds, plane.shape)
    if uvalid is not None:
        keep = keep & uvalid
    new_sub = where(keep, shifted, sub)
    if sub.shape == plane.shape:
        return new_sub
    if _one_component(plane, sub, starts):
        return _replace_component(plane, new_sub, starts[-1])
    return lax.dynamic_update_slice(plane, new_sub, [jnp.asarray(s, jnp.int32) for s in starts])


MAX_COMPONENT_STACK = 16
"""Stores into a constant index of a last axis at most this long, every other axis whole (``u[i, 2] =
x`` on a ``(n, 9)`` array), rebuild the plane as a stack of its columns (:func:`_replace_component`)."""


def _one_component(plane: Any, sub: Any, starts: list) -> bool:
    return (plane.ndim >= 2 and plane.shape[-1] <= MAX_COMPONENT_STACK and sub.shape[:-1] == plane.shape[:-1]
            and sub.shape[-1] == 1 and isinstance(starts[-1], int))


def _replace_component(plane: Any, column: Any, index: int) -> Any:
    """``plane`` with ``[..., index]`` replaced by ``column`` (extent 1 on the last axis), as a stack of
    its columns. A ``dynamic_update_slice`` of one column is a strided pass over the whole array on
    XLA:CPU, one per stored column; consecutive stacks of slices fold into one stack, which the
    program of a large launch interleaves in one fused pass (jwarp/compiler/output_interleave.py).
    ``u[i, 3 * k + l] = m[k, l]`` over 2^20 lanes: 24.6 → 1.7 ms (Warp 3.0 ms)."""
    columns = [column[..., 0] if j == index else plane[..., j] for j in range(plane.shape[-1])]
    return jnp.stack(columns, axis=-1)


def _covers(ctx: KernelContext, kinds: list[Index], shape: tuple) -> bool:
    """Whether the lanes store every element of the plane (identity lane indices over the whole
    extent of every axis)."""
    return all(k[0] == "lane" and k[2] == 0 and k[3] == 1 and ctx.grid[k[1]] == n for k, n in zip(kinds, shape))


def _last_active(leaf: Any, keep: Any, grid: tuple) -> tuple[Any, Any]:
    """Value of the highest-numbered active lane, and whether any lane is active."""
    if keep is None and jnp.ndim(leaf) == 0:
        return leaf, None
    keep_full = jnp.broadcast_to(jnp.asarray(True) if keep is None else keep, grid).reshape(-1)
    flat = jnp.broadcast_to(leaf, grid).reshape(-1)
    if flat.shape[0] == 0:
        return jnp.zeros((), flat.dtype), jnp.asarray(False)
    lane = jnp.arange(flat.shape[0], dtype=jnp.int32)
    last = jnp.max(where(keep_full, lane, -1))
    return flat[jnp.maximum(last, 0)], last >= 0


def _store_uniform(ctx: KernelContext, plane: Any, kinds: list[Index], value: Any, keep: Any) -> Any:
    """All lanes write one element: the highest active lane wins (deterministic)."""
    v, any_active = _last_active(jnp.asarray(value, plane.dtype), keep, ctx.grid)
    idx = [clip(jnp.asarray(k[1], jnp.int32), 0, n - 1) for k, n in zip(kinds, plane.shape)]
    current = plane[tuple(idx)]
    new = v if any_active is None else where(any_active, v, current)
    return lax.dynamic_update_slice(plane, new.reshape((1,) * plane.ndim), idx)


# ------------------------------------------------------------------------------------------------
# atomics

_COMBINE: dict[str, Callable] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "min": jnp.fmin,  # NaN counts as missing, as Warp's atomic_min/max (a NaN never wins over a number)
    "max": jnp.fmax,
    "and": jnp.bitwise_and,
    "or": jnp.bitwise_or,
    "xor": jnp.bitwise_xor,
}


def _identity(op: str, dtype: Any) -> Any:
    dtype = jnp.dtype(dtype)
    if op in ("add", "sub", "or", "xor"):
        return jnp.zeros((), dtype)
    if op == "and":
        return jnp.asarray(-1 if jnp.issubdtype(dtype, jnp.signedinteger) else np.iinfo(dtype).max, dtype)
    big = jnp.finfo(dtype).max if jnp.issubdtype(dtype, jnp.floating) else jnp.iinfo(dtype).max
    small = jnp.finfo(dtype).min if jnp.issubdtype(dtype, jnp.floating) else jnp.iinfo(dtype).min
    if jnp.issubdtype(dtype, jnp.floating):
        return jnp.asarray(jnp.nan, dtype)  # fmin(x, NaN) == x
    return jnp.asarray(big if op == "min" else small, dtype)


def _reduce(op: str, x: Any) -> Any:
    if op in ("add", "sub"):
        return jnp.sum(x, dtype=x.dtype)
    if op in ("min", "max"):
        floating = jnp.issubdtype(x.dtype, jnp.floating)
        return (jnp.nanmin if floating else jnp.min)(x) if op == "min" else (jnp.nanmax if floating else jnp.max)(x)
    return lax.reduce(x, _identity(op, x.dtype), _COMBINE[op], tuple(range(x.ndim)))


def atomic(
    ctx: KernelContext,
    op: str,
    planes: list,
    shape: tuple,
    indices: list[Value],
    leaves: list,
    mask: Any,
    want_old: bool,
    site: int,
) -> tuple[list, list | None]:
    """Atomic read-modify-write; returns (new planes, old values per plane or None)."""
    # a thread observes other threads' updates through the old value only (a discarded one shows it
    # nothing: counting hits with `out[i] += 1` inside a query loop needs no serial fallback)
    ctx.shared_memory = ctx.shared_memory or want_old
    ctx.lane_order = ctx.lane_order or want_old or op not in ("add", "sub")
    if _in_ref_memory(ctx, planes):
        return ctx.ref_memory.atomic(ctx, op, planes, shape, indices, leaves, mask, want_old, site)
    kinds = [classify(i) for i in wrap_negative(ctx, indices, shape, keep_lanes=False)]
    valid = _check(ctx, site, kinds, shape, mask)
    keep = _and(mask, valid)
    lane_axes = _fast_layout(kinds, ctx.grid)
    fast = lane_axes is not None and _is_bijective(ctx, kinds)
    uniform = all(k[0] == "uniform" for k in kinds)
    if op in ("add", "sub") and not want_old and not fast and not uniform:
        idx = _scatter_indices(ctx, kinds, shape, keep)
        values = [jnp.broadcast_to(jnp.asarray(v, p.dtype), ctx.grid) for p, v in zip(planes, leaves)]
        return packing.scatter(planes, idx, values, op, ctx.num_threads), None
    new_planes, olds = [], []
    for plane, value in zip(planes, leaves):
        value = jnp.asarray(value, plane.dtype)
        if fast:
            old = _load_fast(ctx, plane, kinds, lane_axes)
            new = _store_fast(ctx, plane, kinds, _COMBINE[op](old, value), keep)
        elif uniform:
            new, old = _atomic_uniform(ctx, op, plane, kinds, value, keep, want_old)
        else:
            new, old = _atomic_scatter(ctx, op, plane, kinds, shape, value, keep, want_old)
        new_planes.append(new)
        olds.append(old)
    return new_planes, (zero_outside(olds, valid) if want_old else None)


def _masked_lanes(op: str, value: Any, keep: Any, grid: tuple) -> Any:
    v = jnp.broadcast_to(value, grid)
    if keep is None:
        return v
    return where(jnp.broadcast_to(keep, grid), v, _identity(op, v.dtype))


def _atomic_uniform(ctx, op, plane, kinds, value, keep, want_old):
    idx = [clip(jnp.asarray(k[1], jnp.int32), 0, n - 1) for k, n in zip(kinds, plane.shape)]
    current = plane[tuple(idx)]
    contrib = _masked_lanes(op, value, keep, ctx.grid)
    total = _reduce(op, contrib) if contrib.ndim else contrib
    new_value = _COMBINE[op](current, total)
    if keep is not None and jnp.ndim(keep) == 0:
        new_value = where(keep, new_value, current)
    new = lax.dynamic_update_slice(plane, new_value.reshape((1,) * plane.ndim), idx)
    if not want_old:
        return new, None
    if contrib.ndim == 0:
        return new, current
    flat = contrib.reshape(-1)
    inclusive = _inclusive_scan(op, flat)
    exclusive = inclusive - flat if op in ("add", "sub") else _shift_right(op, inclusive)
    return new, _COMBINE[op](current, exclusive).reshape(ctx.grid)


def _shift_right(op: str, x: Any) -> Any:
    return jnp.concatenate([jnp.full((1,), _identity(op, x.dtype)), x[:-1]])


def _inclusive_scan(op: str, x: Any) -> Any:
    if op in ("add", "sub"):
        return jnp.cumsum(x, dtype=x.dtype)
    if op in ("min", "max") and not jnp.issubdtype(x.dtype, jnp.floating):
        return lax.cummin(x) if op == "min" else lax.cummax(x)
    return lax.associative_scan(_COMBINE[op], x)


def _atomic_scatter(ctx, op, plane, kinds, shape, value, keep, want_old):
    idx = _scatter_indices(ctx, kinds, shape, keep)
    v = jnp.broadcast_to(value, ctx.grid)
    if op in ("min", "max") and jnp.issubdtype(plane.dtype, jnp.floating):
        new = _scatter_nan_as_missing(plane, idx, v, op)
    elif op in ("add", "sub", "min", "max"):
        new = packing.scatter_plane(plane, idx, v, op)
    else:
        new = _scatter_rounds(plane, idx, v, keep, _COMBINE[op], ctx.grid)[0]
    if not want_old:
        return new, None
    return new, _ordered_old(op, plane, idx, v, ctx.grid)


def _scatter_nan_as_missing(plane: Any, idx: tuple, v: Any, op: str) -> Any:
    """Scatter-min/max where NaN counts as missing (C's fmin/fmax): a NaN element takes the
    extreme of the numbers that arrive, a NaN value changes nothing."""
    extreme = jnp.asarray(jnp.inf if op == "min" else -jnp.inf, plane.dtype)
    empty = jnp.isnan(plane)
    base = where(empty, extreme, plane)
    out = packing.scatter_plane(base, idx, where(jnp.isnan(v), extreme, v), op)
    arrived = packing.scatter_plane(jnp.zeros(plane.shape, jnp.int8), idx, (~jnp.isnan(v)).astype(jnp.int8), "max")
    return where(empty & (arrived == 0), plane, out)


def _linear(idx: tuple, shape: tuple) -> Any:
    lin = jnp.zeros(idx[0].shape, jnp.int64 if np.prod(shape) >= 2**31 else jnp.int32)
    for i, n in zip(idx, shape):
        lin = lin * n + jnp.minimum(i, n).astype(lin.dtype)
    return lin


def _ordered_old(op: str, plane: Any, idx: tuple, v: Any, grid: tuple) -> Any:
    """Old values seen by each lane if lanes ran one after another in thread order."""
    combine = _COMBINE["add" if op == "sub" else op]
    lin = _linear(idx, plane.shape).reshape(-1)
    flat_v = (-v if op == "sub" else v).reshape(-1)
    order = jnp.argsort(lin, stable=True)
    lin_s, v_s = lin[order], flat_v[order]
    start = jnp.concatenate([jnp.ones((1,), bool), lin_s[1:] != lin_s[:-1]])

    def seg(a, b):
        fa, va = a
        fb, vb = b
        return fa | fb, where(fb, vb, combine(va, vb))

    _, inclusive = lax.associative_scan(seg, (start, v_s))
    ident = _identity("add" if op == "sub" else op, v_s.dtype)
    prev = jnp.concatenate([jnp.full((1,), ident), inclusive[:-1]])
    exclusive = where(start, ident, prev)
    safe = tuple(clip(i, 0, n - 1).reshape(-1)[order] for i, n in zip(idx, plane.shape))
    old_s = combine(plane[safe], exclusive)
    old = jnp.zeros_like(old_s).at[order].set(old_s)
    return old.reshape(grid)


def _scatter_rounds(plane: Any, idx: tuple, v: Any, keep: Any, update: Callable, grid: tuple, compare: Any = None):
    """Apply lanes one collision round at a time, lowest lane first.

    ``update(old, v)`` gives the new element; with ``compare`` (atomic_cas) the update only
    happens where the element equals the lane's compare value. Returns (new plane, old values).
    """
    shape = plane.shape
    n_elem = int(np.prod(shape))
    lin = _linear(idx, shape).reshape(-1)
    lanes = lin.shape[0]
    lane_id = jnp.arange(lanes, dtype=jnp.int32)
    flat_v = v.reshape(-1)
    flat_c = None if compare is None else jnp.broadcast_to(compare, grid).reshape(-1)
    pending = lin < n_elem
    buf = plane.reshape(-1)
    olds = jnp.zeros((lanes,), plane.dtype)

    def cond(state):
        return jnp.any(state[1])

    def body(state):
        buf, pending, olds = state
        owner = jnp.full((n_elem + 1,), lanes, jnp.int32).at[where(pending, lin, n_elem)].min(lane_id)
        winner = pending & (owner[jnp.minimum(lin, n_elem)] == lane_id)
        current = buf[jnp.minimum(lin, n_elem - 1)]
        new = update(current, flat_v)
        if flat_c is not None:
            new = where(current == flat_c, new, current)
        buf = buf.at[where(winner, lin, n_elem)].set(new, mode="drop")
        olds = where(winner, current, olds)
        return buf, pending & ~winner, olds

    buf, _, olds = lax.while_loop(cond, body, (buf, pending, olds))
    return buf.reshape(shape), olds.reshape(grid)


def exchange(
    ctx: KernelContext, planes: list, shape: tuple, indices: list[Value], leaves: list, mask: Any, site: int,
    compare: list | None = None,
) -> tuple[list, list]:
    """``atomic_exch`` (compare None) and ``atomic_cas``, in thread order; returns (planes, olds)."""
    ctx.shared_memory = ctx.lane_order = True
    if _in_ref_memory(ctx, planes):
        return ctx.ref_memory.exchange(ctx, planes, shape, indices, leaves, mask, site, compare)
    kinds = [classify(i) for i in wrap_negative(ctx, indices, shape, keep_lanes=False)]
    valid = _check(ctx, site, kinds, shape, mask)
    keep = _and(mask, valid)
    idx = _scatter_indices(ctx, kinds, shape, keep)
    new_planes, olds = [], []
    for k, (plane, value) in enumerate(zip(planes, leaves)):
        v = jnp.broadcast_to(jnp.asarray(value, plane.dtype), ctx.grid)
        cmp = None if compare is None else jnp.asarray(compare[k], plane.dtype)
        new, old = _scatter_rounds(plane, idx, v, keep, lambda old, val: val, ctx.grid, cmp)
        new_planes.append(new)
        olds.append(old)
    return new_planes, olds


__all__ = ["load", "store", "atomic", "exchange", "classify", "jax"]
