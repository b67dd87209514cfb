"""Gathers and scatters of several planes at once (the components of a vector, matrix or quaternion).

XLA:CPU lowers every gather and every scatter to a loop of its own, and what such a loop costs
grows with the number of operations and elements far more than with the bytes per element: a
kernel reading ``x[i]`` of a ``vec3`` array would do three gathers, one per component plane.

- **Gathers** read the planes as rows: the planes stacked along a last axis (for planes that are
  slices of one interleaved buffer, XLA folds the stack back into that buffer) and gathered with
  one index, one row of all components per lane. Measured on the cloth benchmark (78,680 springs
  gathering ``vec3`` positions and velocities of 19,881 particles, 2-core CPU, process time): the
  10-substep step 10.8-11.9 ms against 12.3-12.9 ms with components packed in pairs as complex64
  (the previous form, itself 1.22 -> 0.93 ms per spring kernel against one gather per plane).
- **Scatters** pack float32 planes in pairs: components ``(0, 1)`` travel as the real and imaginary
  parts of one complex64 plane and component 2 on its own, two scatters instead of three (one per
  plane measured 14.4 against 12.9 ms on the same step). Building a complex (``lax.complex``) and
  taking it apart (``real``/``imag``) only moves bits, and complex addition and subtraction act on
  each part separately with float32 rounding, so plain scatters, ``atomic_add`` and ``atomic_sub``
  give bit-identical results.

Both forms cost a pass over the planes when they are not slices of one buffer (stacking, packing),
so they are used only where a launch has at least half as many lanes as the plane has elements.
:func:`scatter_plane` is every single-plane scatter (memory.py's atomics use it too).
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax


def _groups(planes: list, lanes: int) -> list[tuple[int, ...]]:
    """Plane indices in groups of two (packed) or one (moved alone)."""
    out: list[tuple[int, ...]] = []
    k = 0
    while k < len(planes):
        a = planes[k]
        b = planes[k + 1] if k + 1 < len(planes) else None
        if (
            b is not None
            and a.dtype == np.float32
            and b.dtype == np.float32
            and a.shape == b.shape
            and 2 * lanes >= a.size
        ):
            out.append((k, k + 1))
            k += 2
        else:
            out.append((k,))
            k += 1
    return out


def gather(planes: list, index: tuple, lanes: int) -> list:
    """``[p[index] for p in planes]`` (indices already in bounds, none negative), planes of one dtype and shape
    gathered as rows of a stacked array."""
    first = planes[0] if planes else None
    if (
        len(planes) > 1
        and all(p.dtype == first.dtype and p.shape == first.shape for p in planes)
        and 2 * lanes >= first.size
    ):
        rows = jnp.stack(planes, axis=-1).at[index].get(mode="promise_in_bounds", wrap_negative_indices=False)
        return [rows[..., k] for k in range(len(planes))]
    return [p.at[index].get(mode="promise_in_bounds", wrap_negative_indices=False) for p in planes]


def scatter(planes: list, index: tuple, values: list, op: str, lanes: int, unique: bool = False) -> list:
    """Scatter ``values`` into ``planes`` at ``index`` (out-of-bounds entries dropped) with
    ``op`` in ``"set"``, ``"add"``, ``"sub"``; float32 planes in pairs. ``unique``: the in-bounds
    indices are distinct (a ``"set"`` is then differentiated without a pass over the planes)."""
    if op not in ("set", "add", "sub"):  # min/max do not act on real and imaginary parts apart
        raise ValueError(f"no packed scatter for {op!r}")
    out: list = [None] * len(planes)
    for group in _groups(planes, lanes):
        if len(group) == 1:
            (k,) = group
            out[k] = scatter_plane(planes[k], index, values[k], op, unique)
        else:
            a, b = group
            z = scatter_plane(lax.complex(planes[a], planes[b]), index, lax.complex(values[a], values[b]), op, unique)
            out[a], out[b] = jnp.real(z), jnp.imag(z)
    return out


_SCATTERS = {
    "set": lambda ref, v, u: ref.set(v, mode="drop", unique_indices=u),
    "add": lambda ref, v, u: ref.add(v, mode="drop", unique_indices=u),
    "sub": lambda ref, v, u: ref.subtract(v, mode="drop", unique_indices=u),  # no separate negation pass
    "min": lambda ref, v, u: ref.min(v, mode="drop", unique_indices=u),
    "max": lambda ref, v, u: ref.max(v, mode="drop", unique_indices=u),
}


def scatter_plane(plane: Any, index: tuple, value: Any, op: str, unique: bool = False) -> Any:
    """One plane's scatter with ``op`` (a key of ``_SCATTERS``); out-of-bounds entries dropped.
    ``unique``: the in-bounds indices are distinct."""
    return _SCATTERS[op](plane.at[index], value, unique)


__all__ = ["gather", "scatter", "scatter_plane"]
