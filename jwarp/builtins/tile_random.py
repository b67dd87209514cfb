"""Random tiles: ``wp.tile_randi`` and ``wp.tile_randf`` (optionally in ``[min, max)``).

Warp spreads a tile's elements over the threads of the block (element ``e`` on thread
``e % block_dim``, the ``(e // block_dim)``-th it draws); each thread draws sequentially from its
own stream ``rng + lane`` after one initial PCG step. jwarp computes every element's state
directly, so the tile equals Warp's for the same ``block_dim`` (1 on the CPU unless
``wp.config.enable_cpu_blocks``). ``rng`` itself is left unchanged, as in Warp.

Example (kernel code):
    rng = wp.rand_init(seed, block)
    noise = wp.tile_randf(shape=(16, 16), rng=rng, min=-1.0, max=1.0)
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.builtins.common import Call, Value
from jwarp.builtins.random import I32, fmul, pcg, to_u32, unit_float
from jwarp.compiler import tiles
from jwarp.compiler.registry import builtin
from jwarp.errors import WarpCodegenTypeError
from jwarp.lang import scalars
from jwarp.lang.arrays import type_name
from jwarp.compiler.selects import where


def _states(call: Call, shape: tuple[int, ...], rng: Value) -> jnp.ndarray:
    """Each element's drawn state ``pcg^(k+2)(rng + lane)``: ``(*lead, *shape)`` uint32."""
    ctx = call.ctx
    if rng.type is not scalars.uint32:
        raise WarpCodegenTypeError(f"wp.{call.name}(): rng must be a uint32 state from wp.rand_init(), got "
                                   f"{type_name(rng.type)}")
    bd = ctx.block_dim if tiles.lane_axis(ctx) is not None else 1
    size = int(np.prod(shape))
    flat = np.arange(size)
    lanes, steps = flat % bd, flat // bd
    base = to_u32(tiles.lead_leaf(ctx, to_u32(rng.data)))  # (*lead)
    state = base[..., None] + jnp.asarray(lanes, jnp.uint32)  # (*lead, size)
    state = pcg(state)  # the initial step of every thread's stream
    for k in range(int(steps.max()) + 1):  # draw k of each thread: the elements it reaches at step >= k
        drawn = pcg(state)
        state = where(jnp.asarray(steps >= k), drawn, state) if k else drawn
    return state.reshape(state.shape[:-1] + tuple(shape))


def _bounds(call: Call, low: Value | None, high: Value | None, t: type) -> tuple:
    if (low is None) != (high is None):
        raise WarpCodegenTypeError(f"wp.{call.name}(): 'min' and 'max' must be given together")
    if low is None:
        return None
    for v in (low, high):
        if v.type is not t:
            raise WarpCodegenTypeError(f"wp.{call.name}(): 'min' and 'max' must both be {type_name(t)}, got "
                                       f"{type_name(v.type)}")
    return tuple(jnp.asarray(tiles.lead_leaf(call.ctx, v.data)) for v in (low, high))


@builtin("tile_randi", group="Tile Primitives", kernel_only=True)
def tile_randi(call: Call, shape: Value, rng: Value, min: Value | None = None, max: Value | None = None,
               storage: Value | None = None) -> Value:
    """A tile of random int32 (``wp.randi`` per element; in ``[min, max)`` when given)."""
    call.require_kernel()
    dims = tiles.static_shape(shape)
    s = _states(call, dims, rng)
    bounds = _bounds(call, min, max, scalars.int32)
    if bounds is not None:
        low, high = (to_u32(b).reshape(b.shape + (1,) * len(dims)) for b in bounds)
        span = high - low
        safe = where(span == 0, np.uint32(1), span)
        s = where(span == 0, np.uint32(0), s % safe) + low
    return tiles.make_tile(call.ctx, scalars.int32, dims, lax.bitcast_convert_type(s, I32),
                           tiles.static_storage(storage))


@builtin("tile_randf", group="Tile Primitives", kernel_only=True)
def tile_randf(call: Call, shape: Value, rng: Value, min: Value | None = None, max: Value | None = None,
               storage: Value | None = None) -> Value:
    """A tile of random float32 in [0, 1) (``wp.randf`` per element; in ``[min, max)`` when given)."""
    call.require_kernel()
    dims = tiles.static_shape(shape)
    u = unit_float(_states(call, dims, rng))
    bounds = _bounds(call, min, max, scalars.float32)
    if bounds is not None:
        low, high = (jnp.asarray(b, jnp.float32).reshape(jnp.shape(b) + (1,) * len(dims)) for b in bounds)
        u = fmul(jnp.subtract(high, low), u) + low
    return tiles.make_tile(call.ctx, scalars.float32, dims, u, tiles.static_storage(storage))


__all__ = ["tile_randi", "tile_randf"]
