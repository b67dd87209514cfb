"""Kernels as differentiable pure functions: what ``Tape.backward`` and adjoint launches share.

- :func:`evaluate` runs a :class:`~jwarp.compiler.kernel_compile.CompiledKernel`'s jaxpr on
  ``(bases, values)`` inside a trace, returning the new contents of the written bases.
- *Bounded mode*: JAX cannot reverse-differentiate ``while_loop`` (jwarp's lowering of loops
  whose trip count is only known at run time). :func:`has_dynamic_loops` finds such kernels;
  a forward run compiled with ``record_trips`` reports each loop's largest trip count, and
  :func:`bounded_kernel` recompiles the kernel with every dynamic loop as a ``fori_loop``
  over that count rounded up to a power of two (:func:`bucket`, to limit recompiles). The
  extra iterations are fully masked, so values are unchanged and gradients are exact.
- :func:`transparent` replaces a value while letting gradients flow to the value it
  replaces (used for writes the tape cannot see, and for ``enable_backward=False`` kernels).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import jax
import jax.extend.core as jax_core
import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.compiler.kernel_compile import CompiledKernel, compile_kernel
from jwarp.errors import _Located, clean_error
from jwarp.lang import scalars
from jwarp.lang.arrays import dtype_leaf_shapes
from jwarp.lang.struct import StructType
from jwarp.runtime import storage

_LOOP_PRIMITIVES = ("while",)


def _jaxpr_has_while(jaxpr: Any) -> bool:
    for eqn in jaxpr.eqns:
        if eqn.primitive.name in _LOOP_PRIMITIVES:
            return True
        for param in eqn.params.values():
            for sub in param if isinstance(param, (tuple, list)) else (param,):
                inner = getattr(sub, "jaxpr", None)
                if inner is not None and hasattr(inner, "eqns") and _jaxpr_has_while(inner):
                    return True
                if hasattr(sub, "eqns") and _jaxpr_has_while(sub):
                    return True
    return False


def has_dynamic_loops(compiled: CompiledKernel) -> bool:
    """Whether the kernel lowers a loop to ``while_loop`` (not reverse-differentiable as is)."""
    flag = getattr(compiled, "_jwarp_dynamic_loops", None)
    if flag is None:
        flag = _jaxpr_has_while(compiled.closed_jaxpr.jaxpr)
        compiled._jwarp_dynamic_loops = flag
    return flag


def bucket(trips: int) -> int:
    """Static loop bound for a measured trip count: the next power of two (at least 1)."""
    trips = max(int(trips), 1)
    return 1 << (trips - 1).bit_length()


def trip_counts(diagnostics: dict) -> dict:
    """``{loop key: trip count}`` from a ``record_trips`` forward run's diagnostics (whose keys
    are the loop keys with the context's ``trip:`` prefix)."""
    return {k[len("trip:"):]: int(np.asarray(v)) for k, v in diagnostics.items() if k.startswith("trip:")}


def bounded_kernel(kernel: Any, compiled: CompiledKernel, trips: dict, example_args: list) -> CompiledKernel:
    """``kernel`` compiled with every dynamic loop bounded by its bucketed trip count."""
    bounds = tuple(sorted((k, bucket(v)) for k, v in trips.items()))
    sig = dataclasses.replace(compiled.signature, record_trips=False, loop_bounds=bounds)
    return compiled_variant(kernel, "bounded", sig, example_args)


def compiled_variant(kernel: Any, tag: str, sig: Any, example_args: list) -> CompiledKernel:
    """``kernel`` compiled for ``sig`` (a signature derived from a launch's: bounded loops, a
    lane-chunked vjp), cached in the kernel under ``(tag, sig, argument shapes)``; compile errors
    name the kernel's source line."""
    key = (tag, sig, tuple(_aval_key(a) for a in example_args))
    found = kernel._cache.get(key)
    if found is None:
        try:
            found = compile_kernel(kernel.source, kernel.arg_names, sig, example_args)
        except _Located as exc:
            raise clean_error(exc) from None
        kernel._cache[key] = found
    return found


def _aval_key(buf: Any) -> Any:
    if isinstance(buf, tuple):
        return tuple(_aval_key(b) for b in buf)
    return (tuple(buf.shape), np.dtype(buf.dtype).str)


def evaluate(compiled: CompiledKernel, bases: list, values: list) -> dict:
    """The kernel's written bases ``{base index: new buffer}`` (traceable, differentiable)."""
    fn = jax_core.jaxpr_as_fun(compiled.closed_jaxpr)
    flat = fn(*jax.tree_util.tree_leaves((list(bases), list(values))))
    new_bases, _diagnostics = compiled.split_outputs(flat)
    return new_bases


@jax.custom_jvp
def transparent(new: Any, old: Any) -> Any:
    """``new``, with the derivative of ``old`` (identity): gradients pass through a write."""
    return new


@transparent.defjvp
def _transparent_jvp(primals, tangents):
    new, _old = primals
    _t_new, t_old = tangents
    return new, t_old


@jax.custom_jvp
def keep_stored(new: Any, old: Any, stored: Any) -> Any:
    """``new``, whose derivative also reaches ``old`` where ``stored``: the array's adjoint is not
    consumed by the stores (Warp's ``retain_grad``, and adjoint launches into external arrays)."""
    return new


@keep_stored.defjvp
def _keep_stored_jvp(primals, tangents):
    new, _old, stored = primals
    t_new, t_old, _ = tangents
    return new, t_new + jnp.where(stored, t_old, jnp.zeros_like(t_old))


def stored_mask(apply: Callable, bufs: list, values: list, index: int) -> Any:
    """Elements of base ``index`` that plain stores overwrite, for ``apply(bufs, values) ->
    {index: new}``: where the new contents do not follow the old ones one-for-one (kept and
    atomically updated elements do)."""

    def f(b):
        full = list(bufs)
        full[index] = b
        return apply(full, values)[index]

    original = lax.stop_gradient(bufs[index])
    _, slope = jax.jvp(f, (original,), (jnp.ones_like(original),))
    return lax.stop_gradient(slope != 1)


def is_float_array(a: Any) -> bool:
    """Whether gradients can flow through ``a``: a float scalar/vector/matrix dtype, or a struct
    with a float field (its gradient is a struct array; the other fields' gradients stay as they are)."""
    if isinstance(a.dtype, StructType):
        return any(scalars.is_float(s) for _, s in dtype_leaf_shapes(a.dtype))
    try:
        scalar = storage.scalar_of(a.dtype)
    except Exception:
        return False
    return scalars.is_float(scalar)


def float_leaves_vjp(fn: Callable, primals: list, cts: Any) -> list:
    """``vjp(fn)(cts)`` over the float leaves of ``primals`` (struct buffers are tuples that also
    hold integer fields: those are constants, and their cotangents are passed through unchanged).
    ``fn``'s outputs have the structure of ``primals``."""
    flat, tree = jax.tree_util.tree_flatten(primals)
    is_float = [jnp.issubdtype(jnp.result_type(x), jnp.inexact) for x in flat]
    if all(is_float):
        _, pull = jax.vjp(fn, primals)
        return list(pull(cts)[0])

    def on_floats(floats: list) -> list:
        it = iter(floats)
        full = [next(it) if f else x for x, f in zip(flat, is_float)]
        out = jax.tree_util.tree_leaves(fn(jax.tree_util.tree_unflatten(tree, full)))
        return [o for o, f in zip(out, is_float) if f]

    ct_flat = jax.tree_util.tree_leaves(cts)
    _, pull = jax.vjp(on_floats, [x for x, f in zip(flat, is_float) if f])
    grads = iter(pull([c for c, f in zip(ct_flat, is_float) if f])[0])
    merged = [next(grads) if f else c for c, f in zip(ct_flat, is_float)]
    return list(jax.tree_util.tree_unflatten(tree, merged))


def x64_scope(needed: bool) -> Any:
    """64-bit tracing scope when ``needed`` (else a no-op context)."""
    if needed:
        return storage.x64()
    return storage.nullcontext()
