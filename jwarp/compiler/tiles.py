"""Tile values in the compiler: block-uniform dense arrays, one tile per block.

A tile kernel runs blocks of ``block_dim`` threads; every thread of a block sees the same tiles.
jwarp makes the block the unit of vectorisation for tile data: a tile value of
``TileType(dtype, shape)`` holds *one dense jax array*

    data.shape == (*lead, *shape, *dtype_shape)

where ``lead`` has one axis per launch-grid axis (extent 1 where the tile does not vary along
it, as for lane values) and the *lane axis* (the trailing launch dimension of
``wp.launch_tiled``, the threads of one block) always has extent 1. Tile operations are then
plain ``jnp`` operations batched over the leading axes (``jnp.matmul`` over ``[*lead, M, K]``,
reductions over the trailing axes...).

Scalar (lane) values meeting tiles are *block-uniform*: their lane-0 value is used, and their
leaves gain trailing unit axes to broadcast against the tile's elements
(:func:`expand_scalar_leaf`). Element-wise tile operations reuse the scalar builtins on
*element values*: a Value of the tile's dtype whose leaves are the tile's component planes
(:func:`elements` / :func:`from_elements`), so ``t1 + t2`` and ``wp.tile_map(wp.sin, t)`` share
the typing rules of ``a + b`` and ``wp.sin(x)``.

Example (kernel code):
    t = wp.tile_load(a, shape=(16, 16), offset=(i * 16, j * 16))
    wp.tile_store(b, t * 2.0, offset=(i * 16, j * 16))
"""

from __future__ import annotations

from typing import Any, Callable

import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.compiler.values import Value, is_const, leaves_of, value_from_leaves
from jwarp.errors import WarpCodegenError
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import type_name
from jwarp.lang.struct import StructType
from jwarp.lang.tile_types import STORAGE_KINDS, TileType, is_tile_struct, is_tile_type, struct_planes

# ----------------------------------------------------------------------------------------------
# block geometry


def lane_axis(ctx: Any) -> int | None:
    """The launch-grid axis that enumerates the threads of one block (None when blocks are
    single threads, e.g. on CPU without ``wp.config.enable_cpu_blocks``)."""
    if ctx.block_dim <= 1:
        return None
    if ctx.grid and ctx.grid[-1] == ctx.block_dim:
        return len(ctx.grid) - 1
    raise NotImplementedError(
        f"Kernel '{ctx.kernel_name}': tile operations with block_dim={ctx.block_dim} need the last launch "
        f"dimension to equal block_dim (launch dims {ctx.grid}); launch the kernel with wp.launch_tiled()"
    )


def block_grid(ctx: Any) -> tuple[int, ...]:
    """The launch grid with the lane axis collapsed: the full leading shape of a tile's data."""
    axis = lane_axis(ctx)
    grid = list(ctx.grid)
    if axis is not None:
        grid[axis] = 1
    return tuple(grid)


def lead_leaf(ctx: Any, leaf: Any) -> Any:
    """A scalar lane leaf as a block-uniform jax array with one axis per grid axis (lane 0's
    value where it varies across the threads of a block)."""
    n = len(ctx.grid)
    x = jnp.asarray(leaf)
    if x.ndim == 0:
        return x.reshape((1,) * n)
    axis = lane_axis(ctx)
    if axis is not None and x.shape[axis] > 1:
        x = jnp.take(x, jnp.arange(1), axis=axis)
    return x


def expand_scalar_leaf(ctx: Any, leaf: Any, tile_ndim: int) -> Any:
    """A scalar leaf shaped to broadcast against tile element planes of ``tile_ndim`` axes."""
    if is_const(leaf):
        return leaf
    x = lead_leaf(ctx, leaf)
    return x.reshape(x.shape + (1,) * tile_ndim)


def scalar_of(ctx: Any, v: Value, what: str) -> Any:
    """A block-uniform integer argument (offset, index) as a leaf of ``len(grid)`` axes."""
    if not scalars.is_scalar_type(v.type):
        raise WarpCodegenError(f"{what} must be an integer scalar, got {type_name(v.type)}")
    return lead_leaf(ctx, v.data)


def to_lanes(ctx: Any, leaf: Any) -> Any:
    """A lane leaf (or mask) as ``(*block_grid, block_dim)``: its value on every thread of each
    block, the threads along the last axis."""
    n = len(ctx.grid)
    axis = lane_axis(ctx)
    x = jnp.asarray(leaf)
    if x.ndim == 0:
        x = x.reshape((1,) * n)
    if axis is None:
        return x[..., None]
    x = jnp.broadcast_to(x, x.shape[:axis] + (ctx.block_dim,) + x.shape[axis + 1:])
    return jnp.expand_dims(jnp.moveaxis(x, axis, -1), axis)


def from_lanes(ctx: Any, x: Any) -> Any:
    """Inverse of :func:`to_lanes`: ``(*block_grid, block_dim)`` back to one value per thread."""
    axis = lane_axis(ctx)
    if axis is None:
        return x[..., 0]
    return jnp.moveaxis(jnp.squeeze(x, axis), -1, axis)


def lane_mask(ctx: Any, mask: Any) -> Any:
    """The active mask as ``(*block_grid, block_dim)`` booleans (all true for None)."""
    bd = ctx.block_dim if lane_axis(ctx) is not None else 1
    shape = block_grid(ctx) + (bd,)
    if mask is None or (is_const(mask) and bool(mask)):
        return jnp.ones(shape, bool)
    if is_const(mask):
        return jnp.zeros(shape, bool)
    return jnp.broadcast_to(to_lanes(ctx, mask), shape)


# ----------------------------------------------------------------------------------------------
# static arguments


def static_shape(v: Value | None, what: str = "shape") -> tuple[int, ...]:
    """A compile-time shape argument (int or tuple of ints) as a tuple."""
    from jwarp.compiler.values import STATIC, TupleType

    if v is None:
        raise WarpCodegenError(f"'{what}' is required")
    if isinstance(v.type, TupleType):
        items = list(v.data)
    elif v.type is STATIC and isinstance(v.data, (tuple, list)):
        items = [Value(STATIC, x) for x in v.data]
    else:
        items = [v]
    out = []
    for item in items:
        x = item.data
        if item.type is not STATIC and not is_const(x):
            raise WarpCodegenError(f"'{what}' must be a compile-time constant")
        out.append(int(x))
    return tuple(out)


def static_int_tuple_or_values(v: Value | None) -> list[Value]:
    """An offset argument (scalar or tuple of scalars) as a list of Values."""
    from jwarp.compiler.values import TupleType

    if v is None:
        return []
    if isinstance(v.type, TupleType):
        return list(v.data)
    return [v]


def static_dtype(v: Value | None, default: Any = scalars.float32) -> Any:
    """A ``dtype=`` argument as a jwarp scalar/composite type."""
    from jwarp.compiler.values import STATIC

    if v is None:
        return default
    if v.type is not STATIC:
        raise WarpCodegenError("'dtype' must be a type")
    t = v.data
    if isinstance(t, StructType):
        return t
    scalar = scalars.canonical_scalar(t) if not composites.is_composite(t) else None
    t = scalar or t
    if not (scalars.is_scalar_type(t) or composites.is_composite(t)):
        raise WarpCodegenError(f"Tiles of dtype {type_name(t)} are not supported")
    return t


def static_storage(v: Value | None) -> str:
    if v is None:
        return "register"
    storage = v.data
    if storage not in STORAGE_KINDS:
        raise WarpCodegenError(f"Invalid value for 'storage': {storage!r}. Expected 'register' or 'shared'.")
    return storage


def static_bool(v: Value | None, default: bool) -> bool:
    if v is None:
        return default
    return bool(v.data)


# ----------------------------------------------------------------------------------------------
# tile values <-> element values


def jnp_dtype(t: Any) -> Any:
    if isinstance(t, StructType):  # struct components are held as float64 (see lang.tile_types)
        return jnp.dtype(jnp.float64)
    scalar = t._wp_scalar_type_ if composites.is_composite(t) else t
    return jnp.dtype(scalar._np_dtype)


def make_tile(ctx: Any, dtype: Any, shape: tuple[int, ...], data: Any, storage: str = "register") -> Value:
    """A tile Value, checking the data layout ``(*lead, *shape, *dtype_shape)``."""
    t = TileType(dtype, tuple(shape), storage)
    if storage == "shared":
        check_shared_size(ctx, t)
    n = len(ctx.grid)
    data = jnp.asarray(data, jnp_dtype(dtype))
    expected = n + len(shape) + len(t.dtype_shape)
    if data.ndim != expected:
        raise AssertionError(f"tile data of rank {data.ndim}, expected {expected}")
    return Value(t, data)


SHARED_ARENA_BYTES = 256 * 1024
"""The block-shared memory of Warp's CPU tile kernels (GPUs have less per block)."""


def check_shared_size(ctx: Any, t: TileType) -> None:
    """Reject a shared tile larger than Warp's CPU shared-memory arena (no device holds it)."""
    nbytes = t.size * int(np.prod(t.dtype_shape, dtype=np.int64)) * jnp.dtype(jnp_dtype(t.dtype)).itemsize
    if nbytes > SHARED_ARENA_BYTES:
        raise WarpCodegenError(
            f"Warp CPU tile shared-memory allocation exceeds the 256 KiB arena: kernel '{ctx.kernel_name}' makes a "
            f"shared tile of shape {t.shape} and dtype {type_name(t.dtype)} ({nbytes} bytes)"
        )


def elements(ctx: Any, tile: Value) -> Value:
    """The tile's elements as a Value of its dtype, one leaf per component: ``(*lead, *shape)``."""
    t: TileType = tile.type
    data = tile.data
    if not t.dtype_shape:
        return Value(t.dtype, data)
    lead = data.shape[: data.ndim - len(t.dtype_shape)]
    flat = data.reshape(lead + (-1,))
    if isinstance(t.dtype, StructType):
        return value_from_leaves(t.dtype, [_from_f64(flat[..., k], s) for k, s in enumerate(struct_planes(t.dtype))])
    return value_from_leaves(t.dtype, [flat[..., k] for k in range(flat.shape[-1])])


def _from_f64(x: Any, scalar: Any) -> Any:
    """A struct component from its float64 slot (64-bit integers are stored bit for bit)."""
    dtype = jnp.dtype(scalar._np_dtype)
    if dtype == jnp.bool_:
        return x != 0
    if dtype.itemsize == 8 and jnp.issubdtype(dtype, jnp.integer):
        return lax.bitcast_convert_type(x, dtype)
    return x.astype(dtype)


def _to_f64(x: Any) -> Any:
    """Inverse of :func:`_from_f64`."""
    dtype = jnp.dtype(x.dtype)
    if dtype.itemsize == 8 and jnp.issubdtype(dtype, jnp.integer):
        return lax.bitcast_convert_type(x, jnp.float64)
    return x.astype(jnp.float64)


def from_elements(ctx: Any, element: Value, shape: tuple[int, ...], storage: str = "register") -> Value:
    """Inverse of :func:`elements`: leaves broadcast to a common ``(*lead, *shape)`` and stacked."""
    t = element.type
    if not (scalars.is_scalar_type(t) or composites.is_composite(t) or is_tile_struct(t)):
        raise WarpCodegenError(f"Tile elements must be scalars, vectors, matrices or structs, got {type_name(t)}")
    n = len(ctx.grid)
    leaves = [jnp.asarray(x) for x in leaves_of(element)]
    target = jnp.broadcast_shapes((1,) * n + tuple(shape), *[x.shape for x in leaves])
    leaves = [jnp.broadcast_to(x, target) for x in leaves]
    if isinstance(t, StructType):
        data = jnp.stack([_to_f64(x) for x in leaves], axis=-1)
    elif composites.is_composite(t):
        data = jnp.stack(leaves, axis=-1).reshape(target + tuple(t._shape_))
    else:
        data = leaves[0]
    return make_tile(ctx, t, shape, data, storage)


def as_element_operand(ctx: Any, v: Value, tile_ndim: int) -> Value:
    """An operand of an element-wise tile operation: a tile's elements, or a lane value made
    block-uniform and broadcastable against them."""
    if is_tile_type(v.type):
        x = elements(ctx, v)
        pad = tile_ndim - v.type.ndim  # numpy broadcasting of the tile axes (right-aligned)
        if pad:
            lead = len(ctx.grid)
            x = value_from_leaves(
                x.type,
                [jnp.expand_dims(leaf, tuple(range(lead, lead + pad))) for leaf in leaves_of(x)],
            )
        return x
    if scalars.is_scalar_type(v.type) or composites.is_composite(v.type) or is_tile_struct(v.type):
        return value_from_leaves(v.type, [expand_scalar_leaf(ctx, x, tile_ndim) for x in leaves_of(v)])
    raise WarpCodegenError(f"Value of type {type_name(v.type)} cannot be combined with a tile")


def broadcast_tile_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise WarpCodegenError(f"Tile shapes {', '.join(map(str, shapes))} are not compatible") from None


def elementwise(ctx: Any, fn: Callable[..., Value], args: list[Value]) -> Value:
    """Apply ``fn`` (element Values -> element Value) across tiles (and block-uniform scalars)."""
    tiles = [a for a in args if is_tile_type(a.type)]
    shape = broadcast_tile_shapes(*[a.type.shape for a in tiles])
    operands = [as_element_operand(ctx, a, len(shape)) for a in args]
    result = fn(*operands)
    if result is None:
        raise WarpCodegenError("The function applied to the tile's elements returns nothing")
    storage = tiles[0].type.storage if tiles else "register"
    return from_elements(ctx, result, shape, storage)


def as_lanes(ctx: Any, shape: tuple[int, ...], fn: Callable[[], Any]) -> Any:
    """Run ``fn`` (element code: a ``tile_map`` operator) with every element of a tile of ``shape``
    as a lane of its own: the launch grid seen by the builtins becomes ``(*block_grid, *shape)``,
    so per-lane builtins (geometry queries, random numbers) take element values."""
    saved = (ctx.grid, ctx.block_dim)
    ctx.grid, ctx.block_dim = block_grid(ctx) + tuple(shape), 1
    try:
        return fn()
    finally:
        ctx.grid, ctx.block_dim = saved


def without_mask(lw: Any, fn: Callable[[], Any]) -> Any:
    """Run ``fn`` with no active-lane mask: tile element code is block-uniform, and lane masks
    (one axis per grid axis) do not broadcast against element planes. Masks apply when the
    result is assigned. ``lw.mask_unknown`` says so meanwhile (no mask here does not mean that every
    lane is active: builtin adjoints then treat every lane as possibly inactive)."""
    if lw is None:
        return fn()
    saved = (lw.active, getattr(lw, "mask_unknown", False))
    lw.active, lw.mask_unknown = None, True
    try:
        return fn()
    finally:
        lw.active, lw.mask_unknown = saved


def expand_mask(mask: Any, ndim: int) -> Any:
    """A lane mask (one axis per grid axis) shaped to broadcast against ``ndim``-axis tile data."""
    if mask is None or is_const(mask) or jnp.ndim(mask) == 0 or jnp.ndim(mask) >= ndim:
        return mask
    return jnp.reshape(mask, jnp.shape(mask) + (1,) * (ndim - jnp.ndim(mask)))


def block_mask(ctx: Any, mask: Any) -> Any:
    """The active mask as a block-uniform array of ``len(grid)`` axes, or None: a block runs a
    tile operation when any of its threads does (the threads that left it, by a ``return`` or a
    partial last block, do not take part, as in Warp)."""
    if mask is None:
        return None
    if is_const(mask):
        return None if bool(mask) else jnp.zeros((1,) * len(ctx.grid), bool)
    axis = lane_axis(ctx)
    x = jnp.asarray(mask)
    if axis is None or x.ndim == 0 or x.shape[axis] == 1:
        return lead_leaf(ctx, x)
    return jnp.any(x, axis=axis, keepdims=True)


def owner_active(ctx: Any, mask: Any, shape: tuple[int, ...]) -> Any:
    """Whether the thread owning each element of a tile of ``shape`` is running, as booleans
    ``(*block_grid, *shape)``, or None when every thread is. Warp spreads a tile's elements over
    the threads of its block: element ``e`` of the row-major tile belongs to thread
    ``e % block_dim``. Cooperative operations skip the elements of threads that are not running
    (a partial last block, a thread that returned): stores drop them, reductions and scans leave
    them out."""
    if mask is None or (is_const(mask) and bool(mask)):
        return None
    lanes = lane_mask(ctx, mask)  # (*block_grid, bd)
    size = 1
    for d in shape:
        size *= d
    owner = np.arange(size) % lanes.shape[-1]
    return jnp.take(lanes, owner, axis=-1).reshape(lanes.shape[:-1] + tuple(shape))


__all__ = [
    "TileType",
    "block_grid",
    "elements",
    "elementwise",
    "expand_mask",
    "from_elements",
    "lane_axis",
    "lead_leaf",
    "make_tile",
    "owner_active",
]
