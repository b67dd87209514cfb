"""Candidates of BVH and mesh queries, for loops lowered as a pass over (lane, candidate) pairs.

A query's results are found by walking the tree (:func:`jwarp.builtins.bvh_queries.collect`), so
they cannot be computed by index arithmetic as a hash grid's cell ranges are. A :class:`BvhPlan`
step walks every lane that may have results left on from where its last walk stopped, collecting
up to :data:`PER_STEP` of them; the step's table gives each lane one range, its row of the step's
``(lanes, PER_STEP)`` buffer, and :mod:`jwarp.compiler.pair_loop` runs the loop body over the
pairs. Steps go on while some lane filled its row (it may have more). The query's own buffer (the
results ``*_next`` collected and did not hand out yet) is given back first: the walk starts at the
first of them (:func:`jwarp.builtins.bvh_queries.rewind`).

Box queries of small trees take a :class:`DensePlan` instead: one step tests every lane's box against
every leaf (:mod:`jwarp.builtins.bvh_dense`), and the pass reads each lane's results from its bit
words, in the walk's order. Box queries of larger trees take a :class:`LevelPlan`: its first step
searches every lane level by level (:mod:`jwarp.builtins.bvh_levels`), and the lanes that search had
no room for are walked in the steps after.

Example (inside the compiler):
    >>> plan = pair_plan(ctx, query, active)  # doctest: +SKIP
    >>> rows, prims, state = plan.table(0, plan.start)  # (n, 2): first position, count  # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
from jax import lax

from jwarp.builtins import bvh_dense, bvh_levels, bvh_trail, bvh_walk, bvh_queries as bq
from jwarp.builtins.lane_pool import barrier, gather_rows
from jwarp.compiler.registry import Call
from jwarp.compiler.values import leaves_of, to_device_leaf
from jwarp.compiler.selects import where

PER_STEP = 32
"""Results of a lane collected per step (one walk of the lanes per step)."""


@dataclass
class BvhPlan:
    """The results of one BVH or mesh query per lane (lane arrays flattened to ``(n,)``)."""

    call: Call
    fields: dict  # the query's fields, rewound (see the module docstring)
    mesh_kind: bool
    links: list  # per object the query may select: its tree's ``(nodes, 2)`` links (a leaf's
    # primitive is column 1) and the lanes that select it (None: all)
    start: dict  # node each lane resumes from, and whether it may have results left
    kind: int | None  # the query's kind when known at compile time
    max_chunk = 1 << 14
    lane_tile = 2
    """Slots per group of the pair pass, and lanes per tile sorted together: result counts vary
    widely between lanes (a box query's 176 against a mean of 9 in Warp's mesh-intersection
    example), and a group of lanes runs as many rounds as its busiest lane. Measured there
    (tri-tri tests summed over each lane's faces): groups of 2^16 slots 164 ms, 2^14 114 ms; tiles
    of 8 lanes 57-63 ms, of 2 lanes 47 ms, single lanes 47 ms; on 65,536 small box queries (a
    cheap body, where locality counts) tiles of 8 lanes 68-74 ms, 2 lanes 75 ms, 1 lane 99 ms."""

    def more(self, step: Any, state: dict) -> Any:
        return jnp.any(state["live"])

    def table(self, step: Any, state: dict) -> tuple:
        """One walk of the live lanes: ``(n, 2)`` rows (the lane's first position in the step's
        buffer, then its number of results), the buffer's primitives ``(n * PER_STEP,)`` and the
        next state."""
        q = dict(self.fields, node=state["node"])
        node, fill, buf = bq.collect(self.call, q, state["live"], self.mesh_kind, PER_STEP, self.kind)
        fill = where(state["live"], fill, 0)
        n = fill.shape[0]
        rows = jnp.stack([lax.iota(jnp.int32, n) * PER_STEP, fill], axis=1)
        prims = jnp.zeros(n * PER_STEP, jnp.int32)
        for links, selected in self.links:
            mine = gather_rows(links, buf.reshape(-1))[..., 1]
            prims = mine if selected is None else where(jnp.repeat(selected, PER_STEP), mine, prims)
        return rows, prims, {"node": node, "live": state["live"] & (fill >= PER_STEP)}

    @staticmethod
    def drop(state: dict, done: Any) -> dict:
        """The state with the lanes ``done`` walking no further (a first-hit loop's lanes that hit)."""
        return dict(state, live=state["live"] & ~done)

    @staticmethod
    def ids(position: Any, prims: Any) -> Any:
        """The primitive at ``position`` of the step's buffer."""
        return gather_rows(prims, position)


@dataclass
class DensePlan:
    """The results of box queries of small trees (:mod:`jwarp.builtins.bvh_dense`), all in one step:
    a lane's candidates are the set bits of its leaf words, in the walk's order. Its table row is
    one range ``[lane * stride, lane * stride + count)``; :meth:`ids` finds the bit of each position.
    """

    fields: dict
    trees: list  # (tree, lanes that select it or None)
    stride: int  # a power of two: positions per lane
    start = ()
    max_chunk = 1 << 11
    lane_tile = 1
    """Groups of 256 lanes, each lane sorted alone (see :class:`BvhPlan`): a lane's candidates cost
    less here, so a group's rounds spent on its busiest lane weigh more. Measured on Warp's
    ``example_mesh_intersect`` (12,288 queries of a 224-face sphere, first hit): 2^14 slots and
    tiles of 2 lanes 7.3 ms, 2^12 and 1 lane 5.8-6.1, 2^11 and 1 lane 5.5-5.9, 2^10 6.1."""

    @staticmethod
    def more(step: Any, state: Any) -> Any:
        return step < 1

    def table(self, step: Any, state: Any) -> tuple:
        """Every result of every lane: ``(n, 2)`` rows (first position, count) and what :meth:`ids`
        reads (the lanes' words and running counts, each lane's offset into the leaves' primitives
        of all trees, and those)."""
        q = self.fields
        live = q["live"]
        lower, upper = (q["ax"], q["ay"], q["az"]), (q["bx"], q["by"], q["bz"])
        width = self.stride // 32
        words = jnp.zeros((live.shape[0], width), jnp.uint32)
        offset = jnp.zeros(live.shape[0], jnp.int32)
        prims, base = [], 0
        for tree, selected in self.trees:
            run = live if selected is None else live & selected
            end = bvh_walk.subtree(tree, q["root"])[1]
            mine, nodes = bvh_dense.leaf_words(tree, lower, upper, run, q["node"], end)
            mine = jnp.pad(mine, ((0, 0), (0, width - mine.shape[1])))
            words = mine if selected is None else where(selected[:, None], mine, words)
            offset = offset if selected is None else where(selected, base, offset)
            prims.append(gather_rows(tree.links, nodes)[:, 1])
            base += int(nodes.shape[0])
        through = bvh_dense.running_counts(words)
        n = live.shape[0]
        rows = jnp.stack([lax.iota(jnp.int32, n) * self.stride, through[:, -1]], axis=1)
        # the barriers' predicate (see lane_pool.barrier): true at run time, but not foldable (``step``
        # is: the plan's single step makes XLA drop its loop, and the barriers with it)
        go = through[0, -1] >= 0
        return rows, (words, through, offset, jnp.concatenate(prims), go), ()

    def ids(self, position: Any, found: tuple) -> Any:
        """The primitive at ``position``: the lane's ``k``-th set bit. The lanes' rows are gathered,
        then the bit found, each apart (see ``lane_pool.barrier``: fused with the gathers, the
        selects would not vectorise; 2.5 -> 1.3 ms a launch of Warp's mesh-intersection example)."""
        words, through, offset, prims, go = found
        lane = position // self.stride

        def rows(lane: Any) -> tuple:
            return gather_rows(words, lane), gather_rows(through, lane), gather_rows(offset, lane)

        lane_words, lane_through, lane_offset = barrier(go, rows, lane)
        rank = barrier(go, bvh_dense.select, lane_words, lane_through, position % self.stride)
        return gather_rows(prims, lane_offset + rank)


@dataclass
class LevelPlan(BvhPlan):
    """A :class:`BvhPlan` whose steps find the live lanes' results level by level
    (:func:`jwarp.builtins.bvh_levels.search`; queries of one halving tree whose kind is known at
    compile time, but a mesh's sphere queries): a lane's results
    are one range of the step's frontier. The lanes a step had no room for (see
    :data:`LEVEL_PAIRS`) stay live from their nodes, and the next step searches them again; once a
    step completes no lane (one lane has more results than the frontier holds), the steps after it
    walk the lanes left (``state["levels"]`` says which a step does)."""

    tree: Any = None
    count: int = 0  # the tree's primitives
    rows: Any = None  # its in-order node table (made once, outside the pass's steps)
    end: Any = None  # each lane's subtree end

    def table(self, step: Any, state: dict) -> tuple:
        n = state["live"].shape[0]
        chunk = bvh_levels.chunk_for(n)
        capacity = min(max(LEVEL_PAIRS * n, 4 * chunk), MOST_LEVEL_PAIRS)
        size = max(n * PER_STEP, capacity + 2 * chunk)  # (both branches' buffers alike)

        def levels(state: dict) -> tuple:
            q = self.fields
            names = ("ax", "ay", "az", "bx", "by", "bz", "radius_sq")

            def test(lanes: tuple, lower: tuple, upper: tuple) -> Any:  # the walk's own node test
                return bq.node_test(dict(zip(names, lanes)), self.kind, lower, upper, jnp.float32(jnp.inf))

            found = bvh_levels.search(self.rows, self.count, tuple(q[k] for k in names), test, state["live"],
                                      state["node"], self.end, self.tree.bounds[0], capacity, chunk)
            done = state["live"] & found.complete
            table = jnp.stack([found.first, where(done, found.count, 0)], axis=1)
            prims = jnp.pad(found.prims, (0, size - found.prims.shape[0]))
            return table, prims, {"node": state["node"], "live": state["live"] & ~done, "levels": jnp.any(done)}

        def walked(state: dict) -> tuple:
            table, prims, state = BvhPlan.table(self, step, state)
            return table, jnp.pad(prims, (0, size - prims.shape[0])), dict(state, levels=jnp.asarray(False))

        return lax.cond(state["levels"], levels, walked, state)


LEVEL_PAIRS = 32
"""Frontier pairs per lane a :class:`LevelPlan` search has room for (at most :data:`MOST_LEVEL_PAIRS`)."""
MOST_LEVEL_PAIRS = 1 << 22


_DENSE_WORDS = 1 << 23
"""Most bit words of a dense plan (its words and their running counts take 64 MiB each): larger
launches walk (1,024-leaf trees: up to 262,144 lanes dense)."""


def _dense_plan(q: dict, trees: list, kind: int | None, n: int) -> DensePlan | None:
    """The dense plan of box queries whose trees are all small, else None."""
    if kind != bq.AABB or not all(bvh_dense.dense_ok(tree) for tree, _ in trees):
        return None
    stride = 32 * max(1 << (bvh_dense.word_count(tree) - 1).bit_length() for tree, _ in trees)
    if n * stride >= 1 << 31 or n * (stride // 32) > _DENSE_WORDS:
        return None
    return DensePlan(q, trees, stride)


def pair_plan(ctx: Any, query: Any, active: Any) -> BvhPlan | DensePlan:
    """The plan of ``query`` (a BVH or mesh query value) for the lanes ``active`` (flat bool)."""
    mesh_kind = query.type is bq.MeshQuery
    call = Call("mesh_query_next" if mesh_kind else "bvh_query_next", ctx)
    n = int(active.shape[0])
    names = (*bq._FIELDS, *bq._BUFFER_FIELDS)
    q = {k: jnp.broadcast_to(to_device_leaf(leaf), ctx.grid).reshape(n) for k, leaf in zip(names, leaves_of(query))}
    q = bq.rewind(q, active)
    found = [(tree, selected) for tree, _, selected in bq.trees(call, q["owner"], mesh_kind)]
    kind = bq.static_kind(query)
    dense = _dense_plan(dict(q, live=active), found, kind, n)
    if dense is not None:
        return dense
    links = [(tree.links, selected) for tree, selected in found]
    start = {"node": q["node"], "live": active}
    # (mesh sphere queries also test each face: a walk's leaf step)
    searched = kind is not None and not (mesh_kind and kind == bq.SPHERE)
    if searched and len(found) == 1 and not bq.grouped(call, q["owner"], mesh_kind):
        tree = found[0][0]
        count = (tree.count + 1) // 2  # (a halving tree: one primitive per leaf)
        if count >= 2 and bvh_trail.supported(count, False):  # (an empty tree is one node without one)
            rows = bvh_trail.node_rows(tree, count, lambda prim: [prim.astype(jnp.float32)])
            end = bvh_walk.subtree(tree, q["root"])[1]
            return LevelPlan(call, q, mesh_kind, links, dict(start, levels=jnp.asarray(True)), kind, tree, count, rows,
                             end)
    return BvhPlan(call, q, mesh_kind, links, start, kind)


bq.BvhQuery._jwarp_query_pairs_ = pair_plan
bq.MeshQuery._jwarp_query_pairs_ = pair_plan

__all__ = ["LEVEL_PAIRS", "MOST_LEVEL_PAIRS", "PER_STEP", "BvhPlan", "DensePlan", "LevelPlan", "pair_plan"]
