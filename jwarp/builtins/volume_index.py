"""Volume index grids and transforms: ``volume_lookup_index``, ``volume_voxel_count``,
``volume_sample_index``, ``volume_sample_grad_index``, ``volume_index_to_world``,
``volume_world_to_index`` and their ``_dir`` forms.

Index grids map each voxel to a linear index (``-1`` where none); ``volume_sample_index`` reads the
values from a separate array (differentiable with respect to that array, the background and
``uvw``, as Warp). The float32 transforms apply the volume's float32 matrix (row-major,
``world = M @ ijk + t``); their adjoints multiply the output adjoint by the same matrix, not its
transpose, as Warp's ``adj_volume_index_to_world`` (identical for diagonal transforms); the
float64 overloads use the double matrices and exact adjoints.

Example:
    >>> import jwarp as wp
    >>> @wp.kernel
    ... def count(vid: wp.uint64, out: wp.array(dtype=int)):
    ...     out[0] = wp.volume_voxel_count(vid)
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import jax
import jax.numpy as jnp

from jwarp.builtins.common import Call, Value
from jwarp.builtins.volume import (INDEX_GRIDS, _OFFSETS, _Corners, _check_grad, _check_uvw, _full, _grad_type, _ijk,
                                   _index_of, _mask, _sample, _TYPE_NAMES, _VEC3, _VEC3D, _volumes, one_by_one)
from jwarp.compiler import handles, memory
from jwarp.compiler.masks import mask_and
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import leaves_of, value_from_leaves
from jwarp.lang import scalars
from jwarp.lang.arrays import ArrayType
from jwarp.compiler.selects import clip, where

_MAX_INDEX = 2**31 - 1


@builtin("volume_lookup_index", group="Volumes", kernel_only=True)
def volume_lookup_index(call: Call, id: Value, i: Value, j: Value, k: Value) -> Value:
    """The linear index of voxel ``(i, j, k)`` (``-1`` where the volume has no such voxel)."""
    call.require_kernel()
    coords = _ijk(call, i, j, k)
    parts = [(Value(scalars.int32, _index_of(call, h, coords, _mask(call, lanes))), lanes)
             for h, lanes in _volumes(call, id)]
    return handles.merge(parts)


@builtin("volume_voxel_count", group="Volumes", kernel_only=True)
def volume_voxel_count(call: Call, id: Value) -> Value:
    """The number of indexable voxels of the volume (at most ``2**31 - 1``)."""
    call.require_kernel()
    parts = []
    for h, lanes in _volumes(call, id):
        grid_type = h.fact("grid_type")
        if grid_type in ("OnIndex", "OnIndexMask"):
            count = h.fact("active_count")
        else:
            count = h.fact("leaf_count") * 512
        parts.append((Value(scalars.int32, _full(call, jnp.int32(min(count, _MAX_INDEX)))), lanes))
    return handles.merge(parts)


def _index_reader(call: Call, h: handles.BoundHandle, data: Value, background: Value, mask: Any) -> Callable:
    """``read(ijk) -> leaves``: ``voxel_data[index]`` of an indexed voxel, else ``background``."""
    slot = call.ctx.slots[data.data.slot]
    bg = [_full(call, x) for x in leaves_of(background)]

    def read(ijk: list) -> list:
        index = _index_of(call, h, ijk, mask)
        found = index >= 0
        idx = Value(scalars.int32, clip(index, 0, max(slot.shape[0] - 1, 0)))
        vals = memory.load(call.ctx, slot.planes, slot.shape, [idx], 0, mask_and(mask, found))
        return [where(found, v, b) for v, b in zip(vals, bg)]

    return read


def _index_corners(call: Call, h: handles.BoundHandle, data: Value, background: Value, mask: Any,
                   read: Callable) -> Callable:
    """``corners(ijk)``: :func:`_index_reader`'s values of the 8 voxels ``ijk + _OFFSETS``, their
    indices located at once (:class:`jwarp.builtins.volume._Corners`) where that applies; the voxel
    data is read corner by corner (it may be differentiated)."""
    indexed = h.fact("grid_type") in INDEX_GRIDS

    def corners(ijk: list) -> list:
        if not _Corners.usable(call, h, ijk, "voxel_index" if indexed else None):
            return one_by_one(read, ijk)
        at = _Corners(call, h, ijk, values=False)
        index = at.leaf * 512 + at.local
        if indexed:
            table = call.ctx.slots[h.arrays["voxel_index"].data.slot]
            index = table.planes[0].at[at.slots(table.shape[0])].get(mode="promise_in_bounds")
        index = where(at.leaf >= 0, index, -1)
        slot = call.ctx.slots[data.data.slot]
        bg = [_full(call, x) for x in leaves_of(background)]
        out = []
        for r in range(len(_OFFSETS)):
            found = index[r] >= 0
            idx = Value(scalars.int32, clip(index[r], 0, max(slot.shape[0] - 1, 0)))
            vals = memory.load(call.ctx, slot.planes, slot.shape, [idx], 0, mask_and(mask, found))
            out.append([where(found, v, b) for v, b in zip(vals, bg)])
        return out

    return corners


def _sample_index(call: Call, id: Value, uvw: Value, mode: Value, data: Value, background: Value,
                  grad: bool) -> tuple[Value, Value]:
    if not isinstance(data.type, ArrayType) or data.type.ndim != 1:
        raise call.no_overload(id, uvw, mode, data, background)
    t = data.type.dtype
    if t not in _TYPE_NAMES:
        raise RuntimeError(f"unsupported volume type `{getattr(t, '__name__', t)}`")
    if background.type != t:
        raise RuntimeError("the `voxel_data` array and the `background` value must have the same dtype")
    _check_uvw(call, uvw, mode)
    parts, gparts = [], []
    for h, lanes in _volumes(call, id):
        mask = _mask(call, lanes)
        read = _index_reader(call, h, data, background, mask)
        val, g = _sample(call, read, t, uvw, mode, grad, _index_corners(call, h, data, background, mask, read))
        parts.append((value_from_leaves(t, val), lanes))
        gparts.append((value_from_leaves(_grad_type(t), g), lanes))
    return handles.merge(parts), handles.merge(gparts)


@builtin("volume_sample_index", group="Volumes", kernel_only=True)
def volume_sample_index(call: Call, id: Value, uvw: Value, sampling_mode: Value, voxel_data: Value,
                        background: Value) -> Value:
    """Sample at ``uvw`` with the values of ``voxel_data`` (indexed by the volume's voxel indices)
    and ``background`` where a voxel has no index."""
    call.require_kernel()
    return _sample_index(call, id, uvw, sampling_mode, voxel_data, background, False)[0]


@builtin("volume_sample_grad_index", group="Volumes", kernel_only=True)
def volume_sample_grad_index(call: Call, id: Value, uvw: Value, sampling_mode: Value, voxel_data: Value,
                             background: Value, grad: Value) -> Value:
    """:func:`volume_sample_index`, also writing the gradient with respect to ``uvw`` into ``grad``."""
    call.require_kernel()
    if isinstance(voxel_data.type, ArrayType):
        _check_grad(call, voxel_data.type.dtype, grad)
    value, g = _sample_index(call, id, uvw, sampling_mode, voxel_data, background, True)
    call.assign_back(5, g, "grad")
    return value


# ---------------------------------------------------------------------------------------------- transforms
def _apply(m: list, x: list, t: list | None) -> list:
    """``M @ x (+ t)`` component by component, in Warp's summation order."""
    out = []
    for r in range(3):
        s = x[0] * m[3 * r] + x[1] * m[3 * r + 1] + x[2] * m[3 * r + 2]
        out.append(s + t[r] if t is not None else s)
    return out


@functools.partial(jax.custom_vjp, nondiff_argnums=(3, 4))
def _affine_f32(m: list, t: list, x: list, translate_first: bool, use_t: bool) -> list:
    if translate_first:
        return _apply(m, [a - b for a, b in zip(x, t)], None)
    return _apply(m, x, t if use_t else None)


def _affine_fwd(m: list, t: list, x: list, translate_first: bool, use_t: bool) -> tuple:
    return _affine_f32(m, t, x, translate_first, use_t), (m, t, x)


def _affine_bwd(translate_first: bool, use_t: bool, res: tuple, adj: list) -> tuple:
    m, t, x = res
    adj_x = _apply(m, adj, None)  # Warp's float32 adjoint: M @ adj (the map's *_dir transform)
    return ([jnp.zeros_like(a) for a in m], [jnp.zeros_like(a) for a in t],
            [a.astype(b.dtype) for a, b in zip(adj_x, x)])


_affine_f32.defvjp(_affine_fwd, _affine_bwd)


def _transform(call: Call, id: Value, x: Value, inverse: bool, translate: bool) -> Value:
    call.require_kernel()
    if x.type not in (_VEC3, _VEC3D):
        raise call.no_overload(id, x)
    double = x.type == _VEC3D
    parts = []
    for h, lanes in _volumes(call, id):
        m = leaves_of(h.values[("invd" if double else "inv") if inverse else ("matd" if double else "mat")])
        t = leaves_of(h.values["vecd" if double else "vec"])
        xs = [_full(call, leaf) for leaf in leaves_of(x)]
        m = [_full(call, a) for a in m]
        t = [_full(call, a) for a in t]
        if double:
            if inverse and translate:
                out = _apply(m, [a - b for a, b in zip(xs, t)], None)
            else:
                out = _apply(m, xs, t if translate else None)
        else:
            out = _affine_f32(m, t, xs, inverse and translate, translate and not inverse)
        parts.append((value_from_leaves(x.type, list(out)), lanes))
    return handles.merge(parts)


@builtin("volume_index_to_world", group="Volumes", kernel_only=True)
def volume_index_to_world(call: Call, id: Value, uvw: Value) -> Value:
    """The world-space position of index-space point ``uvw`` (``M @ uvw + t``)."""
    return _transform(call, id, uvw, inverse=False, translate=True)


@builtin("volume_world_to_index", group="Volumes", kernel_only=True)
def volume_world_to_index(call: Call, id: Value, xyz: Value) -> Value:
    """The index-space position of world-space point ``xyz`` (``M⁻¹ @ (xyz - t)``)."""
    return _transform(call, id, xyz, inverse=True, translate=True)


@builtin("volume_index_to_world_dir", group="Volumes", kernel_only=True)
def volume_index_to_world_dir(call: Call, id: Value, uvw: Value) -> Value:
    """The world-space direction of index-space direction ``uvw`` (``M @ uvw``)."""
    return _transform(call, id, uvw, inverse=False, translate=False)


@builtin("volume_world_to_index_dir", group="Volumes", kernel_only=True)
def volume_world_to_index_dir(call: Call, id: Value, xyz: Value) -> Value:
    """The index-space direction of world-space direction ``xyz`` (``M⁻¹ @ xyz``)."""
    return _transform(call, id, xyz, inverse=True, translate=False)


__all__ = ["volume_index_to_world", "volume_index_to_world_dir", "volume_lookup_index", "volume_sample_grad_index",
           "volume_sample_index", "volume_voxel_count", "volume_world_to_index", "volume_world_to_index_dir"]
