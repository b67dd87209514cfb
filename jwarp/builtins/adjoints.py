"""Warp's adjoint conventions for builtins whose JAX derivative differs, applied by name.

jwarp gets gradients from JAX's autodiff of each builtin's implementation. Where Warp's
hand-written adjoint (``warp/native/*.h``) follows another convention — ties of ``min``/
``max``, ``abs`` at 0, ``frac``, ``atomic_min``/``atomic_max`` — or guards a singular point
(``sqrt``, ``acos``, ``length``, ``normalize`` at 0…), the registered implementation is
wrapped once, here, after every builtin group has registered: the wrapper keeps the forward
value and *re-routes* its derivative through a ``jax.custom_jvp`` whose rule is Warp's.

Derivative factors that are not finite become 0 on the lanes that are not active at the call.
Inactive lanes of a branch are computed and then discarded by a select (``where``), so their
cotangent is 0; JAX's rule would turn ``0 * inf`` into NaN there (``if x > 0: y = wp.sqrt(x)``),
where Warp never evaluates them. Active lanes keep Warp's value (``wp.sqrt`` at 0: inf).

Add a rule: ``elementwise("name", partials)`` where ``partials(*arg_leaves, out)`` returns
one derivative factor per argument (scalar arguments broadcast over composite ones), or
``override("name", rule)`` with ``rule(args, out, tangents) -> out tangents`` (lists of
leaves, linear in the tangents). The table is documented in ``docs/autodiff.md``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.compiler import array_views
from jwarp.compiler.registry import BUILTINS
from jwarp.compiler.values import Value, is_const, leaves_of, value_from_leaves
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import ArrayType
from jwarp.compiler.selects import clip, where

RULES: dict[str, Callable] = {}


def _finite(d: Any) -> Any:
    return where(jnp.isfinite(d), d, jnp.zeros_like(d))


def _is_float_value(v: Any) -> bool:
    if not isinstance(v, Value):
        return False
    t = v.type
    scalar = t._wp_scalar_type_ if composites.is_composite(t) else t
    return scalars.is_float(scalar)


def override(name: str, rule: Callable, arity: int | None = None) -> None:
    """Re-route the derivative of builtin ``name`` through ``rule(args, out, tangents)``
    (only for calls with ``arity`` arguments when given)."""
    RULES[name] = rule
    builtin = BUILTINS.get(name)
    if builtin is None or getattr(builtin.impl, "_jwarp_adjoint", False):
        return
    original = builtin.impl

    signature = inspect.signature(original)

    def impl(call: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs:  # keyword arguments (wp.pow(x=2.0, y=4.0)) take their positional places
            try:
                bound = signature.bind(call, *args, **kwargs)
                bound.apply_defaults()
                if not bound.kwargs:
                    args, kwargs = tuple(a for a in bound.args[1:] if a is not None), {}
            except TypeError:
                pass
        out = original(call, *args, **kwargs)
        if kwargs or out is None or not _is_float_value(out) or not all(_is_float_value(a) for a in args):
            return out
        if arity is not None and len(args) != arity:
            return out
        out_leaves = list(leaves_of(out))
        arg_leaves = [list(leaves_of(a)) for a in args]
        if all(is_const(x) for x in out_leaves):
            return out
        mask = call.mask
        if mask is None and getattr(call.lowerer, "mask_unknown", False):
            mask = False  # (tile element code: which lanes are active is not known here)
        rerouted = reroute(RULES[name], arg_leaves, out_leaves, mask)
        return Value(out.type, value_from_leaves(out.type, rerouted).data, out.affine)

    impl._jwarp_adjoint = True
    impl._jwarp_original = original
    impl.__doc__ = original.__doc__
    builtin.impl = impl


def reroute(rule: Callable, arg_leaves: list[list], out_leaves: list, mask: Any = None) -> list:
    """``out_leaves`` with the derivative given by ``rule`` instead of their own (``mask``: the lanes
    active at the call, None for all; passed to rules made by :func:`elementwise`)."""
    out = tuple(jnp.asarray(x) for x in out_leaves)
    args = tuple(tuple(jnp.asarray(x) for x in group) for group in arg_leaves)
    masked = getattr(rule, "_jwarp_masked", False)
    lanes = masked and mask is not None and not is_const(mask)  # a lane array: a primal of f
    every = mask is None or (is_const(mask) and bool(mask))  # else a constant: every lane, or none
    active = (jnp.asarray(mask),) if lanes else ()

    @jax.custom_jvp
    def f(out, args, active):
        return out

    @f.defjvp
    def f_jvp(primals, tangents):
        out_p, args_p, active_p = primals
        _, args_t, _ = tangents
        kwargs = {"active": active_p[0] if lanes else every} if masked else {}
        t_out = rule([list(g) for g in args_p], list(out_p), [list(g) for g in args_t], **kwargs)
        return out_p, tuple(jnp.broadcast_to(t, o.shape).astype(o.dtype) for t, o in zip(t_out, out_p))

    return list(f(out, args, active))


def elementwise(name: str, partials: Callable) -> None:
    """Override ``name`` with a component-wise rule: ``partials(*args, out) -> factors``."""
    import inspect

    arity = len(inspect.signature(partials).parameters) - 1

    def rule(args: list, out: list, tangents: list, active: Any = True) -> list:
        t_out = []
        for k, o in enumerate(out):
            primals = [g[k] if len(g) == len(out) else g[0] for g in args]
            tans = [g[k] if len(g) == len(out) else g[0] for g in tangents]
            factors = partials(*primals, o)
            total = None
            for d, t in zip(factors, tans):
                if d is None:
                    continue
                term = _on_active(d, active) * t
                total = term if total is None else total + term
            t_out.append(jnp.zeros_like(o) if total is None else total)
        return t_out

    rule._jwarp_masked = True
    override(name, rule, arity)


def _lane_mask(active: Any, like: Any) -> Any:
    """``active`` (the lanes active at a call: True for all, False for none, or a lane array) shaped to
    broadcast against ``like``; False also where ``like`` has no lane axes (a launch-uniform value)."""
    if active is True or active is False:
        return active
    lanes = tuple(jnp.shape(active))
    if tuple(jnp.shape(like)[:len(lanes)]) != lanes:
        return False
    return jnp.reshape(active, lanes + (1,) * (jnp.ndim(like) - len(lanes)))  # (a tile's own axes follow)


def _on_active(d: Any, active: Any) -> Any:
    """A derivative factor as Warp's on the lanes ``active`` at the call and 0 where it is not finite
    on the others (see the module docstring; :func:`_lane_mask`)."""
    mask = _lane_mask(active, d)
    if mask is True:
        return d
    return _finite(d) if mask is False else where(mask, d, _finite(d))


def _one(x: Any) -> Any:
    return jnp.ones_like(x)


def _pick_min(a: Any, b: Any) -> Any:
    """Warp's ``adj_min``: the gradient goes to ``a`` when it is the smaller non-NaN (ties: ``b``)."""
    return where(jnp.isnan(a), False, where(jnp.isnan(b), True, a < b))


def _pick_max(a: Any, b: Any) -> Any:
    return where(jnp.isnan(a), False, where(jnp.isnan(b), True, a > b))


def _clamp(x: Any, lo: Any, hi: Any, out: Any) -> tuple:
    # Warp: fmin(fmax(lo, x), hi) differentiated through adj_max then adj_min
    to_lo = _pick_max(lo, x)
    m = jnp.fmax(lo, x)  # the forward's fmax: a NaN x leaves lo
    to_m = _pick_min(m, hi)
    f = jnp.asarray(1, out.dtype)
    z = jnp.asarray(0, out.dtype)
    return (where(to_m & ~to_lo, f, z), where(to_m & to_lo, f, z), where(to_m, z, f))


def _select(cond: Any, dtype: Any) -> Any:
    return where(cond, jnp.asarray(1, dtype), jnp.asarray(0, dtype))


def _install_scalar_math() -> None:
    elementwise("sqrt", lambda x, out: (0.5 / out,))
    elementwise("cbrt", lambda x, out: (1.0 / (3.0 * out * out),))
    elementwise("log", lambda x, out: (1.0 / x,))
    elementwise("log2", lambda x, out: (1.0 / (x * np.log(2.0)),))
    elementwise("log10", lambda x, out: (1.0 / (x * np.log(10.0)),))
    elementwise("acos", lambda x, out: (where(1 - x * x > 0, -lax.rsqrt(jnp.maximum(1 - x * x, 1e-30)), 0),))
    elementwise("asin", lambda x, out: (where(1 - x * x > 0, lax.rsqrt(jnp.maximum(1 - x * x, 1e-30)), 0),))
    # Warp's 1 / cos(x)^2 as 1 + tan(x)^2: the same to rounding (cos of a float is never 0), without
    # a second C library call per element on XLA:CPU (see trig.py)
    elementwise("tan", lambda x, out: (1.0 + out * out,))
    elementwise("atan2", lambda y, x, out: (
        where(x * x + y * y > 0, x / (x * x + y * y), 0),
        where(x * x + y * y > 0, -y / (x * x + y * y), 0),
    ))
    elementwise("abs", lambda x, out: (where(x < 0, -_one(x), _one(x)),))
    elementwise("min", lambda a, b, out: (_select(_pick_min(a, b), out.dtype), _select(~_pick_min(a, b), out.dtype)))
    elementwise("max", lambda a, b, out: (_select(_pick_max(a, b), out.dtype), _select(~_pick_max(a, b), out.dtype)))
    elementwise("clamp", _clamp)
    elementwise("frac", lambda x, out: (jnp.zeros_like(x),))
    # copysign: d/dx is +1 where the sign bits of x and y agree (signed zeros by their sign bit), else -1
    elementwise("copysign", lambda x, y, out: (
        where(jnp.signbit(x) == jnp.signbit(y), _one(x), -_one(x)), jnp.zeros_like(y)))
    elementwise("mod", lambda a, b, out: (_one(a), None))
    elementwise("pow", lambda a, b, out: (b * jnp.power(a, b - 1), where(out == 0, 0, jnp.log(a) * out)))
    elementwise("div", lambda a, b, out: (1.0 / b, -out / b))
    _div_by_scalar = RULES["div"]

    def div_rule(args: list, out: list, tangents: list, active: Any = True) -> list:
        (a, b), (ta, tb) = args, tangents
        if len(b) != 1 or len(a) == 1:
            return _div_by_scalar(args, out, tangents, active=active)
        # composite / scalar, Warp's adj_div: adj_b -= dot(a, adj_ret) / (b * b), adj_a += adj_ret / b
        scaled = tb[0] / (b[0] * b[0])
        terms = [t / b[0] - x * scaled for x, t in zip(a, ta)]
        mask = _lane_mask(active, b[0])
        if mask is True:
            return terms
        finite = jnp.isfinite(1.0 / b[0])  # (as _on_active: only inactive lanes drop non-finite terms)
        keep = finite if mask is False else (mask | finite)
        return [where(keep, t, jnp.zeros_like(t)) for t in terms]

    div_rule._jwarp_masked = True
    override("div", div_rule, 2)


def _length_rule(args: list, out: list, tangents: list) -> list:
    r = out[0]
    positive = r > 0
    safe = where(positive, r, 1)
    total = sum(where(positive, x / safe, 0) * dt for x, dt in zip(args[0], tangents[0]))
    return [total]


def _normalize_rule(args: list, out: list, tangents: list) -> list:
    v, t = args[0], tangents[0]
    d2 = sum(x * x for x in v)
    positive = d2 > 0
    inv = where(positive, lax.rsqrt(where(positive, d2, 1)), 0)
    proj = sum(o * dt for o, dt in zip(out, t))
    return [(dt - o * proj) * inv for o, dt in zip(out, t)]


def _install_vector_math() -> None:
    override("length", _length_rule, 1)
    override("normalize", _normalize_rule, 1)


# ------------------------------------------------------------------------------------------------
# atomic_min / atomic_max: the value equal to the element's final contents gets the element's
# adjoint (every tied value gets all of it); the element's adjoint itself passes through, and
# the returned old value carries no gradient (Warp's adj_atomic_minmax).


def _wrap_atomic(name: str) -> None:
    builtin = BUILTINS.get(name)
    if builtin is None or getattr(builtin.impl, "_jwarp_adjoint", False):
        return
    original = builtin.impl

    def impl(call: Any, *args: Any) -> Any:
        if not call.in_kernel or len(args) < 2 or not isinstance(args[0].type, ArrayType):
            return original(call, *args)
        arr = args[0]
        slot = call.ctx.slots[arr.data.slot]
        scalar = slot.dtype._wp_scalar_type_ if composites.is_composite(slot.dtype) else slot.dtype
        if not scalars.is_float(scalar) or slot.in_place:  # in place (Pallas): its backward is the XLA path's
            return original(call, *args)
        before = list(slot.planes)
        result = original(call, *args)
        after = list(slot.planes)
        full, _ = array_views.index(arr.data, slot.shape, list(args[1:-1]))
        indices = [v.data for v in full]
        lin, keep = _lane_indices(call, indices, slot.shape)
        values = [jnp.broadcast_to(jnp.asarray(x), call.ctx.grid) for x in leaves_of(args[-1])]
        slot.planes = _reroute_atomic(after, before, values, lin, keep)
        if result is None:
            return None
        return value_from_leaves(result.type, [lax.stop_gradient(x) for x in leaves_of(result)])

    impl._jwarp_adjoint = True
    impl._jwarp_original = original
    impl.__doc__ = original.__doc__
    builtin.impl = impl


def _lane_indices(call: Any, indices: list, shape: tuple) -> tuple:
    grid = call.ctx.grid
    keep = jnp.ones(grid, bool) if call.mask is None else jnp.broadcast_to(call.mask, grid)
    lin = jnp.zeros(grid, jnp.int32)
    for i, n in zip(indices, shape):
        i = jnp.broadcast_to(jnp.asarray(i, jnp.int32), grid)
        keep = keep & (i >= 0) & (i < n)
        lin = lin * n + clip(i, 0, n - 1)
    return lin.reshape(-1), keep.reshape(-1)


def _reroute_atomic(after: list, before: list, values: list, lin: Any, keep: Any) -> list:
    @jax.custom_jvp
    def f(after, before, values, lin, keep):
        return after

    @f.defjvp
    def f_jvp(primals, tangents):
        after_p, _, values_p, lin_p, keep_p = primals
        _, t_before, _, _, _ = tangents
        t_values = tangents[2]
        out = []
        size = lin_p.shape[0]
        for plane, tb, v, tv in zip(after_p, t_before, values_p, t_values):
            flat = plane.reshape(-1)
            v, tv = v.reshape(size), tv.reshape(size)
            current = flat[lin_p]
            win = keep_p & ((v == current) | (jnp.isnan(v) & jnp.isnan(current)))
            contrib = jnp.zeros_like(flat).at[lin_p].add(where(win, tv, 0).astype(flat.dtype))
            out.append(tb + contrib.reshape(plane.shape))
        return after_p, tuple(out)

    return list(f(tuple(after), tuple(before), tuple(values), lin, keep))


def install() -> None:
    """Apply every override to the builtins registered so far (idempotent)."""
    _install_scalar_math()
    _install_vector_math()
    _wrap_atomic("atomic_min")
    _wrap_atomic("atomic_max")


install()
