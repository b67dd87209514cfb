"""A kernel's thread-grid rank: the widest unpacking of a ``wp.tid()`` call in its body (Warp's rule).

The callee is resolved as the kernel will resolve it, so ``tid`` reached through an alias counts
(``t = wp.tid; i, j = t()``, a global bound to the builtin, ``namespace.tid()``), while a user
function that merely is *named* ``tid`` does not. A callee that cannot be resolved before the
kernel runs falls back to its name.

Example::

    @wp.kernel
    def k(out: wp.array2d(dtype=int)):
        t = wp.tid
        i, j = t()          # tid_rank(source of k) == 2
"""

from __future__ import annotations

import ast
from typing import Any

from jwarp.compiler.registry import Builtin
from jwarp.compiler.source import FunctionSource

_UNKNOWN = object()
_MAX_DEPTH = 8


def _is_tid(obj: Any) -> bool:
    return isinstance(obj, Builtin) and obj.name == "tid"


class _Resolver:
    def __init__(self, source: FunctionSource):
        self.scope = {**source.globals, **source.closure}
        self.locals: dict[str, list[ast.expr]] = {}
        params = {a.arg for a in source.tree.args.args}
        for node in ast.walk(source.tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.locals.setdefault(target.id, []).append(node.value)
        for name in params:
            self.locals.setdefault(name, [])

    def objects(self, expr: ast.expr, depth: int = 0) -> list[Any]:
        """The Python objects ``expr`` may name (``_UNKNOWN`` where it cannot be told)."""
        if depth > _MAX_DEPTH:
            return [_UNKNOWN]
        if isinstance(expr, ast.Name):
            if expr.id in self.locals:
                values = self.locals[expr.id]
                if not values:
                    return [_UNKNOWN]
                return [o for v in values for o in self.objects(v, depth + 1)]
            return [self.scope.get(expr.id, _UNKNOWN)]
        if isinstance(expr, ast.Attribute):
            out = []
            for base in self.objects(expr.value, depth + 1):
                out.append(_UNKNOWN if base is _UNKNOWN else getattr(base, expr.attr, _UNKNOWN))
            return out
        return [_UNKNOWN]

    def is_tid_call(self, node: ast.AST) -> bool:
        if not isinstance(node, ast.Call):
            return False
        candidates = self.objects(node.func)
        if any(_is_tid(o) for o in candidates):
            return True
        if all(o is not _UNKNOWN for o in candidates):
            return False
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        return name == "tid"


def tid_rank(source: FunctionSource) -> int:
    """The number of grid dimensions the kernel's ``wp.tid()`` calls unpack (1 when none does)."""
    resolver = _Resolver(source)
    widest = 0
    for node in ast.walk(source.tree):
        if isinstance(node, ast.Assign) and resolver.is_tid_call(node.value):
            target = node.targets[0]
            widest = max(widest, len(target.elts) if isinstance(target, ast.Tuple) else 1)
    return widest or 1
