"""Query ``for`` loops that only accumulate, lowered as a pass over (lane, candidate) pairs.

``for j in wp.hash_grid_query(...)`` is a per-lane loop: lowered as a masked while loop, every
iteration costs work for all lanes until the lane with the most candidates is done, and each
``*_next`` call steps over empty cells. When the body only *accumulates* into variables of the
enclosing scope (``v += e`` or ``v = v + e``, possibly under ``if``; ``v`` read nowhere else), the
iterations of one lane are independent, so the loop can instead run once over every (lane,
candidate) pair. The query type's *plan* (``_jwarp_query_pairs_``, e.g.
:mod:`jwarp.builtins.hash_grid_pairs`) gives, step by step, a *table*: per lane a few ranges of
the plan's point order. Each lane's candidates are laid out in *rows* of :data:`SLOTS` slots
(``ceil(count / SLOTS)`` rows, at least one; rows numbered by a prefix sum over the lanes), and
blocks of ``chunk_size // SLOTS`` rows are processed at a time (memory stays bounded). In a block,
a row's lane comes from a scatter of the block's lanes' first rows and a running maximum over the
block's rows (the lanes reaching a block are consecutive), a slot's position from its lane's table
row (a short vectorised chain over the ranges, computed apart from the body); the body is lowered
once over the block's slots (lane values broadcast along the row; accumulators start at zero),
each row's slots are summed column by column (XLA fuses that into the body's loop) and the rows'
sums are scatter-added into their lanes. The work is about the number of candidates, not their
maximum times the lanes, and no step of it is per pair except the body and the position chain.

Float sums are associated differently than in Warp (per lane: the sums of its rows, added to the
value before the loop), so results agree to rounding. Anything else keeps the masked while loop:
``break``/``continue``/``return``, array stores, ``print``, an atomic whose result is used, a body
variable or the loop target read after the loop, a lane variable changed by a call
(``wp.randf(state)``), thread-local arrays, tiles, reverse-mode (bounded) lowering and Pallas
kernels. The ``while wp.hash_grid_query_next(query, index)`` form comes here through
:mod:`jwarp.compiler.pair_while`.
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
from jwarp.compiler.loop_carry import CarrySpec, assigned_names, run_lax_loop
from jwarp.compiler.values import STATIC, ArrayRef, Value, is_varying_leaf, leaves_of, to_device_leaf, value_from_leaves, zeros_value
from jwarp.errors import ControlSignal
from jwarp.lang import scalars
from jwarp.lang.arrays import ArrayType
from jwarp.lang.tile_types import TileType

if TYPE_CHECKING:
    from jwarp.compiler.lower import FunctionLowerer

_MAX_CHUNK = 1 << 16
SLOTS = 8
"""Slots per row: a row holds up to this many candidates of one lane (measured on the SPH step at
32768 particles, 14 candidates per lane: 8 and 16 equal, 4 slower)."""
_ORDERED = frozenset({"print", "printf", "breakpoint", "volume_store", "atomic_cas", "atomic_exch"})


class _Fallback(ControlSignal):
    """The body turned out not to be a pure accumulation (seen while lowering it)."""


def chunk_size(lanes: int) -> int:
    """Slots per block: about four per lane, a power of two in [256, 65536]."""
    size = 256
    while size < lanes * 4 and size < _MAX_CHUNK:
        size *= 2
    return size


# ------------------------------------------------------------------------------------------------
# which loops qualify


def _accumulations(body: list[ast.stmt], names: set[str]) -> bool:
    """Every use of ``names`` in ``body`` is ``v += e`` or ``v = v + e`` / ``v = e + v`` (``e``
    without ``v``)."""
    allowed: set[int] = set()
    for node in _walk(body):
        target, other = None, None
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name):
            target, other = node.target, node.value
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
              and isinstance(node.value, ast.BinOp) and isinstance(node.value.op, ast.Add)):
            left, right = node.value.left, node.value.right
            name = node.targets[0].id
            if isinstance(left, ast.Name) and left.id == name:
                target, other = node.targets[0], right
                allowed.add(id(left))
            elif isinstance(right, ast.Name) and right.id == name:
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
        try:
            fn = _resolve(node.func, lookup)
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


def accumulators(lw: FunctionLowerer, node: ast.For, loop: ast.stmt | None = None) -> set[str] | None:
    """The names a query loop accumulates into, or None when it must stay a masked while loop.

    ``loop``: the statement the loop really is when ``node`` stands for it (a ``while`` over a
    query's ``*_next`` calls, whose target is a variable assigned before it: only reads of the
    target elsewhere count)."""
    ctx = lw.ctx
    if ctx.loop_bounds is not None or ctx.ref_memory is not None or ctx.partial_lanes is not None:
        return None
    if any(s.local for s in ctx.slots):
        return None
    assigned = assigned_names(node.body)
    outer = {n for n in assigned if n in lw.env}
    temps = (assigned - outer) | {node.target.id}
    loads = frozenset({node.target.id}) if loop is not None else frozenset()
    if node.target.id in outer or _used_outside(lw.src.tree, loop or node, temps, loads):
        return None
    if not _accumulations(node.body, outer):
        return None

    def lookup(name: str) -> Any:
        value = lw.lookup(name)
        if value.type is not STATIC:
            raise LookupError(name)
        return value.data

    if not _pure(node.body, lookup, set()):
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


def lower_pairs(lw: FunctionLowerer, node: ast.For, query: Value, names: set[str], record) -> bool:
    """Lower the query loop ``node`` as a pass over pairs; False when the query cannot be planned
    (the caller then lowers the masked while loop). ``record(trips)`` notes the loop's trip count
    (the most candidates of a lane), as the while loop would."""
    from jwarp.compiler.loop_carry import Snapshot
    from jwarp.compiler.values import is_const

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
    width = max(1, chunk_size(n) // slots)  # rows per block
    if ctx.thread_coords is not None:
        coords = tuple(jnp.broadcast_to(c, grid).reshape(n) for c in ctx.thread_coords)
    else:
        coords = tuple(jnp.broadcast_to(t, grid).reshape(n) for t in ctx.tid)
    target = node.target.id
    state: dict = {}

    def table(step: Any) -> dict:
        """The step's candidates: per lane, one table row (``(n, 2k)``: the first sorted position of
        each of its ``k`` ranges, then their lengths), its candidate count, and its rows of slots
        (at least one) numbered by a prefix sum."""
        def build(step: Any) -> tuple:
            rows = plan.table(step)
            return rows, jnp.sum(rows[:, rows.shape[1] // 2:], axis=1, dtype=jnp.int32)

        # apart: XLA would otherwise recompute the table inside every level of the prefix sum
        rows, total = barrier(step >= 0, build, step)
        need = jnp.maximum((total + (slots - 1)) // slots, 1)
        end = lax.associative_scan(jnp.add, need)
        off = jnp.concatenate([end - need, jnp.full(width, jnp.iinfo(jnp.int32).max, jnp.int32)])
        return {"rows": rows, "total": total, "end": end, "off": off}

    def block(t: dict, base: Any) -> tuple:
        """Rows ``[base, base + width)`` of a step: each row's lane (``n`` past the last row) and
        the sequence number of its first slot."""
        lo = jnp.sum(t["end"] <= base, dtype=jnp.int32)  # lanes whose rows all come before
        offs = lax.dynamic_slice(t["off"], (lo,), (width,))  # at most ``width`` lanes reach the block
        ids = lax.iota(jnp.int32, width)
        at = jnp.where(offs - base < width, jnp.maximum(offs - base, 0), width)
        marks = jnp.zeros(width, jnp.int32).at[at].max(ids, mode="drop")
        local = lax.associative_scan(jnp.maximum, marks)
        row = base + ids
        lane = jnp.where(row < t["end"][-1], lo + local, n)
        start = (row - offs.at[local].get(mode="promise_in_bounds")) * slots
        return lane, start

    def locate(rows: Any, seq: Any) -> Any:
        """Positions (in the plan's order) of the candidates ``seq`` (``(width, slots)``: numbers
        within each row's lane) of the lanes whose table rows are ``rows`` (``(width, 2k)``). The
        last range whose first candidate is at most ``seq`` holds it (empty ranges come before a
        later range with the same first candidate, which then wins)."""
        k = rows.shape[1] // 2
        rest = seq
        pos = jnp.zeros_like(seq)
        for j in range(k):
            pos = jnp.where(rest >= 0, rows[:, j:j + 1] + rest, pos)
            rest = rest - rows[:, k + j:k + j + 1]
        return pos

    def iteration() -> None:
        t = state["table"]
        lanes, start = block(t, state["base"])
        row = jnp.minimum(lanes, n - 1)
        rows = gather_rows(t["rows"], row)
        seq = start[:, None] + lax.iota(jnp.int32, slots)[None, :]
        total = t["total"].at[row].get(mode="promise_in_bounds")
        size = width * slots
        valid = ((lanes < n)[:, None] & (seq < total[:, None])).reshape(size)
        # computed apart (see lane_pool.barrier): fused with the body's gathers it would not vectorise
        pos = barrier(state["base"] >= 0, locate, rows, seq).reshape(size)

        def spread(flat: Any) -> Any:
            got = flat.at[row].get(mode="promise_in_bounds")
            return jnp.broadcast_to(got[:, None], (width, slots)).reshape(size)

        lane_env = dict(lw.env)
        pair_env = {}
        for k, v in lane_env.items():
            if k in names:
                pair_env[k] = zeros_value(v.type)
            elif v.type is STATIC or isinstance(v.type, ArrayType):
                pair_env[k] = v
            else:
                leaves = [spread(jnp.broadcast_to(x, grid).reshape(n)) if is_varying_leaf(x) else x
                          for x in leaves_of(v)]
                pair_env[k] = value_from_leaves(v.type, leaves)
        pair_env[target] = Value(scalars.int32, plan.ids(pos))
        saved = (ctx.grid, ctx.tid, ctx.thread_coords)
        ctx.grid, ctx.tid = (size,), (lax.iota(jnp.int32, size),)
        ctx.thread_coords = tuple(spread(c) for c in coords)
        lw.env, lw.active = dict(pair_env), valid
        from jwarp.compiler.control import LoopFrame

        lw.loops.append(LoopFrame())
        try:
            lw.exec_block(node.body)
        finally:
            lw.loops.pop()
            ctx.grid, ctx.tid, ctx.thread_coords = saved
        for k, v in pair_env.items():
            if k not in names and k != target and lw.env.get(k) is not v:
                raise _Fallback()
        sums = {}
        for k in names:
            value = lw.env[k]
            out = []
            for old, new in zip(leaves_of(lane_env[k]), leaves_of(value)):
                if is_const(new) and not bool(new):
                    out.append(old)
                    continue
                new = jnp.broadcast_to(new, (size,))
                new = jnp.where(valid, new, jnp.zeros((), new.dtype)).reshape(width, slots)
                part = new[:, 0]
                for s in range(1, slots):  # column by column: XLA fuses these into the body's loop
                    part = part + new[:, s]
                flat = jnp.broadcast_to(old, grid).reshape(n)
                flat = flat.at[lanes].add(part.astype(flat.dtype), mode="drop")
                out.append(flat.reshape(grid))
            sums[k] = value_from_leaves(value.type, out)
        lw.env = lane_env
        lw.env.update(sums)
        lw.active = entry

    def emit(init: dict, step_fn) -> dict:
        def chunk(c: tuple) -> tuple:
            base, carry = c
            state["base"] = base
            return base + width, step_fn(carry, iteration)

        def step(c: tuple) -> tuple:
            k, carry, most = c
            t = table(k)
            state["table"] = t
            _, carry = lax.while_loop(lambda c: c[0] < t["end"][-1], chunk, (jnp.int32(0), carry))
            return k + 1, carry, most + t["total"]

        start = (jnp.int32(0), init, jnp.zeros(n, jnp.int32))
        _, final, most = lax.while_loop(lambda c: c[0] < plan.steps, step, start)
        state["most"] = jnp.max(most)
        return final

    snap = Snapshot(lw)
    try:
        run_lax_loop(lw, node, CarrySpec(names=set(names)), emit)
    except _Fallback:
        snap.restore(lw)
        return False
    record(state["most"])
    return True
