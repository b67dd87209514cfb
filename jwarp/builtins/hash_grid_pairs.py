"""Candidate ranges of hash-grid queries, for loops lowered as a pass over (lane, candidate) pairs.

A query visits the cells of its box in x, then y, then z order. Cells of one *row* (fixed y and z)
are consecutive in the grid's linear order, so the sorted points of a row's cells form one range
of the cell-sorted order, unless the row wraps around the grid's x dimension (the cells from the
box's first x to the grid's end, then from the grid's start to the box's last x). To make every
row one range, the plan reads the points from a *doubled* order: each grid row's points twice in
a row (``2 n`` entries); a wrapped row is then the tail of the first copy and the head of the
second. A :class:`QueryPlan` gives every lane's candidates *step* by step as a table of
``[lo, lo + count)`` ranges of that order, one per row of a group of :data:`ROWS_PER_STEP` rows
(the query's current row starts at its current position), with no loop over empty cells.
:mod:`jwarp.compiler.pair_loop` flattens the ranges into pairs.

The table of a step is computed for all lanes and rows at once (one ``(lanes, rows)`` computation
with no integer division by a lane value), so XLA emits it as a few vectorised loops.

Example (inside the compiler):
    >>> plan = pair_plan(ctx, query, active)  # doctest: +SKIP
    >>> table, doubled, _ = plan.table(step)  # (n, 2 * ROWS_PER_STEP): lo, then count columns  # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from jwarp.builtins.hash_grid import _FIELDS, QUERY_TYPES
from jwarp.builtins.lane_pool import barrier, gather_rows
from jwarp.compiler.values import leaves_of, to_device_leaf
from jwarp.compiler.selects import where

ROWS_PER_STEP = 9
"""Rows of the query box handled per step (a query with a radius up to one cell width has 9)."""


@dataclass
class QueryPlan:
    """Candidate ranges of one hash-grid query per lane (lane arrays flattened to ``(n,)``)."""

    fields: dict
    dims: tuple
    starts: Any
    ends: Any
    grid_rows: Any  # (dy * dz, 2): each grid row's first sorted position and its number of points
    doubled: Any  # (2 n,): point indices, each grid row's points twice
    steps: Any  # uniform int32: steps needed by the lane with the most rows
    start = ()  # the plan keeps no state between steps

    def more(self, step: Any, state: Any) -> Any:
        return step < self.steps

    def table(self, step: Any, state: Any = ()) -> tuple:
        """The ranges of ``step``: ``(n, 2 * ROWS_PER_STEP)`` int32, the first position (in the
        doubled order) of each row's range, then each range's length (0 for no candidates); the
        doubled order (which :meth:`ids` reads) and the (empty) state."""
        f = {k: v[:, None] for k, v in self.fields.items()}
        dx = self.dims[0]
        t = step * ROWS_PER_STEP + lax.broadcasted_iota(jnp.int32, (1, ROWS_PER_STEP), 1)  # row of the box
        # the grid rows apart (see lane_pool.barrier): fused into each gather, they would be computed
        # three times and without vector instructions
        grid_row = barrier(step >= 0, self._grid_rows, t)
        head = t == 0  # the query's current row: from its current position on
        more = f["rows_left"] > 0  # else only the current cell's points (Warp visits the first cell)
        ca = where(head, f["x_mod"], f["xs_mod"])
        cb = f["xe_mod"]
        lo = where(head, f["cell_index"], gather_rows(self.starts, grid_row * dx + ca))
        hi = where(head & ~more, f["cell_end"], gather_rows(self.ends, grid_row * dx + cb))
        rows = gather_rows(self.grid_rows, grid_row.reshape(-1)).reshape(*grid_row.shape, 2)
        wrapped = where((ca > cb) & more, rows[..., 1], 0)  # the row continues in its second copy
        count = where(head | (t < f["rows_left"]), jnp.maximum(hi + wrapped - lo, 0), 0)
        return jnp.concatenate([lo + rows[..., 0], count], axis=1), self.doubled, state

    def _grid_rows(self, t: Any) -> Any:
        """The grid row of each lane's box rows ``t`` (``(1, k)``): ``(n, k)``."""
        f = {k: v[:, None] for k, v in self.fields.items()}
        _, dy, dz = self.dims
        above, r = _divmod(f["dy0"] + t, f["ny"])
        return _wrap_once(f["z_mod"] + above, dz) * dy + _wrap_once(f["ys_mod"] + r, dy)

    @staticmethod
    def ids(position: Any, doubled: Any) -> Any:
        """The point index stored at ``position`` of the doubled order."""
        return gather_rows(doubled, position)


def _wrap_once(v: Any, d: int) -> Any:
    """``v mod d`` for ``0 <= v < 2 d``."""
    return where(v >= d, v - d, v)


def _divmod(a: Any, b: Any) -> tuple[Any, Any]:
    """``(a // b, a % b)`` for int32 ``0 <= a`` and ``1 <= b`` (``b`` may have fewer entries than
    ``a``, broadcast to it): a floating-point multiply by ``1 / b``, computed once per entry of
    ``b`` (a division per entry of ``a`` does not vectorise; in float64 it cost the SPH example's
    queries 2 ms per launch), and one correction step."""
    ftype = jax.dtypes.canonicalize_dtype(jnp.float64)  # float32 where 64-bit types are off
    inv = 1.0 / b.astype(ftype)
    q = jnp.floor(a.astype(ftype) * inv).astype(jnp.int32)
    r = a - q * b
    q = where(r < 0, q - 1, where(r >= b, q + 1, q))
    return q, a - q * b


def row_ranges(starts: Any, ends: Any, dims: tuple) -> Any:
    """``(dy * dz, 2)`` int32: each grid row's first position in the cell-sorted order and its
    number of points (a row's cells are consecutive in the grid's linear order)."""
    dx, dy, dz = dims
    first = starts.reshape(dz * dy, dx)[:, 0]
    return jnp.stack([first, ends.reshape(dz * dy, dx)[:, -1] - first], axis=1)


def doubled_order(point_ids: Any, grid_rows: Any, n: int) -> Any:
    """The doubled order: grid row ``g``'s points (``first, size = grid_rows[g]``) at
    ``[2 first, 2 first + 2 size)``, twice. ``HashGrid.build`` computes it with the grid."""
    first, size = grid_rows[:, 0], grid_rows[:, 1]
    ids = lax.iota(jnp.int32, grid_rows.shape[0])
    at = where(size > 0, 2 * first, 2 * n)
    marks = jnp.zeros(2 * n, jnp.int32).at[at].max(ids, mode="drop")
    row = lax.associative_scan(jnp.maximum, marks)  # the grid row of each doubled position
    start, count = first.at[row].get(mode="promise_in_bounds"), size.at[row].get(mode="promise_in_bounds")
    offset = lax.iota(jnp.int32, 2 * n) - 2 * start
    return gather_rows(point_ids, start + where(offset >= count, offset - count, offset))


def pair_plan(ctx: Any, query: Any, active: Any) -> QueryPlan | None:
    """The plan of ``query`` (a hash-grid query value) for the lanes ``active`` (flat bool), or None
    when it cannot be planned (several grids may reach the launch, or a grid built with groups)."""
    grids = [h for h in ctx.handles if h.kind == "hash_grid"]
    if len(grids) != 1 or grids[0].fact("grouped"):
        return None
    handle = grids[0]
    n = int(active.shape[0])
    leaves = [jnp.broadcast_to(to_device_leaf(leaf), ctx.grid).reshape(n) for leaf in leaves_of(query)]
    f = dict(zip(("grid", *_FIELDS), leaves))

    def planes(name: str) -> Any:
        return lax.stop_gradient(ctx.slots[handle.arrays[name].data.slot].planes[0]).reshape(-1)

    dx, dy, dz = handle.fact("dims")
    starts, ends = planes("cell_starts"), planes("cell_ends")
    grid_rows, doubled = planes("grid_rows").reshape(dy * dz, 2), planes("doubled")  # (made by the build)
    ny = f["y_end"] - f["y_start"] + 1
    rows = (f["z_end"] - f["z"]) * ny + (f["y_end"] - f["y"]) + 1
    rows = where(active & (f["z"] <= f["z_end"]) & handle.fact("built"), jnp.maximum(rows, 0), 0)
    cell_end = where(active, f["cell_end"], f["cell_index"]) if handle.fact("built") else f["cell_index"]
    fields = {
        "cell_index": f["cell_index"], "cell_end": cell_end, "ny": jnp.maximum(ny, 1),
        "dy0": f["y"] - f["y_start"], "rows_left": rows, "ys_mod": jnp.mod(f["y_start"], dy),
        "z_mod": jnp.mod(f["z"], dz), "x_mod": jnp.mod(f["x"], dx), "xs_mod": jnp.mod(f["x_start"], dx),
        "xe_mod": jnp.mod(f["x_end"], dx),
    }
    steps = jnp.maximum((jnp.max(rows) + ROWS_PER_STEP - 1) // ROWS_PER_STEP, 1)
    return QueryPlan(fields, (dx, dy, dz), starts, ends, grid_rows, doubled, steps.astype(jnp.int32))


for _t in QUERY_TYPES.values():
    _t._jwarp_query_pairs_ = pair_plan

__all__ = ["QueryPlan", "ROWS_PER_STEP", "doubled_order", "pair_plan", "row_ranges"]
