"""Query ``for`` loops that only accumulate, lowered as a pass over (lane, candidate) pairs.

``for j in wp.hash_grid_query(...)`` is a per-lane loop: lowered as a masked while loop, every
iteration costs work for all lanes until the lane with the most candidates is done, and each
``*_next`` call steps over empty cells. When the body only *accumulates* into variables of the
enclosing scope (``v += e``, ``v -= e``, ``v = v + e`` or ``v = v - e``, possibly under ``if``; ``v``
read nowhere else) and otherwise uses them only as scratch (assigned before read in each
iteration, never read after the loop), the iterations of one lane are independent, so the loop can
instead run over (lane, candidate) pairs.
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
the body's loop) and the sums are added into the lanes. The work is about the number of
candidates (plus the rounds some lanes of a group sit out), not their maximum times the lanes.

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
import builtins
import inspect
import textwrap
from typing import TYPE_CHECKING, Any

import jax.numpy as jnp
from jax import lax

from jwarp.builtins.lane_pool import barrier, gather_rows
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
_ORDERED = frozenset({"print", "printf", "breakpoint", "volume_store", "atomic_cas", "atomic_exch"})
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
# which loops qualify


def _accumulations(body: list[ast.stmt], names: set[str]) -> bool:
    """Every use of ``names`` in ``body`` is ``v += e``, ``v -= e``, ``v = v + e``, ``v = e + v``
    or ``v = v - e`` (``e`` without ``v``): each iteration adds a term of its own."""
    allowed: set[int] = set()
    for node in _walk(body):
        target, other = None, None
        if (isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Add, ast.Sub))
                and isinstance(node.target, ast.Name)):
            target, other = node.target, node.value
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
              and isinstance(node.value, ast.BinOp) and isinstance(node.value.op, (ast.Add, ast.Sub))):
            left, right = node.value.left, node.value.right
            name = node.targets[0].id
            if isinstance(left, ast.Name) and left.id == name:
                target, other = node.targets[0], right
                allowed.add(id(left))
            elif isinstance(right, ast.Name) and right.id == name and isinstance(node.value.op, ast.Add):
                target, other = node.targets[0], left
                allowed.add(id(right))
        if target is not None and target.id in names:
            if any(isinstance(n, ast.Name) and n.id == target.id for n in ast.walk(other)):
                return False
            allowed.add(id(target))
    return all(id(n) in allowed for n in _walk(body) if isinstance(n, ast.Name) and n.id in names)


def _walk(body: list[ast.stmt]):
    for stmt in body:
        yield from ast.walk(stmt)


def _resolve(expr: ast.expr, lookup) -> Any:
    if isinstance(expr, ast.Name):
        return lookup(expr.id)
    if isinstance(expr, ast.Attribute):
        return getattr(_resolve(expr.value, lookup), expr.attr)
    raise LookupError


def _pure(body: list[ast.stmt], lookup, seen: set, returns: bool = False) -> bool:
    """No array stores, no order-dependent calls (prints, atomics whose result is used), and the
    user functions called are pure too (checked from their source)."""
    bare = {id(s.value) for s in _walk(body) if isinstance(s, ast.Expr)}
    for node in _walk(body):
        if isinstance(node, (ast.Break, ast.Continue, ast.Global, ast.Nonlocal)) and not returns:
            return False
        if isinstance(node, ast.Return) and not returns:
            return False
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Store):
            return False
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Call) and len(func.args) == 1 and not func.keywords:
            # wp.grad(f)(...): as pure as f
            try:
                outer = _resolve(func.func, lookup)
            except Exception:
                return False
            if getattr(outer, "name", None) != "grad" or not hasattr(outer, "lower"):
                return False
            func = func.args[0]
        try:
            fn = _resolve(func, lookup)
        except Exception:
            return False
        if fn is builtins.print or fn is builtins.breakpoint:
            return False
        name = getattr(fn, "name", None) if getattr(fn, "_jwarp_builtin", False) or hasattr(fn, "lower") else None
        if name is not None:
            if name in _ORDERED or name.startswith("tile_") or (name.startswith("atomic_") and id(node) not in bare):
                return False
            continue
        if getattr(fn, "_jwarp_function", False):
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            if not all(_pure_function(o.func, seen) for o in fn.overloads):
                return False
    return True


def _pure_function(func: Any, seen: set) -> bool:
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return False
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef):
        return False
    closure = inspect.getclosurevars(func)
    scope = {**vars(builtins), **func.__globals__, **closure.nonlocals}
    params = {a.arg for a in fdef.args.args}

    def lookup(name: str) -> Any:
        if name in params:
            raise LookupError(name)
        return scope[name]

    return _pure(fdef.body, lookup, seen, returns=True)  # its own control flow is its own


def _used_outside(tree: ast.AST, loop: ast.stmt, names: set[str], loads: frozenset = frozenset()) -> bool:
    """Whether a name of ``names`` occurs outside ``loop``; for those of ``loads``, only a read counts."""
    inside = {id(n) for n in ast.walk(loop)}
    return any(isinstance(n, ast.Name) and n.id in names and id(n) not in inside
               and (n.id not in loads or not isinstance(n.ctx, ast.Store)) for n in ast.walk(tree))


def _names_read(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _exposed_reads(body: list[ast.stmt], assigned: set[str]) -> tuple[set[str], set[str]]:
    """Names ``body`` may read before assigning them (``assigned``: names assigned before it),
    and the names assigned on every path through it. Conservative: a loop's body may not run, and
    any read in a statement other than an assignment or ``if`` counts."""
    exposed: set[str] = set()
    assigned = set(assigned)
    for stmt in body:
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            reads = _names_read(stmt.value) if stmt.value is not None else set()
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if isinstance(stmt, ast.AugAssign):
                reads |= {stmt.target.id} if isinstance(stmt.target, ast.Name) else _names_read(stmt.target)
            for t in targets:
                reads |= _names_read(t)  # indices of subscripted targets
            exposed |= reads - assigned
            for t in targets:
                assigned |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        elif isinstance(stmt, ast.If):
            exposed |= _names_read(stmt.test) - assigned
            e1, a1 = _exposed_reads(stmt.body, assigned)
            e2, a2 = _exposed_reads(stmt.orelse, assigned)
            exposed |= e1 | e2
            assigned = a1 & a2
        else:
            exposed |= _names_read(stmt) - assigned
    return exposed, assigned


def _scratch(tree: ast.AST, loop: ast.stmt, body: list[ast.stmt], names: set[str]) -> set[str]:
    """Of ``names`` (variables of the enclosing scope the loop body assigns), those the body uses as
    scratch: each iteration assigns them before reading them, and nothing after the loop reads them
    (so their value after the loop is never looked at). Inside another loop, no read outside this
    loop may remain (the enclosing loop's next iteration could read the last value)."""
    exposed, _ = _exposed_reads(body, set())
    parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    up, nested = parents.get(id(loop)), False
    while up is not None:
        nested |= isinstance(up, (ast.For, ast.While))
        up = parents.get(id(up))
    inside = {id(n) for n in ast.walk(loop)}
    end = (loop.end_lineno, loop.end_col_offset)
    out = set()
    for name in names - exposed:
        reads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name
                 and isinstance(n.ctx, ast.Load) and id(n) not in inside]
        if not any(nested or (n.lineno, n.col_offset) >= end for n in reads):
            out.add(name)
    return out


def pairs_possible(lw: FunctionLowerer) -> bool:
    """Whether the lowering context allows a pass over pairs at all (not reverse-mode bounded
    lowering, Pallas refs, partial lanes or thread-local arrays)."""
    ctx = lw.ctx
    if ctx.loop_bounds is not None or ctx.ref_memory is not None or ctx.partial_lanes is not None:
        return False
    return not any(s.local for s in ctx.slots)


def pure_statements(lw: FunctionLowerer, body: list[ast.stmt]) -> bool:
    """:func:`_pure` of ``body`` with names resolved in the function being lowered."""
    def lookup(name: str) -> Any:
        value = lw.lookup(name)
        if value.type is not STATIC:
            raise LookupError(name)
        return value.data

    return _pure(body, lookup, set())


def accumulators(lw: FunctionLowerer, node: ast.For, loop: ast.stmt | None = None) -> set[str] | None:
    """The names a query loop accumulates into, or None when it must stay a masked while loop.

    ``loop``: the statement the loop really is when ``node`` stands for it (a ``while`` over a
    query's ``*_next`` calls, whose target is a variable assigned before it: only reads of the
    target elsewhere count)."""
    if not pairs_possible(lw):
        return None
    assigned = assigned_names(node.body)
    outer = {n for n in assigned if n in lw.env}
    temps = (assigned - outer) | {node.target.id}
    loads = frozenset({node.target.id}) if loop is not None else frozenset()
    if node.target.id in outer or _used_outside(lw.src.tree, loop or node, temps, loads):
        return None
    outer -= _scratch(lw.src.tree, loop or node, node.body, outer)
    if not _accumulations(node.body, outer):
        return None

    if not pure_statements(lw, node.body):
        return None
    for name in outer:
        t = lw.env[name].type
        if t is STATIC or isinstance(t, (ArrayType, TileType)):
            return None
    return outer


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


def lower_pairs(lw: FunctionLowerer, node: ast.For, query: Value, names: set[str], record,
                exit_if: ast.If | None = None, first_hit: str | None = None) -> bool:
    """Lower the query loop ``node`` as a pass over pairs; False when the query cannot be planned
    (the caller then lowers the masked while loop). ``record(trips)`` notes the loop's trip count
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
    size = group * slots
    if ctx.thread_coords is not None:
        coords = tuple(jnp.broadcast_to(c, grid).reshape(n) for c in ctx.thread_coords)
    else:
        coords = tuple(jnp.broadcast_to(t, grid).reshape(n) for t in ctx.tid)
    target = node.target.id
    scratch = (assigned_names(node.body) & set(lw.env)) - names  # vetted by accumulators()
    body = node.body if exit_if is None else node.body[:-1]
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
        # sorted by their most rounds (a sort of all lanes costs about 3 ms at 62,500 lanes)
        tiles = -(-n // tile)
        per_tile = jnp.concatenate([need, jnp.zeros(tiles * tile - n, jnp.int32)]).reshape(tiles, tile).max(axis=1)
        cap = (jnp.iinfo(jnp.int32).max - tiles) // tiles
        key = jnp.sort(jnp.minimum(per_tile, cap) * tiles + lax.iota(jnp.int32, tiles))
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

    def spread(x: Any) -> Any:
        return jnp.broadcast_to(x[:, None], (group, slots)).reshape(size)

    def iteration() -> None:
        """One round of a group: the next ``slots`` candidates of each of its lanes."""
        gr = state["group"]
        seq = state["round"] * slots + lax.broadcasted_iota(jnp.int32, (group, slots), 1)
        valid = (seq < gr["total"][:, None]).reshape(size)
        # computed apart (see lane_pool.barrier): fused with the body's gathers it would not vectorise
        pos = barrier(state["round"] >= 0, locate, gr["rows"], seq).reshape(size)
        before = dict(lw.env)
        pair_env = {}
        for k, v in before.items():
            if k in names:
                pair_env[k] = zeros_value(v.type)
            elif k in gr["env"]:
                pair_env[k] = value_from_leaves(v.type, [spread(x) if is_varying_leaf(x) else x
                                                         for x in gr["env"][k]])
            else:
                pair_env[k] = v
        pair_env[target] = Value(scalars.int32, plan.ids(pos, state["table"]["ids"]))
        saved = (ctx.grid, ctx.tid, ctx.thread_coords)
        ctx.grid, ctx.tid = (size,), (lax.iota(jnp.int32, size),)
        ctx.thread_coords = tuple(spread(c) for c in gr["coords"])
        lw.env, lw.active = dict(pair_env), valid
        from jwarp.compiler.control import LoopFrame

        lw.loops.append(LoopFrame())
        try:
            lw.exec_block(body)
            hit = None if exit_if is None else jnp.broadcast_to(truth(lw.eval(exit_if.test)), (size,)) & valid
        finally:
            lw.loops.pop()
            ctx.grid, ctx.tid, ctx.thread_coords = saved
        for k, v in pair_env.items():
            if k not in names and k != target and k not in scratch and lw.env.get(k) is not v:
                raise _Fallback()
        local = state["local"]
        if hit is not None:  # the lanes' first candidate passing the test (slots are in candidate order)
            # the first passing slot as a min-reduce of slot numbers: XLA:CPU runs an argmax (a
            # variadic reduce) fused with the body as scalar code, 5x slower on the tri-tri test
            ids = jnp.broadcast_to(pair_env[target].data, (size,)).reshape(group, slots)
            column = lax.broadcasted_iota(jnp.int32, (group, slots), 1)
            slot = jnp.min(where(hit.reshape(group, slots), column, slots), axis=1)
            first = jnp.take_along_axis(ids, jnp.minimum(slot, slots - 1)[:, None], axis=1)[:, 0]
            local[_FIRST] = where((local[_FIRST] < 0) & (slot < slots), first, local[_FIRST])
        for k in names:
            for j, new in enumerate(leaves_of(lw.env[k])):
                if is_const(new) and not bool(new):
                    continue
                key = f"n:{k}:{j}"
                new = jnp.broadcast_to(new, (size,))
                new = where(valid, new, jnp.zeros((), new.dtype)).reshape(group, slots)
                part = new[:, 0]
                for s in range(1, slots):  # column by column: XLA fuses these into the body's loop
                    part = part + new[:, s]
                local[key] = local[key] + part.astype(local[key].dtype)
        lw.env = before  # the accumulators are added into the lanes after the group's last round
        lw.active = entry

    def emit(init: dict, step_fn) -> dict:
        def one_round(c: tuple) -> tuple:
            r, carry, local = c
            state["round"], state["local"] = r, dict(local)
            carry = step_fn(carry, iteration)
            return r + 1, carry, state["local"]

        def one_group(c: tuple) -> tuple:
            g, carry = c
            t = state["table"]
            state["group"] = gr = gather_group(t, g)
            local = {key: jnp.zeros(group, carry[key].dtype) for key in sums}
            more = lambda c: c[0] < t["rounds"][g]  # noqa: E731
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
                flat = carry[key].reshape(n).at[gr["lanes"]].add(part, mode="drop", unique_indices=True)
                carry[key] = flat.reshape(grid)
            return g + 1, carry

        def step(c: tuple) -> tuple:
            k, carry, most, pstate = c
            t, pstate = table(k, pstate)
            state["table"] = t
            _, carry = lax.while_loop(lambda c: c[0] < groups, one_group, (jnp.int32(0), carry))
            if first_hit is not None and hasattr(plan, "drop"):  # lanes with a hit need no more candidates
                pstate = plan.drop(pstate, carry[hit_key].reshape(n) >= 0)
            return k + 1, carry, most + t["total"], pstate

        start = (jnp.int32(0), init, jnp.zeros(n, jnp.int32), plan.start)
        _, final, most, _ = lax.while_loop(lambda c: plan.more(c[0], c[3]), step, start)
        state["most"] = jnp.max(most)
        return final

    # the accumulators' leaves, carried with the launch's shape (a group adds its sums into them)
    sums = sorted(f"n:{k}:{j}" for k in names for j in range(len(leaves_of(lw.env[k]))))
    hit_key = f"n:{first_hit}:0"
    carried = set(names) | ({first_hit} if first_hit is not None else set())
    snap = Snapshot(lw)
    try:
        run_lax_loop(lw, node, CarrySpec(names=carried, promote=set(sums) | {hit_key}), emit)
    except _Fallback:
        snap.restore(lw)
        return False
    record(state["most"])
    return True
