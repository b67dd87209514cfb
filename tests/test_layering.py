"""Architecture gates: layering of imports and a size budget per module."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "jwarp"

# package -> packages it must not import
FORBIDDEN = {
    "lang": ("jwarp.compiler", "jwarp.runtime", "jwarp.builtins", "jwarp.interop"),
    "compiler": ("jwarp.runtime", "jwarp.interop"),
    "builtins": ("jwarp.runtime", "jwarp.interop"),
}


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
