"""Architecture gates: layering of imports, the runtime's import graph, and a size budget per module.

Layers (docs/architecture.md): lang <- compiler <- builtins <- runtime <- interop. Inside the runtime
the launch stack reads top-down (launch -> commands/adjoint/fastpath -> preparation -> execution ->
binding/kernel/array); its modules are in no import cycle and import nothing inside functions.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "jwarp"

# package -> packages it must not import
FORBIDDEN = {
    "lang": ("jwarp.compiler", "jwarp.runtime", "jwarp.builtins", "jwarp.interop"),
    "compiler": ("jwarp.runtime", "jwarp.interop"),
    "builtins": ("jwarp.runtime", "jwarp.interop"),
    "runtime": ("jwarp.interop",),  # upper layers plug in through hooks (runtime/execution.py)
}

# The runtime modules that run launches: no import cycle, no function-local imports, no private
# names imported from other modules.
LAUNCH_STACK = (
    "adjoint", "binding", "capture", "commands", "compile_cache", "execution", "fastpath", "launch",
    "launch_config", "modules", "preparation", "read_flags", "tape", "tape_chain", "tape_state", "tape_view",
)
# Ceilings for what is left elsewhere in the runtime (lower them as cycles are broken; never raise):
# the array module family (array <-> creation/indexed/copying) is the remaining cycle; kernel.py and
# overloads.py import each other inside functions.
MAX_RUNTIME_CYCLE = 4
MAX_FUNCTION_LOCAL_IMPORTS = 5  # runtime modules imported inside runtime functions


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
    return out


def test_layering():
    problems = []
    for package, forbidden in FORBIDDEN.items():
        for path in (PACKAGE / package).rglob("*.py"):
            for name in _imports(path):
                if name.startswith(forbidden):
                    problems.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert not problems, "\n".join(problems)


def _function_local_imports(path: Path, prefix: str = "jwarp") -> list[ast.AST]:
    """Imports of modules under ``prefix`` made inside function bodies of ``path``."""
    tree = ast.parse(path.read_text())
    inner = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
             for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))}
    out = []
    for node in ast.walk(tree):
        if id(node) not in inner:
            continue
        name = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
        if name and (name == prefix or name.startswith(prefix + ".")):
            out.append(node)
    return out


def _runtime_graph() -> dict[str, set[str]]:
    """Runtime module -> runtime modules it imports (module level and inside functions alike)."""
    runtime = PACKAGE / "runtime"
    names = {p.stem for p in runtime.glob("*.py") if p.stem != "__init__"}
    graph: dict[str, set[str]] = {}
    for name in names:
        found = set()
        for node in ast.walk(ast.parse((runtime / f"{name}.py").read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                candidates = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                candidates = [a.name for a in node.names]
            else:
                continue
            for c in candidates:
                if c.startswith("jwarp.runtime.") and c.split(".")[2] in names:
                    found.add(c.split(".")[2])
        graph[name] = found - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_runtime_import_cycles():
    cycles = _cycles(_runtime_graph())
    in_stack = [sorted(c) for c in cycles if c & set(LAUNCH_STACK)]
    assert not in_stack, f"launch-stack modules in an import cycle: {in_stack}"
    too_big = [sorted(c) for c in cycles if len(c) > MAX_RUNTIME_CYCLE]
    assert not too_big, f"runtime import cycles over {MAX_RUNTIME_CYCLE} modules: {too_big}"


def test_no_function_local_imports_to_dodge_cycles():
    runtime = PACKAGE / "runtime"
    stack = [f"{m}.py: line {n.lineno}" for m in LAUNCH_STACK for n in _function_local_imports(runtime / f"{m}.py")]
    assert not stack, "function-local imports in the launch stack:\n" + "\n".join(stack)
    found = [f"{p.name}: line {n.lineno}" for p in runtime.rglob("*.py")
             for n in _function_local_imports(p, "jwarp.runtime")]
    assert len(found) <= MAX_FUNCTION_LOCAL_IMPORTS, (
        f"{len(found)} runtime modules imported inside runtime functions (ceiling {MAX_FUNCTION_LOCAL_IMPORTS}): "
        "import at module level, or move the code to the layer it belongs to\n" + "\n".join(found)
    )


def test_launch_stack_imports_no_private_names():
    problems = []
    for name in LAUNCH_STACK:
        tree = ast.parse((PACKAGE / "runtime" / f"{name}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("jwarp"):
                problems += [f"{name}.py imports {node.module}.{a.name}" for a in node.names
                             if a.name.startswith("_") and a.name != "__version__"]
    assert not problems, "\n".join(problems)


def test_runtime_never_parses_kernels():
    for path in (PACKAGE / "runtime").rglob("*.py"):
        assert "ast" not in _imports(path) or path.name == "kernel.py", f"{path} imports ast"


def test_file_sizes():
    too_big = []
    for path in PACKAGE.rglob("*.py"):
        lines = len(path.read_text().splitlines())
        if lines > 600:
            too_big.append(f"{path.relative_to(PACKAGE)}: {lines} lines")
    assert not too_big, "modules over 600 lines:\n" + "\n".join(too_big)


def test_extension_exports_are_strict(monkeypatch):
    """``jwarp/_extensions.py`` exports every listed name or raises; it never skips one silently."""
    import pytest

    from jwarp import _extensions

    monkeypatch.setitem(_extensions._EXPORTS, "jwarp.runtime.tape", ["Tape", "NoSuchName"])
    with pytest.raises(AttributeError, match="NoSuchName"):
        _extensions.export({})
