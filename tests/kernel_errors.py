"""Shared helper for tests of kernel-code errors: write a kernel to a real file (so messages can
name its file and line), launch it, and return the message of the exception it raises."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import jwarp as wp


def launch_error(tmp_path: Path, body: str, file_name: str = "error_kernel.py", prelude: str = "",
                 exc_type: type = Exception) -> str:
    """Source: ``import jwarp as wp``, ``prelude``, then ``@wp.kernel def k(out: wp.array(dtype=float))``
    whose body is ``body``; launched on one thread with ``wp.zeros(1)``. The error may come when the
    kernel is declared (a failing ``wp.static()`` expression, as in Warp) or when it is launched."""
    path = tmp_path / file_name
    path.write_text(f"import jwarp as wp\n\n{prelude}\n\n@wp.kernel\ndef k(out: wp.array(dtype=float)):\n    {body}\n")
    spec = importlib.util.spec_from_file_location(f"{path.stem}_{abs(hash((body, prelude)))}", path)
    module = importlib.util.module_from_spec(spec)
    with pytest.raises(exc_type) as info:
        spec.loader.exec_module(module)
        wp.launch(module.k, dim=1, inputs=[wp.zeros(1)])
    return str(info.value)


def body_line(tmp_path: Path, file_name: str = "error_kernel.py") -> str:
    """``file:line`` of the kernel body's statement in the file :func:`launch_error` wrote."""
    lines = (tmp_path / file_name).read_text().splitlines()
    return f"{file_name}:{len(lines)}"
