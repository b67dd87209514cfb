"""Which kernels take the CPU's vector trigonometry (``jwarp/builtins/trig.py``, ``inverse_trig.py``), and how.

XLA:CPU calls the C library once per element for ``sin``, ``atan2`` and the like; jwarp's vector code is
4-10x faster, but only where XLA compiles it into loops of its own. A value stored into the components of
a ``vec3`` array or into a column of a 2-D array is computed inside the loop that interleaves the
components, one element at a time, where it loses its vector instructions (a ``vec3`` store of
``sin``/``atan2`` values over 2^20 lanes: 199 ms against 79 ms with XLA's calls). So in a kernel with such
an array (not :func:`planar`) each vector-code result is computed apart (``trig.apart``: a conditional
XLA cannot fold, which no fusion crosses), in a vectorised loop of its own, and the interleaving loop
reads it: the ``trig`` workload 79 -> 37-40 ms, ``u[i] = outer(v, v) * sin(v.x)`` 7.4-8.7 -> 4.2-4.3 ms.
Kernels whose array parameters are all one-dimensional arrays of scalars need no such step. The vector
code is on for launches of at least :data:`VECTOR_CODE_LANES` threads.

Example:
    >>> import jax.numpy as jnp
    >>> from jwarp.compiler.signature import ArraySpec, Signature
    >>> sig = Signature(grid=(8,), params=(ArraySpec(jnp.float32, (8,), 0),), n_bases=1, n_values=0)
    >>> planar(sig, (jnp.zeros(8),)), planar(sig, (jnp.zeros((8, 3)),))
    (True, False)
"""

from __future__ import annotations

import math
from typing import Any, Callable

import jax

from jwarp.builtins import trig
from jwarp.compiler.signature import ArraySpec, Signature


VECTOR_CODE_LANES = 1 << 14
"""Launches of fewer threads take XLA's functions. The vector code compiles longer (a kernel with six
calls, first launch 371 against 113 ms at XLA's default level) and saves ~60 ns per call and thread
(at 2^20 threads 17.6 against 81 ms): below 2^14 threads a kernel would need hundreds of launches to
pay for its compile."""


def planar(sig: Signature, bases: tuple) -> bool:
    """Whether every array parameter's buffer (``bases``, by base index) is one plane of scalars: a
    one-dimensional array of a scalar type."""
    return all(all(getattr(leaf, "ndim", 1) == 1 for leaf in jax.tree_util.tree_leaves(bases[spec.base]))
               for spec in sig.params if isinstance(spec, ArraySpec))


def with_vector_code(sig: Signature, pure_fn: Callable) -> Callable:
    """``pure_fn`` (a kernel's pure function for ``sig``) traced with the vector code on exactly when
    the launch has at least :data:`VECTOR_CODE_LANES` threads, its results computed apart unless the
    array parameters are :func:`planar`."""

    on = math.prod(sig.grid) >= VECTOR_CODE_LANES

    def traced(*args: Any) -> Any:
        with trig.vector_code(on, apart=on and not planar(sig, args[: sig.n_bases])):
            return pure_fn(*args)

    return traced


__all__ = ["VECTOR_CODE_LANES", "planar", "with_vector_code"]
