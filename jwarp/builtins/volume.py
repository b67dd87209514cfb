"""Volume builtins: ``volume_sample``, ``volume_sample_grad``, ``volume_lookup``, ``volume_store``,
the index-grid forms (``volume_lookup_index``, ``volume_sample_index`` …) and the index↔world transforms.

A volume bound to a launch (:mod:`jwarp.runtime.geometry.volume`) brings its leaf values, its tile
map and its transform. A voxel read is: tile of ``ijk`` (``ijk >> 3``), its leaf from the tile map
(-1: no tile, the background value), then the voxel ``leaf * 512 + offset`` of the values. Sampling
follows Warp (``native/volume.h``): ``CLOSEST`` rounds halfway cases away from zero; ``LINEAR``
blends the 8 voxels around ``floor(uvw)`` with float32 weights, in Warp's order. Gradients with
respect to ``uvw`` come from JAX's derivative of that arithmetic (the derivative of the weights, as
Warp's adjoint); the stored values get none, as in Warp. A ``dtype`` that is not the volume's type
reads 0 and stores nothing (Warp's behaviour).

Example:
    >>> import jwarp as wp
    >>> @wp.kernel
    ... def sample(vid: wp.uint64, points: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    ...     i = wp.tid()
    ...     uvw = wp.volume_world_to_index(vid, points[i])
    ...     out[i] = wp.volume_sample(vid, uvw, wp.Volume.LINEAR, dtype=float)
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.builtins.common import Call, Value
from jwarp.builtins.trig import apart
from jwarp.compiler import handles, memory
from jwarp.compiler.masks import mask_and
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import STATIC, is_const, leaves_of, to_device_leaf, value_from_leaves
from jwarp.errors import WarpCodegenError
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import type_name
from jwarp.compiler.selects import clip, where

CLOSEST, LINEAR = 0, 1
INDEX_GRIDS = ("Index", "OnIndex", "IndexMask", "OnIndexMask")
_OFFSETS = ((0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1))
_TYPE_NAMES = {scalars.float32: "float", scalars.float64: "double", scalars.int32: "int32", scalars.int64: "int64",
               scalars.uint32: "uint32", composites.vector(3, scalars.float32): "Vec3f",
               composites.vector(3, scalars.float64): "Vec3d", composites.vector(4, scalars.float32): "Vec4f",
               composites.vector(4, scalars.float64): "Vec4d"}
_VEC3 = composites.vector(3, scalars.float32)
_VEC3D = composites.vector(3, scalars.float64)


# ---------------------------------------------------------------------------------------------- helpers
def _full(call: Call, leaf: Any) -> Any:
    return jnp.broadcast_to(to_device_leaf(leaf), call.ctx.grid)


def _int_leaf(call: Call, v: Value) -> Any:
    return _full(call, jnp.asarray(to_device_leaf(v.data)).astype(jnp.int32))


def _static_dtype(call: Call, dtype: Value | None) -> Any:
    if dtype is None:
        raise WarpCodegenError(f"wp.{call.name}(): the 'dtype' argument is required")
    t = dtype.data if dtype.type is STATIC else None
    if t is not None and not composites.is_composite(t):
        t = scalars.canonical_scalar(t)
    if t not in _TYPE_NAMES:
        raise WarpCodegenError(f"wp.{call.name}(): unsupported volume type `{type_name(t) if t else dtype}`")
    return t


def _scalar_of(t: Any) -> Any:
    return t._wp_scalar_type_ if composites.is_composite(t) else t


def _width(t: Any) -> int:
    return t._length_ if composites.is_composite(t) else 1


def _grad_type(t: Any) -> Any:
    if composites.is_composite(t):
        return composites.matrix((t._length_, 3), t._wp_scalar_type_)
    return composites.vector(3, t)


def _check_uvw(call: Call, uvw: Value, *others: Value) -> None:
    if uvw.type != _VEC3:
        raise call.no_overload(uvw, *others)


def _mask(call: Call, lanes: Any) -> Any:
    return mask_and(call.mask, lanes)


def _volumes(call: Call, vid: Value) -> list:
    if not scalars.is_int(vid.type):
        raise call.no_overload(vid)
    return handles.candidates(call, vid, "volume", "Volume")


def _leaf(call: Call, h: handles.BoundHandle, ijk: list, mask: Any) -> tuple[Any, Any]:
    """(leaf number or -1, voxel offset in the leaf) of integer coordinates ``ijk``."""
    origin = h.fact("tile_origin")
    shape = call.ctx.slots[h.arrays["tile_map"].data.slot].shape
    rel = [jnp.right_shift(c, 3) - jnp.int32(o) for c, o in zip(ijk, origin)]
    inside = (rel[0] >= 0) & (rel[0] < shape[0]) & (rel[1] >= 0) & (rel[1] < shape[1]) & (rel[2] >= 0) & (
        rel[2] < shape[2])
    idx = [Value(scalars.int32, clip(r, 0, n - 1)) for r, n in zip(rel, shape)]
    leaf = handles.load(call, h, "tile_map", idx, mask_and(mask, inside))[0]
    leaf = where(inside, leaf, -1)
    local = ((ijk[0] & 7) << 6) | ((ijk[1] & 7) << 3) | (ijk[2] & 7)
    return leaf, local


def _voxel_slot(call: Call, h: handles.BoundHandle, name: str, leaf: Any, local: Any) -> Value:
    size = call.ctx.slots[h.arrays[name].data.slot].shape[0]
    return Value(scalars.int32, clip(leaf * 512 + local, 0, size - 1))


def _value_reader(call: Call, h: handles.BoundHandle, dtype: Any, mask: Any) -> Callable:
    """``read(ijk) -> leaves``: the volume's value at integer coordinates (background where no tile)."""
    bg = [_full(call, x) for x in leaves_of(h.values["background"])]

    def read(ijk: list) -> list:
        leaf, local = _leaf(call, h, ijk, mask)
        found = leaf >= 0
        vals = handles.load(call, h, "values", [_voxel_slot(call, h, "values", leaf, local)], mask_and(mask, found))
        if h.fact("constant"):  # tiles of one value (NanoVDB internal-node tiles): tile map entries -2 - k
            n = call.ctx.slots[h.arrays["tile_values"].data.slot].shape[0]
            tile = leaf <= -2
            k = Value(scalars.int32, clip(-2 - leaf, 0, n - 1))
            consts = handles.load(call, h, "tile_values", [k], mask_and(mask, tile))
            bg_or = [where(tile, c, b) for c, b in zip(consts, bg)]
            return [where(found, v, b) for v, b in zip(vals, bg_or)]
        return [where(found, v, b) for v, b in zip(vals, bg)]

    return read


def one_by_one(read: Callable, ijk: list) -> list:
    """The 8 voxels ``ijk + _OFFSETS`` of a linear sample, each read by ``read`` (``read(ijk) -> leaves``)."""
    return [read([ijk[0] + ox, ijk[1] + oy, ijk[2] + oz]) for ox, oy, oz in _OFFSETS]


class _Corners:
    """The 8 voxels ``ijk + _OFFSETS`` of linear samples of volume ``h``, located at once: each corner's
    tile-map row (its leaf, and where it has none the bits of the value it reads: a constant tile's,
    else the background) and voxel offset, from one computation (computed apart, corner-major: all
    lanes' first corners, then their second ones...) and one gather of a table of rows per tile. A
    voxel read by voxel fused the index arithmetic into each of its 2-3 gathers: Warp's nvdb example,
    24 gathers of 10,000 lanes a launch, 5.2-5.4 -> 2.2-2.4 ms a step (lane-major corners: 2.8)."""

    def __init__(self, call: Call, h: handles.BoundHandle, ijk: list, values: bool = True):
        ctx = call.ctx
        tile_map = ctx.slots[h.arrays["tile_map"].data.slot]
        origin, shape = h.fact("tile_origin"), tile_map.shape
        outside = tile_map.planes[0].size  # the row after the map's: no leaf

        def locate(i: Any, j: Any, k: Any) -> Any:
            flat, local = [], []
            for ox, oy, oz in _OFFSETS:
                c = (i + ox, j + oy, k + oz)
                rel = [jnp.right_shift(x, 3) - jnp.int32(o) for x, o in zip(c, origin)]
                inside = functools.reduce(jnp.logical_and, [(r >= 0) & (r < n) for r, n in zip(rel, shape)])
                flat.append(where(inside, (rel[0] * shape[1] + rel[1]) * shape[2] + rel[2], outside))
                local.append(((c[0] & 7) << 6) | ((c[1] & 7) << 3) | (c[2] & 7))
            return jnp.stack([jnp.stack(flat), jnp.stack(local)])

        flat, self.local = apart(locate(*ijk))
        leaves = jnp.concatenate([tile_map.planes[0].reshape(-1), jnp.full((1,), -1, jnp.int32)])
        cols = [leaves]
        if values:
            planes = ctx.slots[h.arrays["values"].data.slot].planes
            for p, b in zip(planes, leaves_of(h.values["background"])):
                other = jnp.broadcast_to(jnp.asarray(to_device_leaf(b)).astype(p.dtype), leaves.shape)
                if h.fact("constant"):  # tiles of one value: tile map entries -2 - k
                    consts = ctx.slots[h.arrays["tile_values"].data.slot].planes[len(cols) - 1].reshape(-1)
                    n = consts.shape[0]
                    other = where(leaves <= -2, consts.at[clip(-2 - leaves, 0, n - 1)].get(mode="promise_in_bounds"),
                                  other)
                cols.append(lax.bitcast_convert_type(other, jnp.int32))
        self.rows = jnp.stack(cols, axis=-1).at[flat].get(mode="promise_in_bounds")
        self.leaf = self.rows[..., 0]

    @staticmethod
    def usable(call: Call, h: handles.BoundHandle, ijk: list, name: str | None = "values") -> bool:
        """Whether the launch reads plainly (not Pallas, not debug), by one lane axis, from a table
        ``name`` of 32-bit values (if any)."""
        ctx = call.ctx
        if ctx.ref_memory is not None or getattr(ctx, "debug", False) or jnp.ndim(ijk[0]) != 1:
            return False
        if name is None:
            return True
        table = ctx.slots[h.arrays[name].data.slot]
        return table.shape[0] > 0 and all(jnp.dtype(p.dtype).itemsize == 4 for p in table.planes)

    def slots(self, size: int) -> Any:
        """(8, lanes): each corner's voxel in a table of ``size`` per-voxel entries (clamped)."""
        return clip(self.leaf * 512 + self.local, 0, size - 1)


def _corner_reader(call: Call, h: handles.BoundHandle, read: Callable) -> Callable:
    """``corners(ijk) -> [leaves of each corner]``: the values of the 8 voxels ``ijk + _OFFSETS``, as
    ``read`` gives them voxel by voxel; located at once (:class:`_Corners`) where that applies."""

    def corners(ijk: list) -> list:
        if not _Corners.usable(call, h, ijk):
            return one_by_one(read, ijk)
        at = _Corners(call, h, ijk)
        values = call.ctx.slots[h.arrays["values"].data.slot]
        slot = at.slots(values.shape[0])
        picked = [where(at.leaf >= 0, p.at[slot].get(mode="promise_in_bounds"),
                        lax.bitcast_convert_type(at.rows[..., 1 + q], p.dtype)) for q, p in enumerate(values.planes)]
        return [[p[r] for p in picked] for r in range(len(_OFFSETS))]

    return corners


def _index_of(call: Call, h: handles.BoundHandle, ijk: list, mask: Any) -> Any:
    """The linear index of a voxel of an index grid (value grids: ``leaf * 512 + offset``), -1 if none."""
    leaf, local = _leaf(call, h, ijk, mask)
    found = leaf >= 0
    if h.fact("grid_type") in INDEX_GRIDS:
        index = handles.load(call, h, "voxel_index", [_voxel_slot(call, h, "voxel_index", leaf, local)],
                             mask_and(mask, found))[0]
    else:
        index = leaf * 512 + local
    return where(found, index, -1)


def _round_away(x: Any) -> Any:
    """``roundf``: to nearest, halfway cases away from zero."""
    t = jnp.trunc(x)
    return where(jnp.abs(x - t) >= 0.5, t + jnp.sign(x), t)


def _times(a: Any, b: Any, sdt: Any) -> Any:
    """``a * b`` of the value type; float32 products are rounded before the sums they feed (as
    Warp's CPU kernels), so every compilation of a sample (forward, or inside a backward pass) gives
    the same bits: they are computed in a loop of their own (:func:`jwarp.builtins.trig.apart`),
    whose results the sums read from memory, so XLA cannot contract a product and a sum into a
    fused multiply-add. (The exact float64 product rounded by ``reduce_precision``,
    :func:`jwarp.builtins.random.fmul`, gives the same bits at twice the cost: Warp's nvdb example,
    10,000 gradient samples, 0.95 -> 0.53 ms a launch.)"""
    if np.dtype(sdt) == np.float32:
        return apart(a * b)
    return a * b


def _accumulate(total: Any, terms: Any) -> Any:
    """``total + terms[0] + terms[1] + ...`` left to right."""
    for k in range(terms.shape[0]):
        total = total + terms[k]
    return total


def _computed_once(call: Call, u: list) -> list:
    """The sample point's coordinates, computed in a loop of their own (:func:`apart`): XLA would
    otherwise recompute them, and everything they come from, in each of the sixteen gathers of a
    linear sample (Warp's nvdb example: the particle's predicted position and its transform into
    the volume, per gather)."""
    if call.ctx.ref_memory is not None or jnp.ndim(u[0]) == 0:
        return u
    return list(apart(jnp.stack(u)))


def _sample(call: Call, read: Callable, dtype: Any, uvw: Value, mode: Value, grad: bool,
            corners: Callable | None = None) -> tuple[list, list]:
    """(value leaves, gradient leaves) of Warp's sampling at ``uvw`` (index space); ``corners`` reads
    the 8 voxels of a linear sample at once (default: ``read`` each)."""
    if corners is None:
        corners = functools.partial(one_by_one, read)
    u = [_full(call, jnp.asarray(x).astype(jnp.float32)) for x in leaves_of(uvw)]
    width = _width(dtype)
    sdt = _scalar_of(dtype)._np_dtype
    zero = jnp.zeros(call.ctx.grid, sdt)
    static_mode = int(mode.data) if is_const(mode.data) else None

    def closest() -> tuple[list, list]:
        vals = read([_round_away(x).astype(jnp.int32) for x in u])
        return [v.astype(sdt) for v in vals], [zero] * (3 * width)

    def linear() -> tuple[list, list]:
        base = [jnp.floor(x) for x in _computed_once(call, u)]
        frac = [x - b for x, b in zip(u, base)]
        ijk = [b.astype(jnp.int32) for b in base]
        w = [(1 - f, f) for f in frac]
        reads, weights, gweights = corners(ijk), [], []
        for ox, oy, oz in _OFFSETS:
            wx, wy, wz = w[0][ox], w[1][oy], w[2][oz]
            weights.append((wx * wy * wz).astype(sdt))
            if grad:
                sx, sy, sz = (2 * ox - 1, 2 * oy - 1, 2 * oz - 1)
                gweights.append([(sx * wy * wz).astype(sdt), (sy * wx * wz).astype(sdt), (sz * wx * wy).astype(sdt)])
        # all products of a sum at once (one rounded multiply), then added corner by corner in Warp's order
        val = [_accumulate(zero, _times(jnp.stack(weights), jnp.stack([v[r] for v in reads]), sdt))
               for r in range(width)]
        g = [zero] * (3 * width)
        if grad:
            g = [_accumulate(zero, _times(jnp.stack([v[r] for v in reads]), jnp.stack([gw[c] for gw in gweights]),
                                          sdt)) for r in range(width) for c in range(3)]
        return val, g

    if static_mode == CLOSEST:
        return closest()
    if static_mode == LINEAR:
        return linear()
    if static_mode is not None:
        return [zero] * width, [zero] * (3 * width)
    m = _int_leaf(call, mode)
    (cv, cg), (lv, lg) = closest(), linear()
    pick = lambda c, l: where(m == CLOSEST, c, where(m == LINEAR, l, jnp.zeros_like(l)))  # noqa: E731
    return [pick(c, l) for c, l in zip(cv, lv)], [pick(c, l) for c, l in zip(cg, lg)]


def _sample_volume(call: Call, vid: Value, uvw: Value, mode: Value, dtype: Any, grad: bool) -> tuple[Value, Value]:
    width = _width(dtype)
    sdt = _scalar_of(dtype)._np_dtype
    parts, gparts = [], []
    for h, lanes in _volumes(call, vid):
        if h.fact("grid_type") != _TYPE_NAMES[dtype]:  # Warp: a volume of another type samples as 0
            zero = jnp.zeros(call.ctx.grid, sdt)
            val, g = [zero] * width, [zero] * (3 * width)
        else:
            read = _value_reader(call, h, dtype, _mask(call, lanes))
            val, g = _sample(call, read, dtype, uvw, mode, grad, _corner_reader(call, h, read))
        parts.append((value_from_leaves(dtype, val), lanes))
        gparts.append((value_from_leaves(_grad_type(dtype), g), lanes))
    return handles.merge(parts), handles.merge(gparts)


def _check_grad(call: Call, dtype: Any, grad: Value) -> None:
    expected = _grad_type(dtype)
    if grad.type != expected:
        raise RuntimeError(f"Incompatible gradient type, expected {type_name(expected)}, got {type_name(grad.type)}")


# ---------------------------------------------------------------------------------------------- sampling
@builtin("volume_sample", group="Volumes", kernel_only=True)
def volume_sample(call: Call, id: Value, uvw: Value, sampling_mode: Value, dtype: Value | None = None) -> Value:
    """Sample the volume ``id`` (of value type ``dtype``) at index-space point ``uvw``
    (``wp.Volume.CLOSEST`` or ``wp.Volume.LINEAR``); the background value outside its tiles."""
    call.require_kernel()
    t = _static_dtype(call, dtype)
    _check_uvw(call, uvw, sampling_mode)
    return _sample_volume(call, id, uvw, sampling_mode, t, False)[0]


@builtin("volume_sample_grad", group="Volumes", kernel_only=True)
def volume_sample_grad(call: Call, id: Value, uvw: Value, sampling_mode: Value, grad: Value,
                       dtype: Value | None = None) -> Value:
    """Sample the volume at ``uvw`` and write the gradient of the value with respect to ``uvw``
    into ``grad`` (a vec3 for scalar volumes, an N×3 matrix for vector volumes)."""
    call.require_kernel()
    t = _static_dtype(call, dtype)
    _check_uvw(call, uvw, sampling_mode)
    _check_grad(call, t, grad)
    value, g = _sample_volume(call, id, uvw, sampling_mode, t, True)
    call.assign_back(3, g, "grad")
    return value


def _typed_sample(name: str, t: Any, fixed_mode: int | None = None) -> None:
    def impl(call: Call, id: Value, uvw: Value, *rest: Value) -> Value:
        call.require_kernel()
        mode = rest[0] if fixed_mode is None and rest else Value(scalars.int32, fixed_mode)
        if len(rest) != (0 if fixed_mode is not None else 1):
            raise call.no_overload(id, uvw, *rest)
        _check_uvw(call, uvw, *rest)
        return _sample_volume(call, id, uvw, mode, t, False)[0]

    impl.__doc__ = f"Sample a {type_name(t)} volume at index-space point ``uvw`` (``volume_sample(..., dtype=)``)."
    builtin(name, group="Volumes", kernel_only=True)(impl)


_typed_sample("volume_sample_f", scalars.float32)
_typed_sample("volume_sample_v", _VEC3)
_typed_sample("volume_sample_i", scalars.int32, fixed_mode=CLOSEST)


@builtin("volume_sample_grad_f", group="Volumes", kernel_only=True)
def volume_sample_grad_f(call: Call, id: Value, uvw: Value, sampling_mode: Value, grad: Value) -> Value:
    """Sample a float32 volume at ``uvw`` and write its gradient with respect to ``uvw`` into ``grad``."""
    call.require_kernel()
    _check_uvw(call, uvw, sampling_mode)
    _check_grad(call, scalars.float32, grad)
    value, g = _sample_volume(call, id, uvw, sampling_mode, scalars.float32, True)
    call.assign_back(3, g, "grad")
    return value


# ---------------------------------------------------------------------------------------------- lookup / store
def _ijk(call: Call, *ijk: Value) -> list:
    if len(ijk) != 3 or not all(scalars.is_int(c.type) for c in ijk):
        raise call.no_overload(*ijk)
    return [_int_leaf(call, c) for c in ijk]


def _lookup(call: Call, id: Value, ijk: tuple, t: Any) -> Value:
    coords = _ijk(call, *ijk)
    parts = []
    for h, lanes in _volumes(call, id):
        if h.fact("grid_type") != _TYPE_NAMES[t]:
            vals = [jnp.zeros(call.ctx.grid, _scalar_of(t)._np_dtype)] * _width(t)
        else:
            vals = _value_reader(call, h, t, _mask(call, lanes))(coords)
        parts.append((value_from_leaves(t, [jax.lax.stop_gradient(v) for v in vals]), lanes))
    return handles.merge(parts)


@builtin("volume_lookup", group="Volumes", kernel_only=True)
def volume_lookup(call: Call, id: Value, i: Value, j: Value, k: Value, dtype: Value | None = None) -> Value:
    """The value of voxel ``(i, j, k)`` of a volume of type ``dtype`` (the background value where
    no tile is allocated)."""
    call.require_kernel()
    return _lookup(call, id, (i, j, k), _static_dtype(call, dtype))


def _store(call: Call, id: Value, ijk: tuple, value: Value) -> None:
    t = value.type
    if t not in _TYPE_NAMES:
        raise RuntimeError(f"unsupported volume type `{type_name(t)}`")
    coords = _ijk(call, *ijk)
    for h, lanes in _volumes(call, id):
        if h.fact("grid_type") != _TYPE_NAMES[t]:  # Warp stores nothing into a volume of another type
            continue
        mask = _mask(call, lanes)
        leaf, local = _leaf(call, h, coords, mask)
        keep = mask_and(mask, leaf >= 0)
        slot = call.ctx.slots[h.arrays["values"].data.slot]
        site = call.ctx.add_site(call.lowerer.location()) if call.ctx.debug and call.lowerer else 0
        slot.planes = memory.store(call.ctx, list(slot.planes), slot.shape,
                                   [_voxel_slot(call, h, "values", leaf, local)],
                                   [_full(call, x) for x in leaves_of(value)], keep, site)
        slot.written = True


@builtin("volume_store", group="Volumes", kernel_only=True)
def volume_store(call: Call, id: Value, i: Value, j: Value, k: Value, value: Value) -> None:
    """Store ``value`` at voxel ``(i, j, k)``; voxels without an allocated tile are left unchanged."""
    call.require_kernel()
    _store(call, id, (i, j, k), value)


def _typed_access(suffix: str, t: Any) -> None:
    def lookup(call: Call, id: Value, i: Value, j: Value, k: Value) -> Value:
        call.require_kernel()
        return _lookup(call, id, (i, j, k), t)

    def store(call: Call, id: Value, i: Value, j: Value, k: Value, value: Value) -> None:
        call.require_kernel()
        if value.type != t:
            raise call.no_overload(id, i, j, k, value)
        _store(call, id, (i, j, k), value)

    lookup.__doc__ = f"The value of voxel ``(i, j, k)`` of a {type_name(t)} volume."
    store.__doc__ = f"Store a {type_name(t)} value at voxel ``(i, j, k)`` (allocated voxels only)."
    builtin(f"volume_lookup_{suffix}", group="Volumes", kernel_only=True)(lookup)
    builtin(f"volume_store_{suffix}", group="Volumes", kernel_only=True)(store)


_typed_access("f", scalars.float32)
_typed_access("v", _VEC3)
_typed_access("i", scalars.int32)
