"""``while wp.hash_grid_query_next(query, index):`` loops that only accumulate, lowered as the
``for index in query`` loop they are equivalent to (see :mod:`jwarp.compiler.pair_loop`).

The while form visits the same candidates in the same order as the ``for`` form; the pair pass is
taken only when nothing can observe the difference:

- the test is exactly ``<query's *_next builtin>(query, index)`` (or an alias: ``wp.mesh_query_aabb_next``
  and ``wp.mesh_query_next``) with two variable names, ``index``
  an ``int32`` variable and ``query`` a query value whose type can be planned;
- ``query`` is assigned once in the function, by a plain assignment earlier in the same block as
  the loop, and read nowhere but in this loop's test (so each run of the loop starts from a fresh
  query, and the exhausted query is never looked at);
- ``index`` is read nowhere outside the loop (its final value, the last candidate, is never
  looked at) and not assigned in the body;
- the body qualifies as an accumulation (:func:`jwarp.compiler.pair_analysis.accumulators`), or as a
  search for the first hit (:mod:`jwarp.compiler.pair_exit`).

Anything else keeps the masked while loop.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Callable

from jwarp.compiler import pair_analysis, pair_loop
from jwarp.compiler.values import STATIC
from jwarp.lang import scalars

if TYPE_CHECKING:
    from jwarp.compiler.lower import FunctionLowerer


def _callee(lw: FunctionLowerer, func: ast.expr) -> Any:
    """The object a call's ``func`` names (a builtin), or None."""
    try:
        if isinstance(func, ast.Name):
            value = lw.lookup_in_call(func.id)
            return value.data if value.type is STATIC else None
        if isinstance(func, ast.Attribute):
            owner = _callee(lw, func.value)
            return None if owner is None else getattr(owner, func.attr, None)
    except Exception:
        return None
    return None


def _parents(tree: ast.AST) -> dict:
    return {id(child): parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}


def _block_of(parent: ast.AST, stmt: ast.stmt) -> list | None:
    for field in ("body", "orelse", "finalbody", "handlers"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and any(s is stmt for s in block):
            return block
    return None


def _fresh_query(tree: ast.AST, loop: ast.While, name: str) -> bool:
    """``name`` is stored once, by ``name = ...`` earlier in the loop's block, and read only in the
    loop's test."""
    test = {id(n) for n in ast.walk(loop.test)}
    stores, loads = [], []
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id == name:
            (stores if isinstance(n.ctx, ast.Store) else loads).append(n)
    if len(stores) != 1 or any(id(n) not in test for n in loads):
        return False
    parents = _parents(tree)
    assign = parents.get(id(stores[0]))
    if not (isinstance(assign, ast.Assign) and len(assign.targets) == 1 and assign.targets[0] is stores[0]):
        return False
    holder = parents.get(id(loop))
    block = None if holder is None else _block_of(holder, loop)
    if block is None:
        return False
    where = {id(s): k for k, s in enumerate(block)}
    return id(assign) in where and where[id(assign)] < where[id(loop)]


def lower_query_while(lw: FunctionLowerer, node: ast.While, record: Callable[[Any], None]) -> bool:
    """Lower ``node`` as a pass over (lane, candidate) pairs when it is an accumulating loop over a
    query's candidates (see the module docstring); False when it must stay a masked while loop."""
    test = node.test
    if node.orelse or not isinstance(test, ast.Call) or test.keywords or len(test.args) != 2:
        return False
    q, i = test.args
    if not (isinstance(q, ast.Name) and isinstance(i, ast.Name)) or q.id == i.id:
        return False
    query, index = lw.env.get(q.id), lw.env.get(i.id)
    if query is None or index is None or index.type is not scalars.int32:
        return False
    step = getattr(query.type, "_jwarp_query_next_", None)
    if step is None or getattr(query.type, "_jwarp_query_pairs_", None) is None:
        return False
    if getattr(_callee(lw, test.func), "name", None) not in getattr(query.type, "_jwarp_query_next_names_", (step,)):
        return False  # (a mesh query steps by mesh_query_aabb_next or its alias mesh_query_next)
    if not _fresh_query(lw.src.tree, node, q.id):
        return False
    loop = ast.copy_location(ast.For(target=ast.Name(id=i.id, ctx=ast.Store()), iter=test, body=node.body,
                                     orelse=[], type_comment=None), node)
    names = pair_analysis.accumulators(lw, loop, node)
    if names is not None:
        return pair_loop.lower_pairs(lw, loop, query, names, record)
    from jwarp.compiler import pair_exit

    exit_if = pair_exit.exit_split(lw, loop, node)
    return exit_if is not None and pair_exit.lower_first_hit(lw, loop, query, exit_if, record)


__all__ = ["lower_query_while"]
