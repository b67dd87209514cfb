"""Modules (``wp.Module``, ``kernel.module``, ``wp.get_module``) and their options.

jwarp compiles per kernel and launch signature, so a module is a named namespace that carries
options (``wp.set_module_options`` / ``wp.get_module_options``) and knows its kernels;
``load`` / ``wp.load_module`` / ``wp.force_load`` have nothing to build ahead of a launch.

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


class Module:
    """A named group of kernels and functions sharing compile options (Warp's ``wp.Module``).

    Example:
        >>> import jwarp as wp
        >>> m = wp.get_module("my_module")
        >>> m.options["enable_backward"] = False
        >>> wp.get_module_options("my_module")["enable_backward"]
        False
    """

    def __init__(self, name: str | None, loader: Any = None):
        self.name = name
        self.loader = loader
        self.options: dict[str, Any] = _with_config_defaults(dict(_DEFAULTS))
        self.kernels: dict[str, Any] = {}
        self.functions: dict[str, Any] = {}
        self._version = 0

    def register_kernel(self, kernel: Any) -> None:
        self.kernels[kernel.key] = kernel

    def load(self, device: Any = None, block_dim: Any = None) -> bool:
        """Nothing to build ahead of a launch: kernels compile at their first launch."""
        return True

    def unload(self) -> None:
        """Drop the compiled executables of this module's kernels (they recompile on next launch)."""
        for k in self.kernels.values():
            k._cache.clear()
        self._version += 1

    def mark_modified(self) -> None:
        self.unload()

    def get_module_hash(self, block_dim: Any = None) -> str:
        """A content hash over the options and the kernels' sources (changes when either does)."""
        import hashlib

        h = hashlib.sha256(repr(sorted((k, repr(v)) for k, v in self.options.items())).encode())
        for key in sorted(self.kernels):
            h.update(key.encode())
            try:
                h.update(inspect.getsource(self.kernels[key].func).encode())
            except (OSError, TypeError):
                pass
        return h.hexdigest()

    def __repr__(self) -> str:
        return f"<jwarp module {self.name!r}>"


_MODULES: dict[str, Module] = {}


def get_module(name: str) -> Module:
    """The module object named ``name`` (made on first use), as ``wp.get_module``."""
    module = _MODULES.get(name)
    if module is None:
        module = _MODULES[name] = Module(name)
    return module


def _with_config_defaults(options: dict[str, Any]) -> dict[str, Any]:
    from jwarp import config

    for key, fallback in (("max_unroll", config.max_unroll), ("enable_backward", config.enable_backward),
                          ("block_dim", 256), ("deterministic", config.deterministic)):
        if options.get(key) is None:
            options[key] = fallback
    return options


def _caller_module(module: Any) -> str:
    if isinstance(module, Module):
        return module.name
    if module is None:
        frame = inspect.currentframe()
        caller = frame.f_back.f_back if frame and frame.f_back else None
        return caller.f_globals.get("__name__", "__main__") if caller else "__main__"
    return module if isinstance(module, str) else getattr(module, "__name__", str(module))


def set_module_options(options: dict[str, Any], module: Any = None) -> None:
    """Set compile options for every kernel of ``module`` (the calling module by default)."""
    name = _caller_module(module)
    _OPTIONS.setdefault(name, {}).update(options)
    get_module(name).options.update(options)


def get_module_options(module: Any = None) -> dict[str, Any]:
    """The options of ``module`` (the calling module by default); unset ones show the global
    configuration's value, as Warp reports them."""
    name = _caller_module(module)
    return _with_config_defaults(dict(get_module(name).options))


def module_options_for(module_name: str) -> dict[str, Any]:
    return {k: v for k, v in _OPTIONS.get(module_name, {}).items() if v is not None}


def load_module(module: Any = None, device: Any = None, recursive: bool = False, block_dim: Any = None) -> None:
    """No-op: jwarp compiles each kernel at its first launch for a signature."""


def force_load(device: Any = None, modules: Any = None, block_dim: Any = None) -> None:
    """No-op: jwarp compiles each kernel at its first launch for a signature."""
