"""Stackless BVH traversal for every lane of a launch at once.

A tree (:mod:`jwarp.runtime.geometry.bvh_build`) is stored in depth-first pre-order with a *skip*
index per node, so a lane's whole traversal state is one integer: the node it stands on. Each
step of :func:`walk` (one ``lax.while_loop`` iteration) reads every running lane's node, asks the
query whether to enter it, lets the query process an entered leaf's primitive, and moves the
lane to ``node + 1`` (entering an internal node) or ``skip`` (rejected node or leaf). The loop
runs until no lane is left; memory is O(lanes) whatever the tree's depth.

Traversal is never differentiated: tables are read through ``stop_gradient``, and queries that
have gradients recompute their result on the primitive found (see :mod:`jwarp.builtins.mesh_queries`).

Example (inside a builtin):
    >>> tree = Tree.of(call, handle)  # doctest: +SKIP
    >>> state = walk(tree, {"node": start, "best": best}, active, enter, leaf)  # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import jax.numpy as jnp
from jax import lax


def table(call: Any, handle: Any, name: str) -> list:
    """The planes of a bound object's array ``name``, cut off from differentiation."""
    slot = call.ctx.slots[handle.arrays[name].data.slot]
    return [lax.stop_gradient(p) for p in slot.planes]


def gather_rows(plane: Any, index: Any) -> Any:
    """``plane[index]`` for lane indices (clamped into range); rows keep their trailing axes."""
    index = jnp.clip(index, 0, plane.shape[0] - 1)
    return plane.at[index].get(mode="promise_in_bounds")


@dataclass
class Tree:
    """The flat node arrays of one bound BVH: bounds ``(n, 6)`` and links ``(n, 2)``."""

    bounds: Any
    links: Any
    count: int

    @staticmethod
    def of(call: Any, handle: Any) -> Tree:
        bounds = table(call, handle, "node_bounds")[0]
        links = table(call, handle, "node_links")[0]
        return Tree(bounds, links, int(links.shape[0]))


Enter = Callable[[dict, tuple, tuple], Any]
Leaf = Callable[[dict, Any, Any], tuple]


def walk(tree: Tree, state: dict, active: Any, enter: Enter, leaf: Leaf, stop_on_accept: bool = False) -> dict:
    """Run the traversal of every active lane from ``state["node"]``.

    ``enter(state, lower, upper)`` says which lanes enter a node; ``leaf(state, prim, take)``
    processes the primitive of an entered leaf on lanes ``take`` and returns ``(state, accepted)``.
    With ``stop_on_accept``, a lane stops after its first accepted primitive, standing on the node
    to resume from, and ``state["found"]`` says which lanes stopped so."""
    state = dict(state)
    state.setdefault("found", jnp.zeros_like(active))

    def running(s: dict) -> Any:
        go = active & (s["node"] < tree.count)
        return go & ~s["found"] if stop_on_accept else go

    def body(s: dict) -> dict:
        run = running(s)
        node = s["node"]
        row = gather_rows(tree.bounds, node)
        link = gather_rows(tree.links, node)
        lower = (row[..., 0], row[..., 1], row[..., 2])
        upper = (row[..., 3], row[..., 4], row[..., 5])
        skip, prim = link[..., 0], link[..., 1]
        entered = run & enter(s, lower, upper)
        is_leaf = prim >= 0
        s, accepted = leaf(s, prim, entered & is_leaf)
        s = dict(s)
        s["node"] = jnp.where(run, jnp.where(entered & ~is_leaf, node + 1, skip), node)
        if stop_on_accept:
            s["found"] = s["found"] | (entered & is_leaf & accepted)
        return s

    return lax.while_loop(lambda s: jnp.any(running(s)), body, state)


__all__ = ["Tree", "gather_rows", "table", "walk"]
