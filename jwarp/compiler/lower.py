"""The statement and expression lowerer: kernel AST → JAX operations on lane values.

:class:`FunctionLowerer` walks one function body (a kernel, or a ``wp.func`` inlined at a
call site) and emits JAX operations while doing so — there is no second IR; the jaxpr is
the IR. Its dispatch tables (``_STATEMENTS``, ``_EXPRESSIONS``) *are* the list of
supported Python constructs; anything else raises "Construct ... not supported in kernels"
at the node's file and line.

Control flow is lowered with lane masks (see ``control.py``): ``self.active`` is the set of
lanes executing the current statement; assignments and stores outside it are masked.
"""

from __future__ import annotations

import ast
import enum
import builtins as py
from dataclasses import dataclass
from typing import Any

import numpy as np

from jwarp import config
from jwarp.compiler import calls, control, lvalues, operators, tiles
from jwarp.compiler.context import KernelContext
from jwarp.compiler.masks import Mask, Touched, mask_and
from jwarp.compiler.names import warp_namespace_lookup
from jwarp.compiler.source import FunctionSource
from jwarp.compiler.values import (
    STATIC,
    ArrayRef,
    TupleType,
    Value,
    is_const,
    python_to_value,
    select_value,
    scalar_value,
)
from jwarp.errors import (
    ControlSignal,
    WarpCodegenError,
    WarpCodegenKeyError,
    WarpCodegenTypeError,
    _Located,
    failed_node,
    mark_failed_node,
    with_location,
)
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import ArrayType, type_name
from jwarp.lang.tile_types import TileType
from jwarp.compiler.materialise import materialised


@dataclass
class Frame:
    """One function activation: which lanes returned, and the merged return value."""

    name: str
    is_kernel: bool
    returned: Mask = None  # exit set: None = no lane has returned
    ret: Value | None = None
    nonzero: Mask = np.bool_(False)  # lanes that returned a value other than a constant zero (None: all)
    track_nonzero: bool = False  # whether to track ``nonzero`` (for a caller recording Touched lanes)


def _check_function_rebind(name: str, old: Any, value: Value) -> None:
    """Warp's rules for a local bound to a function: it keeps that function for the whole body (there are
    no function pointers), and a ``wp.grad(f)`` local is never reassigned."""
    from jwarp.compiler.grad_call import GradOf

    if isinstance(old, GradOf):
        raise WarpCodegenError(
            f"Cannot reassign local '{name}' after binding it to wp.grad(...). Warp treats wp.grad(...) results as "
            "static function handles; use a different local variable for the new value.")
    if not _is_function(old):
        return
    if value.type is not STATIC or not _is_function(value.data):
        raise WarpCodegenError(
            f"Error, rebinding function-valued local '{name}' to a non-function value is not supported. Warp does not "
            "have function pointers, so a local bound to a function must refer to a function throughout the kernel.")
    if value.data is not old:
        raise WarpCodegenError(
            f"Error, rebinding function-valued local '{name}' to a different function is not supported. Warp does "
            "not have function pointers, so a local bound to a function must refer to the same function throughout "
            "the kernel.")


def _array_rebind(old: Any, new: Any) -> bool:
    """Warp's rule for rebinding a local array: another array of the same kind and dtype, whatever its
    rank (``sub = arr[:2]`` then ``sub = arr[:2, 1]``)."""
    return isinstance(old, ArrayType) and isinstance(new, ArrayType) and (old.kind, old.dtype) == (new.kind, new.dtype)


class FunctionLowerer:
    """Lowers the body of one function in a :class:`KernelContext`."""

    def __init__(
        self,
        ctx: KernelContext,
        source: FunctionSource,
        env: dict[str, Value],
        active: Mask,
        frame: Frame,
        call_stack: tuple = (),
    ):
        self.ctx = ctx
        self.src = source
        self.env = env
        self.active = active
        self.entry_active = active  # the mask the body runs under (a launch's bounds, a caller's branch)
        self.frame = frame
        self.loops: list[control.LoopFrame] = []
        self.call_stack = call_stack
        self.parent: FunctionLowerer | None = None
        self._node: ast.AST | None = None
        self.literal_locals: set[str] = set()  # locals last assigned a bare literal (x = 0): not addressable
        self.touched: Touched | None = None  # see Touched

    # ------------------------------------------------------------------------------------------
    # entry points

    def run(self) -> None:
        if self.frame.is_kernel:
            _check_kernel_return_annotation(self.src)
        self.exec_block(self.src.tree.body)

    def exec_block(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            if self.active is not None and is_const(self.active) and not bool(self.active):
                return  # every lane has left this block (return/break/continue)
            self.exec(stmt)

    def exec(self, stmt: ast.stmt) -> None:
        handler = _STATEMENTS.get(type(stmt))
        self._node = stmt
        if self.touched is not None:
            self.touched.statement = stmt
        try:
            if handler is None:
                raise WarpCodegenError(f"Construct `ast.{type(stmt).__name__}` not supported in kernels.")
            handler(self, stmt)
        except (ControlSignal, _Located):
            raise
        except Exception as exc:
            if config.frontend_debug:
                raise
            raise with_location(exc, self.src.location(failed_node(exc) or self._node or stmt)) from None

    def eval(self, node: ast.expr) -> Value:
        handler = _EXPRESSIONS.get(type(node))
        if handler is None:
            self._node = node
            raise WarpCodegenError(f"Construct `ast.{type(node).__name__}` not supported in kernels.")
        try:
            value = handler(self, node)
        except (ControlSignal, _Located):
            raise
        except Exception as exc:
            mark_failed_node(exc, node)  # the caret goes on the innermost node that failed
            raise
        self._node = node
        return value

    def location(self, node: ast.AST | None = None):
        return self.src.location(node or self._node)

    # ------------------------------------------------------------------------------------------
    # names

    def lookup(self, name: str, node: ast.AST | None = None) -> Value:
        if name in self.env:
            return self.env[name]
        for scope in (self.src.closure, self.src.globals):
            if name in scope:
                return lift_python(scope[name], name)
        if hasattr(py, name):
            return Value(STATIC, getattr(py, name))
        raise WarpCodegenKeyError(f"Referencing undefined symbol: {name} (in kernel or function '{self.src.name}')")

    def lookup_in_call(self, name: str, argument: bool = False) -> Value:
        """A name in a call (the callee, or with ``argument`` a bare argument): as :meth:`lookup`,
        then Warp's namespace, as Warp resolves calls (``vec3(...)``, ``wp.sin(half_pi)``)."""
        known = name in self.env or name in self.src.closure or name in self.src.globals or hasattr(py, name)
        found = None if known else warp_namespace_lookup(name, constants_too=argument)
        return lift_python(found, name) if found is not None else self.lookup(name)

    def eval_call_argument(self, node: ast.expr) -> Value:
        if isinstance(node, ast.Name):
            self._node = node
            try:
                return self.lookup_in_call(node.id, argument=True)
            except Exception as exc:
                mark_failed_node(exc, node)
                raise
        return self.eval(node)

    def check_rebind(self, name: str, old: Value, value: Value) -> None:
        """Warp's errors for reassigning a local bound to a function or to ``wp.grad(f)``."""
        if old.type is STATIC:
            _check_function_rebind(name, old.data, value)

    def bind(self, name: str, value: Value) -> None:
        """Assign a local under the active mask (lanes outside it keep the old value)."""
        if value is None:
            raise WarpCodegenTypeError(f"Cannot assign the result of a call that returns nothing to '{name}'")
        if value.type is STATIC and not isinstance(value.data, (str, tuple)) and not _is_function(value.data):
            raise WarpCodegenTypeError(f"Cannot assign {value.data!r} to a local variable '{name}'")
        if self.touched is not None and name in self.touched.names:
            if len(self.loops) > self.touched.depth:  # inside a loop of its own trace: every lane counts
                self.touched.reach(None)
            else:
                self.touched.reach(mask_and(self.active, self.touched.term_lanes(name)))
            return
        value = materialised(self, value)
        old = self.env.get(name)
        if old is not None:
            self.check_rebind(name, old, value)
        if (old is not None and old.type != value.type and old.type is not STATIC and value.type is not STATIC
                and not _array_rebind(old.type, value.type)):
            raise WarpCodegenTypeError(
                f"Error, assigning to existing symbol {name} ({type_name(old.type)}) with different type "
                f"({type_name(value.type)})"
            )
        if old is None or self.active is None:
            self.env[name] = value
            return
        if isinstance(value.type, ArrayType) and self.active is self.entry_active:  # no branch of this body
            self.env[name] = value
            return
        if isinstance(value.type, ArrayType) or isinstance(old.type, ArrayType):
            if not (isinstance(old.data, ArrayRef) and old.data == value.data):
                raise WarpCodegenTypeError(f"Cannot reassign array variable '{name}' under a condition")
            return
        if old.type != value.type:
            raise WarpCodegenTypeError(
                f"Variable '{name}' has type {type_name(old.type)} but is assigned a value of type "
                f"{type_name(value.type)} under a condition; declare it with the new type before the branch"
            )
        if isinstance(value.type, TileType):  # block-uniform: a block keeps its new tile when any thread runs
            from dataclasses import replace

            from jwarp.compiler import tile_views

            kept = tile_views.block_select(self, value, old)
            self.env[name] = replace(value, data=kept.data) if kept is not value else value
            return
        self.env[name] = select_value(self.active, value, old)

    def assign_to_node(self, target: ast.expr, value: Value) -> None:
        lvalues.assign(self, target, value)

    # ------------------------------------------------------------------------------------------
    # statements

    def stmt_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstring
        if isinstance(node.value, ast.Call):
            calls.lower_call(self, node.value, discard=True)
        else:
            self.eval(node.value)

    def stmt_Assign(self, node: ast.Assign) -> None:
        if isinstance(node.value, ast.List):  # Warp's rule (tuples may be unpacked; lists never)
            raise WarpCodegenError(
                "List constructs are not supported in kernels. Use vectors like `wp.vec3()` for small fixed-size "
                "collections, or `wp.zeros(shape=N, dtype=...)` for stack-allocated arrays."
            )
        value = self.eval(node.value)
        literal = _is_literal(node.value)
        for target in node.targets:
            lvalues.assign(self, target, value)
            if isinstance(target, ast.Name):
                (self.literal_locals.add if literal else self.literal_locals.discard)(target.id)

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            raise WarpCodegenError("Variable declarations without a value are not supported in kernels")
        value = self.eval(node.value)
        annotation = self.eval(node.annotation)
        target_type = annotation.data if annotation.type is STATIC else None
        scalar = scalars.canonical_scalar(target_type) if isinstance(target_type, type) else None
        wanted = scalar or target_type
        if wanted is not None and value.type != wanted:
            raise WarpCodegenTypeError(
                f"Cannot assign a value of type {type_name(value.type)} to a variable annotated {type_name(wanted)}"
            )
        lvalues.assign(self, node.target, value)

    def stmt_AugAssign(self, node: ast.AugAssign) -> None:
        lvalues.aug_assign(self, node)

    def stmt_Pass(self, node: ast.Pass) -> None:
        pass

    def stmt_Assert(self, node: ast.Assert) -> None:
        self.eval(node.test)  # checked for errors; asserts are no-ops outside Warp's debug builds

    # ------------------------------------------------------------------------------------------
    # expressions

    def expr_Constant(self, node: ast.Constant) -> Value:
        v = node.value
        if isinstance(v, (bool, int, float)):
            if isinstance(v, int) and not isinstance(v, bool) and not -(2**31) <= v < 2**31:
                if not -(2**63) <= v < 2**64:  # wider than any Warp integer: builtins that take it decide
                    return Value(STATIC, v)
                return scalar_value(scalars.int64 if v < 2**63 else scalars.uint64, v)
            return python_to_value(v)
        if isinstance(v, str) or v is None:
            return Value(STATIC, v)
        raise WarpCodegenError(f"Constant {v!r} of type {type(v).__name__} is not supported in kernels")

    def expr_Name(self, node: ast.Name) -> Value:
        return self.lookup(node.id, node)

    def expr_Attribute(self, node: ast.Attribute) -> Value:
        member = self._python_object(node.value)
        if isinstance(member, enum.Enum):  # MyEnum.B.value: read on the member, not its int value
            return lift_python(getattr(member, node.attr), node.attr)
        return operators.attribute(self, self.eval(node.value), node.attr, ast.unparse(node.value))

    def _python_object(self, node: ast.expr) -> Any:
        """The Python object a global/closure name chain (``a.b.c``) names, else None."""
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return None
            for scope in (self.src.closure, self.src.globals):
                if node.id in scope:
                    return scope[node.id]
            return None
        if isinstance(node, ast.Attribute):
            base = self._python_object(node.value)
            return getattr(base, node.attr, None) if base is not None else None
        return None

    def expr_Subscript(self, node: ast.Subscript) -> Value:
        return lvalues.load_subscript(self, node)

    def expr_BinOp(self, node: ast.BinOp) -> Value:
        return operators.binary(self, type(node.op), self.eval(node.left), self.eval(node.right))

    def expr_UnaryOp(self, node: ast.UnaryOp) -> Value:
        return operators.unary(self, type(node.op), self.eval(node.operand))

    def expr_BoolOp(self, node: ast.BoolOp) -> Value:
        return operators.short_circuit(self, node)

    def expr_Compare(self, node: ast.Compare) -> Value:
        return operators.compare_chain(self, node)

    def expr_IfExp(self, node: ast.IfExp) -> Value:
        return operators.if_expression(self, node)

    def expr_Call(self, node: ast.Call) -> Value:
        result = calls.lower_call(self, node)
        if result is None:
            return Value(STATIC, None)
        return result

    def expr_Tuple(self, node: ast.Tuple) -> Value:
        items = [self.eval(e) for e in node.elts]
        return Value(TupleType(tuple(i.type for i in items)), tuple(items))

    expr_List = expr_Tuple


KERNEL_RETURN_ERROR = ("Warp kernels cannot return values. Write results to output arguments, and omit the return "
                       "annotation or use `-> None`.")


def _check_kernel_return_annotation(src: FunctionSource) -> None:
    """A kernel may annotate its return only as ``None`` (or ``NoneType``), as in Warp."""
    if src.tree.returns is None:
        return
    from jwarp.compiler.source import function_annotations

    try:
        declared = function_annotations(src.func).get("return", None)
    except Exception:
        declared = object()
    if declared is not None and declared is not type(None):
        raise with_location(WarpCodegenTypeError(f"'{src.name}': {KERNEL_RETURN_ERROR}"), src.location(src.tree.returns))


def _is_literal(node: ast.expr) -> bool:
    """``0``, ``-1.5``: a bare number literal (Warp keeps such locals as compile-time constants)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def _is_function(obj: Any) -> bool:
    """A @wp.func, builtin or ``wp.grad(f)``: may be bound to a local (``f = g``) and called through it."""
    from jwarp.compiler.grad_call import GradOf
    from jwarp.compiler.registry import Builtin

    return getattr(obj, "_jwarp_function", False) or isinstance(obj, (Builtin, GradOf))


def lift_python(obj: Any, name: str = "") -> Value:
    """A global/closure Python object as a kernel value (numbers become typed constants)."""
    value = python_to_value(obj)
    if value is not None:
        return value
    if getattr(obj, "_jwarp_array", False) and getattr(obj, "_buffer", None) is not None:
        raise WarpCodegenError(
            f"Array '{name}' is captured from Python scope; pass arrays to kernels as arguments instead"
        )
    return Value(STATIC, composites.canonical(obj))  # wp.types.vector(3, float) is wp.vec3 in kernels


_STATEMENTS = {
    ast.Expr: FunctionLowerer.stmt_Expr,
    ast.Assign: FunctionLowerer.stmt_Assign,
    ast.AnnAssign: FunctionLowerer.stmt_AnnAssign,
    ast.AugAssign: FunctionLowerer.stmt_AugAssign,
    ast.Pass: FunctionLowerer.stmt_Pass,
    ast.Assert: FunctionLowerer.stmt_Assert,
    ast.If: control.lower_if,
    ast.For: control.lower_for,
    ast.While: control.lower_while,
    ast.Break: control.lower_break,
    ast.Continue: control.lower_continue,
    ast.Return: control.lower_return,
}

_EXPRESSIONS = {
    ast.Constant: FunctionLowerer.expr_Constant,
    ast.Name: FunctionLowerer.expr_Name,
    ast.Attribute: FunctionLowerer.expr_Attribute,
    ast.Subscript: FunctionLowerer.expr_Subscript,
    ast.BinOp: FunctionLowerer.expr_BinOp,
    ast.UnaryOp: FunctionLowerer.expr_UnaryOp,
    ast.BoolOp: FunctionLowerer.expr_BoolOp,
    ast.Compare: FunctionLowerer.expr_Compare,
    ast.IfExp: FunctionLowerer.expr_IfExp,
    ast.Call: FunctionLowerer.expr_Call,
    ast.Tuple: FunctionLowerer.expr_Tuple,
    ast.List: FunctionLowerer.expr_List,
}
