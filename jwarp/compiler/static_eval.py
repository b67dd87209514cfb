"""``wp.static()`` expressions evaluated when a kernel is declared, as Warp does.

An outermost ``wp.static(expr)`` whose names are all visible from Python scope (globals and
closure, none of the kernel's own locals or parameters) is evaluated once at declaration; the
kernel then uses that value (a later change of a global it read does not change the kernel, and a
side-effecting expression runs once). Other static expressions (naming kernel locals, or names
not defined yet) are evaluated when the kernel is compiled (:func:`jwarp.compiler.calls._static`).

Example::

    evals = []
    def inner():
        evals.append(1)
        return 3.0

    @wp.kernel
    def k(a: wp.array(dtype=float)):
        a[wp.tid()] = wp.static(1.0 + wp.static(inner()))
    # len(evals) == 1 here, before any launch
"""

from __future__ import annotations

import ast
from typing import Any

from jwarp.compiler.source import FunctionSource, static_key
from jwarp.errors import WarpCodegenError, with_location


def _is_static_callee(func: ast.expr, scope: dict[str, Any]) -> bool:
    from jwarp.compiler.calls import StaticMarker

    if isinstance(func, ast.Name):
        obj = scope.get(func.id)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        obj = getattr(scope.get(func.value.id), func.attr, None)
    else:
        return False
    return isinstance(obj, StaticMarker)


def _kernel_names(tree: ast.FunctionDef) -> set[str]:
    """Names the kernel binds itself (parameters, assignment and loop targets)."""
    names = {a.arg for a in tree.args.args}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
    return names


def _free_names(expr: ast.expr) -> set[str]:
    bound = set()
    for node in ast.walk(expr):
        if isinstance(node, ast.comprehension):
            bound.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Lambda):
            bound.update(a.arg for a in node.args.args)
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - bound


def resolve_statics(source: FunctionSource) -> None:
    """Evaluate the kernel's outermost Python-scope ``wp.static()`` expressions now (see module doc)."""
    scope = dict(source.globals)
    scope.update(source.closure)
    local = _kernel_names(source.tree)

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Call) and _is_static_callee(node.func, scope):
            if len(node.args) == 1 and not node.keywords and not (_free_names(node.args[0]) & local):
                expr = ast.Expression(node.args[0])
                ast.fix_missing_locations(expr)
                try:
                    value = eval(compile(expr, source.file, "eval"), dict(scope))  # noqa: S307 - kernel source
                except NameError:  # a name defined later: evaluated when the kernel compiles
                    source.static_deferred = True
                    return
                except Exception as exc:  # as Warp: reported when the kernel is declared
                    raise with_location(WarpCodegenError(f"Error evaluating static expression: {exc}"),
                                        source.location(node)) from None
                source.static_values[static_key(node)] = value
                source.static_sources[static_key(node)] = ast.unparse(node.args[0])
            else:
                source.static_deferred = True
            return  # nested statics are part of the outer expression
        for child in ast.iter_child_nodes(node):
            visit(child)

    for stmt in source.tree.body:
        visit(stmt)
