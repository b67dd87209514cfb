"""Which launches run on the Pallas target (``wp.config.pallas``, module and kernel options).

:func:`pallas_plan` turns a launch's device, ``block_dim`` and ``max_blocks`` into the
:class:`~jwarp.compiler.pallas_lower.PallasPlan` its signature carries, or ``None`` for the XLA path:

- the mode is the kernel's ``pallas`` option (``@wp.kernel(pallas="always")``), else its module's
  (``wp.set_module_options({"pallas": ...})``), else ``wp.config.pallas``;
- ``"never"``: XLA; ``"auto"``: Pallas on a real CUDA device for launches that pass ``max_blocks``
  or a ``block_dim`` other than the device default (the compiler falls back to XLA where the
  kernel is ineligible); ``"always"``: Pallas everywhere, interpret mode off CUDA;
- kernels using tiles keep the XLA path (their blocks cooperate through dense tile values).

Example:
    >>> import jwarp as wp
    >>> wp.config.pallas = "always"     # every launch through pallas_call (interpret mode on CPU)
    >>> wp.config.pallas = "auto"
"""

from __future__ import annotations

from typing import Any

from jwarp import config
from jwarp.compiler.pallas_lower import PallasPlan

CUDA_BLOCK_DIM = 256  # Warp's default block_dim on CUDA
CPU_LANES = 32  # lanes per program in interpret mode when the launch has block_dim 1 (the CPU default)


def pallas_mode(kernel: Any) -> str:
    """The kernel's effective ``pallas`` mode: its option, its module's, else ``wp.config.pallas``."""
    mode = kernel.options.get("pallas") or kernel.module.options.get("pallas") or config.pallas
    if mode not in config.PALLAS_MODES:
        raise ValueError(f"Kernel '{kernel.key}': the pallas option must be one of {config.PALLAS_MODES}, got {mode!r}")
    return mode


def _next_power_of_two(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


def pallas_plan(kernel: Any, device: Any, block_dim: int, max_blocks: int) -> PallasPlan | None:
    """The launch's Pallas plan, or None for the XLA path."""
    mode = pallas_mode(kernel)
    if mode == "never" or kernel.uses_tiles:
        return None
    on_gpu = device.is_cuda and not getattr(device, "is_simulated", False)
    if mode == "auto" and not (on_gpu and (max_blocks > 0 or block_dim != CUDA_BLOCK_DIM)):
        return None
    backend = "triton" if on_gpu else "interpret"
    threads = block_dim if block_dim > 1 else (CUDA_BLOCK_DIM if on_gpu else CPU_LANES)
    programs = max_blocks if max_blocks > 0 and kernel.grid_stride else 0
    return PallasPlan(backend=backend, mode=mode, block_dim=threads, lanes=_next_power_of_two(threads),
                      programs=programs, verbose=bool(config.verbose))


def triton_plan(block_dim: int, max_blocks: int, mode: str = "always") -> PallasPlan:
    """The plan of a CUDA launch with ``block_dim`` threads per block and ``max_blocks``."""
    threads = block_dim if block_dim > 1 else CUDA_BLOCK_DIM
    return PallasPlan(backend="triton", mode=mode, block_dim=threads, lanes=_next_power_of_two(threads),
                      programs=max(0, max_blocks), verbose=bool(config.verbose))


__all__ = ["pallas_plan", "pallas_mode", "triton_plan"]
