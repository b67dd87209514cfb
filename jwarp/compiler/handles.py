"""Geometry object handles inside a kernel: from an id value to the object's buffers.

A launch that receives a geometry object's id (``grid.id``, ``mesh.id`` ...) carries the object's
buffers as extra operands (:class:`~jwarp.compiler.signature.HandleSpec`). Lowering binds each to a
:class:`BoundHandle`. A query builtin resolves the id it is given with :func:`candidates`: the bound
objects of the wanted kind, each with the lanes whose id selects it (None: every lane, when only one
object of that kind is bound). Builtins evaluate their query once per candidate and merge the results
with those lane masks, so an id may come from a parameter, a struct field or a local variable, and
one kernel may receive several objects of one kind.

Example (inside a builtin implementation):
    >>> for handle, lanes in candidates(call, grid_id, "hash_grid"):  # doctest: +SKIP
    ...     starts = load(call, handle, "cell_starts", [cell])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import jax.numpy as jnp

from jwarp.compiler import memory
from jwarp.compiler.signature import HandleSpec
from jwarp.compiler.values import Value, is_const, leaf_where, value_from_leaves
from jwarp.errors import WarpCodegenError


@dataclass
class BoundHandle:
    """One geometry object bound to a launch: its id leaf, static facts and buffers as kernel values."""

    kind: str
    id_leaf: Any
    static: tuple
    arrays: dict  # name -> Value (an ArrayRef into the kernel's memory)
    values: dict  # name -> Value

    def fact(self, name: str) -> Any:
        """A static fact by name (``static`` holds ``(name, value)`` pairs)."""
        return dict(self.static)[name]


def bind_handle(spec: HandleSpec, build: Callable, values: tuple) -> BoundHandle:
    """The kernel-side view of one HandleSpec (``build`` turns specs into Values)."""
    arrays = {name: build(s) for name, s in spec.arrays}
    vals = {name: build(s) for name, s in spec.values}
    return BoundHandle(spec.kind, values[spec.id_index].astype(jnp.uint64), spec.static, arrays, vals)


def candidates(call: Any, handle: Value, kind: str, what: str) -> list[tuple[BoundHandle, Any]]:
    """The bound objects of ``kind`` that the id ``handle`` may select, with their lane masks."""
    call.require_kernel()
    found = [h for h in call.ctx.handles if h.kind == kind]
    if not found:
        raise WarpCodegenError(
            f"wp.{call.name}(): no {what} id reaches this launch; pass the {what}'s .id as a kernel argument "
            "(a uint64 parameter or struct field, or in a uint64 array whose contents hold it when the launch is bound)"
        )
    if len(found) == 1:
        return [(found[0], None)]
    ident = jnp.asarray(handle.data).astype(jnp.uint64)
    return [(h, ident == h.id_leaf) for h in found]


def load(call: Any, handle: BoundHandle, name: str, indices: list[Value], mask: Any = None) -> list:
    """Read ``handle``'s array ``name`` at ``indices`` (clamped in range); one leaf per scalar plane."""
    ref = handle.arrays[name].data
    slot = call.ctx.slots[ref.slot]
    return memory.load(call.ctx, slot.planes, slot.shape, indices, -1, call.mask if mask is None else mask)


def merge(parts: list[tuple[Value, Any]]) -> Value:
    """One value from per-candidate results: lanes take the result of the candidate that selects them."""
    result, _ = parts[0]
    for value, lanes in parts[1:]:
        result = value_from_leaves(value.type, [leaf_where(lanes, a, b) for a, b in
                                                zip(_leaves(value), _leaves(result))])
    return result


def _leaves(value: Value) -> list:
    from jwarp.compiler.values import leaves_of

    return leaves_of(value)


__all__ = ["BoundHandle", "bind_handle", "candidates", "load", "merge", "is_const"]
