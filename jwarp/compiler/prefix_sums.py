"""Running totals of small non-negative integers, the way XLA's CPU code computes them fastest.

``jnp.cumsum`` lowers to a reduce-window that XLA:CPU runs as scalar code (about 5 ns an element),
``lax.associative_scan`` to a tree of slices. In rows of :data:`ROW` elements, each row's running
sums are one float32 product with a triangular matrix (exact for integers below 2^24), plus the
rows' offsets: 262,144 cells 0.45 ms, against 1.9 for ``lax.associative_scan``.

Example:
    >>> import jax.numpy as jnp
    >>> running_total(jnp.asarray([1, 0, 2, 3]), 6).tolist()
    [1, 1, 3, 6]
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

ROW = 32
"""Elements per row of the triangular product."""


def running_total(counts: Any, total: int) -> Any:
    """The inclusive prefix sum of the int32 vector ``counts`` (non-negative, summing to at most
    ``total``, a compile-time bound: the float32 product is exact below 2^24, else a scan)."""
    if total >= 1 << 24:
        return lax.associative_scan(jnp.add, counts)
    size = counts.shape[0]
    rows = jnp.pad(counts, (0, -size % ROW)).reshape(-1, ROW).astype(jnp.float32)
    upper = jnp.triu(jnp.ones((ROW, ROW), jnp.float32))
    within = jnp.dot(rows, upper, precision=lax.Precision.HIGHEST).astype(jnp.int32)
    last = within[:, -1]
    before = lax.associative_scan(jnp.add, last) - last
    return (within + before[:, None]).reshape(-1)[:size]


__all__ = ["ROW", "running_total"]
