"""Tile builtins: creation, memory transfers, per-thread conversion and element-wise maps.

``tile_zeros/ones/full/arange``, ``tile_load/store/atomic_add``, ``tile``/``untile``, ``tile_map``.
Tile values and their layout are described in :mod:`jwarp.compiler.tiles`.

Example (kernel code, launched with ``wp.launch_tiled(k, dim=n, inputs=[a, b], block_dim=64)``):
    i = wp.tid()
    t = wp.tile_load(a, shape=8, offset=i * 8)
    wp.tile_store(b, wp.tile_map(wp.sin, t), offset=i * 8)
"""

from __future__ import annotations

import typing
from typing import Any

import jax.numpy as jnp

from jwarp.builtins.common import STATIC, Call, Value
from jwarp.compiler import tile_memory, tiles
from jwarp.compiler.registry import BUILTINS, Builtin, builtin
from jwarp.compiler.values import leaves_of, value_from_leaves
from jwarp.errors import WarpCodegenError, WarpCodegenTypeError
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import ArrayType, type_name
from jwarp.lang.arrays import resolve_dtype
from jwarp.lang.struct import StructType
from jwarp.lang.tile_types import TileType, is_tile_struct, is_tile_type
from jwarp.compiler.selects import where


def require_tile(call: Call, v: Value, what: str = "a") -> None:
    if not is_tile_type(v.type):
        raise WarpCodegenError(f"wp.{call.name}(): argument '{what}' must be a tile, got {type_name(v.type)}")


def _filled(call: Call, shape: Value, dtype: object, fill: object, storage: Value | None) -> Value:
    call.require_kernel()
    dims = tiles.static_shape(shape)
    t = tiles.static_dtype(Value(STATIC, dtype)) if not isinstance(dtype, Value) else tiles.static_dtype(dtype)
    if fill == 1 and isinstance(t, StructType):
        raise WarpCodegenTypeError(f"wp.{call.name}(): tiles of a Warp struct ({type_name(t)}) have no value for one; "
                                   "use tile_zeros() or tile_full()")
    dshape = TileType(t, dims).dtype_shape
    n = len(call.ctx.grid)
    data = jnp.full((1,) * n + dims + dshape, fill, tiles.jnp_dtype(t))
    return tiles.make_tile(call.ctx, t, dims, data, tiles.static_storage(storage))


@builtin("tile_zeros", group="Tile Primitives", kernel_only=True)
def tile_zeros(call: Call, shape: Value, dtype: Value | None = None, storage: Value | None = None) -> Value:
    """A tile of ``shape`` filled with zeros of ``dtype`` (default float32)."""
    return _filled(call, shape, dtype or Value(STATIC, scalars.float32), 0, storage)


@builtin("tile_ones", group="Tile Primitives", kernel_only=True)
def tile_ones(call: Call, shape: Value, dtype: Value | None = None, storage: Value | None = None) -> Value:
    """A tile of ``shape`` filled with ones (every component of vector/matrix dtypes)."""
    return _filled(call, shape, dtype or Value(STATIC, scalars.float32), 1, storage)


@builtin("tile_full", group="Tile Primitives", kernel_only=True)
def tile_full(call: Call, shape: Value, value: Value, dtype: Value | None = None, storage: Value | None = None) -> Value:
    """A tile of ``shape`` whose every element is ``value`` (converted to ``dtype`` when given)."""
    call.require_kernel()
    dims = tiles.static_shape(shape)
    t = tiles.static_dtype(dtype, default=value.type)
    if value.type != t:
        if not (scalars.is_scalar_type(value.type) and scalars.is_scalar_type(t)):
            raise WarpCodegenError(f"wp.tile_full(): value of type {type_name(value.type)} is not a {type_name(t)}")
        from jwarp.compiler.operators import call_builtin

        value = call_builtin(call.lowerer, "_construct", Value(STATIC, t), value)
    element = value_from_leaves(t, [tiles.expand_scalar_leaf(call.ctx, x, len(dims)) for x in leaves_of(value)])
    return tiles.from_elements(call.ctx, element, dims, tiles.static_storage(storage))


# ----------------------------------------------------------------------------------------------
# memory


def _require_array(call: Call, a: Value) -> None:
    if not isinstance(a.type, ArrayType):
        raise WarpCodegenError(f"wp.{call.name}(): argument 'a' must be an array, got {type_name(a.type)}")


@builtin("tile_load", group="Tile Primitives", kernel_only=True)
def tile_load(call: Call, a: Value, shape: Value, offset: Value | None = None, storage: Value | None = None,
              bounds_check: Value | None = None, aligned: Value | None = None) -> Value:
    """Load the tile of ``shape`` at ``offset`` from array ``a`` (zeros outside the array)."""
    call.require_kernel()
    _require_array(call, a)
    dims = tiles.static_shape(shape)
    return tile_memory.load(call.ctx, a, dims, tiles.static_int_tuple_or_values(offset), tiles.static_storage(storage))


@builtin("tile_store", group="Tile Primitives", kernel_only=True)
def tile_store(call: Call, a: Value, t: Value, offset: Value | None = None, bounds_check: Value | None = None,
               aligned: Value | None = None) -> None:
    """Store tile ``t`` into array ``a`` at ``offset`` (elements outside the array are dropped)."""
    call.require_kernel()
    _require_array(call, a)
    require_tile(call, t, "t")
    tile_memory.store(call.ctx, a, t, tiles.static_int_tuple_or_values(offset), call.mask)
    return None


@builtin("tile_atomic_add", group="Tile Primitives", kernel_only=True)
def tile_atomic_add(call: Call, a: Value, t: Value, offset: Value | None = None,
                    bounds_check: Value | None = None) -> Value:
    """Add tile ``t`` into array ``a`` at ``offset``; returns the values it replaced."""
    call.require_kernel()
    _require_array(call, a)
    require_tile(call, t, "t")
    return tile_memory.atomic_add(call.ctx, a, t, tiles.static_int_tuple_or_values(offset), call.mask)


def _index_axis(call: Call, indices: Value, axis: Value | None, shape: tuple[int, ...]) -> tuple[int, Value]:
    """The ``(axis, indices)`` of an indexed transfer, checked: a 1-D integer tile whose length is
    the tile's extent along ``axis``."""
    require_tile(call, indices, "indices")
    k = 0 if axis is None else int(tiles.static_shape(axis, "axis")[0])
    if not 0 <= k < len(shape):
        raise WarpCodegenError(f"wp.{call.name}(): axis {k} is out of range for a tile of {len(shape)} dimensions")
    if indices.type.ndim != 1 or not scalars.is_int(indices.type.dtype):
        raise WarpCodegenError(f"wp.{call.name}(): indices must be a 1-D tile of integers, got {type_name(indices.type)}")
    if indices.type.shape[0] != shape[k]:
        raise WarpCodegenError(f"wp.{call.name}(): indices hold {indices.type.shape[0]} values but the tile has "
                               f"{shape[k]} along axis {k}")
    return k, indices


@builtin("tile_load_indexed", group="Tile Primitives", kernel_only=True)
def tile_load_indexed(call: Call, a: Value, indices: Value, shape: Value, offset: Value | None = None,
                      axis: Value | None = None, storage: Value | None = None) -> Value:
    """Load a tile of ``shape`` from ``a``, reading dimension ``axis`` at ``offset + indices[c]``
    (an index tile) and the others consecutively; elements outside ``a`` read as zero."""
    call.require_kernel()
    _require_array(call, a)
    dims = tiles.static_shape(shape)
    gather = _index_axis(call, indices, axis, dims)
    return tile_memory.load(call.ctx, a, dims, tiles.static_int_tuple_or_values(offset),
                            tiles.static_storage(storage), gather)


@builtin("tile_store_indexed", group="Tile Primitives", kernel_only=True)
def tile_store_indexed(call: Call, a: Value, indices: Value, t: Value, offset: Value | None = None,
                       axis: Value | None = None) -> None:
    """Store tile ``t`` into ``a``, writing dimension ``axis`` at ``offset + indices[c]``;
    destinations outside ``a`` are skipped."""
    call.require_kernel()
    _require_array(call, a)
    require_tile(call, t, "t")
    gather = _index_axis(call, indices, axis, t.type.shape)
    tile_memory.store(call.ctx, a, t, tiles.static_int_tuple_or_values(offset), call.mask, gather)
    return None


@builtin("tile_atomic_add_indexed", group="Tile Primitives", kernel_only=True)
def tile_atomic_add_indexed(call: Call, a: Value, indices: Value, t: Value, offset: Value | None = None,
                            axis: Value | None = None) -> Value:
    """Add tile ``t`` into ``a`` with dimension ``axis`` scattered through ``indices`` (repeated
    indices accumulate); returns the values it replaced."""
    call.require_kernel()
    _require_array(call, a)
    require_tile(call, t, "t")
    gather = _index_axis(call, indices, axis, t.type.shape)
    return tile_memory.atomic_add(call.ctx, a, t, tiles.static_int_tuple_or_values(offset), call.mask, gather)


# ----------------------------------------------------------------------------------------------
# per-thread values <-> tiles


_lane_values = tiles.to_lanes  # (used by tile_fused, tile_stack)


class TileBuiltin(Builtin):
    """``wp.tile``: the builtin, and ``wp.tile[dtype, M, N]`` as a function parameter annotation."""

    _jwarp_tile_type_builtin = True  # wp.types.type_is_tile(wp.tile) is True, as in Warp

    def __call__(self, *args: object, **kwargs: object) -> object:
        """At Python scope, ``wp.tile(dtype=..., shape=(M, N), storage=...)`` describes a tile type
        (Warp's tile class); in kernels ``wp.tile(x)`` is the builtin."""
        if not args and "dtype" in kwargs:
            shape = kwargs.get("shape", Any)
            if shape is not Any:
                shape = tuple(_tile_extent(d) for d in (shape if isinstance(shape, tuple) else (shape,)))
            return TileType(resolve_dtype(kwargs["dtype"]), shape, str(kwargs.get("storage", "register")))
        return super().__call__(*args, **kwargs)

    def __getitem__(self, params: object) -> TileType:
        params = params if isinstance(params, tuple) else (params,)
        if not params:
            raise TypeError("wp.tile[...] requires at least a dtype: wp.tile[float] or wp.tile[float, 16, 16]")
        dtype, *shape = params
        if len(shape) == 1 and isinstance(shape[0], tuple):  # wp.tile[float, (M, N)]
            shape = list(shape[0])
        if not shape:  # wp.tile[float]: any shape (as Warp)
            return TileType(resolve_dtype(dtype), Any)  # type: ignore[arg-type]
        extents = tuple(_tile_extent(d) for d in shape)
        return TileType(resolve_dtype(dtype), extents)


def _tile_extent(d: Any) -> int:
    """One extent of a tile annotation: a positive int or ``Literal[n]``."""
    args = typing.get_args(d) if typing.get_origin(d) is typing.Literal else (d,)
    if len(args) != 1 or not isinstance(args[0], int) or args[0] <= 0:
        raise TypeError(f"Tile extents must be positive integer (or Literal) values, got {d!r}")
    return args[0]


def _tile(call: Call, x: Value, preserve_type: Value | None = None) -> Value:
    """A tile of the block's per-thread values of ``x``: shape ``(block_dim,)`` for scalars (and
    for vectors/matrices with ``preserve_type=True``), else ``(*x.shape, block_dim)``."""
    call.require_kernel()
    ctx = call.ctx
    bd = ctx.block_dim if tiles.lane_axis(ctx) is not None else 1
    keep = tiles.static_bool(preserve_type, False)
    planes = [_lane_values(ctx, leaf) for leaf in leaves_of(x)]
    if call.mask is not None:  # threads that are not running (a partial last block) contribute zeros
        active = tiles.lane_mask(ctx, call.mask)
        planes = [where(active, p, jnp.zeros((), p.dtype)) for p in planes]
    if scalars.is_scalar_type(x.type) or is_tile_struct(x.type) or (keep and composites.is_composite(x.type)):
        return tiles.from_elements(ctx, value_from_leaves(x.type, planes), (bd,))
    if not composites.is_composite(x.type):
        raise WarpCodegenError(f"wp.tile(): cannot make a tile of values of type {type_name(x.type)}")
    comp_shape = tuple(x.type._shape_)
    stacked = jnp.stack(planes, axis=-2)  # (*lead, n_components, bd)
    data = stacked.reshape(stacked.shape[:-2] + comp_shape + (bd,))
    return tiles.make_tile(ctx, x.type._wp_scalar_type_, comp_shape + (bd,), data)


tile = BUILTINS["tile"] = TileBuiltin("tile", _tile, "Tile Primitives", _tile.__doc__ or "", kernel_only=True)


@builtin("untile", group="Tile Primitives", kernel_only=True)
def untile(call: Call, a: Value) -> Value:
    """Per-thread values of a tile whose last dimension is ``block_dim``: thread ``l`` gets
    ``a[..., l]`` (the element for ``(block_dim,)`` tiles, a vector for ``(M, block_dim)`` and a
    matrix for ``(M, N, block_dim)`` tiles of scalars)."""
    call.require_kernel()
    require_tile(call, a)
    ctx = call.ctx
    bd = ctx.block_dim if tiles.lane_axis(ctx) is not None else 1
    t = a.type
    if t.shape[-1] != bd or t.ndim > 3 or (t.ndim > 1 and composites.is_composite(t.dtype)):
        raise WarpCodegenError(f"wp.untile(): expected a tile of shape (block_dim,), (M, block_dim) or "
                               f"(M, N, block_dim) of scalars, got {type_name(t)}")
    n = len(ctx.grid)

    def per_thread(plane):  # (*lead, bd) -> one value per thread
        return tiles.from_lanes(ctx, plane)

    if t.ndim == 1:
        element = tiles.elements(ctx, a)
        return value_from_leaves(element.type, [per_thread(x) for x in leaves_of(element)])
    comp_shape = t.shape[:-1]
    comp = composites.vector(comp_shape[0], t.dtype) if t.ndim == 2 else \
        composites.matrix(comp_shape, t.dtype)
    flat = a.data.reshape(a.data.shape[:n] + (-1, bd))
    return value_from_leaves(comp, [per_thread(flat[..., k, :]) for k in range(flat.shape[-2])])


# ----------------------------------------------------------------------------------------------
# maps


def apply_op(call: Call, op: Value, args: list[Value]) -> Value:
    """Apply a builtin or ``@wp.func`` to element values (block-uniform, no lane mask)."""
    from jwarp.compiler.calls import inline_function

    fn = op.data if op.type is STATIC else None
    lw = call.lowerer

    def run() -> Value:
        if isinstance(fn, Builtin):
            inner = Call(fn.name, call.ctx, None, lw)
            return fn.lower(inner, list(args), {})
        if getattr(fn, "_jwarp_function", False):
            node = call.arg_nodes[0] if call.arg_nodes else None
            return inline_function(lw, fn, list(args), {}, node)
        name = getattr(fn, "_jwarp_kernel_builtin", None)
        if name is not None:
            return BUILTINS[name].lower(Call(name, call.ctx, None, lw), list(args), {})
        raise WarpCodegenError(f"wp.{call.name}(): op must be a Warp builtin or a @wp.func, got {fn!r}")

    return tiles.without_mask(lw, run)


@builtin("tile_map", group="Tile Primitives", kernel_only=True)
def tile_map(call: Call, op: Value, a: Value, *args: Value) -> Value:
    """Apply ``op`` (a builtin or ``@wp.func``) element-wise to tiles of one shape."""
    call.require_kernel()
    operands = [a, *args]
    if not any(is_tile_type(o.type) for o in operands):
        raise WarpCodegenError("wp.tile_map(): at least one argument must be a tile")
    for i, other in enumerate(operands):  # other arguments: values every element uses
        if not is_tile_type(other.type) and not (scalars.is_scalar_type(other.type)
                                                 or composites.is_composite(other.type)
                                                 or is_tile_struct(other.type)):
            raise WarpCodegenError(f"wp.tile_map(): argument {i + 1} must be a tile, a scalar, a vector or a matrix, "
                                   f"got {type_name(other.type)}")
    shapes = {o.type.shape for o in operands if is_tile_type(o.type)}
    if len(shapes) > 1:
        raise WarpCodegenError(f"wp.tile_map(): all tiles must have the same shape, got {sorted(shapes)}")
    shape = next(iter(shapes))
    return tiles.elementwise(call.ctx, lambda *els: tiles.as_lanes(call.ctx, shape,
                                                                    lambda: apply_op(call, op, list(els))), operands)


__all__ = ["tile_zeros", "tile_ones", "tile_full", "tile_load", "tile_store", "tile_atomic_add",
           "tile_load_indexed", "tile_store_indexed", "tile_atomic_add_indexed",
           "tile", "untile", "tile_map", "require_tile", "apply_op"]
