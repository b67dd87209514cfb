"""Launch sizes in buckets: a kernel launched at many sizes compiles once per bucket, not per size.

XLA compiles a program for static shapes, so a launch's lane count is part of its signature: a
kernel launched with ``dim=1000``, then ``dim=1001`` over the same arrays, would be traced and
compiled twice (seconds for a geometry query kernel), where Warp compiles a kernel once whatever
its launch size. So once a 1-D kernel has been compiled for one size, a launch at another size (its
arrays' shapes and every other part of its signature unchanged) runs the program of its *bucket*:
:func:`bucket` lanes, of which the first ``dim`` are the launch's threads and the others are masked
off (they load nothing, store nothing, count in no atomic; the lane count is a run-time operand of
the program). Buckets are 4 per doubling, so at most a fifth of a bucketed launch's lanes idle.

The first size a kernel is launched at keeps its exact program (no idle lanes), and so does any
size whose exact program was compiled before; a size that recurs (:data:`PROMOTE_AFTER` launches in
its bucket) then compiles its exact program too, so a steady size ends with no idle lanes.

Launches that are not bucketed: multi-dimensional grids, tile kernels, the Pallas target, chunked
launches (``max_blocks`` or the memory budget), launches inside ``jax.jit`` (traced: shapes are
static there), ``Launch`` objects and adjoint launches.

Example:
    >>> from jwarp.runtime.launch_buckets import bucket
    >>> bucket(1000), bucket(1025), bucket(3)
    (1024, 1280, 16)
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from jwarp.compiler.signature import Signature
from jwarp.runtime.binding import device_constant

# Smallest bucket (launches of at most this many threads share one program).
MIN_BUCKET = 16
# Signature options whose launches keep their exact lane count (chunks, tiles, Pallas, lane chunks).
_EXACT = frozenset({"chunk", "pallas", "tile_lanes", "tile_blocks", "lane_chunk", "runtime_lanes"})
# A size launched this many times in its bucket gets its exact program (a steady size runs no idle lanes).
PROMOTE_AFTER = 8
# Sizes remembered per kernel signature (beyond it, the record restarts: only "seen another size" matters).
_SIZES_LIMIT = 64


def bucket(n: int) -> int:
    """The lane count of the bucket holding launch size ``n``: ``n`` rounded up to a multiple of a
    quarter of the power of two below it (at least :data:`MIN_BUCKET`)."""
    n = max(int(n), MIN_BUCKET)
    step = 1 << (n.bit_length() - 3)  # a quarter of the power of two below n (n >= 16: at least 4)
    return -(-n // step) * step


def bucketed(kernel: Any, sig: Signature, avals: tuple, device: Any, values: list) -> tuple[Signature, Any]:
    """``(sig, None)``, or the bucketed form of ``sig`` and a ticket for :func:`recurs` when this
    launch runs in a bucket; then ``values`` (the launch's value operands) gets the run-time lane
    count appended."""
    if (len(sig.grid) != 1 or sig.kernel_dim != 1 or sig.record_trips or sig.loop_bounds is not None
            or any(key in _EXACT for key, _ in sig.extra)):
        return sig, None
    n = sig.grid[0]
    rest = (dataclasses.replace(sig, grid=()), avals, device.alias)
    sizes = kernel._launch_sizes.get(rest)  # size -> its launches so far (PROMOTE_AFTER: runs exactly)
    if sizes is None or len(sizes) >= _SIZES_LIMIT:
        sizes = kernel._launch_sizes[rest] = {}
    runs = sizes.get(n, 0)
    if not sizes or runs >= PROMOTE_AFTER or (sig, avals, device.alias) in kernel._cache:
        sizes[n] = PROMOTE_AFTER  # the first size, a recurring one, or one compiled exactly before
        return sig, None
    sizes[n] = runs + 1
    values.append(device_constant(np.asarray(n, np.int32), device))
    return dataclasses.replace(sig, grid=(bucket(n),), n_values=sig.n_values + 1,
                               extra=sig.extra + (("runtime_lanes", True),)), (sizes, n)


def recurs(ticket: tuple[dict, int]) -> bool:
    """Count one more launch of a bucketed size (``ticket`` from :func:`bucketed`, kept by its launch
    plan); True once the size recurs enough to get its exact program (the caller then launches
    through the full path, which compiles it)."""
    sizes, n = ticket
    runs = sizes[n] = sizes.get(n, 0) + 1
    return runs >= PROMOTE_AFTER


__all__ = ["MIN_BUCKET", "PROMOTE_AFTER", "bucket", "bucketed", "recurs"]
