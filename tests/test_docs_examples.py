"""Every ```python block of docs/porting.md runs (each in a fresh interpreter, from a file, since
kernels need readable source). Blocks whose first line contains ``# not-run`` are skipped."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "docs" / "porting.md"]
_BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


def python_blocks(path: Path) -> list[tuple[int, str]]:
    """``(line number, source)`` of each ```python block in ``path``."""
    text = path.read_text()
    return [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in _BLOCK.finditer(text)]


BLOCKS = [(path, line, source) for path in DOCS for line, source in python_blocks(path)]


def test_the_guide_has_examples():
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("path,line,source", BLOCKS, ids=[f"{p.stem}:{line}" for p, line, _ in BLOCKS])
def test_example_runs(path, line, source, tmp_path):
    first = source.splitlines()[0] if source.strip() else ""
    if "# not-run" in first:
        pytest.skip("marked # not-run")
    script = tmp_path / f"{path.stem}_line{line}.py"
    script.write_text(source)
    env = dict(os.environ, JAX_PLATFORMS=os.environ.get("JAX_PLATFORMS", "cpu"),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, f"{path.name}:{line} failed:\n{proc.stdout}\n{proc.stderr}"
