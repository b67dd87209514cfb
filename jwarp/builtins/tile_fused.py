"""Fused and element-access tile builtins: ``tile_dot``, ``tile_axpy``, ``tile_extract``,
``tile_empty``, ``tile_from_thread``.

``tile_dot`` contracts two tiles completely (``dot`` of vector elements, the Frobenius product of
matrix elements) into a one-element tile; ``tile_axpy`` is ``dest += alpha * src`` in place (onto
the elements ``dest`` views, so a broadcast ``dest`` accumulates every row into its one
storage row, as in Warp); ``tile_extract`` reads one element at each thread's own indices.

Example (kernel code):
    d = wp.tile_dot(a, b)[0]
    wp.tile_axpy(2.0, src, dest)
    x = wp.tile_extract(t, i, j)
"""

from __future__ import annotations

import jax.numpy as jnp

from jwarp.builtins.common import STATIC, Call, Value
from jwarp.builtins.tile_core import _lane_values, require_tile, tile_zeros
from jwarp.builtins.tile_index import select
from jwarp.compiler import tile_views, tiles
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import is_const, leaves_of, value_from_leaves
from jwarp.errors import WarpCodegenError, WarpCodegenTypeError
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import type_name
from jwarp.lang.tile_types import is_tile_struct
from jwarp.compiler.selects import clip, where


def _same_tiles(call: Call, a: Value, b: Value, what: str = "b") -> None:
    require_tile(call, a)
    require_tile(call, b, what)
    if a.type.shape != b.type.shape or a.type.dtype != b.type.dtype:
        raise WarpCodegenTypeError(f"wp.{call.name}(): tiles must have the same shape and dtype, got "
                                   f"{type_name(a.type)} and {type_name(b.type)}")


@builtin("tile_dot", group="Tile Primitives", kernel_only=True)
def tile_dot(call: Call, a: Value, b: Value) -> Value:
    """The sum over all elements of ``a`` and ``b`` of their products (``wp.dot`` of vector
    elements, the Frobenius product of matrix elements), as a one-element tile."""
    call.require_kernel()
    _same_tiles(call, a, b)
    n = len(call.ctx.grid)
    product = a.data * b.data
    total = jnp.sum(product, axis=tuple(range(n, product.ndim)))
    return tiles.make_tile(call.ctx, a.type.scalar, (1,), total[..., None], "register")


@builtin("tile_axpy", group="Tile Primitives", kernel_only=True)
def tile_axpy(call: Call, alpha: Value, src: Value, dest: Value) -> None:
    """``dest += alpha * src`` in place; ``alpha`` has the tiles' scalar type."""
    call.require_kernel()
    _same_tiles(call, src, dest, "dest")
    if alpha.type != src.type.scalar:
        raise WarpCodegenTypeError(f"wp.tile_axpy(): alpha must be a {type_name(src.type.scalar)}, got "
                                   f"{type_name(alpha.type)}")
    ctx = call.ctx
    extra = src.type.ndim + len(src.type.dtype_shape)
    scale = alpha.data if is_const(alpha.data) else tiles.expand_scalar_leaf(ctx, alpha.data, extra)
    delta = tiles.make_tile(ctx, src.type.dtype, src.type.shape, src.data * scale, dest.type.storage)
    node = call.arg_node(2, "dest")
    name = getattr(node, "id", None)
    if name is not None and call.lowerer is not None and tile_views.accumulate(call.lowerer, name, delta):
        return None
    call.assign_back(2, tiles.make_tile(ctx, dest.type.dtype, dest.type.shape, dest.data + delta.data,
                                        dest.type.storage), "dest")
    return None


@builtin("tile_extract", group="Tile Primitives", kernel_only=True)
def tile_extract(call: Call, a: Value, *idx: Value) -> Value:
    """The element of ``a`` at each thread's indices; indices past the tile's dimensions select a
    vector component, a matrix row, or a matrix entry."""
    call.require_kernel()
    require_tile(call, a)
    t = a.type
    if len(idx) < t.ndim:
        raise WarpCodegenError(f"wp.tile_extract(): a tile of {t.ndim} dimensions needs {t.ndim} indices, got "
                               f"{len(idx)}")
    for k, v in enumerate(idx):
        if not scalars.is_int(v.type):
            raise WarpCodegenTypeError(f"wp.tile_extract(): index {k} must be an integer, got {type_name(v.type)}")
    element = select(call, a, None, list(idx[: t.ndim]))
    rest = list(idx[t.ndim:])
    if not rest:
        return element
    if not composites.is_composite(t.dtype) or len(rest) > len(t.dtype_shape):
        raise WarpCodegenError(f"wp.tile_extract(): too many indices for a tile of {type_name(t.dtype)}")
    from jwarp.compiler.lvalues import subscript

    return subscript(call.lowerer, element, rest)


@builtin("tile_empty", group="Tile Primitives", kernel_only=True)
def tile_empty(call: Call, shape: Value, dtype: Value | None = None, storage: Value | None = None) -> Value:
    """A tile of ``shape`` whose contents are undefined until written (jwarp fills zeros)."""
    return tile_zeros.impl(call, shape, dtype or Value(STATIC, scalars.float32), storage)


@builtin("tile_from_thread", group="Tile Primitives", kernel_only=True)
def tile_from_thread(call: Call, shape: Value, value: Value, thread_idx: Value | None = None,
                     storage: Value | None = None) -> Value:
    """A tile of ``shape`` filled with ``value`` as thread ``thread_idx`` of the block holds it."""
    call.require_kernel()
    ctx = call.ctx
    dims = tiles.static_shape(shape)
    if not (scalars.is_scalar_type(value.type) or composites.is_composite(value.type) or is_tile_struct(value.type)):
        raise WarpCodegenTypeError(f"wp.tile_from_thread(): value must be a scalar, vector, matrix or struct, got "
                                   f"{type_name(value.type)}")
    lane = jnp.zeros((1,) * len(ctx.grid), jnp.int32) if thread_idx is None else \
        tiles.lead_leaf(ctx, thread_idx.data).astype(jnp.int32)
    leaves = []
    for leaf in leaves_of(value):
        per_lane = _lane_values(ctx, leaf)  # (*block_grid, block_dim)
        lanes = jnp.broadcast_to(lane, per_lane.shape[:-1])[..., None]
        picked = jnp.take_along_axis(per_lane, clip(lanes, 0, per_lane.shape[-1] - 1), axis=-1)[..., 0]
        leaves.append(picked.reshape(picked.shape + (1,) * len(dims)))
    element = value_from_leaves(value.type, leaves)
    return tiles.from_elements(ctx, element, dims, tiles.static_storage(storage))


# ----------------------------------------------------------------------------------------------
# per-thread writes into a tile


def _scatter(call: Call, a: Value, rest: tuple, kwargs: dict, add: bool) -> None:
    call.require_kernel()
    require_tile(call, a)
    ctx = call.ctx
    t = a.type
    rest = list(rest)
    for key in ("value", "has_value", "atomic"):
        if key in kwargs:
            rest.append(kwargs.pop(key))
    if kwargs:
        raise WarpCodegenTypeError(f"wp.{call.name}(): unexpected arguments {sorted(kwargs)}")
    if len(rest) < t.ndim + 2:
        raise WarpCodegenError(f"wp.{call.name}(): a tile of {t.ndim} dimensions needs {t.ndim} indices, a value "
                               "and has_value")
    idx, value, has_value = rest[: t.ndim], rest[t.ndim], rest[t.ndim + 1]
    if value.type != t.dtype:
        raise WarpCodegenTypeError(f"wp.{call.name}(): value of type {type_name(value.type)} does not match the "
                                   f"tile's {type_name(t.dtype)}")
    from jwarp.builtins.tile_index import resolve

    sel = resolve(ctx, tile_views.without_view(a), list(idx))
    flat = tile_views.flat_positions(t.shape, sel.per_axis)
    ok = tiles.lane_mask(ctx, call.mask) & tiles.to_lanes(ctx, jnp.asarray(has_value.data).astype(bool))
    new = tile_views.scatter_lanes(ctx, tile_views.without_view(a), flat, value, ok, add=add)
    node = call.arg_node(0, "a")
    if isinstance(getattr(node, "id", None), str) and call.lowerer is not None and node.id in call.lowerer.env:
        tile_views.write(call.lowerer, node.id, new, masked=True)


@builtin("tile_scatter_masked", group="Tile Primitives", kernel_only=True)
def tile_scatter_masked(call: Call, a: Value, *rest: Value, **kwargs: Value) -> None:
    """Each thread whose ``has_value`` is true writes ``value`` at its index ``(i, ...)`` of tile
    ``a`` (in place): ``tile_scatter_masked(a, i, [j, ...], value, has_value)``."""
    _scatter(call, a, rest, kwargs, add=False)


@builtin("tile_scatter_add", group="Tile Primitives", kernel_only=True)
def tile_scatter_add(call: Call, a: Value, *rest: Value, **kwargs: Value) -> None:
    """Each thread whose ``has_value`` is true adds ``value`` at its index of tile ``a`` (in
    place; threads meeting at one index all add): ``tile_scatter_add(a, i, ..., value, has_value)``."""
    _scatter(call, a, rest, kwargs, add=True)


_IDENTITY = {"bit_and": -1, "bit_or": 0, "bit_xor": 0}
_COMBINE = {"bit_and": jnp.bitwise_and, "bit_or": jnp.bitwise_or, "bit_xor": jnp.bitwise_xor}


@builtin("_tile_element_update", group="Code Generation", kernel_only=True)
def tile_element_update(call: Call, op: Value, a: Value, value: Value, *idx: Value) -> Value:
    """``t[i, j] op= x`` from every active thread: an atomic update, as Warp's (every thread's
    ``x`` is combined into the element it names; ``op`` is add, sub, bit_and, bit_or or bit_xor)."""
    from jwarp.builtins.tile_index import resolve

    ctx = call.ctx
    t = a.type
    if value.type != t.dtype:
        raise WarpCodegenTypeError(f"Cannot combine a value of type {type_name(value.type)} into a tile of "
                                   f"{type_name(t.dtype)}")
    if name_is_bitwise(op.data) and is_tile_struct(t.dtype):
        raise WarpCodegenTypeError("Tile bitwise inplace operators do not support Warp struct tile elements")
    plain = tile_views.without_view(a)
    sel = resolve(ctx, plain, list(idx))
    flat = tile_views.flat_positions(t.shape, sel.per_axis)
    ok = tiles.lane_mask(ctx, call.mask)
    name = op.data
    if name in ("add", "sub"):
        from jwarp.compiler.values import map_value

        delta = value if name == "add" else map_value(lambda x: -jnp.asarray(x), value)
        return tile_views.scatter_lanes(ctx, plain, flat, delta, ok, add=True)
    combine, identity = _COMBINE[name], _IDENTITY[name]
    grid = tiles.block_grid(ctx)
    bd = ok.shape[-1]
    target = where(ok, jnp.broadcast_to(tiles.to_lanes(ctx, jnp.asarray(flat, jnp.int32)), grid + (bd,)), -1)
    match = target[..., None] == jnp.arange(t.size, dtype=jnp.int32)  # (*grid, bd, size)
    planes = []
    for old, new in zip(leaves_of(tiles.elements(ctx, plain)), leaves_of(value)):
        old = jnp.broadcast_to(old, grid + t.shape).reshape(grid + (t.size,))
        lanes = jnp.broadcast_to(tiles.to_lanes(ctx, new), grid + (bd,)).astype(old.dtype)
        fill = jnp.asarray(identity).astype(old.dtype)
        terms = where(match, lanes[..., None], fill)
        total = lax_reduce(terms, fill, combine)
        planes.append(combine(old, total).reshape(grid + t.shape))
    return tiles.from_elements(ctx, value_from_leaves(t.dtype, planes), t.shape, t.storage)


def name_is_bitwise(op_name: str) -> bool:
    return op_name in ("bit_and", "bit_or", "bit_xor")


def lax_reduce(terms: jnp.ndarray, fill: jnp.ndarray, combine) -> jnp.ndarray:
    """Combine ``terms`` over their lane axis (the second to last)."""
    from jax import lax

    return lax.reduce(terms, fill, lambda x, y: combine(x, y), (terms.ndim - 2,))


__all__ = ["tile_element_update", "tile_dot", "tile_axpy", "tile_extract", "tile_empty", "tile_from_thread", "tile_scatter_masked",
           "tile_scatter_add"]
