"""Triton lowering rules jwarp adds for primitives its builtins emit (registered once, on first use).

- ``reduce_precision``: jwarp's builtins use it for XLA's CPU code generation only — a no-op rounding
  that keeps ``a / sqrt(x)`` from becoming a slow rsqrt (``linalg.div_sqrt``), and float64 products
  rounded to float32 before a cast (``random.fmul``). On Triton the first is the identity and the
  second a float32 round trip (same value; subnormals kept rather than flushed).
- ``reduce_or`` / ``reduce_and`` of booleans (``jnp.any`` / ``jnp.all`` over a block's lanes, e.g. "is
  any lane still in this while loop"): an integer max / min.
- ``round`` (both rounding methods), from ``floor``/``ceil``, the exact fractional part and selects.
- ``custom_vjp_call`` (``@wp.func_grad`` functions, jwarp's custom adjoints): the primal function, as
  JAX's rule for ``custom_jvp_call`` does (the backward is the XLA path's anyway).
- ``neg`` and ``bitcast_convert_type`` of a literal (jwarp negates constants, e.g. a loop's negative
  step; ``wp.cast`` of a constant): JAX's rules expect an MLIR value; the literal is materialised first.
- ``atomic_rmw`` add/min/max of integer *vectors*: JAX's rule tests the value's MLIR type for an
  integer type, which a tensor of integers is not, and takes the floating-point path: ``FADD`` on
  integer bits (seen on an H200 with JAX 0.11.2: 32-bit integer histograms stayed zero, the "floats"
  being subnormals flushed to zero) and the floating-point min/max expansion (an assertion fails). The
  wrapper emits the integer ``ADD``, ``MIN/MAX`` (``UMIN/UMAX`` when unsigned) read-modify-write for
  those and leaves everything else to JAX's rule.
- ``div``, ``logistic``, ``erf_inv`` of ``float16`` tensors (JAX's rules accept only 32/64-bit floats):
  computed in float32 and rounded to float16, as Warp's half arithmetic and XLA's CPU code do (for
  ``div`` this is the correctly rounded half quotient: float32 carries more than twice half's precision).
- ``scan`` with ``unroll > 1`` (jwarp unrolls static loops by ``wp.config.loop_unroll`` for XLA): JAX's
  rule accepts only ``unroll=1``; unrolling is a scheduling hint, so the loop is lowered rolled.
- loop and branch bodies whose result is a literal (a loop-carried constant): JAX's ``while`` rule yields
  the Python number itself; results of every lowered sub-program are materialised as MLIR values.
- ``population_count`` and ``clz`` of every integer type other than ``int32`` (``wp.bit_count`` of
  ``int8``, ``uint16``, ``uint32``, ``uint64``…): JAX's rules call libdevice's ``__nv_popc``/``__nv_clz``
  only for an exact ``int32`` and ``__nv_popcll``/``__nv_clzll`` for ``int64`` (whose ``int32`` result
  then stands for an ``int64`` value), and emit ``math.ctpop``/``math.ctlz`` for every other type, which
  Triton's conversion to LLVM has no pattern for: the compile failed on an H200 (JAX 0.11.2). jwarp
  counts in 32-bit lanes only: narrower integers zero-extended (``clz`` less the added bits), 64-bit
  ones as two 32-bit halves, each half reinterpreted as ``int32`` for JAX's ``int32`` rule.

jwarp also defines ``atomic_cas_lanes`` (:func:`atomic_cas_lanes`): a compare-and-swap of every lane of
a block at its own element (``atomic_cas`` of a launch's threads). Pallas's ``atomic_cas`` takes one
scalar; Triton's ``tt.atomic_cas`` takes a tensor of pointers, so the rule emits that, the pointers
computed as for the other atomics. It has no mask: a lane that must not take part compares and swaps
``val`` with ``val`` (which changes no element), at its clamped (valid) index.

Example::

    register_rules()   # before lowering or checking a kernel for the Triton backend
"""

from __future__ import annotations

from typing import Any, Callable

import jax.numpy as jnp
from jax import lax
from jax._src import core as jax_core
from jax._src import state
from jax._src import tree_util
from jwarp.compiler.selects import where

_registered = False


def _reduce_precision(x: Any, *, exponent_bits: int, mantissa_bits: int) -> Any:
    info = jnp.finfo(x.dtype)
    if (exponent_bits, mantissa_bits) == (info.nexp, info.nmant):
        return x
    if (exponent_bits, mantissa_bits) == (8, 23):
        return x.astype(jnp.float32).astype(x.dtype)
    if (exponent_bits, mantissa_bits) == (5, 10):
        return x.astype(jnp.float16).astype(x.dtype)
    raise NotImplementedError(f"reduce_precision to e{exponent_bits}m{mantissa_bits} on the Triton backend")


def _reduce_or(x: Any, *, axes: tuple, **_: Any) -> Any:
    return jnp.max(x.astype(jnp.int32), axis=axes) > 0 if x.dtype == jnp.bool_ else jnp.bitwise_or.reduce(x, axis=axes)


def _reduce_and(x: Any, *, axes: tuple, **_: Any) -> Any:
    return jnp.min(x.astype(jnp.int32), axis=axes) > 0 if x.dtype == jnp.bool_ else jnp.bitwise_and.reduce(x, axis=axes)


def _round(x: Any, *, rounding_method: Any) -> Any:
    whole = where(x < 0, jnp.ceil(x), jnp.floor(x))  # toward zero; keeps the sign of zero
    frac = jnp.abs(x - whole)  # exact: the low bits of x
    away = whole + where(x < 0, -1.0, 1.0).astype(x.dtype)
    if int(rounding_method) == int(lax.RoundingMethod.TO_NEAREST_EVEN):
        tie = where(jnp.floor(whole * 0.5) * 2 == whole, whole, away)
    else:  # AWAY_FROM_ZERO
        tie = away
    return where(frac > 0.5, away, where(frac < 0.5, whole, tie))


def register_rules() -> None:
    """Add jwarp's rules to the Triton lowering table (where JAX has none)."""
    global _registered
    if _registered:
        return
    from jax._src.pallas.triton import lowering

    if lax.reduce_precision_p not in lowering.triton_lowering_rules:
        lowering.triton_lowering_rules[lax.reduce_precision_p] = lowering.lower_fun(
            _reduce_precision, multiple_results=False)
    for primitive, fn in ((lax.reduce_or_p, _reduce_or), (lax.reduce_and_p, _reduce_and)):
        if primitive not in lowering.triton_lowering_rules:
            lowering.triton_lowering_rules[primitive] = lowering.lower_fun(fn, multiple_results=False)
    if lax.round_p not in lowering.triton_lowering_rules:
        lowering.triton_lowering_rules[lax.round_p] = lowering.lower_fun(_round, multiple_results=False)
    from jax._src import custom_derivatives

    if custom_derivatives.custom_vjp_call_p not in lowering.triton_lowering_rules:
        lowering.triton_lowering_rules[custom_derivatives.custom_vjp_call_p] = _inline_call_rule(lowering)
    for primitive in (lax.neg_p, lax.bitcast_convert_type_p):
        _wrap_literal_operands(lowering, primitive)
    _wrap_integer_atomics(lowering)
    for primitive in (lax.div_p, lax.logistic_p, lax.erf_inv_p):
        _wrap_half_in_float32(lowering, primitive)
    _wrap_rolled_scan(lowering)
    _wrap_literal_results(lowering)
    for primitive, fn in ((lax.population_count_p, _popcount_in_int32), (lax.clz_p, _clz_in_int32)):
        _wrap_bit_counts(lowering, primitive, fn)
    lowering.triton_lowering_rules.setdefault(atomic_cas_lanes_p, _atomic_cas_lanes_rule)
    _registered = True


def _inline_call_rule(lowering: Any) -> Callable:
    """A Triton rule that lowers a call primitive's ``call_jaxpr`` inline (a forward pass: a custom
    VJP's body). Built on ``lower_jaxpr_to_triton_ir``, which every JAX with a Triton backend has
    (JAX 0.11 dropped the closed-call rule JAX 0.10 exposed)."""

    def rule(ctx: Any, *args: Any, call_jaxpr: Any, **_: Any) -> Any:
        if call_jaxpr.consts:
            raise NotImplementedError("a custom_vjp body with captured constants")
        return lowering.lower_jaxpr_to_triton_ir(ctx.context, call_jaxpr.jaxpr, ctx.block_infos, *args)

    return rule


def _wrap_literal_operands(lowering: Any, primitive: Any) -> None:
    """Make ``primitive``'s Triton rule accept literal operands (materialised as MLIR constants)."""
    original = lowering.triton_lowering_rules.get(primitive)
    if original is None or getattr(original, "_jwarp_literals", False):
        return

    def rule(ctx: Any, *args: Any, **params: Any) -> Any:
        args = tuple(lowering._ensure_ir_value(x, aval) for x, aval in zip(args, ctx.avals_in))
        return original(ctx, *args, **params)

    rule._jwarp_literals = True
    lowering.triton_lowering_rules[primitive] = rule


def _wrap_integer_atomics(lowering: Any) -> None:
    from jax._src.pallas.triton import primitives
    from jax._src.state import indexing
    from jax._src.lib.triton import dialect as tt_dialect

    original = lowering.triton_lowering_rules.get(primitives.atomic_rmw_p)
    if original is None or getattr(original, "_jwarp_integer_atomics", False):
        return
    kinds = {primitives.AtomicOpType.ADD: ("ADD", "ADD"), primitives.AtomicOpType.MIN: ("MIN", "UMIN"),
             primitives.AtomicOpType.MAX: ("MAX", "UMAX")}

    def rule(ctx: Any, *args_flat: Any, args_tree: Any, atomic_type: Any) -> Any:
        *_, value_aval, mask_aval = args_tree.unflatten(ctx.avals_in)
        if atomic_type not in kinds or not jnp.issubdtype(value_aval.dtype, jnp.integer):
            return original(ctx, *args_flat, args_tree=args_tree, atomic_type=atomic_type)
        ptr, indexers, val, mask = args_tree.unflatten(args_flat)
        indexers = list(indexers)
        if len(indexers) != 1 or not isinstance(indexers[0], indexing.NDIndexer):
            return original(ctx, *args_flat, args_tree=args_tree, atomic_type=atomic_type)
        ptr = lowering._compute_pointers_from_indices(ptr, ctx.block_infos[0], indexers[0])
        val = lowering._ensure_ir_value(val, value_aval)
        if mask is not None:
            mask = lowering._ensure_ir_value(mask, mask_aval)
        signed, unsigned = kinds[atomic_type]
        name = signed if jnp.issubdtype(value_aval.dtype, jnp.signedinteger) else unsigned
        return lowering._atomic_rmw(getattr(tt_dialect.RMWOp, name), ptr, val, mask=mask)

    rule._jwarp_integer_atomics = True
    lowering.triton_lowering_rules[primitives.atomic_rmw_p] = rule


_HALF = (jnp.float16, jnp.bfloat16)


def _wrap_half_in_float32(lowering: Any, primitive: Any) -> None:
    """Lower ``primitive`` on half-precision operands in float32, rounding the result back."""
    original = lowering.triton_lowering_rules.get(primitive)
    if original is None or getattr(original, "_jwarp_half", False):
        return

    def in_float32(*args: Any, **params: Any) -> Any:
        dtype = args[0].dtype
        return primitive.bind(*(x.astype(jnp.float32) for x in args), **params).astype(dtype)

    promoted = lowering.lower_fun(in_float32, multiple_results=False)

    def rule(ctx: Any, *args: Any, **params: Any) -> Any:
        if any(aval.dtype in _HALF for aval in ctx.avals_in):
            return promoted(ctx, *args, **params)
        return original(ctx, *args, **params)

    rule._jwarp_half = True
    lowering.triton_lowering_rules[primitive] = rule


def _wrap_rolled_scan(lowering: Any) -> None:
    original = lowering.triton_lowering_rules.get(lax.scan_p)
    if original is None or getattr(original, "_jwarp_rolled", False):
        return

    def rule(ctx: Any, *args: Any, unroll: Any = 1, **params: Any) -> Any:
        return original(ctx, *args, unroll=1, **params)

    rule._jwarp_rolled = True
    lowering.triton_lowering_rules[lax.scan_p] = rule


def _wrap_literal_results(lowering: Any) -> None:
    """Make every lowered (sub-)jaxpr return MLIR values, literals materialised as constants."""
    original = lowering.lower_jaxpr_to_triton_ir
    if getattr(original, "_jwarp_literals", False):
        return

    def lower_jaxpr(ctx: Any, jaxpr: Any, block_infos: Any, *args: Any) -> Any:
        outs = original(ctx, jaxpr, block_infos, *args)
        return [out if out is None else lowering._ensure_ir_value(out, var.aval)
                for out, var in zip(outs, jaxpr.outvars)]

    lower_jaxpr._jwarp_literals = True
    lowering.lower_jaxpr_to_triton_ir = lower_jaxpr


def _as_int32(x: Any) -> Any:
    """The bits of a 32-bit integer ``x`` as ``int32`` (the only type JAX's rules count in 32 bits)."""
    return x if x.dtype == jnp.int32 else lax.bitcast_convert_type(x, jnp.int32)


def _widened(x: Any) -> Any:
    """``x`` (8 or 16 bits) zero-extended to ``int32``: the same set bits."""
    unsigned = jnp.dtype(f"uint{x.dtype.itemsize * 8}")
    return x.astype(unsigned).astype(jnp.int32) if x.dtype != unsigned else x.astype(jnp.int32)


def _halves(x: Any) -> tuple[Any, Any]:
    """(high, low) 32 bits of a 64-bit integer, each as ``int32``."""
    u = x if x.dtype == jnp.uint64 else lax.bitcast_convert_type(x, jnp.uint64)
    high = lax.shift_right_logical(u, jnp.uint64(32)).astype(jnp.uint32)
    low = (u & jnp.uint64(0xFFFFFFFF)).astype(jnp.uint32)
    return _as_int32(high), _as_int32(low)


def _popcount_in_int32(x: Any) -> Any:
    bits = x.dtype.itemsize * 8
    if bits == 64:
        high, low = _halves(x)
        count = lax.population_count(high) + lax.population_count(low)
    elif bits == 32:
        count = lax.population_count(_as_int32(x))
    else:
        count = lax.population_count(_widened(x))
    return count.astype(x.dtype)


def _clz_in_int32(x: Any) -> Any:
    bits = x.dtype.itemsize * 8
    if bits == 64:
        high, low = _halves(x)
        count = where(high != 0, lax.clz(high), 32 + lax.clz(low))
    elif bits == 32:
        count = lax.clz(_as_int32(x))
    else:
        count = lax.clz(_widened(x)) - (32 - bits)
    return count.astype(x.dtype)


def _wrap_bit_counts(lowering: Any, primitive: Any, in_int32: Callable) -> None:
    """Lower ``primitive`` of every integer type but ``int32`` as ``in_int32`` (``int32`` counts only)."""
    original = lowering.triton_lowering_rules.get(primitive)
    if original is None or getattr(original, "_jwarp_int32", False):
        return
    widened = lowering.lower_fun(in_int32, multiple_results=False)

    def rule(ctx: Any, x: Any, **params: Any) -> Any:
        [aval] = ctx.avals_in
        if aval.dtype == jnp.int32:
            return original(ctx, x, **params)
        return widened(ctx, lowering._ensure_ir_value(x, aval), **params)

    rule._jwarp_int32 = True
    lowering.triton_lowering_rules[primitive] = rule


atomic_cas_lanes_p = jax_core.Primitive("jwarp_atomic_cas_lanes")


def atomic_cas_lanes(ref: Any, index: Any, compare: Any, value: Any) -> Any:
    """For every lane ``k``: atomically, where ``ref[index[k]] == compare[k]``, store ``value[k]``;
    returns each lane's element before its operation (Triton backend only: a ``tt.atomic_cas`` over
    a tensor of pointers; lanes that must not take part pass ``compare == value``).

    Example (inside a Triton ``pallas_call`` kernel)::

        old = atomic_cas_lanes(lock_ref, lane_index, jnp.zeros(256, jnp.int32), jnp.ones(256, jnp.int32))
    """
    from jax._src.state import primitives as state_primitives

    ref, transforms = state_primitives.get_ref_and_transforms(ref, (index,), "atomic_cas_lanes")
    args_flat, args_tree = tree_util.tree_flatten((ref, transforms, compare, value))
    return atomic_cas_lanes_p.bind(*args_flat, args_tree=args_tree)


def _atomic_cas_lanes_abstract_eval(*avals_flat: Any, args_tree: Any) -> tuple:
    from jax._src.pallas import core as pallas_core

    ref, transforms, compare, value = args_tree.unflatten(avals_flat)
    target = pallas_core.TransformedRef(ref, transforms)
    if target.shape != value.shape or compare.shape != value.shape:
        raise ValueError(f"atomic_cas_lanes: index shape {target.shape}, compare {compare.shape}, value {value.shape}")
    if not (target.dtype == value.dtype == compare.dtype):
        raise ValueError(f"atomic_cas_lanes: element {target.dtype}, compare {compare.dtype}, value {value.dtype}")
    return jax_core.ShapedArray(value.shape, value.dtype), {state.WriteEffect(0)}


atomic_cas_lanes_p.def_effectful_abstract_eval(_atomic_cas_lanes_abstract_eval)


def _atomic_cas_lanes_rule(ctx: Any, *args_flat: Any, args_tree: Any) -> Any:
    from jax._src.lib.mlir import ir
    from jax._src.lib.triton import dialect as tt_dialect
    from jax._src.pallas.triton import lowering
    from jax._src.state import indexing

    ptr, indexers, compare, value = args_tree.unflatten(args_flat)
    *_, compare_aval, value_aval = args_tree.unflatten(ctx.avals_in)
    indexers = list(indexers)
    if len(indexers) != 1 or not isinstance(indexers[0], indexing.NDIndexer):
        raise NotImplementedError("atomic_cas_lanes takes one index array")
    ptr = lowering._compute_pointers_from_indices(ptr, ctx.block_infos[0], indexers[0])
    compare = lowering._ensure_ir_value(compare, compare_aval)
    value = lowering._ensure_ir_value(value, value_aval)
    ptr_type = ir.RankedTensorType(ptr.type)
    element = tt_dialect.PointerType(ptr_type.element_type).pointee_type
    result_type = ir.RankedTensorType.get(ptr_type.shape, element, ptr_type.encoding)
    return tt_dialect.atomic_cas(result_type, ptr, compare, value, sem=tt_dialect.MemSemantic.ACQUIRE_RELEASE,
                                 scope=tt_dialect.MemSyncScope.GPU)


__all__ = ["register_rules", "atomic_cas_lanes", "atomic_cas_lanes_p"]
