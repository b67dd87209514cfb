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

# a walk advances the lanes still running in steps of at most this many iterations; between steps
# the running lanes are packed to the front and only a power-of-4 fraction of the launch that holds
# them is processed (traversals diverge: a few lanes often need many more nodes than the rest)
_STEP = 8
_SMALLEST_BUCKET = 32


def _buckets(total: int) -> list[int]:
    sizes = [total]
    while sizes[-1] // 4 >= _SMALLEST_BUCKET:
        sizes.append(sizes[-1] // 4)
    return sizes


def walk(tree: Tree, state: dict, active: Any, enter: Enter, leaf: Leaf, stop_on_accept: bool = False) -> dict:
    """Run the traversal of every active lane from ``state["node"]``.

    ``state`` holds lane arrays: the traversal's variables and any per-lane inputs the callbacks
    read (they must read lane data from ``state``, never from closures: lanes are repacked).
    ``enter(state, lower, upper)`` says which lanes enter a node; ``leaf(state, prim, take)``
    processes the primitive of an entered leaf on lanes ``take`` and returns ``(state, accepted)``.
    With ``stop_on_accept``, a lane stops after its first accepted primitive, standing on the node
    to resume from, and ``state["found"]`` says which lanes stopped so. An ``end`` entry in
    ``state`` stops a lane at that node (see :func:`subtree`)."""
    shape = active.shape
    flat = {k: jnp.broadcast_to(v, shape).reshape(-1) for k, v in state.items()}
    flat.setdefault("found", jnp.zeros(flat["node"].shape, bool))
    flat["__active"] = active.reshape(-1)
    total = flat["node"].shape[0]

    def running(s: dict) -> Any:
        go = s["__active"] & (s["node"] < tree.count)
        if "end" in s:
            go = go & (s["node"] < s["end"])
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

    def steps(s: dict) -> dict:
        def cond(c: tuple) -> Any:
            return (c[1] < _STEP) & jnp.any(running(c[0]))

        return lax.while_loop(cond, lambda c: (body(c[0]), c[1] + 1), (s, jnp.int32(0)))[0]

    def packed(size: int) -> Callable:
        def run(s: dict) -> dict:
            if size == total:
                return steps(s)
            lanes = jnp.argsort(~running(s), stable=True)[:size]
            sub = steps({k: v[lanes] for k, v in s.items()})
            return {k: v.at[lanes].set(sub[k]) for k, v in s.items()}
        return run

    sizes = _buckets(total)
    branches = [packed(size) for size in sizes]

    def outer(s: dict) -> dict:
        if len(branches) == 1:
            return branches[0](s)
        count = jnp.sum(running(s).astype(jnp.int32))
        which = sum((count <= jnp.int32(size)).astype(jnp.int32) for size in sizes[1:])
        return lax.switch(which, branches, s)

    flat = lax.while_loop(lambda s: jnp.any(running(s)), outer, flat)
    del flat["__active"]
    return {k: v.reshape(shape) for k, v in flat.items()}


def subtree(tree: Tree, root: Any) -> tuple[Any, Any]:
    """The node range ``[start, end)`` of each lane's subtree rooted at ``root`` (pre-order: a
    subtree ends at its root's skip index); a negative root means the whole tree (Warp's -1)."""
    root = jnp.asarray(root, jnp.int32)
    whole = root < 0
    end = gather_rows(tree.links, jnp.maximum(root, 0))[..., 0]
    return jnp.where(whole, 0, root), jnp.where(whole, tree.count, end)


def descend(tree: Tree, state: dict, nearer: Callable[[dict, tuple, tuple, tuple, tuple], Any]) -> Any:
    """The leaf each lane reaches going down from the root into the child ``nearer(state, left_lower,
    left_upper, right_lower, right_upper)`` picks (True: left); a cheap first guess for queries
    that prune by a best distance. Returns the leaf nodes (lane array)."""
    node0 = jnp.zeros(jnp.broadcast_shapes(*(jnp.shape(v) for v in state.values())), jnp.int32)

    def internal(node: Any) -> Any:
        return (gather_rows(tree.links, node)[..., 1] < 0) & (node + 1 < tree.count)

    def body(node: Any) -> Any:
        go = internal(node)
        left = node + 1
        right = gather_rows(tree.links, left)[..., 0]
        lrow, rrow = gather_rows(tree.bounds, left), gather_rows(tree.bounds, right)
        box = lambda r: ((r[..., 0], r[..., 1], r[..., 2]), (r[..., 3], r[..., 4], r[..., 5]))  # noqa: E731
        pick_left = nearer(state, *box(lrow), *box(rrow))
        return jnp.where(go, jnp.where(pick_left, left, right), node)

    return lax.while_loop(lambda n: jnp.any(internal(n)), body, node0)


__all__ = ["Tree", "descend", "gather_rows", "subtree", "table", "walk"]
