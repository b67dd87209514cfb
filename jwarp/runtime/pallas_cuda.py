"""Lower a launch on the Pallas path for the CUDA platform on any machine (no GPU needed).

The whole Pallas → Triton lowering runs on the CPU, so the tests check that eligible kernels emit a
Triton kernel without a GPU.

Example:
    >>> from jwarp.runtime.pallas_cuda import lower_for_cuda
    >>> text = lower_for_cuda(saxpy, 1 << 16, [x, y, 2.0], max_blocks=64)  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
from typing import Any

from jwarp.compiler.pallas_lower import lower_for_cuda_platform
from jwarp.runtime.device import get_device
from jwarp.runtime.pallas_select import CUDA_BLOCK_DIM, triton_plan
from jwarp.runtime.preparation import prepare


def lower_for_cuda(kernel: Any, dim: Any, inputs: list, block_dim: int = CUDA_BLOCK_DIM, max_blocks: int = 0,
                   mode: str = "always") -> str:
    """Lower a launch of ``kernel`` on the Pallas path for the CUDA platform, on any machine (no GPU
    needed): the whole Pallas → Triton lowering runs. Returns the StableHLO text, in which the kernel
    is a ``__gpu$xla.gpu.triton`` custom call. ``mode="always"`` raises for an ineligible kernel
    (naming the construct); ``"auto"`` returns the XLA lowering instead.

    Example:
        >>> text = lower_for_cuda(saxpy, 1 << 16, [x, y, 2.0], max_blocks=64)  # doctest: +SKIP
        >>> "xla.gpu.triton" in text  # doctest: +SKIP
        True
    """
    prepared = prepare(kernel, _dims(dim), list(inputs), get_device("cpu"), 1, 0)
    sig = dataclasses.replace(prepared.compiled.signature, block_dim=block_dim)
    operands = [*prepared.input_buffers(), *prepared.binding.values]
    return lower_for_cuda_platform(kernel.source, kernel.arg_names, sig, triton_plan(block_dim, max_blocks, mode),
                                   operands)


def _dims(dim: Any) -> tuple:
    return tuple(int(d) for d in dim) if isinstance(dim, (tuple, list)) else (int(dim),)


__all__ = ["lower_for_cuda"]
