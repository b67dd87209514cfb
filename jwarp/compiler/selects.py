"""``jnp.where`` and ``jnp.clip`` for traced kernel code, staged as bare ``select_n`` / ``max`` / ``min``.

``jnp.where(c, x, y)`` and ``jnp.clip`` are nested ``jax.jit`` functions that JAX does not inline
while tracing: every use becomes a ``jit`` equation in the kernel's jaxpr and an HLO ``call`` that XLA
inlines again later. Kernels use them for every masked store, branch merge and query step (53,000
``where`` equations over the differential programs, 1,429 calls in one mesh-query kernel alone), and
the calls cost compile time: four compile-heavy programs took 25.2 → 21.8 s cold (XLA's share 15.6 →
12.7 s) with JAX's ``where`` un-jitted (see docs/performance.md, "Suite time").

:func:`where` and :func:`clip` give the same values and dtypes (JAX's type promotion, weak types
included) and stage the primitives directly.

Example:
    >>> import jax, jax.numpy as jnp
    >>> where(jnp.array([True, False]), jnp.float32(1.0), 0.0)
    Array([1., 0.], dtype=float32)
    >>> [e.primitive.name for e in jax.make_jaxpr(lambda c, x: where(c, x, 0.0))(True, jnp.float32(1.0)).eqns]
    ['select_n']
    >>> clip(jnp.array([-2.0, 0.5, 3.0]), -1.0, 1.0)
    Array([-1. ,  0.5,  1. ], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax


def where(condition: Any, x: Any, y: Any) -> Any:
    """``jnp.where(condition, x, y)`` without the nested jit (see the module docstring)."""
    dtype, weak = jax.dtypes.result_type(x, y, return_weak_type_flag=True)
    if weak:  # both sides weakly typed (Python scalars): keep jnp's weakly typed result
        return jnp.where(condition, x, y)
    condition = jnp.asarray(condition)
    if condition.dtype != jnp.bool_:
        condition = condition != 0
    x = lax.convert_element_type(x, dtype)
    y = lax.convert_element_type(y, dtype)
    shape = jnp.broadcast_shapes(jnp.shape(condition), jnp.shape(x), jnp.shape(y))
    x, y = _broadcast(x, shape), _broadcast(y, shape)
    if condition.ndim:  # (a scalar condition selects whole arrays as it is)
        condition = _broadcast(condition, shape)
    return lax.select(condition, x, y)


def clip(x: Any, lower: Any = None, upper: Any = None) -> Any:
    """``jnp.clip(x, lower, upper)`` without the nested jit: ``min(max(x, lower), upper)``."""
    if lower is not None:
        x = jnp.maximum(x, lower)
    if upper is not None:
        x = jnp.minimum(x, upper)
    return x


def _broadcast(value: Any, shape: tuple) -> Any:
    if jnp.shape(value) == shape:
        return value
    rank = jnp.ndim(value)
    return lax.broadcast_in_dim(value, shape, tuple(range(len(shape) - rank, len(shape))))


__all__ = ["where", "clip"]
