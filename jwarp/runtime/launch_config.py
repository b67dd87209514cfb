"""Launch geometry and options: Warp's rules for ``dim``, ``block_dim``, ``max_blocks`` and the
launch device, shared by ``wp.launch``, ``wp.Launch`` objects, tapes and the JAX interop.

Nothing here runs a kernel; every function is a pure check or conversion.

Example:
    >>> from jwarp.runtime.launch_config import normalize_dim, launch_grid
    >>> normalize_dim([2, 3])
    ((2, 3), 6)
    >>> launch_grid((2, 3, 4), kernel_dim=2)  # extra dimensions fold into one trailing axis
    (2, 3, 4)
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from jwarp import config
from jwarp.lang.arrays import type_name
from jwarp.runtime.device import Device, get_device
from jwarp.runtime.streams import Stream

LAUNCH_MAX_DIMS = 4


def normalize_dim(dim: Any) -> tuple[tuple[int, ...], int]:
    """Warp's launch-dimension rules: an int or a sequence of at most 4 non-negative ints (numpy
    integers accepted); ``()`` is one thread. Non-integers raise ``TypeError``, negative extents
    and more than 4 dimensions ``ValueError``."""
    if isinstance(dim, int):
        out = (dim,)
    elif isinstance(dim, tuple) and all(isinstance(d, int) for d in dim):
        out = dim
    else:
        try:
            items = iter(dim)
        except TypeError:
            out = (operator.index(dim),)
        else:
            out = tuple(d if isinstance(d, int) else operator.index(d) for d in items)
    if len(out) > LAUNCH_MAX_DIMS:
        raise ValueError(f"Launch dimensions must have at most {LAUNCH_MAX_DIMS} dimensions")
    total = 1
    for d in out:
        if d < 0:
            raise ValueError("Launch dimensions must be non-negative")
        total *= d
    return out, total


def launch_grid(dim: tuple[int, ...], kernel_dim: int) -> tuple[int, ...]:
    """Lane grid for ``dim``: padded with 1s to the kernel's tid rank; extra dims fold into one
    trailing axis whose lanes share coordinates (Warp's ``coord_mult``)."""
    padded = dim + (1,) * max(0, kernel_dim - len(dim))
    kept, extras = padded[:kernel_dim], padded[kernel_dim:]
    if extras:
        return kept + (int(np.prod(extras)),)
    return kept


def resolve_block_dim(device: Device, block_dim: int | None) -> int:
    """Warp 1.19: None/non-positive → 1 on CPU, 256 elsewhere; on CPU values above 1 apply only with
    ``config.enable_cpu_blocks`` and values above 1024 raise ``ValueError``."""
    default = 1 if device.is_cpu else 256
    if block_dim is None or block_dim <= 0:
        return default
    if not device.is_cpu:
        return int(block_dim)
    if block_dim > 1024:
        raise ValueError(f"block_dim must be at most 1024 on CPU, got {block_dim}")
    return int(block_dim) if config.enable_cpu_blocks else 1


def launch_device(kernel: Any, device: Any, stream: Any) -> Device:
    """The launch device: the stream's device when a stream is given (as in Warp), else ``device``."""
    if stream is None:
        return get_device(device)
    if not isinstance(stream, Stream):
        raise TypeError(
            f"Error launching kernel '{getattr(kernel, 'key', kernel)}': stream must be a wp.Stream, "
            f"got {type(stream).__name__}"
        )
    return stream.device


def check_launch_config(kernel: Any, device: Device, block_dim: int, max_blocks: int) -> None:
    """Warp's launch-time rules for ``max_blocks`` / ``block_dim`` on non-CPU devices."""
    if device.is_cpu:
        return
    if max_blocks > 0 and not kernel.grid_stride:
        raise RuntimeError(
            f"Kernel '{kernel.key}' was launched with max_blocks={max_blocks}, but it was compiled without a "
            "grid-stride loop (grid_stride=False); capping the block count requires a grid-stride loop. Opt the "
            'kernel into grid-stride via @wp.kernel(grid_stride=True), the "default_grid_stride" module option, or '
            "wp.config.default_grid_stride=True; or drop max_blocks."
        )
    if block_dim > 1024:
        raise RuntimeError(
            f"Error launching kernel: {kernel.key} on device {device}: block_dim={block_dim} exceeds the maximum of "
            "1024 threads per block"
        )


def overload_signature(params: Sequence) -> str:
    """A generic kernel's instantiated signature, from its bound parameter specs."""

    def describe(spec: Any) -> str:
        if hasattr(spec, "dtype") and hasattr(spec, "shape"):
            return f"array({type_name(spec.dtype)},{len(spec.shape)})"
        if hasattr(spec, "dtype") and hasattr(spec, "ndim"):
            return f"array({type_name(spec.dtype)},{spec.ndim})"
        return type_name(getattr(spec, "type", spec))

    return ",".join(describe(p) for p in params)


__all__ = ["LAUNCH_MAX_DIMS", "check_launch_config", "launch_device", "launch_grid", "normalize_dim",
           "overload_signature", "resolve_block_dim"]
