"""Run one Warp-API program with real Warp and with jwarp, and compare what it computed.

A *program* is a plain Python file under ``programs/`` written against a global ``wp``
(never imported by the file itself). The harness loads the file twice as two separate
modules — once with ``wp`` bound to ``warp`` and once to ``jwarp`` — so both libraries read
the same kernel source from the same file. Each program defines ``run()`` returning a dict
of results (numpy arrays, numbers, or lists of them); the two dicts are compared.

Optional module attributes: ``RTOL``/``ATOL`` (tolerances, default 1e-5 / 1e-6),
``TOLERANCE = {key: (rtol, atol)}`` per result, ``EXPECT_ERROR = ExceptionType`` (both
libraries must raise it from ``run()``), ``SKIP_WARP = "reason"`` (jwarp-only checks),
``TIMEOUT = seconds`` (jwarp's ``run()`` happens in a child process that is killed after that
long, see :func:`run_isolated`: a program that could hang fails instead).
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import pickle
import select
import time
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np

PROGRAMS = Path(__file__).parent / "programs"

_warp = None


def real_warp():
    """The installed NVIDIA Warp, initialised quietly (None if not installed)."""
    global _warp
    if _warp is None:
        try:
            import warp
        except ImportError:
            return None
        warp.config.quiet = True
        warp.config.optimization_level = optimization_level()
        warp.init()
        _warp = warp
    return _warp


def optimization_level() -> int | None:
    """The ``optimization_level`` both libraries compile the programs' kernels at: 0 unless
    ``JWARP_TEST_OPT`` says otherwise (an integer, or ``default`` for each library's own level).

    Level 0 is the same IEEE arithmetic with less work in the compilers' backends (clang's for Warp,
    LLVM's inside XLA for jwarp): real Warp's builds of all programs take 63 s instead of 156 s
    (empty kernel cache), and jwarp's compiles of the slowest programs a fifth less."""
    level = os.environ.get("JWARP_TEST_OPT", "0")
    return None if level == "default" else int(level)


def warp_installed() -> bool:
    """Whether warp-lang can be imported (without importing it)."""
    return importlib.util.find_spec("warp") is not None


class WarpWorker:
    """Real Warp's side of the differential programs, in a child interpreter
    (``tests/differential/warp_worker.py``): :meth:`submit` a program, run jwarp's side, then
    :meth:`result` (the child's results, or its exception re-raised)."""

    def __init__(self) -> None:
        root = Path(__file__).resolve().parents[2]
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.differential.warp_worker"], cwd=root,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.submitted = 0  # requests sent (their numbers)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def submit(self, path: Path) -> None:
        """Send ``path``; requests are numbered, so :meth:`result` returns this one's reply even when
        an earlier test left its reply unread (it is skipped)."""
        from tests.differential.warp_worker import send

        self.submitted += 1
        send(self.proc.stdin, (self.submitted, str(path)))

    def result(self, timeout: float) -> Any:
        from tests.differential.warp_worker import receive

        deadline = time.monotonic() + timeout
        while True:
            ready, _, _ = select.select([self.proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                self.close()
                raise TimeoutError(f"real Warp's run did not finish within {timeout} s (worker killed)")
            number, ok, value = receive(self.proc.stdout)
            if number == self.submitted:
                break
        if not ok:
            raise value
        return value

    def close(self) -> None:
        if self.alive():
            self.proc.kill()
        self.proc.wait()


_worker: WarpWorker | None = None


def warp_worker() -> WarpWorker:
    """The session's :class:`WarpWorker` (started anew if it is not running)."""
    global _worker
    if _worker is None or not _worker.alive():
        _worker = WarpWorker()
    return _worker


@atexit.register
def _stop_worker() -> None:
    if _worker is not None and _worker.alive():
        _worker.proc.stdin.close()  # the worker ends at end of input
        try:
            _worker.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            _worker.close()


def load_program(path: Path, wp: Any, tag: str) -> types.ModuleType:
    """Load ``path`` as module ``<stem>__<tag>`` with the global ``wp`` set to ``wp``."""
    name = f"jwarp_prog_{path.stem}__{tag}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    module.wp = wp
    module.np = np
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_CHILD = """
import pickle, sys
import jwarp
from tests.differential.harness import _as_numpy, load_program
from pathlib import Path
result = load_program(Path(sys.argv[1]), jwarp, "jwarp").run()
sys.stdout.buffer.write(pickle.dumps(_as_numpy(result)))
"""


def run_isolated(path: Path, timeout: float) -> dict:
    """``run()`` of the program at ``path`` with jwarp, in a child process killed after ``timeout``
    seconds (``subprocess.TimeoutExpired``); its results as numpy values."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True, timeout=timeout, cwd=root)
    if done.returncode != 0:
        raise RuntimeError(f"{path.stem} failed in its child process:\n{done.stderr.decode()[-4000:]}")
    return pickle.loads(done.stdout)


def _as_numpy(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _as_numpy(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_as_numpy(v) for v in x]
    if hasattr(x, "numpy") and callable(x.numpy):
        return x.numpy()
    return np.asarray(x)


def compare(expected: dict, actual: dict, rtol: float, atol: float, per_key: dict, where: str) -> None:
    assert set(expected) == set(actual), f"{where}: result keys differ: {sorted(expected)} vs {sorted(actual)}"
    for key in expected:
        e, a = _as_numpy(expected[key]), _as_numpy(actual[key])
        r, t = per_key.get(key, (rtol, atol))
        _compare_one(e, a, r, t, f"{where}[{key}]")


def _compare_one(e: Any, a: Any, rtol: float, atol: float, where: str) -> None:
    if isinstance(e, dict):
        assert isinstance(a, dict), where
        for k in e:
            _compare_one(e[k], a[k], rtol, atol, f"{where}.{k}")
        return
    if isinstance(e, list):
        assert len(e) == len(a), f"{where}: lengths differ"
        for i, (x, y) in enumerate(zip(e, a)):
            _compare_one(x, y, rtol, atol, f"{where}[{i}]")
        return
    e, a = np.asarray(e), np.asarray(a)
    if e.dtype.names:
        for name in e.dtype.names:
            _compare_one(e[name], a[name], rtol, atol, f"{where}.{name}")
        return
    assert e.shape == a.shape, f"{where}: shape {a.shape} != Warp's {e.shape}"
    if e.dtype.kind in "fc":
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=where, equal_nan=True)
    else:
        np.testing.assert_array_equal(a, e, err_msg=where)
