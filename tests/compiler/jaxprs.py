"""Helpers for tests that look into a kernel's compiled program."""

from __future__ import annotations

from typing import Any


def count_primitive(jaxpr: Any, primitive: str) -> int:
    """Equations of ``primitive`` in ``jaxpr`` and the jaxprs nested in it."""
    total = 0
    for eqn in jaxpr.eqns:
        total += eqn.primitive.name == primitive
        for param in eqn.params.values():
            for sub in param if isinstance(param, (tuple, list)) else (param,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    total += count_primitive(inner, primitive)
    return total


def compiled_program(kernel: Any) -> Any:
    """The first compiled program of ``kernel`` that keeps its jaxpr."""
    return next(c for c in kernel._cache.values() if hasattr(c, "closed_jaxpr"))
