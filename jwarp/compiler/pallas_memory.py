"""Array loads, stores and atomics on Pallas memory references (the Pallas target of a launch).

On the Pallas target (see :mod:`jwarp.compiler.pallas_lower`) every scalar plane of a kernel array
is a flat (1-d) Pallas ref, wrapped in a :class:`RefPlane`, and the launch's lanes are the
``block_dim`` threads of one program. An access computes each lane's linear element index (Warp's
negative-index rule and bounds applied as on the XLA path, see :mod:`jwarp.compiler.memory`) and

- loads are ref reads at the (clamped) indices: ``ref[index_vector]`` (a gather from memory);
- stores are masked ref writes (``pl.store(ref.at[index], value, mask=...)``), lanes that are
  inactive or out of bounds are masked off;
- atomics are Pallas atomics (``atomic_add/min/max/and/or/xor/xchg`` with a mask). On a GPU the
  value an atomic returns follows the hardware's order, not thread order.

Interpret mode (the CPU) cannot run these faithfully: its atomics replace instead of combining on
duplicate indices (and refuse masks), and its masked stores write the masked lanes back. The
:class:`InterpretRefMemory` target therefore applies stores and atomics to the whole plane as a
value — the XLA path's exact memory operations (thread order within a program) — and writes it
back: the CPU test path compares real numbers.

Example (what a kernel body sees)::

    plane = RefPlane(ref, size=1000)          # one float32 array of 1000 elements
    leaves = TritonRefMemory().load(ctx, [plane], (1000,), indices, site, mask)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp

from jwarp.compiler import memory
from jwarp.compiler.context import KernelContext
from jwarp.compiler.values import Value
from jwarp.lang import scalars
from jwarp.compiler.selects import clip, where


class PallasIneligible(Exception):
    """A kernel construct the Pallas target (or its backend) cannot express; the message names it."""


@dataclass(eq=False)
class RefPlane:
    """One scalar plane of a kernel array as a flat Pallas ref of ``size`` elements."""

    ref: Any
    size: int


def is_ref_planes(planes: list) -> bool:
    """Whether ``planes`` are Pallas refs (the slot lives in memory, updated in place)."""
    return bool(planes) and isinstance(planes[0], RefPlane)


def _linear_index(ctx: KernelContext, kinds: list, shape: tuple) -> Any:
    """Per-lane linear element index (row-major), each axis clamped into bounds."""
    lin = None
    for index, n in zip(memory._full_indices(ctx, kinds, shape), shape):
        index = jnp.asarray(index)
        if jnp.issubdtype(index.dtype, jnp.unsignedinteger):
            index = jnp.minimum(index, n - 1).astype(jnp.int32)
        else:
            index = index.astype(jnp.int32)
            index = clip(where(index < 0, index + n, index), 0, n - 1)
        lin = index if lin is None else lin * n + index
    return jnp.broadcast_to(lin, ctx.grid)


def _prepare(ctx: KernelContext, shape: tuple, indices: list[Value], mask: Any) -> tuple[Any, Any]:
    """(linear index per lane, lanes that take part: active and in bounds; None = all)."""
    kinds = [memory.classify(i) for i in memory.wrap_negative(ctx, indices, shape, keep_lanes=False)]
    valid = memory._lane_valid(ctx, kinds, shape)
    keep = memory._and(mask, valid)
    if keep is not None:
        keep = jnp.broadcast_to(keep, ctx.grid)
    return _linear_index(ctx, kinds, shape), keep


def _lane_value(ctx: KernelContext, value: Any, dtype: Any) -> Any:
    return jnp.broadcast_to(jnp.asarray(value, dtype), ctx.grid)


class RefMemory:
    """Memory operations of the Pallas target; subclasses choose how stores and atomics are emitted."""

    name = "pallas"

    def owns(self, planes: list) -> bool:
        return is_ref_planes(planes)

    def load(self, ctx: KernelContext, planes: list, shape: tuple, indices: list[Value], site: int,
             mask: Any) -> list:
        lin, _ = _prepare(ctx, shape, indices, mask)
        return [p.ref[lin] for p in planes]

    def store(self, ctx: KernelContext, planes: list, shape: tuple, indices: list[Value], leaves: list,
              mask: Any, site: int) -> list:
        lin, keep = _prepare(ctx, shape, indices, mask)
        for plane, leaf in zip(planes, leaves):
            self._store(ctx, plane, lin, _lane_value(ctx, leaf, plane.ref.dtype), keep)
        return planes

    def atomic(self, ctx: KernelContext, op: str, planes: list, shape: tuple, indices: list[Value],
               leaves: list, mask: Any, want_old: bool, site: int) -> tuple[list, list | None]:
        lin, keep = _prepare(ctx, shape, indices, mask)
        olds = [self._atomic(ctx, op, plane, lin, _lane_value(ctx, leaf, plane.ref.dtype), keep)
                for plane, leaf in zip(planes, leaves)]
        return planes, (olds if want_old else None)

    def exchange(self, ctx: KernelContext, planes: list, shape: tuple, indices: list[Value], leaves: list,
                 mask: Any, site: int, compare: list | None = None) -> tuple[list, list]:
        lin, keep = _prepare(ctx, shape, indices, mask)
        olds = []
        for k, (plane, leaf) in enumerate(zip(planes, leaves)):
            value = _lane_value(ctx, leaf, plane.ref.dtype)
            cmp = None if compare is None else _lane_value(ctx, compare[k], plane.ref.dtype)
            olds.append(self._exchange(ctx, plane, lin, value, keep, cmp))
        return planes, olds

    def _store(self, ctx, plane, lin, value, keep):  # pragma: no cover - abstract
        raise NotImplementedError

    def _atomic(self, ctx, op, plane, lin, value, keep):  # pragma: no cover - abstract
        raise NotImplementedError

    def _exchange(self, ctx, plane, lin, value, keep, compare):  # pragma: no cover - abstract
        raise NotImplementedError


class TritonRefMemory(RefMemory):
    """Masked ref writes and hardware atomics (the Triton backend of ``pallas_call`` on CUDA)."""

    name = "triton"

    def _store(self, ctx, plane, lin, value, keep):
        from jax.experimental.pallas import triton as plt

        plt.store(plane.ref.at[lin], value, mask=keep)

    def _atomic(self, ctx, op, plane, lin, value, keep):
        from jax.experimental.pallas import triton as plt

        if op in ("and", "or", "xor") and not jnp.issubdtype(plane.ref.dtype, jnp.integer):
            raise PallasIneligible(f"atomic_{op} on {plane.ref.dtype} elements")
        if op == "sub":
            op, value = "add", -value
        fn = {"add": plt.atomic_add, "min": plt.atomic_min, "max": plt.atomic_max,
              "and": plt.atomic_and, "or": plt.atomic_or, "xor": plt.atomic_xor}[op]
        return fn(plane.ref, lin, value, mask=keep)

    def _exchange(self, ctx, plane, lin, value, keep, compare):
        from jax.experimental.pallas import triton as plt

        if compare is not None:  # a lane that does not take part swaps its value for itself: no change
            from jwarp.compiler.pallas_triton_rules import atomic_cas_lanes

            return atomic_cas_lanes(plane.ref, lin, compare if keep is None else where(keep, compare, value), value)
        return plt.atomic_xchg(plane.ref, lin, value, mask=keep)


class InterpretRefMemory(RefMemory):
    """Interpret mode (CPU): stores and atomics applied to the whole plane as a value, written back.

    Within one program, atomics see the lanes in thread order (as the XLA path); programs run one
    after another, so the launch's result equals the XLA path's."""

    name = "interpret"

    def _store(self, ctx, plane, lin, value, keep):
        target = lin if keep is None else where(keep, lin, plane.size)
        plane.ref[...] = plane.ref[...].at[target].set(value, mode="drop")

    def _whole_plane(self, ctx, plane, lin):
        return [plane.ref[...]], [Value(scalars.int32, lin)]

    def _atomic(self, ctx, op, plane, lin, value, keep):
        values, index = self._whole_plane(ctx, plane, lin)
        new, old = memory.atomic(ctx, op, values, (plane.size,), index, [value], keep, True, 0)
        plane.ref[...] = new[0]
        return old[0]

    def _exchange(self, ctx, plane, lin, value, keep, compare):
        values, index = self._whole_plane(ctx, plane, lin)
        new, old = memory.exchange(ctx, values, (plane.size,), index, [value], keep, 0,
                                   None if compare is None else [compare])
        plane.ref[...] = new[0]
        return old[0]


__all__ = ["PallasIneligible", "RefPlane", "RefMemory", "TritonRefMemory", "InterpretRefMemory", "is_ref_planes"]
