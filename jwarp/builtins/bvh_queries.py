"""Iterating queries over a BVH: ``bvh_query_aabb`` / ``_ray`` / ``_sphere`` / ``_capsule`` with
``bvh_query_next``, and ``mesh_query_aabb`` / ``mesh_query_sphere`` with ``mesh_query_next``
(alias ``mesh_query_aabb_next``), plus ``mesh_get_bvh``.

A query is a small struct per lane (:data:`BvhQuery`, :data:`MeshQuery`): the object's id, the
query kind, its shape (box corners, sphere centre, or ray start and reciprocal direction), and the
node to resume from. ``*_next`` continues each active lane's stackless walk
(:func:`jwarp.builtins.bvh_walk.walk`) until it accepts a primitive or runs out of nodes, so a
lane's state stays O(1) whatever the tree's depth. Results come in tree order, which differs from
Warp's; the *set* of results is Warp's. The kind is stored in the query, so a query whose kind is
chosen at run time (or passed to a function annotated with the parent type) iterates correctly.

Each walk is a loop over all lanes with a fixed cost of its own, so a query *collects* up to
:data:`BUFFER` results per walk (the leaf nodes, in the query's fields) and ``*_next`` hands them
out one by one, walking again only when some lane has used its buffer up (a conditional on the
lanes; a loop over a lane with 176 results walks 23 times, not 176). The walk is stackless, so its
state is one node: a ``bvh_query_next`` with ``max_dist`` (whose limit may change between calls)
rewinds to the first result not handed out and walks from there unbuffered. Box queries of trees of at
most 256 leaves keep bit words of all their results in the buffer fields instead (no walks; see
:func:`_words_next`).

Example:
    >>> import jwarp as wp
    >>> @wp.kernel
    ... def count(bvh: wp.uint64, lower: wp.vec3, upper: wp.vec3, out: wp.array(dtype=int)):
    ...     query = wp.bvh_query_aabb(bvh, lower, upper)
    ...     n = int(0)
    ...     i = int(0)
    ...     while wp.bvh_query_next(query, i):
    ...         n += 1
    ...     out[0] = n
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.builtins import bvh_dense, triangle_math as tm
from jwarp.builtins.bvh_walk import Tree, subtree, walk
from jwarp.builtins.lane_pool import gather_rows
from jwarp.builtins.common import Call, Value
from jwarp.builtins.mesh_common import MeshView, active, check_vec3, full, vec3_leaves, write_back
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import is_const, leaves_of, value_from_leaves
from jwarp.errors import WarpCodegenError
from jwarp.lang import scalars
from jwarp.lang.struct import StructType
from jwarp.compiler.selects import clip, where

AABB, SPHERE, RAY, CAPSULE = 0, 1, 2, 3
_FIELDS = ("owner", "kind", "ax", "ay", "az", "bx", "by", "bz", "radius_sq", "node", "index", "root")
BUFFER = 8
"""Results collected per walk (see the module docstring)."""
_BUFFER_FIELDS = ("fill", "pos", *(f"buf{j}" for j in range(BUFFER)))
"""``fill`` results collected by the last walk (``BUFFER`` and ``pos == fill``: walk again), ``pos`` the
next one to hand out, ``buf0``... their leaf nodes."""


def _query_type(name: str, next_builtin: str, *aliases: str) -> StructType:
    fields = {"owner": scalars.uint64, "kind": scalars.int32, **{f: scalars.float32 for f in _FIELDS[2:9]},
              "node": scalars.int32, "index": scalars.int32, "root": scalars.int32,
              **{f: scalars.int32 for f in _BUFFER_FIELDS}}
    cls = type(name, (), {"__annotations__": fields})
    cls.__module__ = __name__
    t = StructType(cls)
    t._jwarp_query_next_ = next_builtin  # for-loops iterate queries with this builtin
    t._jwarp_query_next_names_ = (next_builtin, *aliases)  # the builtins that step it (while loops)
    return t


BvhQuery = _query_type("BvhQuery", "bvh_query_next")
"""A lane's BVH query (any kind: box, ray, sphere, capsule)."""
MeshQuery = _query_type("MeshQuery", "mesh_query_next", "mesh_query_aabb_next")
"""A lane's mesh query (box or sphere); ``wp.MeshQueryAABB`` names the same type."""
MeshQueryAABB = MeshQuery


def _bound(call: Call, owner: Any, kinds: tuple, what: str) -> list:
    """The bound objects an id may select, with their lane masks (see ``handles.candidates``)."""
    call.require_kernel()
    found = [h for h in call.ctx.handles if h.kind in kinds]
    if not found:
        raise WarpCodegenError(f"wp.{call.name}(): no {what} id reaches this launch; pass the {what}'s .id as a "
                               "kernel argument (a uint64 parameter or struct field)")
    if len(found) == 1:
        return [(found[0], None)]
    ident = jnp.asarray(owner).astype(jnp.uint64)
    return [(h, ident == h.id_leaf) for h in found]


def _start(call: Call, qtype: StructType, owner: Value, kind: int, a: tuple, b: tuple, radius: Any,
           root: Value | None = None) -> Value:
    shape = tuple(call.ctx.grid)
    r = jnp.maximum(full(call, radius, jnp.float32), 0.0)
    top = jnp.full(shape, -1, jnp.int32) if root is None else full(call, root.data, jnp.int32)
    empty = jnp.full(shape, BUFFER, jnp.int32)
    # the kind stays a compile-time constant where it can, so walks test that kind of shape only
    fields = [full(call, owner.data, jnp.uint64), np.int32(kind), *a, *b, r * r,
              jnp.maximum(top, 0), jnp.full(shape, -1, jnp.int32), top, empty, empty,
              *(jnp.zeros(shape, jnp.int32) for _ in range(BUFFER))]
    return value_from_leaves(qtype, fields)


def _root_ok(call: Call, root: Value | None) -> None:
    if root is not None and not scalars.is_int(root.type):
        raise call.no_overload(root)


@builtin("bvh_query_aabb", group="Geometry", kernel_only=True)
def bvh_query_aabb(call: Call, id: Value, low: Value, high: Value, root: Value | None = None) -> Value:
    """Start a query of the boxes overlapping ``[low, high]`` (``root``: a subtree to search, e.g.
    from :func:`bvh_get_group_root`; -1 for the whole tree)."""
    if not (scalars.is_int(id.type) and check_vec3(low) and check_vec3(high)):
        raise call.no_overload(id, low, high)
    _root_ok(call, root)
    return _start(call, BvhQuery, id, AABB, vec3_leaves(call, low), vec3_leaves(call, high), 0.0, root)


@builtin("bvh_query_sphere", group="Geometry", kernel_only=True)
def bvh_query_sphere(call: Call, id: Value, center: Value, radius: Value, root: Value | None = None) -> Value:
    """Start a query of the boxes within ``radius`` of ``center`` (negative radii count as 0)."""
    if not (scalars.is_int(id.type) and check_vec3(center) and scalars.is_float(radius.type)):
        raise call.no_overload(id, center, radius)
    _root_ok(call, root)
    c = vec3_leaves(call, center)
    return _start(call, BvhQuery, id, SPHERE, c, c, radius.data, root)


def _ray_start(call: Call, id: Value, start: Value, dir: Value, kind: int, radius: Any,
               root: Value | None) -> Value:
    d = vec3_leaves(call, dir)
    return _start(call, BvhQuery, id, kind, vec3_leaves(call, start), tuple(1.0 / x for x in d), radius, root)


@builtin("bvh_query_ray", group="Geometry", kernel_only=True)
def bvh_query_ray(call: Call, id: Value, start: Value, dir: Value, root: Value | None = None) -> Value:
    """Start a query of the boxes the ray ``start + t dir`` (t >= 0) meets."""
    if not (scalars.is_int(id.type) and check_vec3(start) and check_vec3(dir)):
        raise call.no_overload(id, start, dir)
    _root_ok(call, root)
    return _ray_start(call, id, start, dir, RAY, 0.0, root)


@builtin("bvh_query_capsule", group="Geometry", kernel_only=True)
def bvh_query_capsule(call: Call, id: Value, start: Value, dir: Value, radius: Value,
                      root: Value | None = None) -> Value:
    """Start a query of the boxes a sphere of ``radius`` swept along ``start + t dir`` meets."""
    if not (scalars.is_int(id.type) and check_vec3(start) and check_vec3(dir) and scalars.is_float(radius.type)):
        raise call.no_overload(id, start, dir, radius)
    _root_ok(call, root)
    return _ray_start(call, id, start, dir, CAPSULE, radius.data, root)


@builtin("mesh_query_aabb", group="Geometry", kernel_only=True)
def mesh_query_aabb(call: Call, id: Value, low: Value, high: Value) -> Value:
    """Start a query of the faces whose bounding boxes overlap ``[low, high]``."""
    if not (scalars.is_int(id.type) and check_vec3(low) and check_vec3(high)):
        raise call.no_overload(id, low, high)
    return _start(call, MeshQuery, id, AABB, vec3_leaves(call, low), vec3_leaves(call, high), 0.0)


@builtin("mesh_query_sphere", group="Geometry", kernel_only=True)
def mesh_query_sphere(call: Call, id: Value, center: Value, radius: Value) -> Value:
    """Start a query of the faces within ``radius`` of ``center`` (exact triangle distance)."""
    if not (scalars.is_int(id.type) and check_vec3(center) and scalars.is_float(radius.type)):
        raise call.no_overload(id, center, radius)
    c = vec3_leaves(call, center)
    return _start(call, MeshQuery, id, SPHERE, c, c, radius.data)


@builtin("mesh_get_bvh", group="Geometry", kernel_only=True)
def mesh_get_bvh(call: Call, id: Value) -> Value:
    """The id of the mesh's BVH over its faces' boxes (usable with the ``bvh_query_*`` builtins)."""
    if not scalars.is_int(id.type):
        raise call.no_overload(id)
    return Value(scalars.uint64, id.data)


def node_test(q: dict, kind: Any, lower: tuple, upper: tuple, max_dist: Any) -> Any:
    """Whether each lane's query overlaps a box (Warp's per-kind node tests). ``kind``: the lanes'
    kinds, or one kind as a Python int (only its test is computed)."""
    a, b = (q["ax"], q["ay"], q["az"]), (q["bx"], q["by"], q["bz"])

    def box() -> Any:
        return tm.boxes_overlap(a, b, lower, upper)

    def sphere() -> Any:
        return tm.distance_to_box_sq(a, lower, upper) <= q["radius_sq"]

    def ray() -> Any:
        hit, t = tm.ray_box_entry(a, tuple(1.0 / x for x in b), b, lower, upper, jnp.zeros(lower[0].shape, bool))
        return hit & ~(t >= max_dist)

    def capsule() -> Any:
        r = jnp.sqrt(q["radius_sq"])
        hit, t = tm.ray_box_entry(a, tuple(1.0 / x for x in b), b, tm.sub(lower, (r, r, r)), tm.add(upper, (r, r, r)),
                                  jnp.ones(lower[0].shape, bool))
        return hit & ~(t > max_dist)

    tests = {AABB: box, SPHERE: sphere, RAY: ray, CAPSULE: capsule}
    if isinstance(kind, int):
        return tests[kind]()
    return where(kind == AABB, box(), where(kind == SPHERE, sphere(), where(kind == RAY, ray(), capsule())))


def static_kind(query: Value) -> int | None:
    """The query's kind when it is known at compile time (a query used where it was started)."""
    kind = leaves_of(query)[1]
    return int(kind) if is_const(kind) else None


def _sphere_triangle(view: MeshView, q: dict, prim: Any) -> Any:
    """Warp's narrow phase of a mesh sphere query: the triangle's closest point within the radius
    (degenerate faces as their longest edge)."""
    a, b, c = view.corners(prim)
    center = (q["ax"], q["ay"], q["az"])
    ab, ac, bc = tm.sub(b, a), tm.sub(c, a), tm.sub(c, b)
    n = tm.cross(ab, ac)
    degenerate = tm.dot(n, n) == 0
    u, v = tm.closest_point_to_triangle(a, b, c, center)
    cp = tm.add(tm.add(tm.scale(a, u), tm.scale(b, v)), tm.scale(c, 1.0 - u - v))
    lab, lac, lbc = tm.dot(ab, ab), tm.dot(ac, ac), tm.dot(bc, bc)
    use_ab = (lab >= lac) & (lab >= lbc)
    use_ac = ~use_ab & (lac >= lbc)
    p = tuple(where(use_ab | use_ac, x, y) for x, y in zip(a, b))
    e = tuple(where(use_ab, x, where(use_ac, y, z)) for x, y, z in zip(ab, ac, bc))
    le = where(use_ab, lab, where(use_ac, lac, lbc))
    t = where(le > 0, clip(tm.dot(tm.sub(center, p), e) / where(le > 0, le, 1.0), 0.0, 1.0), 0.0)
    seg = tm.add(p, tm.scale(e, t))
    cp = tuple(where(degenerate, s, x) for s, x in zip(seg, cp))
    d = tm.sub(cp, center)
    return tm.dot(d, d) <= q["radius_sq"]


def advance(call: Call, q: dict, run0: Any, mesh_kind: bool, limit: Any, need: Any = None) -> tuple:
    """Walk each running lane's query ``q`` (lane arrays by field) to its ``need``-th next result
    (default: the next one). Returns (node to resume from, last result index, found mask)."""
    kinds = ("mesh",) if mesh_kind else ("bvh", "mesh")
    node, last, found = q["node"], q["index"], jnp.zeros_like(run0)
    for handle, selected in _bound(call, q["owner"], kinds, "Mesh" if mesh_kind else "Bvh"):
        run = run0 if selected is None else run0 & selected
        view = MeshView(call, handle) if handle.kind == "mesh" else None
        tree = view.tree if view is not None else Tree.of(call, handle)

        def enter(s: dict, lower: tuple, upper: tuple) -> Any:
            return node_test(s, s["kind"], lower, upper, s["limit"])

        def leaf(s: dict, prim: Any, take: Any) -> tuple:
            ok = take
            if mesh_kind:
                ok = ok & where(s["kind"] == SPHERE, _sphere_triangle(view, s, prim), True)
            last_one = ok & (s["need"] <= 1)
            s = dict(s, index=where(ok, prim, s["index"]), need=s["need"] - ok.astype(jnp.int32))
            return s, last_one

        state = {k: q[k] for k in _FIELDS if k != "owner"}
        state["end"] = subtree(tree, q["root"])[1]
        state["limit"] = limit
        state["need"] = jnp.ones_like(q["node"]) if need is None else need
        s = walk(tree, state, run, enter, leaf, stop_on_accept=True)
        mine = run if selected is None else selected
        node = where(mine, s["node"], node)
        last = where(mine, s["index"], last)
        found = where(mine, s["found"], found)
    return node, last, found


def trees(call: Call, owner: Any, mesh_kind: bool) -> list:
    """``(tree, mesh view or None, lanes)`` for each object the query's id may select."""
    kinds = ("mesh",) if mesh_kind else ("bvh", "mesh")
    out = []
    for handle, selected in _bound(call, owner, kinds, "Mesh" if mesh_kind else "Bvh"):
        view = MeshView(call, handle) if handle.kind == "mesh" else None
        out.append((view.tree if view is not None else Tree.of(call, handle), view, selected))
    return out


def grouped(call: Call, owner: Any, mesh_kind: bool) -> bool:
    """Whether a tree the query's id may select was built with groups (not a halving tree)."""
    kinds = ("mesh",) if mesh_kind else ("bvh", "mesh")
    return any(bool(h.fact("grouped")) for h, _ in _bound(call, owner, kinds, "Mesh" if mesh_kind else "Bvh"))


def collect(call: Call, q: dict, need: Any, mesh_kind: bool, size: int, kind: int | None = None) -> tuple:
    """Walk the lanes ``need`` of the query fields ``q`` on from their nodes, collecting up to ``size``
    results each (``kind``: the query's kind where it is known at compile time). Returns (node to
    resume from, results collected, ``(lanes, size)`` leaf nodes)."""
    node, fill = q["node"], jnp.zeros_like(q["node"])
    buf = jnp.zeros((*q["node"].shape, size), jnp.int32)
    for tree, view, selected in trees(call, q["owner"], mesh_kind):
        run = need if selected is None else need & selected

        def enter(s: dict, lower: tuple, upper: tuple) -> Any:
            return node_test(s, s["kind"] if kind is None else kind, lower, upper, jnp.float32(jnp.inf))

        def leaf(s: dict, prim: Any, take: Any, view: Any = view) -> tuple:
            ok = take
            if mesh_kind and kind in (None, SPHERE):  # (a bvh query of a mesh's BVH tests boxes only)
                ok = ok & where(s["kind"] == SPHERE, _sphere_triangle(view, s, prim), True)
            # a scatter of one element per accepting lane (the others' index is out of range): a
            # select over the whole buffer rewrote it at every step
            slot = where(ok, s["fill"], size)
            rows = lax.iota(jnp.int32, slot.shape[0])
            more = s["fill"] + ok.astype(jnp.int32)
            buf = s["buf"].at[rows, slot].set(s["node"], mode="drop", unique_indices=True)
            return dict(s, fill=more, buf=buf), ok & (more >= size)

        state = {k: q[k] for k in _FIELDS[1 if kind in (None, SPHERE) else 2:10]}
        # each lane walks one tree at most, and a walk leaves the lanes outside `run` as they are: the
        # results go from one tree's walk into the next (no select over the whole buffer per tree)
        state.update(node=node, buf=buf, fill=fill, end=subtree(tree, q["root"])[1])
        s = walk(tree, state, run, enter, leaf, stop_on_accept=True)
        node, fill, buf = s["node"], s["fill"], s["buf"]
    return node, fill, buf


_WORDS_HELD = BUFFER + 1
"""``fill`` of a query whose buffer fields hold the bit words of its results (see :func:`_words_next`)."""
WORDS_LEAVES = 32 * BUFFER
"""Box queries of trees of at most this many leaves keep their results as bit words (all fit the
buffer fields)."""


def _words_next(q: dict, run0: Any, found_trees: list) -> tuple:
    """:func:`_buffered_next` for box queries of trees of at most ``32 * BUFFER`` leaves: the first call
    (or the first after a rewind) tests every leaf at once (:mod:`jwarp.builtins.bvh_dense`) and keeps
    the results' bit words in the buffer fields; each call hands out the lowest set bit and clears it.
    ``node`` follows the last leaf handed out, so a rewind goes on from there. No walk at all: a loop
    of ``*_next`` calls that cannot run as a pass over pairs walked once per 8 results of a lane."""
    shape = q["node"].shape
    need = run0 & (q["fill"] == BUFFER) & (q["pos"] >= q["fill"])

    def refill(q: dict) -> dict:
        flat = {k: jnp.reshape(q[k], (-1,)) for k in ("ax", "ay", "az", "bx", "by", "bz", "node", "root")}
        lower, upper = (flat["ax"], flat["ay"], flat["az"]), (flat["bx"], flat["by"], flat["bz"])
        run_all = need.reshape(-1)
        words = jnp.zeros((run_all.shape[0], BUFFER), jnp.uint32)
        for tree, _, selected in found_trees:
            mine = run_all if selected is None else run_all & selected.reshape(-1)
            end = subtree(tree, flat["root"])[1]
            w, _ = bvh_dense.leaf_words(tree, lower, upper, mine, flat["node"], end)
            w = jnp.pad(w, ((0, 0), (0, BUFFER - w.shape[1])))
            words = w if selected is None else where(selected.reshape(-1, 1), w, words)
        q = dict(q, fill=where(need, _WORDS_HELD, q["fill"]), pos=where(need, 0, q["pos"]))
        for j, b in enumerate(_BUFFER_FIELDS[2:]):
            q[b] = where(need, lax.bitcast_convert_type(words[:, j], jnp.int32).reshape(shape), q[b])
        return q

    q = lax.cond(jnp.any(need), refill, dict, q)
    held = run0 & (q["fill"] == _WORDS_HELD)
    words = [lax.bitcast_convert_type(q[b], jnp.uint32) for b in _BUFFER_FIELDS[2:]]
    found, rank, cleared = bvh_dense.lowest_set_bit(words)
    found = held & found
    node, prim = jnp.zeros_like(rank), jnp.zeros_like(rank)
    for tree, _, selected in found_trees:  # (each lane's rank is of the tree it selects)
        mine = gather_rows(bvh_dense.leaf_nodes(tree), rank)
        node = mine if selected is None else where(selected, mine, node)
        mine = gather_rows(tree.links, mine)[..., 1]
        prim = mine if selected is None else where(selected, mine, prim)
    for b, w in zip(_BUFFER_FIELDS[2:], cleared):
        q[b] = where(found, lax.bitcast_convert_type(w, jnp.int32), q[b])
    q["node"] = where(found, node + 1, q["node"])
    return q, found, prim


def _buffered_next(call: Call, q: dict, run0: Any, mesh_kind: bool, kind: int | None) -> tuple:
    """Hand each running lane its next collected result, walking first where the buffer is used up.
    Returns (query fields, found mask, result index)."""
    found_trees = trees(call, q["owner"], mesh_kind)
    if kind == AABB and all((t.count + 1) // 2 <= min(WORDS_LEAVES, 32 * BUFFER) for t, _, _ in found_trees):
        return _words_next(q, run0, found_trees)
    need = run0 & (q["pos"] >= q["fill"]) & (q["fill"] >= BUFFER)

    def refill(q: dict) -> dict:
        node, fill, buf = collect(call, q, need, mesh_kind, BUFFER, kind)
        q = dict(q, node=where(need, node, q["node"]), fill=where(need, fill, q["fill"]),
                 pos=where(need, 0, q["pos"]))
        for j, b in enumerate(_BUFFER_FIELDS[2:]):
            q[b] = where(need, buf[..., j], q[b])
        return q

    q = lax.cond(jnp.any(need), refill, dict, q)
    found = run0 & (q["pos"] < q["fill"])
    node = _next_held(q)
    prim = jnp.zeros_like(node)
    for tree, _, selected in found_trees:
        mine = gather_rows(tree.links, node)[..., 1]
        prim = mine if selected is None else where(selected, mine, prim)
    q["pos"] = where(found, q["pos"] + 1, q["pos"])
    return q, found, prim


def _next_held(q: dict) -> Any:
    """The leaf node of each lane's next buffered result (``buf[pos]``)."""
    node = q["buf0"]
    for j, b in enumerate(_BUFFER_FIELDS[3:], start=1):
        node = where(q["pos"] == j, q[b], node)
    return node


def rewind(q: dict, run0: Any) -> dict:
    """Drop the running lanes' buffers, moving them back to their first result not handed out (a
    buffer of bit words, :func:`_words_next`, is already there: ``node`` follows its last result)."""
    held = run0 & (q["pos"] < q["fill"]) & (q["fill"] <= BUFFER)
    node = _next_held(q)
    empty = jnp.int32(BUFFER)
    return dict(q, node=where(held, node, q["node"]), fill=where(run0, empty, q["fill"]),
                pos=where(run0, empty, q["pos"]))


def _next(call: Call, query: Value, index: Value, max_dist: Value | None, mesh_kind: bool) -> Value:
    qtype = MeshQuery if mesh_kind else BvhQuery
    if query.type is not qtype or not scalars.is_int(index.type):
        raise call.no_overload(query, index)
    names = (*_FIELDS, *_BUFFER_FIELDS)
    leaves = leaves_of(query)
    q = dict(zip(names, (full(call, x) for x in leaves)))
    run0 = active(call)
    if max_dist is None:
        q, found, last = _buffered_next(call, q, run0, mesh_kind, static_kind(query))
    else:
        q = rewind(q, run0)
        node, last, found = advance(call, q, run0, mesh_kind, full(call, max_dist.data, jnp.float32))
        q["node"] = where(run0, node, q["node"])
    q["index"] = where(run0 & found, last, q["index"])
    q["kind"] = leaves[1]  # unchanged (a constant stays one)
    call.assign_back(0, value_from_leaves(qtype, [q[f] for f in names]))
    write_back(call, 1, index, [last], found)
    return Value(scalars.bool_, found)


@builtin("bvh_query_next", group="Geometry", kernel_only=True)
def bvh_query_next(call: Call, query: Value, index: Value, max_dist: Value | None = None) -> Value:
    """Move ``query`` to its next box; writes the box's index into ``index`` and returns True, or
    returns False when none is left. Ray and capsule queries stop at ``max_dist`` (default inf)."""
    return _next(call, query, index, max_dist, mesh_kind=False)


@builtin("mesh_query_next", group="Geometry", kernel_only=True)
def mesh_query_next(call: Call, query: Value, index: Value) -> Value:
    """Move a mesh query to its next face; writes the face index into ``index`` and returns True,
    or returns False when none is left."""
    return _next(call, query, index, None, mesh_kind=True)


@builtin("mesh_query_aabb_next", group="Geometry", kernel_only=True)
def mesh_query_aabb_next(call: Call, query: Value, index: Value) -> Value:
    """Alias of :func:`mesh_query_next`."""
    return _next(call, query, index, None, mesh_kind=True)


__all__ = ["BUFFER", "BvhQuery", "MeshQuery", "MeshQueryAABB", "advance", "collect", "rewind", "static_kind", "trees",
           "bvh_query_aabb", "bvh_query_capsule", "bvh_query_next", "bvh_query_ray", "bvh_query_sphere",
           "mesh_get_bvh", "mesh_query_aabb", "mesh_query_aabb_next", "mesh_query_next", "mesh_query_sphere"]
