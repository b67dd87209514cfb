"""Candidates of BVH and mesh queries, for loops lowered as a pass over (lane, candidate) pairs.

A query's results are found by walking the tree (:func:`jwarp.builtins.bvh_queries.collect`), so
they cannot be computed by index arithmetic as a hash grid's cell ranges are. A :class:`BvhPlan`
step walks every lane that may have results left on from where its last walk stopped, collecting
up to :data:`PER_STEP` of them; the step's table gives each lane one range, its row of the step's
``(lanes, PER_STEP)`` buffer, and :mod:`jwarp.compiler.pair_loop` runs the loop body over the
pairs. Steps go on while some lane filled its row (it may have more). The query's own buffer (the
results ``*_next`` collected and did not hand out yet) is given back first: the walk starts at the
first of them (:func:`jwarp.builtins.bvh_queries.rewind`).

Example (inside the compiler):
    >>> plan = pair_plan(ctx, query, active)  # doctest: +SKIP
    >>> rows, prims, state = plan.table(0, plan.start)  # (n, 2): first position, count  # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
from jax import lax

from jwarp.builtins import bvh_queries as bq
from jwarp.builtins.lane_pool import gather_rows
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


def pair_plan(ctx: Any, query: Any, active: Any) -> BvhPlan:
    """The plan of ``query`` (a BVH or mesh query value) for the lanes ``active`` (flat bool)."""
    mesh_kind = query.type is bq.MeshQuery
    call = Call("mesh_query_next" if mesh_kind else "bvh_query_next", ctx)
    n = int(active.shape[0])
    names = (*bq._FIELDS, *bq._BUFFER_FIELDS)
    q = {k: jnp.broadcast_to(to_device_leaf(leaf), ctx.grid).reshape(n) for k, leaf in zip(names, leaves_of(query))}
    q = bq.rewind(q, active)
    links = [(tree.links, selected) for tree, _, selected in bq.trees(call, q["owner"], mesh_kind)]
    return BvhPlan(call, q, mesh_kind, links, {"node": q["node"], "live": active}, bq.static_kind(query))


bq.BvhQuery._jwarp_query_pairs_ = pair_plan
bq.MeshQuery._jwarp_query_pairs_ = pair_plan

__all__ = ["PER_STEP", "BvhPlan", "pair_plan"]
