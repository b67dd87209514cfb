"""Which kernels take the CPU's vector trigonometry (``jwarp/builtins/trig.py``, ``inverse_trig.py``), and
the stored planes of those that do kept out of the loop that interleaves them.

XLA:CPU calls the C library once per element for ``sin``, ``atan2`` and the like; jwarp's vector code is
4-10x faster, but only where XLA compiles it into loops of its own. A value stored into a column of a
2-D array is computed inside the store's loop, one element at a time, where it loses its vector
instructions (sin, cos and atan2 into three columns, 2^20 lanes: 24 ms with XLA's calls, 37 with the
vector code), so such kernels keep XLA's functions. The components of a ``vec3`` array are planes of their
own, stacked at the end of the program; they are handed through a conditional first
(:func:`~jwarp.compiler.output_interleave.materialized`).

Example:
    >>> from jwarp.compiler.signature import Signature
    >>> vector_code_for(Signature(grid=(16,), params=(), n_bases=0, n_values=0), ())  # a small launch
    False
"""

from __future__ import annotations

import math
from typing import Any, Callable

import jax

from jwarp.builtins import trig
from jwarp.compiler.output_interleave import materialized
from jwarp.compiler.signature import ArraySpec, Signature
from jwarp.lang.arrays import dtype_leaf_shapes

VECTOR_CODE_LANES = 1 << 12
"""Launches of at least this many threads get the CPU's vector trigonometry (``jwarp/builtins/trig.py``).
Each call of it compiles ~13 ms longer than XLA's library call and saves ~9 ns per thread and launch:
below, a program would need thousands of launches to pay for its compile."""


def vector_code_for(sig: Signature, bases: tuple) -> bool:
    """Whether a kernel's trace takes the CPU's vector trigonometry: a launch of at least
    :data:`VECTOR_CODE_LANES` threads whose array parameters are one-dimensional arrays, not views
    (XLA:CPU computes a value stored into a column of a 2-D array inside the store's loop, one element at
    a time, where the vector code loses its vector instructions; stored vector components are handed
    through :func:`~jwarp.compiler.output_interleave.materialized` instead)."""
    if math.prod(sig.grid) < VECTOR_CODE_LANES:
        return False
    for spec in sig.params:
        if isinstance(spec, ArraySpec):
            if len(spec.shape) != 1 or spec.chain or spec.indices:
                return False
            components = [len(shape) for shape, _ in dtype_leaf_shapes(spec.dtype)]
            leaves = jax.tree_util.tree_leaves(bases[spec.base])
            if len(leaves) != len(components) or any(
                    getattr(leaf, "ndim", 1) != 1 + k for leaf, k in zip(leaves, components)):
                return False
    return True


def with_vector_code(sig: Signature, pure_fn: Callable) -> Callable:
    """``pure_fn`` (a kernel's pure function for ``sig``) traced with the vector code on or off, as
    :func:`vector_code_for` decides from its operands."""

    def traced(*args: Any) -> Any:
        with trig.vector_code(vector_code_for(sig, args[: sig.n_bases])):
            return pure_fn(*args)

    return traced


def planes_apart(written: list) -> list:
    """``written`` (``(spec, planes)`` of the arrays a kernel stored) with the planes of vector and
    matrix arrays handed through :func:`~jwarp.compiler.output_interleave.materialized` when the
    trace under way emitted the vector code."""
    if not trig.current().emitted or not any(len(planes) > 1 for _, planes in written):
        return written
    return list(zip([spec for spec, _ in written], materialized([planes for _, planes in written])))


__all__ = ["VECTOR_CODE_LANES", "planes_apart", "vector_code_for", "with_vector_code"]
