"""Per-launch lowering state: the lane grid, the kernel's memory and its accumulators.

One :class:`KernelContext` lives for one trace of a kernel. It owns

- ``grid``: the launch shape; every varying leaf has ``len(grid)`` axes;
- ``slots``: one :class:`SlotState` per distinct array the kernel can touch, holding the
  array's current contents as structure-of-arrays *planes* (one jax array of the array's
  shape per scalar component of its dtype);
- ``accumulators``: small named leaves that loops must carry (the *site flags* — debug-mode
  out-of-bounds access, a ``while`` loop that stalled in lockstep, a loop that hangs — and
  per-loop trip-count maxima);
- ``sites``: source locations of checked accesses and loops, for error messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.errors import SourceLocation
from jwarp.lang.arrays import dtype_leaf_shapes
from jwarp.compiler.selects import where


@dataclass
class SlotState:
    """Contents of one array during lowering: SoA planes of ``shape`` (one per scalar leaf)."""

    dtype: Any
    shape: tuple[int, ...]
    planes: list
    written: bool = False
    read: bool = False  # the kernel loads from it (Warp's verify_autograd_array_access bookkeeping)
    local: bool = False  # a thread's own fixed-size array (wp.zeros in kernel code)
    in_place: bool = False  # planes are memory references updated in place (Pallas target): never loop-carried


def split_planes(buffer: Any, dtype: Any, shape: tuple[int, ...]) -> list:
    """Storage buffer(s) of an array → list of scalar planes of ``shape``."""
    parts = list(buffer) if isinstance(buffer, (tuple, list)) else [buffer]
    leaf_shapes = dtype_leaf_shapes(dtype)
    planes = []
    for part, (comp_shape, _scalar) in zip(parts, leaf_shapes, strict=True):
        if not comp_shape:
            planes.append(part)
            continue
        flat = part.reshape(shape + (-1,))
        planes.extend(flat[..., k] for k in range(flat.shape[-1]))
    return planes


def join_planes(planes: list, dtype: Any, shape: tuple[int, ...]) -> Any:
    """Inverse of :func:`split_planes`."""
    leaf_shapes = dtype_leaf_shapes(dtype)
    parts = []
    k = 0
    for comp_shape, _scalar in leaf_shapes:
        if not comp_shape:
            parts.append(planes[k])
            k += 1
            continue
        n = 1
        for d in comp_shape:
            n *= d
        stacked = jnp.stack(planes[k : k + n], axis=-1)
        parts.append(stacked.reshape(shape + comp_shape))
        k += n
    return parts[0] if len(parts) == 1 and len(leaf_shapes) == 1 else tuple(parts)


SITE_FLAGS = ("oob", "stall", "hang", "tile_identity", "tile_oob", "zero_step")
"""Accumulators holding the first source site (an index into ``sites``) where something happened, -1 if not:
``oob`` an out-of-bounds access (debug mode), ``stall`` a ``while`` loop whose state stopped changing with
lanes still inside while threads ran in lockstep, ``hang`` the same with threads serialised (a real
infinite loop), ``tile_identity`` a ``tile_reduce`` along an axis with a user operator over a slice whose
elements all belong to threads that are not running (a partial block; Warp asserts), ``tile_oob`` a tile
element index outside the tile (debug mode), ``zero_step`` an array slice whose run-time step was 0."""

REPORTED_FLAGS = ("oob", "hang", "tile_identity", "tile_oob", "zero_step")
"""The site flags a launch reports to the user (an error naming the site)."""


def initial_accumulator(key: str, like: Any) -> Any:
    """The value of accumulator ``key`` before anything was recorded (shaped and typed like ``like``)."""
    # a numpy constant, never a value of the trace ``like`` comes from: loop-carry discovery calls
    # this inside a loop body's trace, and the result outlives that trace
    return np.full(np.shape(like), -1 if key in SITE_FLAGS else 0, jnp.result_type(like))


def first_site(previous: Any, current: Any) -> Any:
    """Merge two site flags: the earlier-recorded site wins."""
    return where(previous >= 0, previous, current)


@dataclass
class KernelContext:
    kernel_name: str
    grid: tuple[int, ...]
    slots: list[SlotState]
    debug: bool = False
    loop_bounds: dict | None = None  # site -> static trip bound (bounded mode, for reverse AD)
    record_trips: bool = False
    block_dim: int = 1
    kernel_dim: int = 1
    max_unroll: int | None = None  # constant-trip loops up to this length unroll (None: config.max_unroll)
    enable_backward: bool = True  # the kernel's option (calls to wp.ref functions need it off)
    thread_coords: tuple | None = None  # chunked launches: wp.tid() per lane (else the lane iotas)
    serial: bool = False  # one thread at a time (the progress fallback): a stalled loop is a hang
    watch_loops: bool = True  # while loops detect stalls (off inside shard_map: see kernel_compile)
    accumulators: dict = field(default_factory=dict)
    sites: list = field(default_factory=list)
    finish_hooks: dict = field(default_factory=dict)  # name -> callable run once after the body is lowered
    handles: list = field(default_factory=list)  # BoundHandle per geometry object id the launch received
    ref_memory: Any = None  # Pallas target: emits accesses to in-place slots (see pallas_memory.RefMemory)
    partial_lanes: Any = None  # tile launches with a partial last block: the running threads, grid-shaped
    # a thread may have observed memory that other threads of the launch update: set by atomics
    # whose old values are used (tile_atomic_add too): see kernel_compile.may_communicate
    shared_memory: bool = False
    # a thread's result depends on the order threads run (an atomic whose old value is used, min/max,
    # bitwise or exchange atomics): the lane-chunked backward pass does not apply (runtime/lane_chunks.py)
    lane_order: bool = False
    # the threads store to distinct elements (a race otherwise): set for the chunks of the lane-chunked
    # backward pass, whose stores then differentiate without a pass over the whole array (lane_vjp.py)
    distinct_stores: bool = False
    # the chunks of the lane-chunked backward pass also compute their straight-line locals apart
    # (compiler/materialise.py): their cotangents are computed once, not in every scatter that reads them
    materialise_locals: bool = False
    # values of arrays read at a pair pass's candidate index, gathered together (compiler/row_gathers.py)
    prefetched: dict | None = None

    def __post_init__(self) -> None:
        self.tid = tuple(self._iota(axis) for axis in range(len(self.grid)))
        if self.debug:
            self.accumulators["oob"] = jnp.asarray(-1, jnp.int32)

    def _iota(self, axis: int) -> Any:
        shape = [1] * len(self.grid)
        shape[axis] = self.grid[axis]
        return lax.broadcasted_iota(jnp.int32, tuple(shape), axis)

    @property
    def num_threads(self) -> int:
        n = 1
        for d in self.grid:
            n *= d
        return n

    def add_site(self, location: SourceLocation | None) -> int:
        self.sites.append(location)
        return len(self.sites) - 1

    def flag_out_of_bounds(self, site: int, bad: Any) -> None:
        """Debug mode: remember the first access site where an active lane was out of bounds."""
        if not self.debug:
            return
        self.flag_site("oob", site, bad)

    def flag_site(self, key: str, site: int, bad: Any) -> None:
        """Record ``site`` in the site flag ``key`` (see :data:`SITE_FLAGS`) unless one was recorded first."""
        current = self.accumulators.get(key)
        if current is None:
            current = jnp.asarray(-1, jnp.int32)
        self.accumulators[key] = where((current < 0) & jnp.any(bad), jnp.int32(site), current)

    def record_trip_count(self, site: int, count: Any) -> None:
        if not self.record_trips:
            return
        key = f"trip:{site}"
        previous = self.accumulators.get(key)
        count = jnp.asarray(count, jnp.int32)
        self.accumulators[key] = count if previous is None else jnp.maximum(previous, count)
