"""Query ``for`` loops that only accumulate, lowered as a pass over (lane, candidate) pairs.

``for j in wp.hash_grid_query(...)`` is a per-lane loop: lowered as a masked while loop, every
iteration costs work for all lanes until the lane with the most candidates is done, and each
``*_next`` call steps over empty cells. When the body only *accumulates* into variables of the
enclosing scope and otherwise uses them only as scratch (:mod:`jwarp.compiler.pair_analysis`), the
iterations of one lane are independent, so the loop can instead run over (lane, candidate) pairs.
The query type's *plan* (``_jwarp_query_pairs_``, e.g. :mod:`jwarp.builtins.hash_grid_pairs`,
:mod:`jwarp.builtins.bvh_pairs`) gives, step by step, a *table*: per lane a few ranges of the
step's candidate order (``plan.table(step, state)`` returns the table, what ``plan.ids`` reads to
turn positions into candidates, and the plan's state for the next step; steps run while
``plan.more(step, state)``, from ``plan.start``). The lanes are
processed in *groups* of ``chunk_size // SLOTS`` lanes, a group in *rounds*: round ``r`` takes
candidates ``[r * SLOTS, (r + 1) * SLOTS)`` of each of its lanes (a slot's position comes from its
lane's table row by a short vectorised chain over the ranges, computed apart from the body), and
a group runs as many rounds as its lanes' most candidates need. So that the lanes of a group have
similar counts, tiles of :data:`TILE` consecutive lanes are sorted by their counts. The body is
lowered once over a round's slots (lane values broadcast along the slots, gathered once per group;
accumulators start at zero), each lane's slots are summed column by column (XLA fuses that into
the body's loop) and the sums are added into the lanes. Extremes, best candidates by a key (with
their payloads) and last values (:mod:`jwarp.compiler.pair_reductions`) start each pair at their
reduction's extreme and are reduced per round in the candidates' order, then combined with the
lane's value so far (the rounds of a lane come in its candidates' order). The work is about the number of
candidates (plus the rounds some lanes of a group sit out), not their maximum times the lanes.

A body that adds its terms only where a test on the data passes (``if d < r: f += force(...)``, or
``f += kernel(...)`` where ``kernel`` returns a constant zero unless ``d < h``:
:func:`jwarp.compiler.pair_analysis.guarded_accumulations`) runs *filtered* (:func:`lower_pairs`'s
``sparse_blocks``): first only as far as its tests, recording for each pair whether it reaches an
accumulation (:class:`jwarp.compiler.masks.Touched`; XLA drops the terms), then whole for those pairs
only, one per lane at a time. Warp's DEM and SPH examples add a term for about one candidate in 20.

Float sums are associated differently than in Warp (per lane: the sums of its rounds, added to the
value before the loop), so results agree to rounding. Anything else keeps the masked while loop:
``break``/``continue``/``return``, array stores, ``print``, an atomic whose result is used, a body
variable or the loop target read after the loop, a lane variable changed by a call
(``wp.randf(state)``), thread-local arrays, tiles, reverse-mode (bounded) lowering and Pallas
kernels (except loops that stop at their first hit: :mod:`jwarp.compiler.pair_exit` runs them
through :func:`lower_pairs` with ``exit_if``). The ``while wp.hash_grid_query_next(query, index)``
form comes here through :mod:`jwarp.compiler.pair_while`.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.builtins.lane_pool import barrier, gather_rows
from jwarp.compiler import pair_analysis, row_gathers
from jwarp.compiler import pair_reductions as red
from jwarp.compiler.masks import Touched
from jwarp.compiler.loop_carry import CarrySpec, Snapshot, assigned_names, run_lax_loop
from jwarp.compiler.operators import truth
from jwarp.compiler.values import (STATIC, ArrayRef, Value, is_const, is_varying_leaf, leaves_of, to_device_leaf,
                                  value_from_leaves, zeros_value)
from jwarp.errors import ControlSignal
from jwarp.lang import scalars
from jwarp.lang.arrays import ArrayType
from jwarp.lang.tile_types import TileType
from jwarp.compiler.selects import where

if TYPE_CHECKING:
    from jwarp.compiler.lower import FunctionLowerer

_MAX_CHUNK = 1 << 16
SLOTS = 8
"""Candidates of one lane per round (measured on the SPH step at 32768 particles, 14 candidates per
lane, when rounds were rows of packed lanes: 8 and 16 equal, 4 slower)."""
TILE = 8
"""Lanes ordered together (see ``lower_pairs``); divides every group size (``chunk_size // SLOTS``)."""
BLOCK = 32
"""Candidates of one lane per word of a filtered pass (``sparse_blocks``: which of them pass are the
word's bits, four rounds of ``SLOTS``)."""
WORDS = 16
"""Words of a lane's passing pairs gathered before they run (one per lane at a time)."""
FILTER_ROUNDS = 4
"""A group runs filtered only when its busiest lane needs this many rounds (fewer candidates: the
filter costs about what it could save)."""
SPARSE_PER_ROUND = 4
"""Filtered rounds run their passing pairs while no lane of the group has more than this many per
round (of ``SLOTS`` candidates); above, the rounds run again unfiltered."""
_FIRST = "first hit"  # the group-local key of the lanes' first hits (``exit_if``)


class _Fallback(ControlSignal):
    """The body turned out not to be a pure accumulation (seen while lowering it)."""


def chunk_size(lanes: int, most: int = _MAX_CHUNK) -> int:
    """Slots per block: about four per lane, a power of two in [256, most]."""
    size = 256
    while size < lanes * 4 and size < most:
        size *= 2
    return size


# ------------------------------------------------------------------------------------------------
# the pass over pairs


def _remappable(env: dict, grid: tuple) -> bool:
    for value in env.values():
        if value.type is STATIC:
            continue
        if isinstance(value.type, TileType):
            return False
        if isinstance(value.type, ArrayType):
            ref = value.data
            if not isinstance(ref, ArrayRef) or ref.axes is not None or any(
                    is_varying_leaf(getattr(x, "data", x)) for x in ref.prefix):
                return False
            continue
        try:
            leaves = leaves_of(value)
        except Exception:
            return False
        if any(not _plain_leaf(leaf, grid) for leaf in leaves):
            return False
    return True


def _plain_leaf(leaf: Any, grid: tuple) -> bool:
    if isinstance(leaf, (ArrayRef, tuple, list)) or not hasattr(leaf, "shape"):
        return not isinstance(leaf, (ArrayRef, tuple, list))
    return jnp.ndim(leaf) == 0 or jnp.ndim(leaf) == len(grid)


def lower_pairs(lw: FunctionLowerer, node: ast.For, query: Value, names: set[str] | dict[str, red.Reduction], record,
                exit_if: ast.If | None = None, first_hit: str | None = None) -> bool:
    """Lower the query loop ``node`` as a pass over pairs; False when the query cannot be planned
    (the caller then lowers the masked while loop). ``names``: the variables it accumulates into, with
    their :class:`jwarp.compiler.pair_reductions.Reduction` (a set: sums). ``record(trips)`` notes the loop's trip count
    (the most candidates of a lane), as the while loop would. With ``exit_if`` (the body's last
    statement, see :mod:`jwarp.compiler.pair_exit`) the pass runs the rest of the body and the
    test of ``exit_if`` and stores each lane's first candidate that passes it in the int32 local
    ``first_hit`` (-1 where none does); nothing else may change."""
    ctx = lw.ctx
    grid = tuple(ctx.grid)
    n = 1
    for d in grid:
        n *= d
    if n == 0 or not _remappable(lw.env, grid):
        return False
    entry = lw.active
    mask = jnp.asarray(True) if entry is None else to_device_leaf(entry)
    active = jnp.broadcast_to(mask, grid).reshape(n)
    plan = query.type._jwarp_query_pairs_(ctx, query, active)
    if plan is None:
        return False
    slots = SLOTS
    # lanes per group (a plan whose lanes' counts vary widely asks for smaller groups, ``max_chunk``,
    # and sorts lanes in smaller tiles, ``lane_tile``)
    group = max(1, chunk_size(n, getattr(plan, "max_chunk", _MAX_CHUNK)) // slots)
    tile = min(getattr(plan, "lane_tile", TILE), group)
    groups = -(-n // group)
    # the lanes shared evenly between the groups (padding lanes run every round of their group)
    group = -(-(-(-n // groups)) // tile) * tile
    # runs the filtered blocks of sparse_block when the body only accumulates under data-dependent tests
    kinds = dict(names) if isinstance(names, dict) else {k: red.Reduction(red.SUM) for k in names}
    names = set(kinds)
    summed = all(r.kind == red.SUM for r in kinds.values())
    sparse = summed and exit_if is None and pair_analysis.guarded_accumulations(node.body, set(kinds),
                                                                                pair_analysis.static_lookup(lw))
    if ctx.thread_coords is not None:
        coords = tuple(jnp.broadcast_to(c, grid).reshape(n) for c in ctx.thread_coords)
    else:
        coords = tuple(jnp.broadcast_to(t, grid).reshape(n) for t in ctx.tid)
    target = node.target.id
    scratch = (assigned_names(node.body) & set(lw.env)) - names  # vetted by accumulators()
    body = node.body if exit_if is None else node.body[:-1]
    lasts = {k for k, r in kinds.items() if r.kind == red.LAST}
    body = red.flagged_body(body, lasts)  # each pair records whether it assigned a last value
    flags = {red.flag_name(k): k for k in lasts}
    lane_env = dict(lw.env)  # the values before the loop: all but the accumulators stay so in it
    state: dict = {}

    def table(step: Any, pstate: Any) -> tuple:
        """The step's candidates: per lane, one table row (``(n, 2k)``: the first position of each
        of its ``k`` ranges, then their lengths) and its candidate count; the lanes in the order
        they are processed (padded with ``n`` to whole groups), each group's number of rounds (the
        most ``ceil(count / slots)`` of its lanes) and what ``plan.ids`` reads; and the plan's
        next state."""
        def build(step: Any, pstate: Any) -> tuple:
            rows, ids, pstate = plan.table(step, pstate)
            return rows, jnp.sum(rows[:, rows.shape[1] // 2:], axis=1, dtype=jnp.int32), ids, pstate

        # apart: XLA would otherwise recompute the table inside every use of it
        rows, total, ids, pstate = barrier(step >= 0, build, step, pstate)
        need = (total + (slots - 1)) // slots
        if groups == 1:
            lanes = jnp.concatenate([lax.iota(jnp.int32, n), jnp.full(group - n, n, jnp.int32)])
            return {"rows": rows, "total": total, "lanes": lanes, "rounds": jnp.max(need)[None], "ids": ids}, pstate
        # a group runs as many rounds as its busiest lane needs: groups of lanes with similar counts
        # waste fewer. Tiles of `tile` consecutive lanes (often neighbours, reading nearby data) are
        # sorted by their most rounds (a sort of all lanes costs about 3 ms at 62,500 lanes), the
        # busiest first: the groups after the first without candidates are not run at all
        tiles = -(-n // tile)
        per_tile = jnp.concatenate([need, jnp.zeros(tiles * tile - n, jnp.int32)]).reshape(tiles, tile).max(axis=1)
        cap = (jnp.iinfo(jnp.int32).max - tiles) // tiles
        key = jnp.sort((cap - jnp.minimum(per_tile, cap)) * tiles + lax.iota(jnp.int32, tiles))
        order = key % tiles
        lanes = (order[:, None] * tile + lax.iota(jnp.int32, tile)[None, :]).reshape(tiles * tile)
        pad = groups * group - tiles * tile
        lanes = jnp.concatenate([where(lanes < n, lanes, n), jnp.full(pad, n, jnp.int32)])
        most = jnp.concatenate([per_tile.at[order].get(mode="promise_in_bounds"), jnp.zeros(pad // tile, jnp.int32)])
        rounds = most.reshape(groups, group // tile).max(axis=1)
        return {"rows": rows, "total": total, "lanes": lanes, "rounds": rounds, "ids": ids}, pstate

    def gather_group(t: dict, g: Any) -> dict:
        """Group ``g``: its lanes (``n`` for padding), their table rows, candidate counts, thread
        coordinates and the lane values the body reads (``(group,)`` each)."""
        lanes = lax.dynamic_slice(t["lanes"], (g * group,), (group,))
        row = jnp.minimum(lanes, n - 1)
        out = {"lanes": lanes, "rows": gather_rows(t["rows"], row),
               "total": where(lanes < n, t["total"].at[row].get(mode="promise_in_bounds"), 0),
               "coords": tuple(c.at[row].get(mode="promise_in_bounds") for c in coords), "env": {}}
        for k, v in lane_env.items():
            if k in names or v.type is STATIC or isinstance(v.type, ArrayType):
                continue
            out["env"][k] = [jnp.broadcast_to(x, grid).reshape(n).at[row].get(mode="promise_in_bounds")
                             if is_varying_leaf(x) else x for x in leaves_of(v)]
        return out

    def locate(rows: Any, seq: Any) -> Any:
        """Positions (in the plan's order) of the candidates ``seq`` (``(group, slots)``: numbers
        within each lane) of the lanes whose table rows are ``rows`` (``(group, 2k)``). The last
        range whose first candidate is at most ``seq`` holds it (empty ranges come before a later
        range with the same first candidate, which then wins)."""
        k = rows.shape[1] // 2
        rest = seq
        pos = jnp.zeros_like(seq)
        for j in range(k):
            pos = where(rest >= 0, rows[:, j:j + 1] + rest, pos)
            rest = rest - rows[:, k + j:k + j + 1]
        return pos

    def evaluate(seq: Any, valid: Any, touch: bool = False) -> Any:
        """Lower the body over the group's pairs (lane ``j``, its candidate ``seq[j, s]``; ``seq`` and
        ``valid`` are ``(group, w)``). Adds each lane's terms into ``state["local"]``; with ``touch``,
        adds nothing and returns the pairs whose terms may be nonzero (``(group, w)``: the pairs for
        which the body reaches an accumulation, see ``FunctionLowerer.touched``)."""
        gr = state["group"]
        w = seq.shape[1]
        pairs = group * w
        # pairs slot-major (all lanes' first slots, then their second ones...), so that the column sums
        # read contiguous lanes and vectorise: Warp's particle repulsion 0.89x, SPH 0.90x (in-process
        # A/B, same bits). Lane-major for first-hit passes (mesh_intersect's tri-tri rounds 1.48x slower
        # slot-major) and filtering passes (DEM's 1.06x)
        slot_major = exit_if is None and not touch

        def spread(x: Any) -> Any:
            if slot_major:
                return jnp.broadcast_to(x[None, :], (w, group)).reshape(pairs)
            return jnp.broadcast_to(x[:, None], (group, w)).reshape(pairs)

        def flat(x: Any) -> Any:  # (group, w) -> pairs
            return (x.T if slot_major else x).reshape(pairs)

        def grid2(x: Any) -> Any:  # pairs -> (group, w)
            return x.reshape(w, group).T if slot_major else x.reshape(group, w)

        valid = flat(valid)
        # computed apart (see lane_pool.barrier): fused with the body's gathers it would not vectorise
        pos = flat(barrier(state["round"] >= 0, locate, gr["rows"], seq))
        before = dict(lw.env)
        pair_env = {}
        for k, v in before.items():
            if k in names:  # sums start at zero, the others at their reduction's extreme (see pair_reductions)
                starts = [red.start_of(kinds[k], leaf.dtype) for leaf in leaves_of(zeros_value(v.type))]
                pair_env[k] = value_from_leaves(v.type, starts)
            elif k in gr["env"]:
                pair_env[k] = value_from_leaves(v.type, [spread(x) if is_varying_leaf(x) else x
                                                         for x in gr["env"][k]])
            else:
                pair_env[k] = v
        for flag in flags:
            pair_env[flag] = Value(scalars.bool_, np.bool_(False))
        pair_env[target] = Value(scalars.int32, plan.ids(pos, state["table"]["ids"]))
        saved = (ctx.grid, ctx.tid, ctx.thread_coords, ctx.prefetched)
        ctx.prefetched = row_gathers.prefetch(ctx, pair_env, body, target, pair_env[target].data)
        ctx.grid, ctx.tid = (pairs,), (lax.iota(jnp.int32, pairs),)
        ctx.thread_coords = tuple(spread(c) for c in gr["coords"])
        lw.env, lw.active = dict(pair_env), valid
        from jwarp.compiler.control import LoopFrame

        lw.loops.append(LoopFrame())
        lw.touched = Touched(names, len(lw.loops)) if touch else None
        try:
            lw.exec_block(body)
            hit = None if exit_if is None else jnp.broadcast_to(truth(lw.eval(exit_if.test)), (pairs,)) & valid
        finally:
            lw.loops.pop()
            ctx.grid, ctx.tid, ctx.thread_coords, ctx.prefetched = saved
            touched, lw.touched = lw.touched, None
        for k, v in pair_env.items():
            if k not in names and k not in flags and k != target and k not in scratch and lw.env.get(k) is not v:
                raise _Fallback()
        values = lw.env
        lw.env = before  # the accumulators are added into the lanes after the group's last round
        lw.active = entry
        if touch:
            return grid2(touched.lanes(pairs) & valid)
        local = state["local"]
        if hit is not None:  # the lanes' first candidate passing the test (slots are in candidate order)
            # the first passing slot as a min-reduce of slot numbers: XLA:CPU runs an argmax (a
            # variadic reduce) fused with the body as scalar code, 5x slower on the tri-tri test
            ids = grid2(jnp.broadcast_to(pair_env[target].data, (pairs,)))
            column = lax.broadcasted_iota(jnp.int32, (group, w), 1)
            slot = jnp.min(where(grid2(hit), column, w), axis=1)
            first = jnp.take_along_axis(ids, jnp.minimum(slot, w - 1)[:, None], axis=1)[:, 0]
            local[_FIRST] = where((local[_FIRST] < 0) & (slot < w), first, local[_FIRST])
        def columns(leaf: Any, start: Any) -> Any:  # (group, w), the pairs outside ``valid`` at ``start``
            leaf = jnp.broadcast_to(leaf, (pairs,))
            return grid2(where(valid, leaf, jnp.asarray(start, leaf.dtype)))

        for k in names:
            kind = kinds[k]
            if kind.kind == red.PAYLOAD:
                continue  # with its key
            if kind.kind == red.LAST:  # the value of the lane's last pair that assigned one
                column = red.last_columns(columns(values[red.flag_name(k)].data, False))
                at = jnp.maximum(column, 0)[:, None]
                for j, leaf in enumerate(leaves_of(values[k])):
                    key = f"n:{k}:{j}"
                    picked = jnp.take_along_axis(columns(leaf, 0), at, axis=1)[:, 0]
                    local[key] = where(column >= 0, picked.astype(local[key].dtype), local[key])
                continue
            for j, leaf in enumerate(leaves_of(values[k])):
                key = f"n:{k}:{j}"
                if kind.kind == red.SUM:
                    if is_const(leaf) and not bool(leaf):
                        continue
                    leaf = columns(leaf, 0)
                    part = leaf[:, 0]
                    for c in range(1, w):  # column by column: XLA fuses these into the body's loop
                        part = part + leaf[:, c]
                    local[key] = local[key] + part.astype(local[key].dtype)
                elif kind.kind in (red.MAX, red.MIN):
                    leaf = columns(leaf, red.start_of(kind, local[key].dtype))
                    part = leaf[:, 0]
                    for c in range(1, w):
                        part = red.combine_extreme(kind.kind, part, leaf[:, c])
                    local[key] = red.combine_extreme(kind.kind, local[key], part.astype(local[key].dtype))
                else:  # a key: the round's best candidate replaces the lane's best only when strictly better
                    best, column = red.best_columns(columns(leaf, red.start_of(kind, leaf.dtype)), kind.less)
                    better = red.replaces(kind.less, best, local[key]) & (column < w)
                    local[key] = where(better, best.astype(local[key].dtype), local[key])
                    at = jnp.minimum(column, w - 1)[:, None]
                    for p, pk in kinds.items():
                        if pk.kind != red.PAYLOAD or pk.key != k:
                            continue
                        for jp, pleaf in enumerate(leaves_of(values[p])):
                            pkey = f"n:{p}:{jp}"
                            picked = jnp.take_along_axis(columns(pleaf, 0), at, axis=1)[:, 0]
                            local[pkey] = where(better, picked.astype(local[pkey].dtype), local[pkey])
        return None

    def iteration() -> None:
        """One round of a group: the next ``slots`` candidates of each of its lanes."""
        seq = state["round"] * slots + lax.broadcasted_iota(jnp.int32, (group, slots), 1)
        evaluate(seq, seq < state["group"]["total"][:, None])

    def sparse_blocks() -> None:
        """The next ``WORDS`` blocks of ``BLOCK`` candidates (four rounds each) of a group's lanes. The
        body runs first as far as it decides which pairs reach an accumulation (XLA drops the terms;
        a bit per pair; a block at once: four separate rounds cost DEM's launch 74 ms instead of 52),
        then for those pairs only, one per lane at a time, unless some lane has too many of them or
        the group too few rounds (then the rounds run unfiltered)."""
        per_word = BLOCK // slots
        first = state["round"] * WORDS  # the first word's block of candidates
        start = first * per_word
        end = jnp.minimum(state["rounds"], start + WORDS * per_word)
        filtered = state["rounds"] >= FILTER_ROUNDS
        column = lax.broadcasted_iota(jnp.uint32, (group, BLOCK), 1)
        word = lax.broadcasted_iota(jnp.int32, (group, WORDS), 1)

        def fill(c: tuple) -> tuple:  # a word's four rounds at once: (group, BLOCK) pairs
            j, words = c
            seq = (first + j) * BLOCK + lax.broadcasted_iota(jnp.int32, (group, BLOCK), 1)
            touched = evaluate(seq, seq < state["group"]["total"][:, None], touch=True)
            bits = jnp.sum(where(touched, jnp.uint32(1) << column, jnp.uint32(0)), axis=1, dtype=jnp.uint32)
            return j + 1, where(word == j, bits[:, None], words)

        blocks = jnp.where(filtered, -(-(end - start) // per_word), 0)
        words = lax.while_loop(lambda c: c[0] < blocks, fill, (jnp.int32(0), jnp.zeros((group, WORDS), jnp.uint32)))[1]
        most = jnp.max(jnp.sum(lax.population_count(words).astype(jnp.int32), axis=1))
        sparse_now = filtered & (most <= SPARSE_PER_ROUND * (end - start))

        def each_touched(local: dict) -> dict:
            def one(c: tuple) -> tuple:
                words, local = c
                state["local"] = dict(local)
                j = jnp.min(where(words != 0, word, WORDS), axis=1)  # each lane's first word with a bit left
                jj = jnp.minimum(j, WORDS - 1)
                bits = jnp.take_along_axis(words, jj[:, None], axis=1)[:, 0]
                low = lax.population_count((bits & (~bits + jnp.uint32(1))) - jnp.uint32(1)).astype(jnp.int32)
                evaluate(((first + jj) * BLOCK + low)[:, None], (j < WORDS)[:, None])
                return where(word == jj[:, None], (bits & (bits - jnp.uint32(1)))[:, None], words), state["local"]

            return lax.while_loop(lambda c: jnp.any(c[0] != 0), one, (words, local))[1]

        def all_rounds(local: dict) -> dict:
            def one(c: tuple) -> tuple:
                r, local = c
                state["round"], state["local"] = r, dict(local)
                iteration()
                return r + 1, state["local"]

            return lax.while_loop(lambda c: c[0] < end, one, (start, local))[1]

        state["local"] = lax.cond(sparse_now, each_touched, all_rounds, state["local"])

    def emit(init: dict, step_fn) -> dict:
        per_round = sparse_blocks if sparse else iteration
        rounds_per = WORDS * BLOCK // slots if sparse else 1  # rounds that one pass of the loop below takes

        def one_round(c: tuple) -> tuple:
            r, carry, local = c
            state["round"], state["local"] = r, dict(local)
            carry = step_fn(carry, per_round)
            return r + 1, carry, state["local"]

        def one_group(c: tuple) -> tuple:
            g, carry = c
            t = state["table"]
            state["group"] = gr = gather_group(t, g)
            state["rounds"] = t["rounds"][g]
            local = {key: jnp.zeros(group, carry[key].dtype) for key in sums}
            for key in kept:  # extremes, keys and payloads go on from the lanes' values so far
                local[key] = carry[key].reshape(n).at[gr["lanes"]].get(mode="fill", fill_value=0)
            more = lambda c: c[0] * rounds_per < t["rounds"][g]  # noqa: E731
            if first_hit is not None:  # (a lane's hit from an earlier step stands; a group stops once all hit)
                local[_FIRST] = carry[hit_key].reshape(n).at[gr["lanes"]].get(mode="fill", fill_value=0)
                more = lambda c: (c[0] < t["rounds"][g]) & jnp.any(  # noqa: E731
                    (c[2][_FIRST] < 0) & (c[0] * slots < gr["total"]))
            _, carry, local = lax.while_loop(more, one_round, (jnp.int32(0), carry, local))
            carry = dict(carry)
            if first_hit is not None:
                flat = carry[hit_key].reshape(n).at[gr["lanes"]].set(local.pop(_FIRST), mode="drop",
                                                                     unique_indices=True)
                carry[hit_key] = flat.reshape(grid)
            for key, part in local.items():  # the lanes of a group are distinct
                lanes = carry[key].reshape(n).at[gr["lanes"]]
                flat = (lanes.set if key in kept else lanes.add)(part, mode="drop", unique_indices=True)
                carry[key] = flat.reshape(grid)
            return g + 1, carry

        def step(c: tuple) -> tuple:
            k, carry, most, pstate = c
            t, pstate = table(k, pstate)
            state["table"] = t
            busy = jnp.sum((t["rounds"] > 0).astype(jnp.int32))  # (groups are in decreasing rounds)
            _, carry = lax.while_loop(lambda c: c[0] < busy, one_group, (jnp.int32(0), carry))
            if first_hit is not None and hasattr(plan, "drop"):  # lanes with a hit need no more candidates
                pstate = plan.drop(pstate, carry[hit_key].reshape(n) >= 0)
            return k + 1, carry, most + t["total"], pstate

        start = (jnp.int32(0), init, jnp.zeros(n, jnp.int32), plan.start)
        _, final, most, _ = lax.while_loop(lambda c: plan.more(c[0], c[3]), step, start)
        state["most"] = jnp.max(most)
        return final

    # the accumulators' leaves, carried with the launch's shape (a group adds its sums into them)
    leaf_keys = {k: [f"n:{k}:{j}" for j in range(len(leaves_of(lw.env[k])))] for k in names}
    sums = sorted(key for k in names if kinds[k].kind == red.SUM for key in leaf_keys[k])
    kept = sorted(key for k in names if kinds[k].kind != red.SUM for key in leaf_keys[k])
    hit_key = f"n:{first_hit}:0"
    carried = set(names) | ({first_hit} if first_hit is not None else set())
    snap = Snapshot(lw)
    try:
        run_lax_loop(lw, node, CarrySpec(names=carried, promote=set(sums) | set(kept) | {hit_key}), emit)
    except _Fallback:
        snap.restore(lw)
        return False
    record(state["most"])
    return True
