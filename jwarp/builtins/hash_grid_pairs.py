"""Candidate ranges of hash-grid queries, for loops lowered as a pass over (lane, candidate) pairs.

A query visits the cells of its box in x, then y, then z order. Cells of one *row* (fixed y and z)
are consecutive in the grid's linear order, so the sorted points of a row's cells form one range
of the cell-sorted order (two when the row wraps around the grid's x dimension). A
:class:`QueryPlan` gives every lane's candidates as a few ``[lo, hi)`` ranges per *step* (a
group of :data:`ROWS_PER_STEP` rows, plus the rest of the current cell at step 0), with no loop
over empty cells. :mod:`jwarp.compiler.pair_loop` flattens the ranges into pairs.

Example (inside the compiler):
    >>> plan = pair_plan(ctx, query)  # doctest: +SKIP
    >>> ranges = plan.ranges(plan_step)  # [(lo, hi), ...], lane arrays  # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
from jax import lax

from jwarp.builtins.hash_grid import _FIELDS, QUERY_TYPES
from jwarp.builtins.lane_pool import gather_rows
from jwarp.compiler.values import leaves_of, to_device_leaf

ROWS_PER_STEP = 3
"""Rows of the query box handled per step (a step's ranges are computed for every lane)."""


@dataclass
class QueryPlan:
    """Candidate ranges of one hash-grid query per lane (lane arrays flattened to ``(n,)``)."""

    fields: dict
    dims: tuple
    starts: Any
    ends: Any
    point_ids: Any
    rows_left: Any
    steps: Any  # uniform int32: steps needed by the lane with the most rows

    def ranges(self, step: Any) -> list[tuple[Any, Any]]:
        """The ``[lo, hi)`` ranges of sorted positions holding each lane's candidates of ``step``
        (empty ranges have ``hi <= lo``)."""
        f = self.fields
        dx, dy, dz = (jnp.int32(d) for d in self.dims)
        ny = f["y_end"] - f["y_start"] + 1
        first = step == 0
        out = [(f["cell_index"], jnp.where(first, f["cell_end"], f["cell_index"]))]
        for g in range(ROWS_PER_STEP):
            t = step * ROWS_PER_STEP + g
            q = (f["y"] - f["y_start"]) + t
            yy = f["y_start"] + q % ny
            zz = f["z"] + q // ny
            xa = jnp.where(t == 0, f["x"] + 1, f["x_start"])
            xb = f["x_end"]
            live = (t < self.rows_left) & (xa <= xb)
            row = jnp.mod(zz, dz) * (dx * dy) + jnp.mod(yy, dy) * dx
            ca, cb = jnp.mod(xa, dx), jnp.mod(xb, dx)
            wraps = ca > cb
            lo1 = gather_rows(self.starts, row + ca)
            hi1 = gather_rows(self.ends, row + jnp.where(wraps, dx - 1, cb))
            lo2 = gather_rows(self.starts, row)
            hi2 = gather_rows(self.ends, row + cb)
            out.append((lo1, jnp.where(live, hi1, lo1)))
            out.append((lo2, jnp.where(live & wraps, hi2, lo2)))
        return out

    def ids(self, position: Any) -> Any:
        """The point index stored at sorted ``position``."""
        return gather_rows(self.point_ids, position)


def pair_plan(ctx: Any, query: Any, active: Any) -> QueryPlan | None:
    """The plan of ``query`` (a hash-grid query value) for the lanes ``active`` (flat bool), or None
    when it cannot be planned (several grids may reach the launch, or a grid built with groups)."""
    grids = [h for h in ctx.handles if h.kind == "hash_grid"]
    if len(grids) != 1 or grids[0].fact("grouped"):
        return None
    handle = grids[0]
    n = int(active.shape[0])
    leaves = [jnp.broadcast_to(to_device_leaf(leaf), ctx.grid).reshape(n) for leaf in leaves_of(query)]
    fields = dict(zip(("grid", *_FIELDS), leaves))

    def planes(name: str) -> Any:
        return lax.stop_gradient(ctx.slots[handle.arrays[name].data.slot].planes[0]).reshape(-1)

    ny = fields["y_end"] - fields["y_start"] + 1
    rows = (fields["z_end"] - fields["z"]) * ny + (fields["y_end"] - fields["y"]) + 1
    rows = jnp.where(active & (fields["z"] <= fields["z_end"]) & handle.fact("built"), jnp.maximum(rows, 0), 0)
    if not handle.fact("built"):
        fields["cell_end"] = fields["cell_index"]
    fields["cell_end"] = jnp.where(active, fields["cell_end"], fields["cell_index"])
    steps = (jnp.max(rows) + ROWS_PER_STEP - 1) // ROWS_PER_STEP
    steps = jnp.maximum(steps, jnp.any(fields["cell_end"] > fields["cell_index"]).astype(jnp.int32))
    return QueryPlan(fields, handle.fact("dims"), planes("cell_starts"), planes("cell_ends"), planes("point_ids"),
                     rows, steps.astype(jnp.int32))


for _t in QUERY_TYPES.values():
    _t._jwarp_query_pairs_ = pair_plan

__all__ = ["QueryPlan", "ROWS_PER_STEP", "pair_plan"]
