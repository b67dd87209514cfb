"""Lane masks: ``None`` means every lane, otherwise a bool leaf (constant, uniform or varying)."""

from __future__ import annotations

import ast
from typing import Any

import jax.numpy as jnp
import numpy as np

from jwarp.compiler.values import is_const, to_device_leaf

Mask = Any


def mask_and(a: Mask, b: Mask) -> Mask:
    if a is None:
        return b
    if b is None:
        return a
    if is_const(a):
        return b if bool(a) else a
    if is_const(b):
        return a if bool(b) else b
    return jnp.logical_and(a, b)


def mask_or(a: Mask, b: Mask) -> Mask:
    if a is None or b is None:
        return None
    if is_const(a):
        return None if bool(a) else b
    if is_const(b):
        return None if bool(b) else a
    return jnp.logical_or(a, b)


def mask_not(a: Mask) -> Mask:
    if a is None:
        return np.bool_(False)
    if is_const(a):
        return np.bool_(not bool(a))
    return jnp.logical_not(a)


def mask_andnot(a: Mask, b: Mask) -> Mask:
    """``a & ~b`` where ``b`` None means 'no lane' (an empty exit set)."""
    if b is None:
        return a
    return mask_and(a, mask_not(b))


def exits_or(a: Mask, b: Mask) -> Mask:
    """Union of two exit sets, where None means the empty set."""
    if a is None:
        return b
    if b is None:
        return a
    return jnp.logical_or(a, b)


def any_lane(mask: Mask) -> Any:
    """Scalar bool: is any lane set?"""
    if mask is None:
        return jnp.asarray(True)
    return jnp.any(mask)


def as_leaf(mask: Mask) -> Any:
    return jnp.asarray(True) if mask is None else jnp.asarray(mask)


class Touched:
    """The lanes that reach an assignment to one of ``names`` (set as ``FunctionLowerer.touched``,
    such assignments are skipped and only this is recorded: the values they would assign are never
    used, so XLA drops what only they need). The pass over query pairs uses it to find the pairs
    whose body adds a term (:mod:`jwarp.compiler.pair_loop`).

    Example:
        >>> t = Touched({"f"})
        >>> t.reach(None)  # every lane
        >>> t.lanes(2)
        Array([ True,  True], dtype=bool)
    """

    def __init__(self, names: set[str], depth: int = 0) -> None:
        self.names = names
        self.depth = depth  # the lowerer's loop depth where the recording started (see FunctionLowerer.bind)
        self.mask: Mask = np.bool_(False)
        self.statement: Any = None  # the statement being lowered (set by FunctionLowerer.exec)
        self.calls: dict[int, Mask] = {}  # id(ast.Call) of a user function -> lanes it returned nonzero

    def reach(self, active: Mask) -> None:
        self.mask = mask_or(self.mask, active)

    def term_lanes(self, name: str) -> Mask:
        """The lanes whose term the current statement adds to ``name`` may be nonzero: where the term
        is a call to a user function (``v += f(...)``, ``v = v - f(...)``), the lanes that reached
        one of its returns of something other than a constant zero; else every lane (None)."""
        term = added_term(self.statement, name)
        return self.calls.get(id(term)) if isinstance(term, ast.Call) else None

    def lanes(self, n: int) -> Any:
        """The lanes that reached an assignment, as an ``(n,)`` bool array."""
        return jnp.broadcast_to(jnp.asarray(True if self.mask is None else to_device_leaf(self.mask)), (n,))


def accumulation(stmt: Any) -> tuple[ast.Name, ast.expr, ast.Name | None] | None:
    """``stmt`` as an accumulation: ``(target, term, self_reference)`` for ``v += e``, ``v -= e``,
    ``v = v + e``, ``v = v - e`` or ``v = e + v`` (``self_reference``: the ``v`` read on the right,
    None for the augmented forms); else None."""
    if (isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, (ast.Add, ast.Sub))
            and isinstance(stmt.target, ast.Name)):
        return stmt.target, stmt.value, None
    if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.BinOp) and isinstance(stmt.value.op, (ast.Add, ast.Sub))):
        target, left, right = stmt.targets[0], stmt.value.left, stmt.value.right
        if isinstance(left, ast.Name) and left.id == target.id:
            return target, right, left
        if isinstance(right, ast.Name) and right.id == target.id and isinstance(stmt.value.op, ast.Add):
            return target, left, right
    return None


def added_term(stmt: Any, name: str) -> Any:
    """The expression ``stmt`` adds to (or subtracts from) ``name`` (see :func:`accumulation`), or None."""
    parts = accumulation(stmt)
    return parts[1] if parts is not None and parts[0].id == name else None
