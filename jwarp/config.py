"""Global settings (``wp.config``), mirroring Warp's ``warp.config`` module.

Assign attributes directly, as in Warp: ``wp.config.mode = "debug"``. Invalid values for
validated settings raise ``ValueError`` at assignment, with Warp's wording.

Example:
    >>> import jwarp as wp
    >>> wp.config.launch_array_access_mode = wp.config.LaunchArrayAccessMode.STRICT
    >>> wp.config.launch_array_access_mode = wp.config.LaunchArrayAccessMode.RELAXED
"""

import os as _os
import sys as _sys
import types as _types
from enum import IntEnum as _IntEnum


class LaunchArrayAccessMode(_IntEnum):
    """Array-access verification modes for kernel launches (Warp 1.19)."""

    RELAXED = 0
    CHECKED = 1
    STRICT = 2


class DeterministicMode(_IntEnum):
    """Warp's deterministic-atomics modes; jwarp's atomics are always deterministic."""

    NOT_GUARANTEED = 0
    RUN_TO_RUN = 1
    GPU_TO_GPU = 2


_MODES = ("release", "debug")


class _ConfigModule(_types.ModuleType):
    def __setattr__(self, name, value):
        if name == "launch_array_access_mode" and not isinstance(value, LaunchArrayAccessMode):
            raise ValueError(
                "warp.config.launch_array_access_mode must be a warp.config.LaunchArrayAccessMode value, "
                f"got {value!r}"
            )
        if name == "deterministic" and not isinstance(value, DeterministicMode):
            raise ValueError(f"warp.config.deterministic must be a warp.DeterministicMode value, got {value!r}")
        if name == "mode" and value not in _MODES:
            raise ValueError(f"warp.config.mode must be one of {_MODES}, got {value!r}")
        super().__setattr__(name, value)


launch_array_access_mode: LaunchArrayAccessMode = LaunchArrayAccessMode.RELAXED
deterministic: DeterministicMode = DeterministicMode.NOT_GUARANTEED
mode: str = "release"
"""``"debug"`` turns out-of-bounds array accesses into errors naming kernel, file and line."""
verify_fp: bool = False
"""Raise after a launch whose written arrays hold NaN or Inf (names kernel and array)."""
verify_cuda: bool = False
print_launches: bool = False
verbose: bool = False
verbose_warnings: bool = False
quiet: bool = False
cache_kernels: bool = True
kernel_cache_dir = None
enable_backward: bool = True
enable_cpu_blocks: bool = False
default_grid_stride: bool = True
max_unroll: int = 16
"""Range loops with constant bounds and at most this many iterations are unrolled."""
loop_unroll: int = 8
"""Unroll factor used for long uniform loops lowered to ``fori_loop`` (XLA:CPU rewards 4-32)."""
optimization_level = None
lineinfo: bool = False
line_directives: bool = True
track_memory: bool = False
enable_vector_component_overwrites: bool = False
legacy_scalar_return_types: bool = False
frontend_debug: bool = _os.environ.get("JWARP_FRONTEND_DEBUG", "0") not in ("", "0", "false")
"""Re-raise kernel compile errors with jwarp's own frames (for debugging jwarp itself)."""

_sys.modules[__name__].__class__ = _ConfigModule
