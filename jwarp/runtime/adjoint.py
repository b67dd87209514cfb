"""Adjoint launches: ``wp.launch(kernel, dim, inputs, outputs, adj_inputs, adj_outputs, adjoint=True)``.

As in Warp, the adjoint arrays are aligned with the kernel's parameters (``adj_inputs`` then
``adj_outputs``, one entry per parameter; entries for non-array parameters are ignored). The
launch runs the kernel's reverse pass at the arrays' current contents without changing them:

- the adjoints of arrays the kernel reads are accumulated into (``adj += dL/dx``);
- the adjoint of an array the kernel stores to is *consumed* (zeroed where it was stored)
  when it is that array's own ``.grad``, and left as is for an external adjoint array;
- a ``None`` adjoint falls back to the array's ``.grad`` (nothing when it has none).

It is one ``jax.vjp`` of the kernel's pure function, jitted and cached per kernel signature.
Kernels with run-time loop bounds are first run forward to measure their trip counts (see
:mod:`jwarp.runtime.differentiable`).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from jwarp.compiler.emitters import level_options
from jwarp.compiler.views import apply_chain, write_back
from jwarp.lang.arrays import ArrayType
from jwarp.lang.struct import StructInstance, StructType
from jwarp.runtime.array import array
from jwarp.runtime.binding import bind_arguments, check_adjoint_shapes
from jwarp.runtime.differentiable import (
    bounded_kernel,
    evaluate,
    has_dynamic_loops,
    float_leaves_vjp,
    is_float_array,
    stored_mask,
    trip_counts,
    x64_scope,
)
from jwarp.runtime.execution import PreparedLaunch
from jwarp.runtime.kernel import on_forget_compiled
from jwarp.runtime.preparation import prepare, prepare_with_trips

# adjoint programs by (compiled kernel, adjoint plan), least recently used first; bounded, since each
# holds a compiled executable
_CACHE: dict = {}
_CACHE_LIMIT = 64
on_forget_compiled(_CACHE.clear)


def adjoint_launch(kernel: Any, dim: tuple, args: list, adj_args: list, device: Any, block_dim: int) -> None:
    """Run ``kernel``'s adjoint (see module docstring)."""
    n = len(kernel.arg_types)
    if len(adj_args) != n:
        raise IndexError(
            f"Error launching the adjoint of kernel '{kernel.key}': expected {n} adjoint arguments (adj_inputs + "
            f"adj_outputs, one per kernel parameter), got {len(adj_args)}"
        )
    if not kernel.enable_backward:
        raise RuntimeError(
            f"Failed to find backward kernel '{kernel.key}' from module '{kernel.module.name}' for device '{device}'"
        )
    _check_adjoints(kernel, args, adj_args, device)
    prepared = prepare(kernel, dim, args, device, block_dim)
    compiled = prepared.compiled
    bufs = prepared.input_buffers()
    values = list(prepared.binding.values)
    if has_dynamic_loops(compiled):
        trips = _measure_trips(prepared, args)
        compiled = bounded_kernel(kernel, compiled, trips, [*bufs, *values])
    targets = _targets(kernel, args, adj_args, prepared.binding)
    if not targets:
        return None
    bases = prepared.binding.bases
    with x64_scope(compiled.uses_x64):
        plan = []  # (base index, consume) for every base with an adjoint
        cts = []
        for index, base in enumerate(bases):
            entries = targets.get(id(base))
            if not entries or not is_float_array(base):
                continue
            struct = isinstance(bufs[index], tuple)  # an array of structs: one buffer per field group
            if struct and any(chain for _, chain, _ in entries):
                continue  # adjoints of views of struct arrays are not supported yet
            ct = jax.tree_util.tree_map(jnp.zeros_like, bufs[index])
            consume = True
            for target, chain, own in entries:
                ct = write_back(ct, chain, target.buffer) if chain else target.buffer
                consume = consume and own and not base.retain_grad
            plan.append((index, consume))
            cts.append(ct)
        if not plan:
            return None
        key = (id(compiled), tuple(plan))
        fn = _CACHE.pop(key, None)
        if fn is None:
            while len(_CACHE) >= _CACHE_LIMIT:
                del _CACHE[next(iter(_CACHE))]
            fn = (_make_adjoint(compiled, tuple(plan)), compiled)
        _CACHE[key] = fn  # (re)inserted last: the most recently used
        new = fn[0](bufs, values, cts)
        for (index, _), ct in zip(plan, new):
            for target, chain, _own in targets[id(bases[index])]:
                target._set_buffer(apply_chain(ct, chain) if chain else ct)
    return None


def _make_adjoint(compiled: Any, plan: tuple) -> Any:
    diff = [index for index, _ in plan]
    written = set(compiled.written)

    def run(bufs: list, values: list, cts: list) -> tuple:
        def f(diff_bufs):
            full = list(bufs)
            for index, b in zip(diff, diff_bufs):
                full[index] = b
            new = evaluate(compiled, full, values)
            return tuple(new.get(index, full[index]) for index in diff)

        ct_in = float_leaves_vjp(lambda d: list(f(d)), [bufs[i] for i in diff], list(cts))
        for k, (index, consume) in enumerate(plan):
            if index in written and not consume and not isinstance(bufs[index], tuple):
                # an external adjoint array is not consumed by stores: add back what they zeroed
                stored = stored_mask(lambda b, v: evaluate(compiled, b, v), bufs, values, index)
                ct_in[k] = ct_in[k] + jnp.where(stored, cts[k], 0)
        return tuple(ct_in)

    return jax.jit(run, compiler_options=level_options(compiled.signature) or None)


def _measure_trips(prepared: PreparedLaunch, args: list) -> dict:
    _, _, diagnostics = prepare_with_trips(prepared, args).evaluate()
    return trip_counts(diagnostics)


def _check_adjoints(kernel: Any, args: list, adj_args: list, device: Any) -> None:
    """Validate adjoint arrays with Warp's messages ("adjoint argument 'y' expects …")."""
    checked = []
    for t, fwd, adj in zip(kernel.arg_types, args, adj_args):
        if isinstance(t, ArrayType) or (isinstance(t, StructType) and adj is not None):
            checked.append(adj)
        else:
            checked.append(fwd)
    bind_arguments(kernel, checked, device, adjoint=True)
    check_adjoint_shapes(kernel, args, adj_args)


def _targets(kernel: Any, args: list, adj_args: list, binding: Any) -> dict:
    """``{id(root array): [(adjoint array, view chain, is the array's own .grad)]}``."""
    out: dict = {}

    def visit(fwd: Any, adj: Any) -> None:
        if isinstance(fwd, array):
            own = adj is None or _same_memory(adj, fwd.grad)
            target = fwd.grad if adj is None else adj
            if target is not None and isinstance(target, array):
                out.setdefault(id(fwd.root), []).append((target, fwd._chain, own))
        elif isinstance(fwd, StructInstance):
            for name in fwd._cls.vars:
                visit(getattr(fwd, name), getattr(adj, name, None) if adj is not None else None)

    for fwd, adj in zip(args, adj_args):
        visit(fwd, adj)
    return out


def _same_memory(a: Any, b: Any) -> bool:
    return b is not None and isinstance(a, array) and a.root is b.root and a._chain == b._chain


__all__ = ["adjoint_launch"]
