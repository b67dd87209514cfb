"""Arrays read at one gathered index, gathered together as rows of one table.

A pass over (lane, candidate) pairs (:mod:`jwarp.compiler.pair_loop`) reads the candidate's data
from several arrays at the candidate's index: Warp's particle-repulsion example reads ``x[index]``
and ``v[index]``, an SPH force kernel positions, velocities, densities and pressures. Each read is a
gather of its own, and XLA:CPU pays a gather per row fetched (the row's cache miss) much more than per
value: the arrays whose scalar planes share a type and length (a vec3 array's three, a float
array's one) are stacked into one table once, and a round of pairs fetches each candidate's row
once. The body's reads then find their values here (:func:`prefetched`, consulted by
:func:`jwarp.compiler.memory.load`) instead of gathering: only
reads whose index is the candidate's index itself, of arrays the body reads as ``a[candidate]``
and has not written since (a written array's planes are new values, which no prefetch matches).

Example (inside the pair pass, around the body's lowering):
    >>> ctx.prefetched = prefetch(ctx, env, body, "index", ids)  # doctest: +SKIP
"""

from __future__ import annotations

import ast
from typing import Any

import jax.numpy as jnp

from jwarp.compiler import array_views
from jwarp.compiler.selects import clip, where
from jwarp.compiler.values import Value
from jwarp.lang import scalars
from jwarp.lang.arrays import ArrayType


def read_at(body: list[ast.stmt], target: str) -> set[str]:
    """Names of the arrays ``body`` reads as ``name[target]``.

    >>> read_at(ast.parse("a = x[j] + v[j] * w[i]").body, "j") == {"x", "v"}
    True
    """
    found = set()
    for stmt in body:
        for node in ast.walk(stmt):
            if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                    and isinstance(node.slice, ast.Name) and node.slice.id == target):
                found.add(node.value.id)
    return found


def prefetch(ctx: Any, env: dict, body: list[ast.stmt], target: str, ids: Any) -> dict | None:
    """For the arrays ``body`` reads at ``target`` (whose index leaf is ``ids``), their values at
    ``ids``, gathered as rows of one table per element type and length where two or more arrays
    share them: ``{(plane ids, id(ids)): leaves}``, or None when nothing is worth it."""
    if ctx.debug or ctx.ref_memory is not None or jnp.ndim(ids) != 1:
        return None
    groups: dict = {}
    for name in sorted(read_at(body, target)):
        value = env.get(name)
        if value is None or not isinstance(value.type, ArrayType) or value.type.ndim != 1:
            continue
        slot = ctx.slots[value.data.slot]
        full, _ = array_views.index(value.data, slot.shape, [Value(scalars.int32, ids)])
        if full is None or full[0].data is not ids or not slot.planes:
            continue  # (a view maps the index: its reads gather on their own)
        first = slot.planes[0]
        if first.shape[0] == 0 or any(p.shape != first.shape or p.dtype != first.dtype for p in slot.planes):
            continue
        groups.setdefault((first.dtype, first.shape), []).append(slot.planes)
    found = {}
    for (_, shape), arrays in groups.items():
        if len(arrays) < 2:
            continue
        n = shape[0]
        index = where(ids < 0, ids + n, ids)  # Warp's rule for negative indices, as memory.load
        valid = (index >= 0) & (index < n)
        planes = [p for planes in arrays for p in planes]
        rows = jnp.stack(planes, axis=-1).at[clip(index, 0, n - 1)].get(mode="promise_in_bounds",
                                                                           wrap_negative_indices=False)
        k = 0
        for array_planes in arrays:
            leaves = [where(valid, rows[:, k + j], jnp.zeros((), rows.dtype)) for j in range(len(array_planes))]
            found[(tuple(map(id, array_planes)), id(ids))] = (array_planes, ids, leaves)
            k += len(array_planes)
    return found or None


def prefetched(ctx: Any, planes: list, indices: list) -> list | None:
    """The leaves :func:`prefetch` gathered for a read of ``planes`` at ``indices``, or None."""
    table = getattr(ctx, "prefetched", None)
    if table is None or len(indices) != 1:
        return None
    hit = table.get((tuple(map(id, planes)), id(indices[0].data)))
    if hit is None or hit[1] is not indices[0].data or any(a is not b for a, b in zip(hit[0], planes)):
        return None
    return list(hit[2])


__all__ = ["prefetch", "prefetched", "read_at"]
