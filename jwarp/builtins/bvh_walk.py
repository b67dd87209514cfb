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

import jax
import jax.numpy as jnp
from jax import lax

from jwarp.builtins.lane_pool import barrier, gather_rows, pooled_loop, uneven_width
from jwarp.compiler.selects import where


def table(call: Any, handle: Any, name: str) -> list:
    """The planes of a bound object's array ``name``, cut off from differentiation."""
    slot = call.ctx.slots[handle.arrays[name].data.slot]
    return [lax.stop_gradient(p) for p in slot.planes]


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
Leaf = Callable[..., tuple]
Fetch = Callable[[Any], Any]

# lanes run in a refilled pool (see :mod:`jwarp.builtins.lane_pool`): `uneven_width` of them at once,
# stepped _CHUNK times between refills. 4,096 `mesh_query_aabb` loops on a 16k-triangle sphere took
# 17.3 ms with 4096 lanes, 6.3 ms with 256, 4.5 ms with 128 (Warp: 0.8 ms); 65,536 queries 92 ms either way.
_CHUNK = 4


def _flat(state: dict, active: Any) -> tuple[tuple, dict]:
    """The lane arrays of ``state`` flattened to ``(lanes, ...)`` (trailing axes beyond the launch
    shape are kept: a row per lane)."""
    shape = active.shape
    flat = {}
    for k, v in state.items():
        rest = tuple(jnp.shape(v)[len(shape):])
        flat[k] = jnp.broadcast_to(v, shape + rest).reshape((-1, *rest))
    return shape, flat


def _changed(old: dict, new: dict) -> list:
    return [k for k, v in new.items() if k not in old or v is not old[k]]


def walk(tree: Tree, state: dict, active: Any, enter: Enter, leaf: Leaf, stop_on_accept: bool = False,
         fetch: Fetch | None = None) -> dict:
    """Run the traversal of every active lane from ``state["node"]`` (pre-order, skip links).

    ``state`` holds lane arrays: the traversal's variables and any per-lane inputs the callbacks
    read (they must read lane data from ``state``, never from closures: lanes are repacked).
    ``enter(state, lower, upper)`` says which lanes enter a node; ``leaf(state, prim, take)``
    processes the primitive of an entered leaf on lanes ``take`` and returns ``(state, accepted)``.
    With ``fetch``, ``fetch(prim)`` gathers what the leaf test reads (apart from the arithmetic,
    which then vectorises) and ``leaf(state, prim, take, fetched)`` receives it.
    With ``stop_on_accept``, a lane stops after its first accepted primitive, standing on the node
    to resume from, and ``state["found"]`` says which lanes stopped so. An ``end`` entry in
    ``state`` stops a lane at that node (see :func:`subtree`)."""
    shape, flat = _flat(state, active)
    flat.setdefault("found", jnp.zeros(flat["node"].shape, bool))

    def running(s: dict) -> Any:
        # a node outside the tree (a query's state overwritten: no valid query starts there) ends the
        # lane; a negative one would otherwise climb node by node towards the root, ~2^31 steps
        go = (s["node"] >= 0) & (s["node"] < tree.count)
        if "end" in s:
            go = go & (s["node"] < s["end"])
        return go & ~s["found"] if stop_on_accept else go

    def gather(node: Any) -> tuple:
        row, link = gather_rows(tree.bounds, node), gather_rows(tree.links, node)
        data = None if fetch is None else fetch(jnp.maximum(link[..., 1], 0))
        return row, link, data

    def decide(s: dict, row: Any, link: Any, data: Any) -> tuple:
        run = running(s)
        lower = (row[..., 0], row[..., 1], row[..., 2])
        upper = (row[..., 3], row[..., 4], row[..., 5])
        skip, prim = link[..., 0], link[..., 1]
        entered = run & enter(s, lower, upper)
        is_leaf = prim >= 0
        take = entered & is_leaf
        s2, accepted = leaf(s, prim, take) if fetch is None else leaf(s, prim, take, data)
        out = {k: s2[k] for k in _changed(s, s2)}
        out["node"] = where(run, where(entered & ~is_leaf, s["node"] + 1, skip), s["node"])
        if stop_on_accept:
            out["found"] = s["found"] | (take & accepted)
        return out

    def step(s: dict, go: Any) -> dict:
        row, link, data = barrier(go, gather, s["node"])
        return dict(s, **barrier(go, decide, s, row, link, data))

    lanes = active.reshape(-1)
    if tree.count > 1:  # a lane whose query misses the root's box misses every node: done before the pool
        row = tree.bounds[0]
        cols = [jnp.broadcast_to(row[k], lanes.shape) for k in range(6)]
        missed = lanes & ~enter(flat, tuple(cols[:3]), tuple(cols[3:]))
        last = flat["end"] if "end" in flat else tree.count
        flat["node"] = where(missed, jnp.maximum(flat["node"], last), flat["node"])
        lanes = lanes & ~missed
    out = pooled_loop(flat, lanes, running, step, width=uneven_width(int(active.size)), chunk=_CHUNK)
    return {k: v.reshape(shape + v.shape[1:]) for k, v in out.items()}


def _node_table(tree: Tree, fetch: Fetch | None, lanes: int) -> Any:
    """Per node, one float32 row: the boxes of both children (12 values) followed by the leaf's
    fetched data (flattened), or None when the tree is too large for the launch to pay for it
    (then each step gathers the pieces)."""
    count = tree.count
    if lanes * 4 < count or count * (12 + 16) * 4 > (64 << 20):
        return None
    node = jnp.arange(count, dtype=jnp.int32)
    left = jnp.minimum(node + 1, count - 1)
    right = gather_rows(tree.links, left)[:, 0]
    cols = [gather_rows(tree.bounds, left), gather_rows(tree.bounds, right)]
    if fetch is not None:
        leaves = jax.tree.leaves(fetch(jnp.maximum(tree.links[:, 1], 0)))
        if not all(x.dtype == jnp.float32 and x.shape == (count,) for x in leaves):
            return None
        cols.append(jnp.stack(leaves, axis=1))
    return jnp.concatenate(cols, axis=1)


def walk_nearest(tree: Tree, state: dict, active: Any, enter: Callable[[dict, tuple, tuple], tuple],
                 candidate: Callable[..., Any], fetch: Fetch | None = None, depth: int = 64, best: str = "t",
                 best_prim: str = "face") -> dict:
    """Closest-primitive search: each active lane's tree is visited nearest child first, with a
    per-lane stack (Warp's order), keeping ``state[best]`` (the smallest candidate found, initially
    the limit) and ``state[best_prim]`` (its primitive; the first found wins ties).

    ``state["node"]`` is the subtree root each lane starts from. ``enter(state, lower, upper)``
    returns ``(enter, key)``: which lanes enter a child box (lanes should skip boxes that cannot
    hold a candidate below ``state[best]``) and the key ordering the two children (smaller first,
    e.g. a ray's entry distance). ``candidate(state, prim[, fetched])`` is a primitive's value
    (``inf`` when it does not count); ``fetch`` as in :func:`walk`. A step tests both children of
    an internal node (entering the nearer, pushing the other) or scores a leaf. ``depth`` bounds
    the stack (the tree's depth). Returns the final state (``node`` is -1)."""
    shape, flat = _flat(state, active)
    count = tree.count
    lanes = flat["node"].shape[0]
    table = _node_table(tree, fetch, lanes)
    example = None if fetch is None else fetch(jnp.zeros((1,), jnp.int32))

    def running(s: dict) -> Any:
        return s["node"] >= 0

    def gather(node: Any, sp: Any, stack: Any) -> tuple:
        link = gather_rows(tree.links, node)
        left = jnp.minimum(node + 1, count - 1)
        right = gather_rows(tree.links, left)[..., 0]
        top = stack.at[jnp.arange(node.shape[0]), jnp.maximum(sp - 1, 0)].get(mode="promise_in_bounds")
        if table is not None:
            row = gather_rows(table, node)
            boxes = (row[:, :6], row[:, 6:12])
            data = None
            if example is not None:
                flat_data = [row[:, 12 + k] for k in range(len(jax.tree.leaves(example)))]
                data = jax.tree.unflatten(jax.tree.structure(example), flat_data)
            return link, right, boxes, data, top
        boxes = (gather_rows(tree.bounds, left), gather_rows(tree.bounds, right))
        data = None if fetch is None else fetch(jnp.maximum(link[..., 1], 0))
        return link, right, boxes, data, top

    def decide(s: dict, link: Any, rows: tuple, data: Any) -> tuple:
        run = running(s)
        skip, prim = link[..., 0], link[..., 1]
        is_leaf = prim >= 0
        inner = run & ~is_leaf & (skip > s["node"] + 1)
        boxes = [((r[..., 0], r[..., 1], r[..., 2]), (r[..., 3], r[..., 4], r[..., 5])) for r in rows]
        (hl, kl), (hr, kr) = (enter(s, lo, hi) for lo, hi in boxes)
        code = ((inner & hl).astype(jnp.int32) | ((inner & hr).astype(jnp.int32) << 1)
                | ((kl <= kr).astype(jnp.int32) << 2))
        value = candidate(s, prim) if fetch is None else candidate(s, prim, data)
        return code, where(run & is_leaf, value, jnp.inf)

    def push(stack: Any, sp: Any, both: Any, far: Any) -> Any:
        slot = where(both, sp, depth)
        return stack.at[jnp.arange(sp.shape[0]), slot].set(far, mode="drop")

    def step(s: dict, go: Any) -> dict:
        node, sp, stack = s["node"], s["sp"], s["stack"]
        link, right, rows, data, top = barrier(go, gather, node, sp, stack)
        code, value = barrier(go, decide, s, link, rows, data)
        run = running(s)
        hl, hr, near_left = (code & 1) != 0, (code & 2) != 0, (code & 4) != 0
        better = value < s[best]
        left = node + 1
        both = hl & hr
        nearer = where(hl & (~hr | near_left), left, right)
        farther = where(near_left, right, left)
        pop = run & ~(hl | hr)
        empty = sp == 0
        s = dict(s)
        s[best] = where(better, value, s[best])
        s[best_prim] = where(better, link[..., 1], s[best_prim])
        s["stack"] = barrier(go, push, stack, sp, both, farther)
        s["node"] = where(pop, where(empty, -1, top), where(hl | hr, nearer, node))
        s["sp"] = sp + both.astype(jnp.int32) - (pop & ~empty).astype(jnp.int32)
        return s

    out = pooled_loop(flat, active.reshape(-1), running, step, width=uneven_width(int(active.size)), chunk=_CHUNK,
                      scratch={"stack": ((depth,), jnp.int32), "sp": ((), jnp.int32)},
                      outputs=(best, best_prim, "node"))
    return {k: v.reshape(shape) for k, v in out.items()}


def subtree(tree: Tree, root: Any) -> tuple[Any, Any]:
    """The node range ``[start, end)`` of each lane's subtree rooted at ``root`` (pre-order: a
    subtree ends at its root's skip index); a negative root means the whole tree (Warp's -1)."""
    root = jnp.asarray(root, jnp.int32)
    whole = root < 0
    end = gather_rows(tree.links, jnp.maximum(root, 0))[..., 0]
    return where(whole, 0, root), where(whole, tree.count, end)


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
        return where(go, where(pick_left, left, right), node)

    return lax.while_loop(lambda n: jnp.any(internal(n)), body, node0)


__all__ = ["Tree", "descend", "gather_rows", "subtree", "table", "walk", "walk_nearest"]
