"""Notebooks under notebooks/ execute without error (so they can never rot). Kernels defined
in notebook cells exercise jwarp's source handling for IPython.

The selected notebooks execute side by side, each in a child process running ``nbclient`` (which
starts the notebook's own kernel process); each test then checks its notebook's outcome."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
TIMEOUT = 600  # seconds for all notebooks together

_EXECUTE = """
import sys
import nbclient, nbformat
nb = nbformat.read(sys.argv[1], as_version=4)
nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": sys.argv[2]}}).execute()
"""


@pytest.fixture(scope="module")
def outcomes(request) -> dict:
    """{notebook stem: (exit status or None on timeout, stderr)} for the notebooks this session runs."""
    pytest.importorskip("nbformat")
    pytest.importorskip("nbclient")
    selected = {item.callspec.params["path"] for item in request.session.items
                if item.module is request.module and hasattr(item, "callspec")}
    procs = {p.stem: subprocess.Popen([sys.executable, "-c", _EXECUTE, str(p), str(p.parent)],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for p in NOTEBOOKS if p in selected}
    results = {}
    for name, proc in procs.items():
        try:
            _, err = proc.communicate(timeout=TIMEOUT)
            results[name] = (proc.returncode, err)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
            results[name] = (None, err)
    return results


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, outcomes):
    status, err = outcomes[path.stem]
    assert status is not None, f"{path.name} did not finish within {TIMEOUT} s:\n{err[-4000:]}"
    assert status == 0, f"{path.name} failed:\n{err[-4000:]}"
