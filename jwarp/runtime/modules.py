"""Module options (``wp.set_module_options`` / ``wp.get_module_options``) and module loading.

jwarp compiles per kernel and launch signature, so a "module" is only a namespace for
options; ``wp.load_module`` / ``wp.force_load`` have nothing to build ahead of a launch and
return without work (documented no-ops).

Example:
    >>> import jwarp as wp
    >>> wp.set_module_options({"enable_backward": False}, module="my_module")
    >>> wp.get_module_options("my_module")["enable_backward"]
    False
"""

from __future__ import annotations

import inspect
from typing import Any

_OPTIONS: dict[str, dict[str, Any]] = {}
# Warp 1.19's module options. jwarp honours enable_backward, max_unroll, mode and block_dim; the
# others (code-generation switches of Warp's C++/CUDA backends) are accepted and reported unchanged.
_DEFAULTS = {
    "max_unroll": None, "enable_backward": None, "enable_mathdx_gemm": None, "enable_mathdx_solver": None,
    "enable_mathdx_fft": None, "fast_math": False, "fuse_fp": True, "lineinfo": False, "cuda_output": None,
    "mode": None, "optimization_level": None, "cpu_compiler_flags": None, "block_dim": None,
    "compile_time_trace": False, "strip_hash": False, "extra_build_options": None, "deterministic": None,
    "deterministic_max_records": 0, "default_grid_stride": None,
}


def _caller_module(module: Any) -> str:
    if module is None:
        frame = inspect.currentframe()
        caller = frame.f_back.f_back if frame and frame.f_back else None
        return caller.f_globals.get("__name__", "__main__") if caller else "__main__"
    return module if isinstance(module, str) else getattr(module, "__name__", str(module))


def set_module_options(options: dict[str, Any], module: Any = None) -> None:
    """Set compile options for every kernel of ``module`` (the calling module by default)."""
    name = _caller_module(module)
    _OPTIONS.setdefault(name, dict(_DEFAULTS)).update(options)


def get_module_options(module: Any = None) -> dict[str, Any]:
    """The options of ``module`` (the calling module by default); unset ones show the global
    configuration's value, as Warp reports them."""
    from jwarp import config

    name = _caller_module(module)
    out = dict(_OPTIONS.get(name, _DEFAULTS))
    for key, fallback in (("max_unroll", config.max_unroll), ("enable_backward", config.enable_backward),
                          ("block_dim", 256), ("deterministic", config.deterministic)):
        if out.get(key) is None:
            out[key] = fallback
    return out


def module_options_for(module_name: str) -> dict[str, Any]:
    return {k: v for k, v in _OPTIONS.get(module_name, {}).items() if v is not None}


def load_module(module: Any = None, device: Any = None, recursive: bool = False, block_dim: Any = None) -> None:
    """No-op: jwarp compiles each kernel at its first launch for a signature."""


def force_load(device: Any = None, modules: Any = None, block_dim: Any = None) -> None:
    """No-op: jwarp compiles each kernel at its first launch for a signature."""
