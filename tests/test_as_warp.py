"""``jwarp.as_warp``: running a Warp program unchanged with jwarp standing in for ``warp``."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "jwarp.as_warp", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_script_imports_warp_and_its_submodules_as_jwarp(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import sys
        import numpy as np
        import warp as wp
        import warp.types
        from warp.types import vec3

        @wp.kernel
        def scale(a: wp.array(dtype=float), s: float):
            i = wp.tid()
            a[i] = a[i] * s

        a = wp.array(np.arange(4, dtype=np.float32))
        wp.launch(scale, dim=4, inputs=[a, float(sys.argv[1])])
        print(wp.__name__, warp.types.__name__, vec3.__module__.split(".")[0], a.numpy().tolist())
    """))
    proc = _run([str(script), "3"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["jwarp", "jwarp.types", "jwarp", "[0.0,", "3.0,", "6.0,", "9.0]"]


def test_missing_submodule_is_a_plain_import_error(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text("import warp.no_such_module\n")
    proc = _run([str(script)], tmp_path)
    assert proc.returncode != 0
    assert "ModuleNotFoundError" in proc.stderr and "warp.no_such_module" in proc.stderr


def test_usage_without_arguments(tmp_path):
    proc = _run([], tmp_path)
    assert proc.returncode == 2 and "usage" in proc.stdout


def test_alias_and_unalias_in_process():
    import jwarp
    import jwarp.as_warp

    saved = sys.modules.get("warp")
    try:
        jwarp.as_warp.alias_warp()
        import warp

        assert warp is jwarp
        jwarp.as_warp.unalias_warp()
        assert sys.modules.get("warp") is not jwarp
    finally:
        if saved is not None:
            sys.modules["warp"] = saved
