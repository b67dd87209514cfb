"""``warp.examples`` for programs run with jwarp: where Warp's example sources and assets live.

jwarp ships no copy of Warp's examples or their assets (meshes, volumes). When warp-lang is
installed, these helpers point at its ``warp/examples`` folder, so Warp's examples run unchanged
with ``python -m jwarp.as_warp``; otherwise they raise ``FileNotFoundError`` naming what to install.

Example:
    >>> import jwarp.examples
    >>> jwarp.examples.get_asset_directory().endswith("assets")  # doctest: +SKIP
    True
"""

from __future__ import annotations

import importlib.util
import os


def get_source_directory() -> str:
    """The folder of Warp's shipped examples (from the installed warp-lang)."""
    spec = importlib.util.find_spec("warp")
    origin = getattr(spec, "origin", None) or ""
    if os.path.basename(os.path.dirname(origin)) == "jwarp":  # "warp" is aliased to jwarp: look past it
        origin = ""
        for entry in os.sys.path:
            candidate = os.path.join(entry or ".", "warp", "__init__.py")
            if os.path.isfile(candidate):
                origin = candidate
                break
    folder = os.path.join(os.path.dirname(origin), "examples") if origin else ""
    if not os.path.isdir(folder):
        raise FileNotFoundError("Warp's example sources and assets come with warp-lang: pip install warp-lang")
    return os.path.realpath(folder)


def get_asset_directory() -> str:
    """The folder of Warp's example assets (USD meshes, NanoVDB volumes, images)."""
    return os.path.join(get_source_directory(), "assets")
