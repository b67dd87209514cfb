r"""How the compiler shapes a kernel's loops from their source: which constant loops are unrolled
and by how much, and where a ``while`` loop's condition is lowered. Costs are counted in AST nodes,
with the bodies of the user functions a loop calls.

Example:
    >>> import ast
    >>> loop = ast.parse("for k in range(8):\n    c = wp.tile_matmul(a, b, c)").body[0]
    >>> keeps_tile_products_rolled(loop, 8)
    True
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

from jwarp import config


def keeps_tile_products_rolled(node: ast.For, trips: int) -> bool:
    """A constant loop accumulating ``wp.tile_matmul`` products (a tiled GEMM's k loop) stays a
    ``fori_loop``: XLA compiles the rolled loop of block products several times faster than the
    same products unrolled."""
    if trips < 4:
        return False
    return any(isinstance(n, ast.Call) and getattr(n.func, "attr", getattr(n.func, "id", None)) == "tile_matmul"
               for n in ast.walk(node))


UNROLL_BODY_LIMIT = 300
"""Largest loop body (AST nodes, with the bodies of the user functions it calls) that a long
constant loop unrolls ``wp.config.loop_unroll`` times. Warp's ``test_triangle_closest_point`` (a
1000-step loop whose body holds a ``while`` loop and calls a 50-line function) compiled for 134 s
with its body copied 32 times."""
_FUNCTION_SIZES: dict = {}


def unroll_factor(lw: Any, node: ast.For, trips: int) -> int:
    """How many iterations of a constant loop of ``trips`` steps one XLA loop step runs: up to
    ``wp.config.loop_unroll`` for a small body without loops of its own (the n-body kernel's), else 1
    (unrolled copies of a large body cost compile time, not run time)."""
    if keeps_tile_products_rolled(node, trips):
        return 1
    size = 0
    for stmt in node.body:
        for n in ast.walk(stmt):
            if isinstance(n, (ast.For, ast.While)):
                return 1
            size += 1
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                size += function_size(lw, n.func.id)
    return 1 if size > UNROLL_BODY_LIMIT else max(1, min(config.loop_unroll, trips))


def function_size(lw: Any, name: str) -> int:
    """AST nodes of the user function ``name`` refers to (a loop inside it counts as too large)."""
    target = lw.src.closure.get(name, lw.src.globals.get(name))
    python = getattr(target, "__wrapped__", None)
    if python is None or not hasattr(python, "__code__"):
        return 0
    if python not in _FUNCTION_SIZES:
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(python)))
        except (OSError, TypeError, SyntaxError):
            _FUNCTION_SIZES[python] = 0
        else:
            nodes = list(ast.walk(tree))
            loops = any(isinstance(n, (ast.For, ast.While)) for n in nodes)
            _FUNCTION_SIZES[python] = UNROLL_BODY_LIMIT + 1 if loops else len(nodes)
    return _FUNCTION_SIZES[python]


CONDITION_COPY_LIMIT = 40
"""Largest ``while`` condition (AST nodes, with the user functions it calls; a query's ``*_next``
counts as a traversal, larger than any limit) lowered twice, before the loop and at the end of each
iteration. A larger one, e.g. ``while wp.bvh_query_next(q, i)``, whose BVH walk is the loop's
largest code, is lowered once, at the top of each iteration: the loop then runs one more, masked,
iteration of its body. Measured, a kernel counting the boxes a BVH query finds (200000 lanes, 2-core
CPU): first launch 10.5-11.5 → 4.7-4.8 s, run 690-710 → 650 ms."""


def condition_size(lw: Any, test: ast.expr) -> int:
    """AST nodes of a loop condition, with the user functions it calls (see CONDITION_COPY_LIMIT)."""
    size = 0
    for n in ast.walk(test):
        size += 1
        if isinstance(n, ast.Call):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
            if name.endswith("_next"):
                return CONDITION_COPY_LIMIT + 1
            if isinstance(n.func, ast.Name):
                size += function_size(lw, n.func.id)
    return size


__all__ = ["CONDITION_COPY_LIMIT", "UNROLL_BODY_LIMIT", "condition_size", "function_size", "keeps_tile_products_rolled",
           "unroll_factor"]
