"""Run a program written for NVIDIA Warp, unchanged, with jwarp standing in for ``warp``.

``import warp as wp`` inside the program (and ``import warp.render``, ``from warp.types import
vec3``, ...) then resolves to jwarp and its submodules, so a Warp script or one of Warp's
shipped examples runs without a single edit::

    python -m jwarp.as_warp my_warp_script.py --num-frames 10
    python -m jwarp.as_warp -m warp.examples.core.example_wave --headless   # a module, as python -m

From Python, :func:`alias_warp` installs the same aliasing in the running interpreter (call it
before the program imports ``warp``).

Example:
    >>> import jwarp.as_warp, sys
    >>> jwarp.as_warp.alias_warp()
    >>> import warp
    >>> warp is sys.modules["jwarp"]
    True
    >>> jwarp.as_warp.unalias_warp()
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import runpy
import sys
from types import ModuleType
from typing import Sequence

_PREFIX = "warp."


class _WarpToJwarpFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves ``warp.X.Y`` to the already-imported or importable ``jwarp.X.Y`` (same object)."""

    def find_spec(self, fullname: str, path=None, target=None):  # noqa: ANN001 (importlib protocol)
        if fullname != "warp" and not fullname.startswith(_PREFIX):
            return None
        target_name = "jwarp" + fullname[len("warp"):]
        if importlib.util.find_spec(target_name) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module("jwarp" + spec.name[len("warp"):])

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the jwarp module was executed when it was imported."""


_FINDER = _WarpToJwarpFinder()


def alias_warp() -> None:
    """Make ``import warp`` (and ``warp.<submodule>``) import jwarp in this interpreter."""
    import jwarp

    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    sys.modules["warp"] = jwarp
    for name, module in list(sys.modules.items()):
        if name.startswith("jwarp.") and module is not None:
            sys.modules.setdefault("warp." + name[len("jwarp."):], module)


def unalias_warp() -> None:
    """Undo :func:`alias_warp` (``import warp`` finds the real package again, if installed)."""
    import jwarp

    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    for name, module in list(sys.modules.items()):
        if (name == "warp" or name.startswith(_PREFIX)) and getattr(module, "__name__", "").startswith("jwarp"):
            del sys.modules[name]
    assert "warp" not in sys.modules or sys.modules["warp"] is not jwarp


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: ``python -m jwarp.as_warp (SCRIPT | -m MODULE) [ARGS...]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.split("\n\n")[0])
        print("usage: python -m jwarp.as_warp (SCRIPT | -m MODULE) [ARGS...]")
        raise SystemExit(0 if args else 2)
    alias_warp()
    if args[0] == "-m":
        if len(args) < 2:
            raise SystemExit("python -m jwarp.as_warp: -m needs a module name")
        sys.argv = [args[1], *args[2:]]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = args
        runpy.run_path(args[0], run_name="__main__")


if __name__ == "__main__":
    main()
