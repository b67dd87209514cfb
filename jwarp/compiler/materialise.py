"""Kernel locals computed in loops of their own in the lane-chunked backward pass, so that XLA does
not compute them, and their cotangents, again in every fusion that reads them.

XLA:CPU fuses elementwise producers into each of their consumers and has no multi-output loop
fusion: a local that several results read (a ray's hit normal, a texture coordinate, a light's
contribution) is recomputed inside each result's loop, and in a reverse-mode pass its cotangent is
recomputed inside every scatter-add that pulls a gathered value back (Warp's ``example_diffray``:
seven texture and normal reads, each scatter-add recomputing a ~360-instruction cotangent). An
``optimization_barrier`` does not stop that (XLA fuses across it); a conditional does
(:func:`jwarp.builtins.trig.apart`), and its transpose is a conditional too, so the local's cotangent
is computed once as well.

Each materialised local costs a loop of its own and a pass over memory. That paid in diffray's
backward pass (466k rays: 0.35 -> 0.22 s) and forward (0.13 -> 0.09 s), but cost plain launches of
cheap straight-line code up to twice their time (``benchmarks/run.py``: a 2-D stencil 1.0 -> 2.0 ms,
the cloth step 6.0 -> 10.5 ms) and doubled the pair loop of Warp's particle-repulsion example. So
only the chunks of the lane-chunked backward pass (``runtime/lane_chunks.py``: kernels whose traced
intermediates exceed the launch memory budget) materialise their locals
(``KernelContext.materialise_locals``), outside loops, and never in tile code.

Example (inside the kernel lowerer, before a local is bound):
    >>> value = materialised(lowerer, value)  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from jwarp.builtins.trig import apart
from jwarp.compiler.values import STATIC, Value, leaves_of, value_from_leaves
from jwarp.lang.arrays import ArrayType
from jwarp.lang.tile_types import TileType


def _in_loop(lw: Any) -> bool:
    """Whether ``lw`` (a function lowerer) runs inside a loop body, its own or a caller's."""
    while lw is not None:
        if lw.loops:
            return True
        lw = lw.parent
    return False


def materialised(lw: Any, value: Value) -> Value:
    """``value`` (about to be bound to a local of ``lw``) computed apart where that is worthwhile
    (see the module docstring): its lane-varying float leaves of one shape, stacked into one
    conditional."""
    if (not lw.ctx.materialise_locals or value.type is STATIC or isinstance(value.type, (ArrayType, TileType))
            or _in_loop(lw)):
        return value
    leaves = leaves_of(value)
    lane_floats = (isinstance(x, jax.core.Tracer) and jnp.ndim(x) >= 1 and jnp.issubdtype(x.dtype, jnp.floating)
                   for x in leaves)
    if not leaves or not all(lane_floats):
        return value
    if len({(x.shape, x.dtype) for x in leaves}) != 1:
        return value
    return value_from_leaves(value.type, list(apart(jnp.stack(leaves))))


__all__ = ["materialised"]
