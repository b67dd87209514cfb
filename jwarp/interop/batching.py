"""``vmap_method``: how ``jax.vmap`` batches a kernel handed to JAX.

A jwarp kernel is a JAX function, so JAX can batch it like any other: the lowered kernel runs
over the batch as one vectorized XLA program (loads/stores gain a batch axis, per-member loops
become one loop that runs until every member is done). That is what ``"broadcast_all"``
(Warp's default), ``"expand_dims"``, ``"legacy_vectorized"`` and ``None`` do here.

``"sequential"`` runs the batch members one after another in a ``lax.map`` (less memory, and
members with very different loop trip counts do not wait for each other);
``"sequential_unrolled"`` unrolls that loop in the program. These go through
``jax.custom_batching.custom_vmap``, which JAX cannot differentiate, so they are wrapped in a
``jax.custom_vjp`` whose backward pass is the plain kernel's VJP: reverse mode works, forward
mode (``jax.jvp``) does not.

Every method gives ``vmap(f)(x)[i] == f(x[i])``. Warp's FFI instead folds the batch axes into
the first launch dimension (one launch over the batched grid); for kernels that index only
their own thread's elements both agree.
"""

from __future__ import annotations

from typing import Any, Callable

import jax
from jax import lax

VECTORIZED = frozenset({"broadcast_all", "expand_dims", "legacy_vectorized", None})
SEQUENTIAL = frozenset({"sequential", "sequential_unrolled"})
VMAP_METHODS = VECTORIZED | SEQUENTIAL

_wrapped: dict = {}


def with_vmap_method(fn: Callable, method: Any) -> Callable:
    """``fn`` (a function of arrays returning a tuple of arrays) batched by ``method`` under vmap."""
    if method in VECTORIZED:
        return fn
    if method not in SEQUENTIAL:
        raise ValueError(f"Unsupported vmap_method {method!r}; expected one of {sorted(map(str, VMAP_METHODS))}")
    key = (id(fn), method)
    cached = _wrapped.get(key)
    if cached is not None and cached[0] is fn:
        return cached[1]
    wrapped = _sequential(fn, unrolled=method == "sequential_unrolled")
    _wrapped[key] = (fn, wrapped)
    return wrapped


def _sequential(fn: Callable, unrolled: bool) -> Callable:
    batched_fn = jax.custom_batching.custom_vmap(lambda *args: tuple(fn(*args)))

    @batched_fn.def_vmap
    def rule(axis_size: int, in_batched: list, *args: Any):
        flags = list(in_batched)
        batched = [a for a, b in zip(args, flags) if b]

        def member(slices):
            it = iter(slices)
            return tuple(fn(*[next(it) if b else a for a, b in zip(args, flags)]))

        if unrolled:
            results = [member([x[i] for x in batched]) for i in range(axis_size)]
            outs = tuple(jax.numpy.stack(parts) for parts in zip(*results))
        else:
            outs = lax.map(member, batched)
        return outs, (True,) * len(outs)

    @jax.custom_vjp
    def call(*args: Any):
        return batched_fn(*args)

    def fwd(*args: Any):
        return batched_fn(*args), args

    def bwd(args: tuple, cts: tuple):
        _, vjp = jax.vjp(lambda *a: tuple(fn(*a)), *args)
        return vjp(cts)

    call.defvjp(fwd, bwd)
    return call


__all__ = ["SEQUENTIAL", "VECTORIZED", "VMAP_METHODS", "with_vmap_method"]
