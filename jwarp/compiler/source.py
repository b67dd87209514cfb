"""Kernel and function source: fetch, dedent, parse, and map AST nodes back to file lines.

Works for functions defined in files, inside other functions, and in notebook cells
(IPython registers cell sources in ``linecache``, which ``inspect`` reads).
"""

from __future__ import annotations

import ast
import inspect
import linecache
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
    # wp.static() values resolved when the kernel was declared, by the call's position (static_key)
    static_values: dict[tuple, Any] = field(default_factory=dict)
    static_sources: dict[tuple, str] = field(default_factory=dict)  # their expressions' text
    static_deferred: bool = False  # some wp.static() waits for compile time (it names kernel locals)

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


def static_key(node: ast.AST) -> tuple:
    """Where a call sits in its function's source (start and end: ``wp.static(f)(x)`` and its inner
    ``wp.static(f)`` start at the same place)."""
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


_CACHE: dict[Any, FunctionSource] = {}

# code object -> the lines of its file when the function was declared (kernels and functions read their
# source at declaration in Warp: a module loaded from a temporary file that is deleted right after still
# compiles); used only where ``inspect`` cannot read the source any more
_DECLARED: dict[Any, list[str]] = {}


def remember_declaration(func: Callable) -> None:
    """Keep the source lines ``func`` was declared with (a reference to ``linecache``'s list; cheap)."""
    code = getattr(func, "__code__", None)
    if code is None or code in _DECLARED:
        return
    lines = linecache.getlines(code.co_filename)
    if lines:
        _DECLARED[code] = lines


def _source_lines(func: Callable) -> tuple[list[str], int]:
    """``inspect.getsourcelines(func)``, else the block at the function's first line in the lines it was
    declared with (:func:`remember_declaration`)."""
    try:
        return inspect.getsourcelines(func)
    except (OSError, TypeError):
        lines = _DECLARED.get(getattr(func, "__code__", None))
        if not lines:
            raise
        first = func.__code__.co_firstlineno
        return inspect.getblock(lines[first - 1:]), first


def get_source(func: Callable) -> FunctionSource:
    """Parse ``func`` once (cached by its code object)."""
    key = func.__code__
    cached = _CACHE.get(key)
    if cached is not None and cached.func is func:
        return cached
    try:
        raw_lines, first_line = _source_lines(func)
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
    closure = closure_vars(func)
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


def closure_vars(func: Callable) -> dict[str, Any]:
    """The filled closure cells of ``func`` by name (empty cells — defined later — are left out)."""
    out: dict[str, Any] = {}
    if func.__closure__:
        for name, cell in zip(func.__code__.co_freevars, func.__closure__):
            try:
                out[name] = cell.cell_contents
            except ValueError:  # empty cell (defined later)
                pass
    return out


def refresh_closure(source: FunctionSource) -> None:
    """Re-read closure cells (their contents may change between launches)."""
    source.closure.update(closure_vars(source.func))


def function_annotations(func: Callable) -> dict[str, Any]:
    """``func``'s annotations with string ones (``from __future__ import annotations``) evaluated.

    Strings are evaluated in the function's globals with its closure variables as locals, so
    an annotation may name a local of an enclosing factory that the body also uses
    (``def make(foo): def fn(d: foo.Data): foo.compute() ...``). A string that cannot be
    evaluated raises an error naming the function, the parameter and the annotation.

    Example::

        from __future__ import annotations
        def fn(x: wp.vec3): ...
        function_annotations(fn)["x"] is wp.vec3
    """
    raw = dict(getattr(func, "__annotations__", None) or {})
    if not any(isinstance(a, str) for a in raw.values()):
        return raw
    scope = closure_vars(func)
    out: dict[str, Any] = {}
    for name, annotation in raw.items():
        if not isinstance(annotation, str):
            out[name] = annotation
            continue
        try:
            out[name] = eval(annotation, func.__globals__, scope)  # noqa: S307 (the user's own annotation)
        except Exception as exc:
            what = "return type" if name == "return" else f"argument '{name}'"
            raise WarpCodegenError(
                f"Could not evaluate the annotation {annotation!r} of {what} of '{func.__qualname__}': "
                f"{type(exc).__name__}: {exc}"
            ) from None
    return out


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
