"""``@wp.kernel`` arguments: validated into the kernel's own option overrides (Warp 1.19 rules).

Only options the decorator actually sets appear (``kernel.options`` of a plain ``@wp.kernel`` is
``{}``); ``enable_cuda_smem_spilling=False`` is the default and is not recorded. jwarp honours
``enable_backward`` and ``grid_stride``; the CUDA code-generation options are validated and kept
so that they distinguish ``module="unique"`` kernels, as in Warp.

Example:
    >>> import jwarp as wp
    >>> @wp.kernel(launch_bounds=128)
    ... def k(a: wp.array(dtype=float)):
    ...     a[wp.tid()] = 1.0
    >>> k.options
    {'launch_bounds': 128}
"""

from __future__ import annotations

import re
from typing import Any, Callable

_MAX_CLUSTER_SIZE = 16
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def kernel_overrides(func: Callable, *, name: Any, enable_backward: Any, launch_bounds: Any,
                     cuda_max_registers: Any, enable_cuda_smem_spilling: Any, cluster_dim: Any,
                     entry_point_abi: Any, grid_stride: Any, pallas: Any = None) -> dict[str, Any]:
    """The ``options`` dict of a kernel made by ``@wp.kernel(...)`` with these arguments."""
    if name is not None:
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name)}")
        if not _IDENTIFIER.fullmatch(name):
            raise ValueError("name must be a non-empty valid C++ identifier matching [A-Za-z_][A-Za-z0-9_]*")
    options: dict[str, Any] = {}
    if enable_backward is not None:
        options["enable_backward"] = enable_backward
    if launch_bounds is not None:
        options["launch_bounds"] = launch_bounds
    if entry_point_abi is not None:
        if entry_point_abi not in ("warp", "external_constant_params"):
            raise ValueError(
                f"entry_point_abi must be 'warp' or 'external_constant_params', got {entry_point_abi!r}"
            )
        if entry_point_abi != "warp":
            options["entry_point_abi"] = entry_point_abi
    if entry_point_abi == "external_constant_params" and enable_backward is not False:
        raise ValueError("entry_point_abi='external_constant_params' requires enable_backward=False")
    if cuda_max_registers is not None:
        if launch_bounds is not None:
            raise ValueError("cuda_max_registers and launch_bounds cannot be specified together")
        options["cuda_max_registers"] = _positive_int("cuda_max_registers", cuda_max_registers)
    if enable_cuda_smem_spilling is not None:
        if not isinstance(enable_cuda_smem_spilling, bool):
            raise TypeError(
                "enable_cuda_smem_spilling must be a bool, got "
                f"{type(enable_cuda_smem_spilling).__name__}: {enable_cuda_smem_spilling!r}"
            )
        if enable_cuda_smem_spilling:
            options["enable_cuda_smem_spilling"] = True
    if grid_stride is not None:
        options["grid_stride"] = bool(grid_stride)
    if pallas is not None:  # jwarp extension: the kernel's Pallas mode (see runtime/pallas_select.py)
        if pallas not in ("auto", "always", "never"):
            raise ValueError(f"pallas must be 'auto', 'always' or 'never', got {pallas!r}")
        options["pallas"] = pallas
    if cluster_dim is not None:
        value = _positive_int("cluster_dim", cluster_dim)
        if value > _MAX_CLUSTER_SIZE:
            raise ValueError(f"cluster_dim must be <= {_MAX_CLUSTER_SIZE} (Hopper non-portable cap), got {value!r}")
        options["cluster_dim"] = value
    return options


def _positive_int(what: str, value: Any) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{what} must be a positive int, got bool {value!r}")
    if not isinstance(value, int):
        raise TypeError(f"{what} must be a positive int, got {type(value).__name__}: {value!r}")
    if value < 1:
        raise ValueError(f"{what} must be >= 1, got {value!r}")
    return value
