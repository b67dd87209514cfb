"""Block-shared stacks: ``wp.tile_stack``, ``tile_stack_push``, ``tile_stack_pop``,
``tile_stack_count``, ``tile_stack_clear``.

A stack holds a tile of ``capacity`` elements and a count (a :class:`TileStackType` value, so
loops carry it like any tuple of tiles). Each push or pop moves at most one element per thread
of the block: pushing threads take consecutive slots above the count in lane order (the surplus
past ``capacity`` is dropped, slot ``-1``), popping threads take the top elements, lane 0 the
topmost. Threads outside the active mask (returned early, or in a branch not taken) neither
push nor pop. Operations change the stack in place, also through ``@wp.func`` parameters.

Example (kernel code, ``wp.launch_tiled(k, dim=1, inputs=[...], block_dim=4)``):
    _b, lane = wp.tid()
    s = wp.tile_stack(capacity=8, dtype=int)
    slot = wp.tile_stack_push(s, data[lane], data[lane] > 5)
    n = wp.tile_stack_count(s)
    value, slot = wp.tile_stack_pop(s)
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from jwarp.builtins.common import STATIC, Call, Value
from jwarp.compiler import tiles
from jwarp.compiler.registry import BUILTINS, Builtin, builtin
from jwarp.compiler.values import TupleType, is_const, leaves_of, value_from_leaves
from jwarp.errors import WarpCodegenError, WarpCodegenTypeError, WarpCodegenValueError
from jwarp.lang import scalars
from jwarp.lang.arrays import resolve_dtype, type_name
from jwarp.lang.tile_types import TileStackType
from jwarp.compiler.selects import clip, where


def _capacity(value: Any) -> int:
    if isinstance(value, bool):
        raise WarpCodegenTypeError(f"tile_stack() requires capacity to be a positive integer, got {value!r}")
    try:
        capacity = int(value)
    except (TypeError, ValueError):
        raise WarpCodegenValueError(f"tile_stack() requires capacity to be a positive integer, got {value!r}") from None
    if capacity != value or capacity <= 0:
        raise WarpCodegenValueError(f"tile_stack() requires capacity to be a positive integer, got {value!r}")
    return capacity


def _stack(call: Call, capacity: Value | None = None, dtype: Value | None = None) -> Value:
    """An empty stack of up to ``capacity`` elements of ``dtype`` shared by the block."""
    call.require_kernel()
    if dtype is None:
        raise WarpCodegenTypeError("tile_stack() missing required keyword argument 'dtype'")
    if capacity is None:
        raise WarpCodegenTypeError("tile_stack() missing required keyword argument 'capacity'")
    if capacity.type is not STATIC and not is_const(capacity.data):
        raise WarpCodegenValueError("tile_stack() requires capacity to be a compile-time constant.")
    if capacity.type is scalars.bool_ or isinstance(capacity.data, bool):
        raise WarpCodegenError(f"tile_stack() requires capacity to be a positive integer, got {capacity.data!r}")
    raw = capacity.data.item() if is_const(capacity.data) else capacity.data
    t = TileStackType.of(tiles.static_dtype(dtype), _capacity(raw))
    n = len(call.ctx.grid)
    data_t, count_t = t.types
    data = jnp.zeros((1,) * n + data_t.shape + data_t.dtype_shape, tiles.jnp_dtype(t.dtype))
    count = jnp.zeros((1,) * n + (1,), jnp.int32)
    return Value(t, (Value(data_t, data), Value(count_t, count)))


class TileStackBuiltin(Builtin):
    """``wp.tile_stack``: the kernel builtin, and in Python scope the parameter annotation
    ``wp.tile_stack(capacity=C, dtype=T)`` of a ``@wp.func`` taking a stack."""

    def __call__(self, *args: Any, capacity: Any = None, dtype: Any = None, **kwargs: Any) -> TileStackType:
        if args or kwargs or capacity is None or dtype is None:
            raise TypeError("wp.tile_stack(capacity=..., dtype=...) in Python scope is a parameter annotation")
        return TileStackType.of(resolve_dtype(dtype), _capacity(capacity))


tile_stack = BUILTINS["tile_stack"] = TileStackBuiltin("tile_stack", _stack, "Tile Primitives", _stack.__doc__ or "",
                                                       kernel_only=True)


# ----------------------------------------------------------------------------------------------
# per-lane helpers


def _require_stack(call: Call, s: Value) -> TileStackType:
    if not isinstance(s.type, TileStackType):
        raise WarpCodegenTypeError(f"{call.name}() first argument must be a tile_stack, got {type_name(s.type)}")
    return s.type


def _to_lanes(ctx: Any, leaf: Any) -> Any:
    return tiles.to_lanes(ctx, leaf)


def _from_lanes(ctx: Any, x: Any) -> Any:
    return tiles.from_lanes(ctx, x)


def _active(call: Call, like: Any) -> Any:
    return jnp.broadcast_to(tiles.lane_mask(call.ctx, call.mask), like.shape)


def _state(call: Call, s: Value) -> tuple[list, Any, tuple]:
    """The stack's element planes ``(*block_grid, capacity)`` and count ``(*block_grid)``."""
    ctx = call.ctx
    grid = tiles.block_grid(ctx)
    data, count = s.data
    planes = [jnp.broadcast_to(p, grid + p.shape[len(grid):]) for p in leaves_of(tiles.elements(ctx, data))]
    return planes, jnp.broadcast_to(count.data[..., 0], grid), grid


def _store(call: Call, s: Value, planes: list, count: Any) -> None:
    """Write the new state into the stack variable (in place: the masks are already applied)."""
    t: TileStackType = s.type
    ctx = call.ctx
    data_t, count_t = t.types
    element = value_from_leaves(t.dtype, planes)
    data = tiles.from_elements(ctx, element, data_t.shape, "shared")
    new = Value(t, (data, Value(count_t, count[..., None].astype(jnp.int32))))
    node = call.arg_node(0, "s")
    lw = call.lowerer
    if lw is None or getattr(node, "id", None) not in lw.env:
        raise WarpCodegenError(f"{call.name}(): the stack must be a local variable")
    lw.env[node.id] = new
    lw.inplace_written = getattr(lw, "inplace_written", set()) | {node.id}


# ----------------------------------------------------------------------------------------------
# operations


@builtin("tile_stack_push", group="Tile Primitives", kernel_only=True)
def tile_stack_push(call: Call, s: Value, value: Value, has_value: Value) -> Value:
    """Push ``value`` from every thread whose ``has_value`` is true; returns the slot it went to,
    or -1 (nothing offered, or the stack full)."""
    call.require_kernel()
    t = _require_stack(call, s)
    if value.type != t.dtype:
        raise WarpCodegenTypeError(f"tile_stack_push() value type {type_name(value.type)} does not match stack dtype "
                                   f"{type_name(t.dtype)}")
    ctx = call.ctx
    planes, count, grid = _state(call, s)
    offered = _to_lanes(ctx, jnp.asarray(has_value.data).astype(bool))
    bd = offered.shape[-1]
    offered = jnp.broadcast_to(offered, grid + (bd,))
    offered = offered & _active(call, offered)
    rank = jnp.cumsum(offered, axis=-1) - offered
    slot = count[..., None] + rank.astype(jnp.int32)
    ok = offered & (slot < t.capacity)
    target = where(ok, slot, t.capacity)  # past the end: dropped
    lead = tuple(jnp.expand_dims(i, -1) for i in jnp.indices(grid, sparse=True))
    new_planes = []
    for plane, leaf in zip(planes, leaves_of(value)):
        lanes = jnp.broadcast_to(_to_lanes(ctx, leaf), grid + (bd,)).astype(plane.dtype)
        new_planes.append(plane.at[lead + (target,)].set(lanes, mode="drop"))
    new_count = jnp.minimum(count + jnp.sum(offered, axis=-1, dtype=jnp.int32), t.capacity)
    _store(call, s, new_planes, new_count)
    return Value(scalars.int32, _from_lanes(ctx, where(ok, slot, -1).astype(jnp.int32)))


@builtin("tile_stack_pop", group="Tile Primitives", kernel_only=True)
def tile_stack_pop(call: Call, s: Value) -> Value:
    """Pop one element per thread: ``(value, slot)``, slot -1 (and a zero value) when none is left
    for that thread."""
    call.require_kernel()
    t = _require_stack(call, s)
    ctx = call.ctx
    planes, count, grid = _state(call, s)
    bd = ctx.block_dim if tiles.lane_axis(ctx) is not None else 1
    active = _active(call, jnp.zeros(grid + (bd,), bool))
    rank = (jnp.cumsum(active, axis=-1) - active).astype(jnp.int32)
    slot = count[..., None] - 1 - rank
    ok = active & (slot >= 0)
    index = clip(slot, 0, t.capacity - 1)
    out = []
    for plane in planes:
        picked = jnp.take_along_axis(plane, index, axis=-1)
        out.append(_from_lanes(ctx, where(ok, picked, jnp.zeros((), plane.dtype))))
    popped = jnp.minimum(count, jnp.sum(active, axis=-1, dtype=jnp.int32))
    _store(call, s, planes, count - popped)
    element = value_from_leaves(t.dtype, out)
    slot_value = Value(scalars.int32, _from_lanes(ctx, where(ok, slot, -1).astype(jnp.int32)))
    return Value(TupleType((t.dtype, scalars.int32)), (element, slot_value))


@builtin("tile_stack_count", group="Tile Primitives", kernel_only=True)
def tile_stack_count(call: Call, s: Value) -> Value:
    """The number of elements in the stack (the same for every thread of the block)."""
    call.require_kernel()
    _require_stack(call, s)
    _, count, _ = _state(call, s)
    return Value(scalars.int32, count)


@builtin("tile_stack_clear", group="Tile Primitives", kernel_only=True)
def tile_stack_clear(call: Call, s: Value) -> None:
    """Empty the stack (the next push starts at slot 0)."""
    call.require_kernel()
    _require_stack(call, s)
    ctx = call.ctx
    planes, count, grid = _state(call, s)
    bd = ctx.block_dim if tiles.lane_axis(ctx) is not None else 1
    reached = jnp.any(_active(call, jnp.zeros(grid + (bd,), bool)), axis=-1)
    _store(call, s, planes, where(reached, 0, count))
    return None


__all__ = ["tile_stack", "tile_stack_push", "tile_stack_pop", "tile_stack_count", "tile_stack_clear"]
