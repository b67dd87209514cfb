"""Kernel and function source: fetch, dedent, parse, and map AST nodes back to file lines.

Works for functions defined in files, inside other functions, and in notebook cells
(IPython registers cell sources in ``linecache``, which ``inspect`` reads).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable

from jwarp.errors import SourceLocation, WarpCodegenError


@dataclass
class FunctionSource:
    """Parsed source of one Python function, with what its body can name."""

    func: Callable
    name: str
    file: str
    first_line: int
    indent: int
    lines: list[str]
    tree: ast.FunctionDef
    closure: dict[str, Any] = field(default_factory=dict)

    @property
    def globals(self) -> dict[str, Any]:
        return self.func.__globals__

    def location(self, node: ast.AST | None) -> SourceLocation:
        line = getattr(node, "lineno", self.tree.lineno)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        col = getattr(node, "col_offset", 0) or 0
        end_line = getattr(node, "end_lineno", line)
        end_col = getattr(node, "end_col_offset", None) if end_line == line else None
        return SourceLocation(
            function=self.name,
            file=self.file,
            line=self.first_line + line - 1,
            col=col + self.indent,
            end_col=None if end_col is None else end_col + self.indent,
            text=" " * self.indent + text,
        )


_CACHE: dict[Any, FunctionSource] = {}


def get_source(func: Callable) -> FunctionSource:
    """Parse ``func`` once (cached by its code object)."""
    key = func.__code__
    cached = _CACHE.get(key)
    if cached is not None and cached.func is func:
        return cached
    try:
        raw_lines, first_line = inspect.getsourcelines(func)
    except (OSError, TypeError) as exc:
        raise WarpCodegenError(
            f"Could not read the source of '{func.__qualname__}': {exc}. Kernels must be defined in a file or a "
            "notebook cell (not via exec/eval)."
        ) from None
    raw = "".join(raw_lines)
    dedented = textwrap.dedent(raw)
    first = raw_lines[0]
    indent = len(first) - len(first.lstrip()) if dedented != raw else 0
    module = ast.parse(dedented)
    tree = next(n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    if isinstance(tree, ast.AsyncFunctionDef):
        raise WarpCodegenError(f"async functions cannot be kernels ('{func.__qualname__}')")
    closure = {}
    if func.__closure__:
        for name, cell in zip(func.__code__.co_freevars, func.__closure__):
            try:
                closure[name] = cell.cell_contents
            except ValueError:  # empty cell (defined later)
                pass
    source = FunctionSource(
        func=func,
        name=func.__name__,
        file=inspect.getsourcefile(func) or func.__code__.co_filename,
        first_line=first_line,
        indent=indent,
        lines=dedented.splitlines(),
        tree=tree,
        closure=closure,
    )
    _CACHE[key] = source
    return source


def refresh_closure(source: FunctionSource) -> None:
    """Re-read closure cells (their contents may change between launches)."""
    func = source.func
    if func.__closure__:
        for name, cell in zip(func.__code__.co_freevars, func.__closure__):
            try:
                source.closure[name] = cell.cell_contents
            except ValueError:
                pass


def check_stub_body(stub: Callable) -> None:
    """A ``@wp.overload`` stub may only hold ``...``, ``pass`` or a docstring (Warp's rule)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(stub)))
    except (OSError, TypeError):  # no source (an interactive session): nothing to check
        return
    fn = tree.body[0] if tree.body else None
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise RuntimeError(f"Kernel overload '{stub.__name__}' must begin with a function definition")
    for node in fn.body:
        if isinstance(node, ast.Pass):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            if isinstance(node.value.value, str) or node.value.value is ...:
                continue
        raise RuntimeError(
            "Illegal statement in kernel overload definition.  Only pass, ellipsis (...), comments, or "
            "docstrings are allowed"
        )
