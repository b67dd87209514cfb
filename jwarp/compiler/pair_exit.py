"""Query ``for`` loops that stop at their first hit, lowered as a pass over (lane, candidate) pairs.

A loop such as Warp's mesh-intersection example::

    for f in wp.mesh_query_aabb(mesh, lower, upper):
        u0 = wp.mesh_eval_position(mesh, f, 1.0, 0.0)   # the prelude: no side effects
        ...
        if wp.intersect_tri_tri(v0, v1, v2, u0, u1, u2) > 0:   # the exit test
            result[batch] = 1                                 # the exit block, once per lane
            return                                            # (or break)

does nothing but look for the first candidate that passes a test, then runs its exit block once.
As a masked while loop it runs in lockstep over all lanes until the lane with the most candidates
before its hit is done. Instead :func:`jwarp.compiler.pair_loop.lower_pairs` runs the prelude and
the test over (lane, candidate) pairs and keeps each lane's first passing candidate (candidates
come in the loop's order), and the lanes that found one run the whole body once more for it, as
the loop would on its last iteration: the prelude again (it is pure), then the test (true again)
and the exit block, with stores, ``return`` and ``break`` lowered as usual.

The ``while wp.mesh_query_next(query, index)`` form comes here through
:mod:`jwarp.compiler.pair_while` on the same terms. The loop qualifies when its body is a prelude
and a final ``if`` without ``else`` whose block ends in ``return`` or ``break``; the prelude and the
test have no side effects (:func:`jwarp.compiler.pair_analysis.pure_statements`), the prelude assigns
only names new to the loop that are not read after it, the loop target is new too, and the exit
block holds no other ``break``, ``continue`` or ``return``. Anything else keeps the masked while
loop (also when lowering the pass finds the prelude changing a variable of the enclosing scope).

Example (inside the compiler):
    >>> test = exit_split(lw, node)  # doctest: +SKIP
    >>> done = test is not None and lower_first_hit(lw, node, query, test, record)  # doctest: +SKIP
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import jax.numpy as jnp

from jwarp.compiler import pair_analysis, pair_loop
from jwarp.compiler.loop_carry import assigned_names
from jwarp.compiler.masks import mask_and, mask_andnot
from jwarp.compiler.values import Value
from jwarp.lang import scalars

if TYPE_CHECKING:
    from jwarp.compiler.lower import FunctionLowerer

_HIT = "__first_hit_{}_{}"


def exit_split(lw: FunctionLowerer, node: ast.For, loop: ast.stmt | None = None) -> ast.If | None:
    """The final ``if`` of a loop that qualifies (see the module docstring), or None. ``loop``: the
    ``while`` loop ``node`` stands for (see :mod:`jwarp.compiler.pair_while`), whose target is a
    variable assigned before it: only its reads elsewhere count."""
    if not pair_analysis.pairs_possible(lw) or not node.body or node.orelse:
        return None
    last = node.body[-1]
    if not isinstance(last, ast.If) or last.orelse or not isinstance(last.body[-1], (ast.Return, ast.Break)):
        return None
    exits = (ast.Return, ast.Break, ast.Continue)
    if any(isinstance(n, exits) for s in last.body[:-1] for n in ast.walk(s)):
        return None
    prelude = node.body[:-1]
    temps = assigned_names(prelude) | {node.target.id}
    loads = frozenset({node.target.id}) if loop is not None else frozenset()
    if (temps - loads) & set(lw.env) or pair_analysis.observed_outside(lw.src.tree, loop or node, temps, loads):
        return None

    if not pair_analysis.pure_statements(lw, [*prelude, ast.Expr(last.test)]):
        return None
    return last


def lower_first_hit(lw: FunctionLowerer, node: ast.For, query: Value, exit_if: ast.If, record) -> bool:
    """Lower the loop as a first-hit pass over pairs and the exit of the lanes that hit; False when
    the query cannot be planned or the body does not qualify after all (nothing is lowered then)."""
    from jwarp.compiler.control import LoopFrame

    hit = _HIT.format(node.lineno, node.col_offset)
    grid = tuple(lw.ctx.grid)
    lw.env[hit] = Value(scalars.int32, jnp.full(grid, -1, jnp.int32))
    if not pair_loop.lower_pairs(lw, node, query, set(), record, exit_if=exit_if, first_hit=hit):
        del lw.env[hit]
        return False
    first = lw.env.pop(hit).data
    entry = lw.active
    declared = lw.env.get(node.target.id)  # (a while loop's index, not read after the loop)
    lw.env[node.target.id] = Value(scalars.int32, first)
    lw.active = mask_and(entry, first >= 0)
    loop = LoopFrame()
    lw.loops.append(loop)
    try:
        lw.exec_block(node.body)  # the prelude again for the hit, the test (true) and the exit block
    finally:
        lw.loops.pop()
    returns = isinstance(exit_if.body[-1], ast.Return)
    lw.active = mask_andnot(entry, lw.frame.returned) if returns else entry
    for name in assigned_names(node.body[:-1]) | {node.target.id}:
        lw.env.pop(name, None)  # (not read after the loop)
    if declared is not None:
        lw.env[node.target.id] = declared
    return True


__all__ = ["exit_split", "lower_first_hit"]
