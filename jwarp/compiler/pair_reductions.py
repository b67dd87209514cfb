"""What a query loop lowered as a pass over pairs keeps per lane, beyond sums: extremes and arg-extremes.

:mod:`jwarp.compiler.pair_loop` runs the body of a query loop once per (lane, candidate) pair and
reduces the pairs' values per lane. Sums (``f += e``) were its first reduction; a body may also keep

- an *extreme*: ``m = wp.max(m, e)`` or ``m = wp.min(m, e)`` (either argument order; ``e`` without
  ``m``), possibly under ``if``. ``wp.max``/``wp.min`` skip NaNs (C's ``fmax``/``fmin``), so their
  order does not matter: a pair starts ``m`` at NaN (ints: the type's extreme), the lane's result is
  ``fmax`` of its value before the loop and every pair's value;
- a *key* with *payloads*: ``if e < best: best = e; j_best = j`` (``>`` too, and the test may be
  one term of an ``and`` chain): the smallest (largest) ``e`` among the candidates that pass the
  test, and the payloads assigned in the same branch (``j_best``: any variables, of any type) from
  the *first* candidate in the query's order that holds it, as the sequential loop leaves them
  (only a strictly smaller value replaces the best). A pair starts ``best`` at ``+inf`` (ints: the
  largest value), so it passes the test exactly where a finite ``e`` would pass against some best;
- a *last* value: ``v = e`` anywhere else (``hit = 1`` under a test, ``k = j``; ``e`` without any of
  these variables): the value of the last candidate in the query's order that assigned it (each pair
  records whether it did: :func:`flagged_body`).

Anything else about these names (a read elsewhere in the body, ``<=``, an assignment other than the
test's own expression, a payload assigned elsewhere) keeps the loop a masked while loop.

Example (inside the compiler):
    >>> kinds = reductions(body, {"best", "j_best", "f"}, lookup)  # doctest: +SKIP
    >>> kinds["best"].kind, kinds["j_best"].key  # doctest: +SKIP
    ('key', 'best')
"""

from __future__ import annotations

import ast
import builtins
import copy
from dataclasses import dataclass
from typing import Any, Callable

import jax.numpy as jnp
import numpy as np

from jwarp.compiler.masks import accumulation
from jwarp.compiler.registry import Builtin
from jwarp.compiler.selects import where

SUM, MAX, MIN, KEY, PAYLOAD, LAST = "sum", "max", "min", "key", "payload", "last"


@dataclass(frozen=True)
class Reduction:
    """How a pass over pairs combines one variable's per-pair values into its lane's value.

    Attributes:
        kind: :data:`SUM`, :data:`MAX`, :data:`MIN`, :data:`KEY`, :data:`PAYLOAD` or :data:`LAST`.
        less: for a key, whether its test keeps the smaller value (``e < best``).
        key: for a payload, the key whose test guards its assignment.
    """

    kind: str
    less: bool = True
    key: str | None = None


def _walk(body: list[ast.stmt]):
    for stmt in body:
        yield from ast.walk(stmt)


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _extreme(stmt: ast.stmt, names: set[str], lookup: Callable[[str], Any]) -> tuple | None:
    """``(kind, target, self reference, term)`` for ``v = wp.max(v, e)`` / ``wp.min`` (either order)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id in names and isinstance(stmt.value, ast.Call) and len(stmt.value.args) == 2
            and not stmt.value.keywords):
        return None
    kind = _min_or_max(stmt.value.func, lookup)
    target, (a, b) = stmt.targets[0], stmt.value.args
    if kind is None:
        return None
    for own, term in ((a, b), (b, a)):
        if isinstance(own, ast.Name) and own.id == target.id and target.id not in _names_in(term):
            return kind, target, own, term
    return None


def _min_or_max(func: ast.expr, lookup: Callable[[str], Any]) -> str | None:
    """:data:`MAX` / :data:`MIN` when ``func`` names Warp's ``max`` / ``min`` builtin (or Python's)."""
    try:
        if isinstance(func, ast.Name):
            fn = lookup(func.id)
        elif isinstance(func, ast.Attribute):
            fn = getattr(lookup(func.value.id), func.attr) if isinstance(func.value, ast.Name) else None
        else:
            fn = None
    except Exception:
        return None
    if fn is builtins.max or fn is builtins.min:
        return MAX if fn is builtins.max else MIN
    if isinstance(fn, Builtin) and fn.name in (MAX, MIN):
        return fn.name
    return None


def _conjuncts(test: ast.expr) -> list[ast.expr]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [c for v in test.values for c in _conjuncts(v)]
    return [test]


def _key_test(test: ast.expr, names: set[str]) -> tuple | None:
    """``(key name node, term, less)`` where one conjunct of ``test`` is ``term < key`` / ``key > term``
    (less) or ``term > key`` / ``key < term``, and no other part of the test reads ``names``."""
    found = None
    for part in _conjuncts(test):
        if not (_names_in(part) & names):
            continue
        if found is not None or not (isinstance(part, ast.Compare) and len(part.ops) == 1):
            return None
        left, right, op = part.left, part.comparators[0], part.ops[0]
        if not isinstance(op, (ast.Lt, ast.Gt)):
            return None
        if isinstance(right, ast.Name) and right.id in names and not (_names_in(left) & names):
            found = (right, left, isinstance(op, ast.Lt))
        elif isinstance(left, ast.Name) and left.id in names and not (_names_in(right) & names):
            found = (left, right, isinstance(op, ast.Gt))
        else:
            return None
    return found


def _plain(stmt: ast.AST, names: set[str]) -> ast.Name | None:
    """The target of ``v = e`` (``v`` of ``names``, ``e`` without any of them), else None."""
    if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id in names and not (_names_in(stmt.value) & names)):
        return stmt.targets[0]
    return None


def _guarded(stmt: ast.If, names: set[str]) -> tuple | None:
    """For ``if ... e < best ...: ...; best = e; ...``: ``(key, less, allowed name nodes, payloads,
    statements)``, the payloads being the other names of ``names`` assigned at the top of the branch."""
    found = _key_test(stmt.test, names)
    if found is None:
        return None
    key_node, term, less = found
    key, term_text, term_names = key_node.id, ast.dump(term), _names_in(term)
    allowed, payloads, assigned_before, matched, taken = [key_node], [], set(), False, []
    for s in stmt.body:
        stored = {n.id for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            target = s.targets[0]
            if target.id == key:
                # the best becomes the tested value, unchanged since the test
                if matched or ast.dump(s.value) != term_text or (term_names & assigned_before):
                    return None
                matched = True
                allowed.append(target)
                taken.append(s)
                continue
            if target.id in names:
                if _names_in(s.value) & names:
                    return None
                payloads.append(target.id)
                allowed.append(target)
                taken.append(s)
                continue
        assigned_before |= stored
    return (key, less, allowed, payloads, taken) if matched else None


def reductions(body: list[ast.stmt], names: set[str], lookup: Callable[[str], Any]) -> dict[str, Reduction] | None:
    """How each of ``names`` (variables of the enclosing scope the loop ``body`` assigns and reads)
    combines over pairs, or None when one of them is not a sum, extreme or key/payload (see the module
    docstring). ``lookup`` resolves the names of called functions."""
    kinds: dict[str, Reduction] = {}
    allowed: set[int] = set()
    in_guards: set[int] = set()  # the assignments of keys and payloads

    def claim(name: str, reduction: Reduction, *nodes: ast.AST | None) -> bool:
        if kinds.get(name, reduction) != reduction or (reduction.kind in (KEY, PAYLOAD) and name in kinds):
            return False
        kinds[name] = reduction
        allowed.update(id(n) for n in nodes if n is not None)
        return True

    for node in _walk(body):
        parts = accumulation(node)
        if parts is not None and parts[0].id in names:
            target, term, reference = parts
            if target.id in _names_in(term) or not claim(target.id, Reduction(SUM), target, reference):
                return None
            continue
        extreme = _extreme(node, names, lookup)
        if extreme is not None:
            kind, target, own, _ = extreme
            if not claim(target.id, Reduction(kind), target, own):
                return None
            continue
        if isinstance(node, ast.If):
            guard = _guarded(node, names)
            if guard is not None:
                key, less, nodes, payloads, taken = guard
                if not claim(key, Reduction(KEY, less=less), *nodes):
                    return None
                if any(not claim(p, Reduction(PAYLOAD, key=key)) for p in payloads):
                    return None
                in_guards.update(id(t) for t in taken)
                continue
        target = _plain(node, names)
        if target is not None and id(node) not in in_guards:  # (ast.walk reaches an if before its branches)
            if kinds.get(target.id, Reduction(LAST)) != Reduction(LAST):
                return None
            kinds[target.id] = Reduction(LAST)
            allowed.add(id(target))
    if any(id(n) not in allowed for n in _walk(body) if isinstance(n, ast.Name) and n.id in names):
        return None
    return kinds if set(kinds) == set(names) else None


# ------------------------------------------------------------------------------------------------
# lowering: per-pair starting values and the per-lane reductions


def flag_name(name: str) -> str:
    """The hidden local that records, per pair, whether the body assigned the last value ``name``."""
    return f"__assigned_{name}"


def flagged_body(body: list[ast.stmt], names: set[str]) -> list[ast.stmt]:
    """``body`` with ``__assigned_v = True`` after each assignment ``v = e`` to a name of ``names``
    (:func:`flag_name`; the others are shared, not copied)."""
    class Flagger(ast.NodeTransformer):
        def visit_Assign(self, node: ast.Assign) -> Any:
            target = node.targets[0] if len(node.targets) == 1 else None
            if not (isinstance(target, ast.Name) and target.id in names):
                return node
            flag = ast.Assign(targets=[ast.Name(id=flag_name(target.id), ctx=ast.Store())],
                              value=ast.Constant(value=True))
            return [node, ast.copy_location(flag, node)]

    if not names:
        return body
    out = []
    for stmt in body:
        new = Flagger().visit(copy.deepcopy(stmt))  # (same source positions: errors point at them)
        out.extend(new if isinstance(new, list) else [new])
    return [ast.fix_missing_locations(s) for s in out]


def last_columns(flags: Any) -> Any:
    """The last column of each row of ``flags`` ``(lanes, w)`` that is set (-1 where none is)."""
    column = jnp.broadcast_to(jnp.arange(flags.shape[1], dtype=jnp.int32)[None, :], flags.shape)
    return jnp.max(where(flags, column, -1), axis=1)


def _limit(dtype: np.dtype, high: bool) -> Any:
    """``+inf`` / ``-inf`` of a float type, else the integer type's largest / smallest value."""
    if np.issubdtype(dtype, np.floating):
        return dtype.type(np.inf if high else -np.inf)
    info = np.iinfo(dtype)
    return dtype.type(info.max if high else info.min)


def key_start(dtype: Any, less: bool) -> Any:
    """A key's starting value: the largest value for a key that keeps the smaller (``e < best``), else
    the smallest. A pair passes its test against it exactly where a finite value would pass."""
    return _limit(np.dtype(dtype), high=less)


def start_of(reduction: Reduction, dtype: Any) -> Any:
    """A pair's starting value of a variable reduced as ``reduction``: zero for sums, payloads and last
    values, :func:`key_start` for keys, NaN for float extremes (skipped by ``fmax``/``fmin``), else the
    integer type's smallest (max) or largest (min) value."""
    dtype = np.dtype(dtype)
    if reduction.kind in (SUM, PAYLOAD, LAST):
        return dtype.type(0)
    if reduction.kind == KEY:
        return key_start(dtype, reduction.less)
    if np.issubdtype(dtype, np.floating):
        return dtype.type(np.nan)
    return _limit(dtype, high=reduction.kind == MIN)


def combine_extreme(kind: str, a: Any, b: Any) -> Any:
    """``fmax``/``fmin`` of two lane arrays (NaN skipped; ints: max/min)."""
    if jnp.issubdtype(a.dtype, jnp.floating):
        return jnp.fmax(a, b) if kind == MAX else jnp.fmin(a, b)
    return jnp.maximum(a, b) if kind == MAX else jnp.minimum(a, b)


def best_columns(keys: Any, less: bool) -> tuple[Any, Any]:
    """``(best, column)`` per row of ``keys`` ``(lanes, w)``: the smallest (largest) key and the first
    column holding it (``w`` where no column passed its test, i.e. holds the starting extreme).
    Column by column, and the column as a min-reduce of column numbers: XLA's CPU code for a
    variadic (argmin) reduce fused with a body is scalar and several times slower."""
    w = keys.shape[1]
    best = keys[:, 0]
    for c in range(1, w):
        best = jnp.minimum(best, keys[:, c]) if less else jnp.maximum(best, keys[:, c])
    start = key_start(keys.dtype, less)
    column = jnp.broadcast_to(jnp.arange(w, dtype=jnp.int32)[None, :], keys.shape)
    hit = (keys == best[:, None]) & (best != start)[:, None]
    return best, jnp.min(where(hit, column, w), axis=1)


def replaces(less: bool, new: Any, old: Any) -> Any:
    """Where a later candidate's key replaces the best so far: strictly smaller (larger)."""
    return new < old if less else new > old


__all__ = ["KEY", "LAST", "MAX", "MIN", "PAYLOAD", "SUM", "Reduction", "best_columns", "combine_extreme", "key_start",
           "flag_name", "flagged_body", "last_columns", "reductions", "replaces", "start_of"]
