"""Chunked execution of a launch: Warp's ``max_blocks`` on the XLA path.

On a GPU, Warp runs at most ``max_blocks`` blocks of ``block_dim`` threads, and each thread walks
the grid in a grid-stride loop: the threads with flat ids ``[k*C, (k+1)*C)`` (``C = max_blocks *
block_dim``) run in the k-th stride. jwarp lowers such a launch to a ``lax.fori_loop`` over these
chunks: the lane grid is one chunk of ``C`` flattened thread ids, ``wp.tid()`` is computed from
``chunk_start + lane`` (so the affine whole-array fast paths do not apply), the lanes past the
end of the grid are masked off, and the kernel's memory (every array's planes) and accumulators
are the loop carry. Intermediate values are therefore O(C) instead of O(grid).

For race-free kernels the result is identical to an unchunked launch; atomics return values as
if threads ran in increasing thread order in both. (A kernel that reads what another thread of
the same launch wrote may see chunk-earlier writes — a race in Warp too.)
"""

from __future__ import annotations

from typing import Any, Callable

import jax.numpy as jnp
from jax import lax

from jwarp.compiler.context import SITE_FLAGS, KernelContext, SlotState, first_site, initial_accumulator
from jwarp.compiler.values import launch_mask


def thread_coords(flat: Any, grid: tuple[int, ...], kernel_dim: int) -> tuple:
    """``wp.tid()`` components of the flat thread ids ``flat`` in a row-major ``grid``."""
    coords = []
    stride = 1
    for extent in grid:
        stride *= extent
    for axis in range(kernel_dim):
        stride //= grid[axis]
        coords.append((flat // stride) % grid[axis] if stride > 1 else flat % grid[axis])
    return tuple(coords)


def _combine(key: str, previous: Any, current: Any) -> Any:
    if current is None:
        return previous
    if key in SITE_FLAGS:
        return first_site(previous, current)
    return jnp.maximum(previous, current)  # loop trip-count maxima


def lower_chunked(
    slots: list[SlotState],
    grid: tuple[int, ...],
    kernel_dim: int,
    chunk: int,
    debug: bool,
    make_context: Callable[[tuple, list], KernelContext],
    run_body: Callable[[KernelContext, Any], None],
    expected: dict[str, Any] | None = None,
) -> KernelContext:
    """Run ``run_body(ctx, active)`` over the grid in chunks of ``chunk`` threads.

    ``slots`` hold the kernel's arrays on entry and are updated in place with the final contents
    (and ``written`` flags). Returns the context of the traced body, with the merged accumulators.
    The loop carries the accumulators the body creates; their keys are found by tracing the body,
    and the body is traced again if the first trace found keys the carry lacked (the first loop
    stays in the program, unused). ``expected``: accumulators (key -> a value of its shape and
    type) the caller knows the body creates, so that one trace suffices.
    """
    total = 1
    for extent in grid:
        total *= extent
    n_chunks = -(-total // chunk)
    n_slots = len(slots)
    initial: dict[str, Any] = {"oob": jnp.asarray(-1, jnp.int32)} if debug else {}
    initial.update({k: initial_accumulator(k, v) for k, v in (expected or {}).items()})
    while True:  # a second pass when the body creates accumulators (loop trip counts)
        seen: dict[str, Any] = {}

        def body(c: Any, carry: tuple) -> tuple:
            planes, accs = carry
            fresh = [SlotState(s.dtype, s.shape, list(p)) for s, p in zip(slots, planes)]
            ctx = run_chunk(fresh, grid, kernel_dim, chunk, c, make_context, run_body)
            seen["ctx"] = ctx
            seen["new"] = {k: v for k, v in ctx.accumulators.items() if k not in accs}
            merged = {k: _combine(k, v, ctx.accumulators.get(k)) for k, v in accs.items()}
            return [s.planes for s in ctx.slots[:n_slots]], merged

        planes, accs = lax.fori_loop(0, n_chunks, body, ([s.planes for s in slots], dict(initial)))
        if not seen["new"]:
            break
        initial.update({k: initial_accumulator(k, v) for k, v in seen["new"].items()})
    ctx = seen["ctx"]
    for slot, traced, final in zip(slots, ctx.slots, planes):
        slot.planes = list(final)
        slot.written = traced.written
        slot.read = traced.read
    ctx.slots = slots
    ctx.accumulators = dict(accs)
    return ctx


def run_chunk(
    slots: list[SlotState],
    grid: tuple[int, ...],
    kernel_dim: int,
    chunk: int,
    index: Any,
    make_context: Callable[[tuple, list], KernelContext],
    run_body: Callable[[KernelContext, Any], None],
    distinct_stores: bool = False,
) -> KernelContext:
    """Run ``run_body`` for the threads of chunk ``index`` (a traced scalar) of ``chunk`` threads,
    updating ``slots`` in place; returns the chunk's context. ``distinct_stores``: see
    ``KernelContext.distinct_stores`` (the lane-chunked backward pass, which also materialises its
    locals: ``KernelContext.materialise_locals``)."""
    total = 1
    for extent in grid:
        total *= extent
    index_dtype = jnp.int64 if total + chunk > 2**31 - 1 else jnp.int32  # flat thread ids past int32 (2^31+ threads)
    ctx = make_context((chunk,), slots)
    ctx.distinct_stores = ctx.materialise_locals = distinct_stores
    flat = jnp.asarray(index).astype(index_dtype) * chunk + lax.iota(index_dtype, chunk)
    ctx.thread_coords = tuple(x.astype(jnp.int32) for x in thread_coords(flat, grid, kernel_dim))
    active = flat < total if total % chunk else None
    with launch_mask(active):
        run_body(ctx, active)
    return ctx


def _sub_jaxprs(params: dict) -> list:
    out = []
    for value in params.values():
        for item in value if isinstance(value, (tuple, list)) else (value,):
            inner = getattr(item, "jaxpr", item)
            if hasattr(inner, "eqns"):
                out.append(inner)
    return out


# Primitives that map lanes to lanes one by one (or reduce them to a scalar): a sub-program of these
# only is one loop after XLA's fusion, whose intermediate values never reach memory.
_ELEMENTWISE = frozenset("""
    abs acos acosh add and asin asinh atan atan2 atanh bitcast_convert_type broadcast_in_dim cbrt ceil clamp
    clz convert_element_type copy copy_p cos cosh digamma div eq erf erf_inv erfc exp exp2 expm1 floor ge gt
    imag integer_pow is_finite le lgamma log log1p logistic lt max min mul ne neg nextafter not or
    platform_index population_count pow real reduce_and reduce_max reduce_min reduce_or reduce_precision
    reduce_sum rem round rsqrt select_n shift_left shift_right_arithmetic shift_right_logical sign sin sinh
    sqrt square squeeze stop_gradient sub tan tanh xor
""".split())
# Calls of sub-programs that are counted by their results alone when their bodies are elementwise
_CALLS = frozenset({"cond", "custom_jvp_call", "custom_vjp_call", "custom_vjp_call_jaxpr", "pjit", "jit",
                    "closed_call", "core_call"})


def _elementwise(jaxpr: Any) -> bool:
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name in _CALLS:
            if not all(_elementwise(sub) for sub in _sub_jaxprs(eqn.params)):
                return False
        elif name not in _ELEMENTWISE:
            return False
    return True


def _bytes(var: Any) -> int:
    aval = getattr(var, "aval", None)
    shape, dtype = getattr(aval, "shape", None), getattr(aval, "dtype", None)
    if shape is None or dtype is None:
        return 0
    size = 1
    for d in shape:
        size *= int(d)
    return size * jnp.dtype(dtype).itemsize


def intermediate_bytes(closed_jaxpr: Any) -> int:
    """Bytes of every intermediate value of a traced kernel (sub-programs of loops and branches
    included): a cheap upper bound of the temporaries XLA could need, before compiling.

    A call of an elementwise sub-program (a builtin's custom derivative, the CPU's vector sine of
    ``trig.py``) counts its results only: XLA fuses its body into one loop.

    A launch whose bound fits its memory budget needs no closer look; otherwise the compiled
    program's ``memory_analysis`` decides (fusion usually keeps far fewer values alive)."""
    total = 0
    stack = [getattr(closed_jaxpr, "jaxpr", closed_jaxpr)]
    while stack:
        jaxpr = stack.pop()
        for eqn in jaxpr.eqns:
            total += sum(_bytes(var) for var in eqn.outvars)
            subs = _sub_jaxprs(eqn.params)
            if not (eqn.primitive.name in _CALLS and all(_elementwise(sub) for sub in subs)):
                stack.extend(subs)
    return total


__all__ = ["lower_chunked", "run_chunk", "thread_coords", "intermediate_bytes"]
