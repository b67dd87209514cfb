"""``@wp.func_grad``: user-written adjoints of ``@wp.func`` functions, as ``jax.custom_vjp``.

Warp's convention: the gradient function takes the forward function's arguments followed by
the adjoint of each returned value, and accumulates into ``wp.adjoint[arg]`` (also
``wp.adjoint[arg.field]`` and components ``wp.adjoint[arg][k]``)::

    @wp.func
    def safe_sqrt(x: float):
        return wp.sqrt(x)

    @wp.func_grad(safe_sqrt)
    def adj_safe_sqrt(x: float, adj_ret: float):
        if x > 0.0:
            wp.adjoint[x] += 0.5 / wp.sqrt(x) * adj_ret

A call to a function with a custom gradient is inlined as usual for the forward value; its
derivative is re-routed through a ``jax.custom_vjp`` whose backward lowers the gradient
function (its ``wp.adjoint[...]`` targets become local accumulators) over the same lanes.
Calls whose arguments include arrays (or return nothing) keep JAX's own derivative.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np

from jwarp.compiler.context import KernelContext
from jwarp.compiler.source import get_source, refresh_closure
from jwarp.compiler.values import TupleType, Value, from_leaves, leaves_of, value_from_leaves, zeros_value
from jwarp.errors import WarpCodegenError
from jwarp.lang import composites, scalars
from jwarp.lang.struct import StructType

if TYPE_CHECKING:
    from jwarp.compiler.lower import FunctionLowerer

_PREFIX = "__jwarp_adj__"


def lower_custom_grad(lw: FunctionLowerer, key: str, overload: Any, bound: dict[str, Value],
                      forward: Callable[[], Value | None]) -> Value | None:
    """Inline a call whose function has a custom gradient (see module docstring)."""
    names = [p[0] for p in overload.params]
    args = [bound[n] for n in names]
    if not all(_numeric(a.type) for a in args):
        return forward()
    ret = forward()
    if ret is None or not _numeric(ret.type) or not _has_float(ret):
        return ret
    grad_source = _grad_source(overload.custom_grad, key)
    types = [a.type for a in args]
    arg_leaves = tuple(tuple(jnp.asarray(x) for x in leaves_of(a)) for a in args)
    # the forward's own derivative is cut off: the gradient is the custom one only (a zero cotangent
    # sent back through the forward would meet Warp's inf factors, sqrt's at 0, and make NaN)
    out_leaves = tuple(jax.lax.stop_gradient(jnp.asarray(x)) for x in leaves_of(ret))
    grid, kernel_name, ret_type = lw.ctx.grid, lw.ctx.kernel_name, ret.type

    @jax.custom_vjp
    def through(out, primals):
        return out

    def fwd(out, primals):
        return out, primals

    def bwd(primals, ct):
        adjoints = _run_grad(grad_source, names, types, primals, ret_type, ct, grid, kernel_name)
        return tuple(jnp.zeros_like(c) for c in ct), adjoints

    through.defvjp(fwd, bwd)
    rerouted = through(out_leaves, arg_leaves)
    return Value(ret_type, value_from_leaves(ret_type, list(rerouted)).data)


def _numeric(t: Any) -> bool:
    if scalars.is_scalar_type(t) or composites.is_composite(t):
        return True
    if isinstance(t, StructType):
        return all(_numeric(v.type) for v in t.vars.values())
    if isinstance(t, TupleType):
        return all(_numeric(s) for s in t.types)
    return False


def _has_float(value: Value) -> bool:
    return any(jnp.issubdtype(jnp.asarray(x).dtype, jnp.floating) for x in leaves_of(value))


def _leaf_count(t: Any) -> int:
    return len(leaves_of(zeros_value(t)))


def _field_offset(t: Any, path: tuple[str, ...]) -> tuple[int, Any]:
    """(first leaf index, type) of ``arg.path[0].path[1]…`` within a value of type ``t``."""
    offset = 0
    for name in path:
        if not isinstance(t, StructType) or name not in t.vars:
            raise WarpCodegenError(f"wp.adjoint[...]: '{name}' is not a field of {getattr(t, 'key', t)}")
        for var_name, var in t.vars.items():
            if var_name == name:
                t = var.type
                break
            offset += _leaf_count(var.type)
    return offset, t


class _AdjointTargets(ast.NodeTransformer):
    """``wp.adjoint[x.a]`` → local ``__jwarp_adj__x__a``; records the (name, path) targets."""

    def __init__(self) -> None:
        self.targets: dict[str, tuple[str, tuple[str, ...]]] = {}

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        base = node.value
        is_adjoint = (isinstance(base, ast.Attribute) and base.attr == "adjoint") or (
            isinstance(base, ast.Name) and base.id == "adjoint"
        )
        if not is_adjoint:
            return self.generic_visit(node)
        path: list[str] = []
        target = node.slice
        while isinstance(target, ast.Attribute):
            path.insert(0, target.attr)
            target = target.value
        if not isinstance(target, ast.Name):
            raise WarpCodegenError("wp.adjoint[...] must name a function argument (or one of its struct fields)")
        local = _PREFIX + "__".join([target.id, *path])
        self.targets[local] = (target.id, tuple(path))
        return ast.copy_location(ast.Name(id=local, ctx=node.ctx), node)


_SOURCES: dict[int, tuple] = {}


def _grad_source(grad: Callable, key: str) -> tuple:
    cached = _SOURCES.get(id(grad))
    if cached is not None and cached[0] is grad:
        return cached[1]
    source = get_source(grad)
    refresh_closure(source)
    rewriter = _AdjointTargets()
    tree = rewriter.visit(copy.deepcopy(source.tree))
    params = [a.arg for a in source.tree.args.args]
    result = (dataclasses.replace(source, tree=tree), rewriter.targets, params)
    _SOURCES[id(grad)] = (grad, result)
    return result


def _run_grad(grad_source: tuple, names: list, types: list, primals: tuple, ret_type: Any, ct: tuple,
              grid: tuple, kernel_name: str) -> tuple:
    from jwarp.compiler.lower import Frame, FunctionLowerer

    source, targets, params = grad_source
    env: dict[str, Value] = {}
    for name, t, leaves in zip(names, types, primals):
        env[name] = value_from_leaves(t, list(leaves))
    adj_params = params[len(names):]
    if isinstance(ret_type, TupleType):
        ret_values, start = [], 0
        for sub in ret_type.types:
            data, start = from_leaves(sub, list(ct), start)
            ret_values.append(Value(sub, data))
    else:
        ret_values = [value_from_leaves(ret_type, list(ct))]
    if len(adj_params) != len(ret_values):
        raise WarpCodegenError(
            f"Custom gradient '{source.name}' must take the arguments of the function followed by one adjoint per "
            f"returned value ({len(ret_values)}), got {len(adj_params)} extra parameters"
        )
    env.update(zip(adj_params, ret_values))
    for local, (name, path) in targets.items():
        if name not in env or name in adj_params:
            raise WarpCodegenError(f"wp.adjoint[{name}]: '{name}' is not an argument of the function")
        _, t = _field_offset(types[names.index(name)], path)
        env[local] = zeros_value(t)
    ctx = KernelContext(kernel_name=kernel_name, grid=grid, slots=[])
    FunctionLowerer(ctx, source, env, None, Frame(source.name, is_kernel=False)).run()
    adjoints = [[None] * len(leaves) for leaves in primals]
    for local, (name, path) in targets.items():
        index = names.index(name)
        offset, _ = _field_offset(types[index], path)
        for k, leaf in enumerate(leaves_of(env[local])):
            slot = adjoints[index]
            slot[offset + k] = leaf if slot[offset + k] is None else slot[offset + k] + leaf
    return tuple(tuple(_cotangent(adj, p) for adj, p in zip(group, leaves))
                 for group, leaves in zip(adjoints, primals))


def _cotangent(adj: Any, primal: Any) -> Any:
    """``adj`` summed down to the primal leaf's shape (uniform arguments collect every lane)."""
    if not jnp.issubdtype(primal.dtype, jnp.floating):
        return np.zeros(primal.shape, dtype=jax.dtypes.float0)
    if adj is None:
        return jnp.zeros_like(primal)
    adj = jnp.asarray(adj, primal.dtype)
    if adj.shape != primal.shape:
        extra = adj.ndim - primal.ndim
        if extra > 0:
            adj = adj.sum(axis=tuple(range(extra)))
        axes = tuple(i for i, (a, p) in enumerate(zip(adj.shape, primal.shape)) if p == 1 and a != 1)
        if axes:
            adj = adj.sum(axis=axes, keepdims=True)
        adj = jnp.broadcast_to(adj, primal.shape)
    return adj


__all__ = ["lower_custom_grad"]
