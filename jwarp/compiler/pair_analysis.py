"""Which query ``for`` loops may run as a pass over (lane, candidate) pairs (:mod:`jwarp.compiler.pair_loop`).

A loop qualifies when its iterations are independent: the body only *accumulates* into variables of
the enclosing scope (``v += e``, ``v -= e``, ``v = v + e`` or ``v = v - e``, possibly under ``if``;
``v`` read nowhere else; or keeps an extreme or the best candidate by a key:
:mod:`jwarp.compiler.pair_reductions`), uses the others as scratch (assigned before read in each iteration, never
read after the loop), stores nothing and calls nothing whose effect depends on the order
(``print``, an atomic whose result is used; user functions are checked from their source).

Example (inside the compiler):
    >>> names = accumulators(lw, node)  # doctest: +SKIP
    >>> names  # None: the loop stays a masked while loop  # doctest: +SKIP
    {'f'}
"""

from __future__ import annotations

import ast
import builtins
import inspect
import textwrap
from typing import TYPE_CHECKING, Any

import numpy as np

from jwarp.compiler.loop_carry import assigned_names
from jwarp.compiler.masks import added_term
from jwarp.compiler.pair_reductions import KEY, MAX, MIN, SUM, Reduction, reductions
from jwarp.compiler.values import STATIC, leaves_of, zeros_value
from jwarp.lang import scalars
from jwarp.lang.arrays import ArrayType
from jwarp.lang.tile_types import TileType

if TYPE_CHECKING:
    from jwarp.compiler.lower import FunctionLowerer

_ORDERED = frozenset({"print", "printf", "breakpoint", "volume_store", "atomic_cas", "atomic_exch"})


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


def _function_def(func: Any) -> ast.FunctionDef | None:
    """The parsed definition of a user function (None when its source cannot be read)."""
    try:
        fdef = ast.parse(textwrap.dedent(inspect.getsource(func))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return None
    return fdef if isinstance(fdef, ast.FunctionDef) else None


def _pure_function(func: Any, seen: set) -> bool:
    fdef = _function_def(func)
    if fdef is None:
        return False
    closure = inspect.getclosurevars(func)
    scope = {**vars(builtins), **func.__globals__, **closure.nonlocals}
    params = {a.arg for a in fdef.args.args}

    def lookup(name: str) -> Any:
        if name in params:
            raise LookupError(name)
        return scope[name]

    return _pure(fdef.body, lookup, seen, returns=True)  # its own control flow is its own


def used_outside(tree: ast.AST, loop: ast.stmt, names: set[str], loads: frozenset = frozenset()) -> bool:
    """Whether a name of ``names`` occurs outside ``loop``; for those of ``loads``, only a read counts."""
    inside = {id(n) for n in ast.walk(loop)}
    return any(isinstance(n, ast.Name) and n.id in names and id(n) not in inside
               and (n.id not in loads or not isinstance(n.ctx, ast.Store)) for n in ast.walk(tree))


def observed_outside(tree: ast.AST, loop: ast.stmt, names: set[str], loads: frozenset = frozenset()) -> bool:
    """Whether code outside ``loop`` may see what the loop last assigned to a name of ``names`` (its
    body's temporaries and target, which a pass over pairs leaves unassigned): a use of one inside
    an enclosing loop (:func:`used_outside`, with ``loads``), or a read after the loop before an
    assignment on every path to it (a later loop reusing ``d`` assigns it first: not a read)."""
    parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    up = parents.get(id(loop))
    while up is not None:
        if isinstance(up, (ast.For, ast.While)):
            return used_outside(tree, loop, names, loads)
        up = parents.get(id(up))
    after: list[ast.stmt] = []  # the statements that may run after the loop, in order
    stmt = loop
    while True:
        holder = parents.get(id(stmt))
        if holder is None:
            break
        for field in ("body", "orelse", "finalbody"):
            block = getattr(holder, field, None)
            if isinstance(block, list) and any(s is stmt for s in block):
                after.extend(block[[id(s) for s in block].index(id(stmt)) + 1:])
        if isinstance(holder, (ast.FunctionDef, ast.AsyncFunctionDef)):
            break
        stmt = holder
    exposed, _ = _exposed_reads(after, set())
    return bool(exposed & names)


def _names_read(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _exposed_reads(body: list[ast.stmt], assigned: set[str]) -> tuple[set[str], set[str]]:
    """Names ``body`` may read before assigning them (``assigned``: names assigned before it),
    and the names assigned on every path through it. Conservative: a loop's body may not run (what
    it assigns does not count after it; inside it, in order, with the ``for`` target assigned), and
    any read in another statement than an assignment, ``if``, ``for`` or ``while`` counts."""
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
        elif isinstance(stmt, (ast.For, ast.While)) and not stmt.orelse:
            head = stmt.iter if isinstance(stmt, ast.For) else stmt.test
            exposed |= _names_read(head) - assigned
            inner = set(assigned)
            if isinstance(stmt, ast.For):
                inner |= {n.id for n in ast.walk(stmt.target) if isinstance(n, ast.Name)}
            exposed |= _exposed_reads(stmt.body, inner)[0]
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
    return _pure(body, static_lookup(lw), set())


def accumulators(lw: FunctionLowerer, node: ast.For, loop: ast.stmt | None = None) -> dict[str, Reduction] | None:
    """The names a query loop accumulates into, with how (sums, extremes, keys and their payloads:
    :mod:`jwarp.compiler.pair_reductions`), or None when it must stay a masked while loop.

    ``loop``: the statement the loop really is when ``node`` stands for it (a ``while`` over a
    query's ``*_next`` calls, whose target is a variable assigned before it: only reads of the
    target elsewhere count)."""
    if not pairs_possible(lw):
        return None
    assigned = assigned_names(node.body)
    outer = {n for n in assigned if n in lw.env}
    temps = (assigned - outer) | {node.target.id}
    loads = frozenset({node.target.id}) if loop is not None else frozenset()
    if node.target.id in outer or observed_outside(lw.src.tree, loop or node, temps, loads):
        return None
    outer -= _scratch(lw.src.tree, loop or node, node.body, outer)
    kinds = reductions(node.body, outer, static_lookup(lw))
    if kinds is None or not pure_statements(lw, node.body):
        return None
    for name, kind in kinds.items():
        t = lw.env[name].type
        if t is STATIC or isinstance(t, (ArrayType, TileType)):
            return None
        if kind.kind == KEY and not (scalars.is_int(t) or scalars.is_float(t)):
            return None  # (keys are compared: numbers only)
        if kind.kind != SUM and not _plain_leaves(t, bools=kind.kind not in (MAX, MIN)):
            return None  # (values picked or compared per pair: numbers, and bools where picked)
    return kinds


def _plain_leaves(t: Any, bools: bool) -> bool:
    """Whether every leaf of a value of type ``t`` is a number (or, with ``bools``, a bool)."""
    try:
        leaves = leaves_of(zeros_value(t))
    except TypeError:
        return False
    return all(np.issubdtype(np.asarray(leaf).dtype, np.integer) or np.issubdtype(np.asarray(leaf).dtype, np.floating)
               or (bools and np.asarray(leaf).dtype == np.bool_) for leaf in leaves)


GUARDED_WORK = 16
"""Operations (see :func:`_work`) the guarded statements of a body must have for it to run filtered:
Warp's DEM example has about 30 (a contact force); a density-weighted SPH force term, about 11, runs
5-8% slower filtered (the filter recomputes the distance for the pairs that pass)."""


def guarded_accumulations(body: list[ast.stmt], names: set[str], lookup: Any = None) -> bool:
    """Whether every accumulation into ``names`` in ``body`` sits under an ``if`` whose test looks at
    data (not only ``a != b`` / ``a == b`` of names and constants, which lets nearly every pair
    through), with :data:`GUARDED_WORK` operations under those tests: a body worth running twice,
    first only as far as it decides which pairs reach an accumulation (see
    :func:`jwarp.compiler.pair_loop.lower_pairs`). ``if d < r: f += force(...)`` is such a body.
    ``lookup`` resolves the names of called functions (user functions count their own operations)."""
    if not names:
        return False
    work = 0

    def visit(stmts: list[ast.stmt], guarded: bool) -> bool:
        nonlocal work
        for stmt in stmts:
            if isinstance(stmt, ast.If):
                inner = guarded or not _identity_test(stmt.test)
                if not visit(stmt.body, inner) or not visit(stmt.orelse, inner):
                    return False
                if inner and not guarded:
                    work += _work(stmt.body + stmt.orelse, lookup, 3)
                continue
            stored = names & {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            if stored and not guarded:
                inside = _zero_unless_tested(added_term(stmt, next(iter(stored))), lookup)
                if inside is None or len(stored) > 1:
                    return False
                work += inside
        return True

    return visit(body, False) and work >= GUARDED_WORK


def _zero_unless_tested(term: Any, lookup: Any) -> int | None:
    """For a term that calls a user function returning a constant zero unless a test on the data
    passes (``if r < h: return ...`` then ``return wp.vec3()``, Warp's SPH kernels), the operations
    of that function; else None."""
    if not isinstance(term, ast.Call) or lookup is None:
        return None
    try:
        fn = _resolve(term.func, lookup)
    except Exception:
        return None
    if not getattr(fn, "_jwarp_function", False):
        return None
    best = None
    for overload in fn.overloads:
        body = _function_body(overload.func)
        if _returns_zero_unless_tested(body, False) and any(
                isinstance(n, ast.Return) and _zero_literal(n.value) for n in _walk(body)):
            count = _work(body, lookup, 2)
            best = count if best is None else min(best, count)
        else:
            return None
    return best


def _returns_zero_unless_tested(stmts: list[ast.stmt], guarded: bool) -> bool:
    """Every ``return`` in ``stmts`` returns a constant zero or sits under a test on the data."""
    for stmt in stmts:
        if isinstance(stmt, ast.Return):
            if not guarded and not _zero_literal(stmt.value):
                return False
        elif isinstance(stmt, ast.If):
            inner = guarded or not _identity_test(stmt.test)
            if not _returns_zero_unless_tested(stmt.body, inner) or not _returns_zero_unless_tested(stmt.orelse, inner):
                return False
        elif any(isinstance(n, ast.Return) for n in ast.walk(stmt)):
            return False  # a return inside a loop or another construct: not analysed
    return True


def _zero_literal(node: Any) -> bool:
    """``0``, ``0.0``, ``wp.vec3()`` or ``wp.vec3(0.0, 0.0, 0.0)`` (a constructor of constant zeros; at run
    time the lowering checks the value itself)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool) and node.value == 0
    if isinstance(node, ast.Call) and not node.keywords:
        return all(isinstance(a, ast.Constant) and _zero_literal(a) for a in node.args)
    return False


def _work(stmts: list[ast.stmt], lookup: Any, depth: int) -> int:
    """Operations of ``stmts``: arithmetic, comparisons and calls count 1, array reads 2, and a user
    function's call its body's operations too (``depth`` levels of calls)."""
    total = 0
    for node in _walk(stmts):
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.AugAssign)):
            total += 1
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            total += 2
        elif isinstance(node, ast.Call):
            total += 1
            fn = None
            if lookup is not None and depth > 0:
                try:
                    fn = _resolve(node.func, lookup)
                except Exception:
                    fn = None
            if getattr(fn, "_jwarp_function", False):
                total += max((_work(_function_body(o.func), lookup, depth - 1) for o in fn.overloads), default=0)
    return total


def _function_body(func: Any) -> list[ast.stmt]:
    fdef = _function_def(func)
    return [] if fdef is None else fdef.body


def static_lookup(lw: FunctionLowerer) -> Any:
    """A name resolver over the function being lowered: its compile-time values (functions, ...)."""
    def lookup(name: str) -> Any:
        value = lw.lookup(name)
        if value.type is not STATIC:
            raise LookupError(name)
        return value.data

    return lookup


def _identity_test(test: ast.expr) -> bool:
    """``a != b``, ``a == b`` (or ``is``) of names and constants."""
    return (isinstance(test, ast.Compare) and all(isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot))
                                                   for op in test.ops)
            and all(isinstance(x, (ast.Name, ast.Constant)) for x in [test.left, *test.comparators]))
