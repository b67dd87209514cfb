"""Tile scans and sorting: ``tile_scan_inclusive``, ``tile_scan_exclusive``,
``tile_scan_max_inclusive``, ``tile_scan_min_inclusive`` and ``tile_sort``.

A multi-dimensional tile is scanned (or sorted) over its flattened row-major sequence, as in
Warp; each is one ``jnp`` operation over the flattened tile axis, batched over blocks
(``cumsum``, ``lax.cummax``/``cummin``, a stable ``argsort``).

Example (kernel code):
    t = wp.tile_load(a, shape=8)
    s = wp.tile_scan_inclusive(t)        # s[i] = t[0] + ... + t[i]
    keys = wp.tile_load(k, shape=8)
    wp.tile_sort(keys, t)                # both permuted in place by ascending key
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from jwarp.builtins.common import Call, Value
from jwarp.builtins.tile_core import require_tile
from jwarp.builtins.tile_reduce import identity, owned
from jwarp.compiler import tiles
from jwarp.errors import WarpCodegenError
from jwarp.compiler.registry import builtin
from jwarp.lang import scalars
from jwarp.lang.arrays import type_name
from jwarp.compiler.selects import where

_SCAN_DTYPES = (scalars.float32, scalars.int32, scalars.uint32)
_SORT_KEY_DTYPES = (scalars.float32, scalars.int32, scalars.uint32, scalars.int64, scalars.uint64)


def _flat(call: Call, a: Value) -> jnp.ndarray:
    """The tile's data as ``(*lead, size, *dtype_shape)``."""
    n = len(call.ctx.grid)
    return a.data.reshape(a.data.shape[:n] + (a.type.size,) + a.type.dtype_shape)


def _unflat(call: Call, a: Value, flat: jnp.ndarray) -> Value:
    n = len(call.ctx.grid)
    data = flat.reshape(flat.shape[:n] + a.type.shape + a.type.dtype_shape)
    return tiles.make_tile(call.ctx, a.type.dtype, a.type.shape, data, a.type.storage)


def _scan(call: Call, a: Value, scan, kind: str) -> Value:
    """Scan the flattened tile; the elements of threads that are not running (a partial block)
    count as the identity of ``kind``, as Warp's scans skip them."""
    call.require_kernel()
    require_tile(call, a)
    if a.type.dtype not in _SCAN_DTYPES:
        raise WarpCodegenError(f"wp.{call.name}(): tiles of {type_name(a.type.dtype)} are not supported "
                               "(float32, int32 or uint32)")
    n = len(call.ctx.grid)
    data = a.data
    active = owned(call, a)
    if active is not None:
        data = where(active, data, identity(kind, data.dtype))
    flat = data.reshape(data.shape[:n] + (a.type.size,))
    return _unflat(call, a, scan(flat, n).astype(flat.dtype))


@builtin("tile_scan_inclusive", group="Tile Primitives", kernel_only=True)
def tile_scan_inclusive(call: Call, a: Value) -> Value:
    """Inclusive prefix sums: element ``i`` is the sum of elements ``0..i``."""
    return _scan(call, a, lambda x, axis: jnp.cumsum(x, axis=axis, dtype=x.dtype), "add")


@builtin("tile_scan_exclusive", group="Tile Primitives", kernel_only=True)
def tile_scan_exclusive(call: Call, a: Value) -> Value:
    """Exclusive prefix sums: element ``i`` is the sum of elements ``0..i-1`` (element 0 is zero)."""

    def exclusive(x, axis):
        inclusive = jnp.cumsum(x, axis=axis, dtype=x.dtype)
        return inclusive - x

    return _scan(call, a, exclusive, "add")


@builtin("tile_scan_max_inclusive", group="Tile Primitives", kernel_only=True)
def tile_scan_max_inclusive(call: Call, a: Value) -> Value:
    """Inclusive prefix maxima: element ``i`` is the largest of elements ``0..i`` (NaNs are
    skipped, as ``numpy.fmax``)."""
    return _scan(call, a, lambda x, axis: lax.associative_scan(jnp.fmax, x, axis=axis), "max")


@builtin("tile_scan_min_inclusive", group="Tile Primitives", kernel_only=True)
def tile_scan_min_inclusive(call: Call, a: Value) -> Value:
    """Inclusive prefix minima: element ``i`` is the smallest of elements ``0..i`` (NaNs are
    skipped, as ``numpy.fmin``)."""
    return _scan(call, a, lambda x, axis: lax.associative_scan(jnp.fmin, x, axis=axis), "min")


@builtin("tile_sort", group="Tile Primitives", kernel_only=True)
def tile_sort(call: Call, keys: Value, values: Value) -> None:
    """Sort ``keys`` ascending and permute ``values`` with them; both are updated in place."""
    call.require_kernel()
    require_tile(call, keys, "keys")
    require_tile(call, values, "values")
    if keys.type.dtype not in _SORT_KEY_DTYPES:
        raise WarpCodegenError(f"wp.tile_sort(): keys of {type_name(keys.type.dtype)} are not supported")
    if keys.type.shape != values.type.shape:
        raise WarpCodegenError(f"wp.tile_sort(): keys of shape {keys.type.shape} and values of shape "
                               f"{values.type.shape} differ")
    n = len(call.ctx.grid)
    k = _flat(call, keys)
    v = _flat(call, values)
    grid = tiles.block_grid(call.ctx)
    k = jnp.broadcast_to(k, grid + k.shape[n:])
    v = jnp.broadcast_to(v, grid + v.shape[n:])
    order = jnp.argsort(k, axis=n, stable=True)
    sorted_keys = jnp.take_along_axis(k, order, axis=n)
    v_order = order.reshape(order.shape + (1,) * len(values.type.dtype_shape))
    sorted_values = jnp.take_along_axis(v, v_order, axis=n)
    call.assign_back(0, _unflat(call, keys, sorted_keys), "keys")
    call.assign_back(1, _unflat(call, values, sorted_values), "values")
    return None


__all__ = ["tile_scan_inclusive", "tile_scan_exclusive", "tile_scan_max_inclusive", "tile_scan_min_inclusive",
           "tile_sort"]
