"""``wp.ref[T]`` arguments at call sites of inlined ``@wp.func``.

Functions are inlined, so a reference parameter is lowered as copy-in/copy-out: the
callee's local starts with the argument's value, and when the call ends, what the callee
left in it is assigned back to the argument expression (a local, an array element, a
struct field or a component) under the caller's active lanes. Only arguments whose
storage can be named are accepted; literals, arithmetic and call results are rejected at
the call's line.

Example (kernel code)::

    @wp.func
    def bump(x: wp.ref[float]):
        x += 1.0

    bump(a[i].vel[1])   # a[i].vel[1] += 1.0
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from jwarp.compiler import components, lvalues
from jwarp.compiler.values import STATIC, Value
from jwarp.errors import WarpCodegenError
from jwarp.lang.arrays import ArrayType, type_name

if TYPE_CHECKING:
    from jwarp.compiler.lower import FunctionLowerer

_ADDRESSABLE = "a local variable, a wp.ref parameter, an array element, a struct field or a component"


def check_addressable(lw: FunctionLowerer, node: ast.expr, what: str) -> None:
    """Raise unless ``node`` names storage (``x``, ``a[i]``, ``s.f``, ``v[1]``, ``a[i].f.x``)."""
    root = node
    while isinstance(root, (ast.Subscript, ast.Attribute)):
        if isinstance(root, ast.Subscript) and components.has_slice(root.slice):
            raise WarpCodegenError(f"{what} cannot be a slice (`{ast.unparse(node)}`); pass {_ADDRESSABLE}")
        root = root.value
    if not isinstance(root, ast.Name):
        raise WarpCodegenError(
            f"{what} must be addressable ({_ADDRESSABLE}); `{ast.unparse(node)}` is a temporary value"
        )
    value = lw.env.get(root.id)
    if isinstance(node, ast.Name) and node.id in lw.literal_locals and value is not None:
        scalar = type_name(value.type)
        raise WarpCodegenError(
            f"Error taking a mutable reference to constant local '{node.id}', use the following syntax: "
            f"{node.id} = wp.{scalar}({value.data.item()!r}) to declare a dynamic variable"
        )
    if value is None or value.type is STATIC:
        raise WarpCodegenError(
            f"{what} must be addressable ({_ADDRESSABLE}); `{root.id}` is not a local variable of "
            f"'{lw.src.name}'"
        )


def argument_nodes(overload: Any, node: ast.Call) -> dict[str, ast.expr]:
    """The call's argument expression for each reference parameter."""
    names = [p[0] for p in overload.params]
    out: dict[str, ast.expr] = {}
    for name, arg in zip(names, node.args):
        if name in overload.ref_params:
            out[name] = arg
    for kw in node.keywords:
        if kw.arg in overload.ref_params:
            out[kw.arg] = kw.value
    return out


def check_call(lw: FunctionLowerer, key: str, overload: Any, node: ast.Call) -> dict[str, ast.expr]:
    """Validate a call to a function with reference parameters; returns their argument nodes."""
    if lw.ctx.enable_backward and overload.custom_grad is None:
        raise WarpCodegenError(
            f"In function '{lw.src.name}': Cannot call '{key}' with wp.ref[T] parameters from a backward-enabled "
            "kernel. Use enable_backward=False on the kernel, or write a custom adjoint with @wp.func_grad."
        )
    targets = argument_nodes(overload, node)
    for name, arg in targets.items():
        check_addressable(lw, arg, f"The argument for wp.ref parameter '{name}' of '{key}'")
    return targets


def copy_out(lw: FunctionLowerer, targets: dict[str, ast.expr], before: dict[str, Value], after: dict) -> None:
    """Assign what the callee left in each reference parameter back to the caller's storage."""
    for name, target in targets.items():
        new = after.get(name)
        if new is None or new is before.get(name) or isinstance(new.type, ArrayType):
            continue
        lvalues.assign(lw, target, new)
