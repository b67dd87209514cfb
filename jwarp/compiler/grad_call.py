"""``wp.grad(f)(x, y, ...)`` in kernel code: the gradient of a float-valued ``@wp.func`` or builtin
with respect to each of its (float) arguments, evaluated per thread.

The call is lowered as ``jax.vjp`` of the function over the thread grid with a cotangent of one
per thread (threads are independent, so this is each thread's gradient). As in Warp, the result
is forward-only: it is a constant for the kernel's own backward pass (``stop_gradient``).

Example (kernel code)::

    @wp.func
    def square(x: float):
        return x * x

    @wp.kernel
    def k(x: wp.array(dtype=float), dx: wp.array(dtype=float)):
        i = wp.tid()
        dx[i] = wp.grad(square)(x[i])          # 2 x
        db, da = wp.grad(wp.atan2)(x[i], 1.0)  # one gradient per argument
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp

from jwarp.compiler.values import STATIC, TupleType, Value, leaves_of, value_from_leaves
from jwarp.errors import WarpCodegenError, WarpCodegenTypeError
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import type_name

if TYPE_CHECKING:
    from jwarp.compiler.lower import FunctionLowerer


class GradOf:
    """What ``wp.grad(f)`` evaluates to: call it (in kernel code) with ``f``'s arguments."""

    def __init__(self, func: Any):
        self.func = func
        self.__name__ = f"grad({getattr(func, 'key', getattr(func, '__name__', func))})"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"wp.{self.__name__}(...) can only be called inside a kernel or wp.func")

    def __repr__(self) -> str:
        return f"<jwarp {self.__name__}>"


def _float_args(name: str, args: list[Value]) -> None:
    for k, a in enumerate(args):
        t = a.type._wp_scalar_type_ if composites.is_composite(a.type) else a.type
        if not scalars.is_scalar_type(t) or not scalars.is_float(t):
            raise WarpCodegenTypeError(
                f"wp.{name}: argument {k} has type {type_name(a.type)}; gradients are taken with respect to "
                "float scalars, vectors and matrices only"
            )


def lower_grad_call(lw: FunctionLowerer, grad: GradOf, args: list[Value], kwargs: dict, node: ast.Call) -> Value:
    """Each argument's gradient (a tuple of them for several arguments), per thread."""
    from jwarp.compiler.calls import _call_builtin, inline_function
    from jwarp.compiler.registry import Builtin

    if kwargs:
        raise WarpCodegenError(f"wp.{grad.__name__}(...) takes positional arguments only")
    if not args:
        raise WarpCodegenError(f"wp.{grad.__name__}() needs the function's arguments")
    all_args = args
    args = [a for a in all_args if a.type is not STATIC]  # function-valued arguments are not differentiated
    _float_args(grad.__name__, args)
    grid = lw.ctx.grid
    counts = [len(leaves_of(a)) for a in args]
    flat = [jnp.broadcast_to(jnp.asarray(x), grid) for a in args for x in leaves_of(a)]

    def forward(*leaves: Any) -> Any:
        values, k, j = [], 0, 0
        for a in all_args:
            if a.type is STATIC:
                values.append(a)
                continue
            n = counts[j]
            values.append(value_from_leaves(a.type, list(leaves[k : k + n])))
            k, j = k + n, j + 1
        if isinstance(grad.func, Builtin):
            out = _call_builtin(lw, grad.func, values, {}, node, False)
        else:
            out = inline_function(lw, grad.func, values, {}, node)
        if out is None or not scalars.is_scalar_type(out.type) or not scalars.is_float(out.type):
            got = "nothing" if out is None else type_name(out.type)
            raise WarpCodegenTypeError(f"wp.{grad.__name__}: the function must return a float scalar, got {got}")
        return jnp.broadcast_to(jnp.asarray(out.data), grid)

    y, pull = jax.vjp(forward, *flat)
    cotangents = pull(jnp.ones_like(y))
    results, k = [], 0
    for a, n in zip(args, counts):
        leaves = [jax.lax.stop_gradient(g) for g in cotangents[k : k + n]]
        results.append(value_from_leaves(a.type, leaves))
        k += n
    if len(results) == 1:
        return results[0]
    return Value(TupleType(tuple(r.type for r in results)), tuple(results))


__all__ = ["GradOf", "lower_grad_call"]
