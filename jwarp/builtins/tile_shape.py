"""Tile reshapes and conversions: ``tile_reshape``, ``tile_squeeze``, ``tile_astype``.

Each is one dense ``jnp`` operation on the tile's data ``(*lead, *shape, *dtype_shape)``:
reshapes are ``reshape`` of the tile axes (Warp reshapes in place, so a strided view is
rejected), conversions ``astype``. Views, subscripts and writes into tiles are in
:mod:`jwarp.builtins.tile_index`.

Example (kernel code):
    t = wp.tile_load(a, shape=(8, 8))
    flat = wp.tile_reshape(t, shape=(-1,))      # shape (64,)
    col = wp.tile_squeeze(wp.tile_view(t, offset=(0, 2), shape=(8, 1)))   # shape (8,)
"""

from __future__ import annotations

import numpy as np

from jwarp.builtins.common import Call, Value
from jwarp.builtins.tile_core import require_tile
from jwarp.compiler import tile_views, tiles
from jwarp.compiler.registry import builtin
from jwarp.errors import WarpCodegenError, WarpCodegenValueError
from jwarp.lang import scalars
from jwarp.lang.arrays import type_name

# ----------------------------------------------------------------------------------------------
# reshapes


def _reshaped(call: Call, t: Value, dims: tuple) -> Value:
    src = t.type
    n = len(call.ctx.grid)
    lead = t.data.shape[:n]
    return tiles.make_tile(call.ctx, src.dtype, dims, t.data.reshape(lead + dims + src.dtype_shape), src.storage)


@builtin("tile_reshape", group="Tile Primitives", kernel_only=True)
def tile_reshape(call: Call, t: Value, shape: Value) -> Value:
    """``t`` with a new shape of the same size, elements in row-major order (one entry may be -1)."""
    call.require_kernel()
    require_tile(call, t, "t")
    dims = list(tiles.static_shape(shape))
    size = t.type.size
    if not tile_views.is_contiguous(t):
        raise WarpCodegenValueError(
            f"tile_reshape() requires a contiguous tile; a tile view with shape {t.type.shape} and strides "
            f"{tile_views.strides_of(t)} cannot be reshaped in place. Copy the view into a new tile first, e.g. "
            "with wp.tile_assign()."
        )
    if dims.count(-1) > 1:
        raise WarpCodegenError("wp.tile_reshape(): at most one dimension of the new shape may be -1")
    if -1 in dims:
        known = int(np.prod([d for d in dims if d != -1]))
        if known == 0 or size % known:
            raise WarpCodegenError(f"wp.tile_reshape(): cannot reshape a tile of shape {t.type.shape} to {tuple(dims)}")
        dims[dims.index(-1)] = size // known
    if int(np.prod(dims)) != size:
        raise WarpCodegenError(f"wp.tile_reshape(): cannot reshape a tile of shape {t.type.shape} "
                               f"({size} elements) to {tuple(dims)}")
    return _reshaped(call, t, tuple(dims))


@builtin("tile_squeeze", group="Tile Primitives", kernel_only=True)
def tile_squeeze(call: Call, t: Value, axis: Value | None = None) -> Value:
    """``t`` without its dimensions of extent one (or only the given ones)."""
    call.require_kernel()
    require_tile(call, t, "t")
    shape = t.type.shape
    ndim = len(shape)
    if axis is None:
        dims = tuple(d for d in shape if d != 1)
    else:
        axes = tiles.static_shape(axis, "axis")
        for a in axes:
            if not -ndim <= a < ndim:
                raise WarpCodegenValueError(f"tile_squeeze() axis {a} is out of bounds for tile with {ndim} dimensions")
        axes = tuple(a % ndim for a in axes)
        for a in axes:
            if shape[a] != 1:
                raise WarpCodegenError("Cannot select an axis to squeeze out which has size not equal to one, "
                                       f"axis={a}, size={shape[a]}")
        dims = tuple(d for i, d in enumerate(shape) if i not in axes)
    return _reshaped(call, t, dims or (1,))


@builtin("tile_astype", group="Tile Primitives", kernel_only=True)
def tile_astype(call: Call, t: Value, dtype: Value) -> Value:
    """``t`` converted element-wise to the scalar type ``dtype`` (floats truncate toward zero)."""
    call.require_kernel()
    require_tile(call, t, "t")
    target = tiles.static_dtype(dtype)
    if not scalars.is_scalar_type(t.type.dtype) or not scalars.is_scalar_type(target):
        raise WarpCodegenError(f"wp.tile_astype(): only scalar tiles convert, got {type_name(t.type.dtype)} to "
                               f"{type_name(target)}")
    return tiles.make_tile(call.ctx, target, t.type.shape, t.data.astype(tiles.jnp_dtype(target)), t.type.storage)


__all__ = ["tile_reshape", "tile_squeeze", "tile_astype"]
