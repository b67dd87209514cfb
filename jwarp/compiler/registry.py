"""The builtin registry: every function kernel code can call by name (``wp.sin``, ``wp.dot``…).

A builtin is declared once with :func:`builtin`; its implementation receives a
:class:`Call` (the calling context: active lane mask, kernel memory, source location)
and :class:`~jwarp.compiler.values.Value` arguments, and returns a Value (or None).

The same object works in Python scope: ``wp.length(wp.vec3(3.0, 4.0, 0.0))`` lifts its
arguments to constant values, runs the implementation and converts the result back.

Example:
    >>> from jwarp.compiler.registry import builtin, BUILTINS
    >>> from jwarp.compiler.values import Value
    >>> @builtin("_doc_twice", group="Example")
    ... def twice(call, x):
    ...     return Value(x.type, x.data + x.data)
    >>> twice(21)
    42
"""

from __future__ import annotations

from typing import Any, Callable

import jax

from jwarp.compiler import python_scope
from jwarp.compiler.values import Value, python_to_value, value_to_python
from jwarp.errors import WarpCodegenError
from jwarp.lang.arrays import type_name


class Call:
    """What a builtin implementation sees of its caller.

    Attributes:
        name: the builtin's name.
        ctx: the kernel lowering context (None in Python scope).
        mask: the active-lane mask (None when every lane is active).
        lowerer: the statement lowerer (None in Python scope); used for in-out arguments.
    """

    def __init__(self, name: str, ctx: Any = None, mask: Any = None, lowerer: Any = None, arg_nodes: list = (),
                 kw_nodes: dict | None = None):
        self.name = name
        self.ctx = ctx
        self.mask = mask
        self.lowerer = lowerer
        self.arg_nodes = list(arg_nodes)
        self.kw_nodes = dict(kw_nodes or {})
        self.discard = False  # the caller ignores the result (e.g. an atomic as a statement)
        self.location = None
        self.python_args: tuple | None = None  # a Python-scope call's own arguments

    @property
    def in_kernel(self) -> bool:
        return self.ctx is not None

    def require_kernel(self) -> None:
        if self.ctx is None:
            raise RuntimeError(f"wp.{self.name}() can only be called inside a kernel or wp.func")

    def no_overload(self, *args: Value, extra: str = "") -> RuntimeError:
        """The error Warp raises when no overload matches the argument types (in Python scope,
        Warp's Python-scope wording, naming the Python types of the arguments)."""
        if self.python_args is not None:
            names = ", ".join(type(x).__name__ for x in self.python_args)
            return RuntimeError(f"Couldn't find a function '{self.name}' compatible with the arguments '{names}'")
        types = ", ".join(type_name(a.type) for a in args)
        message = f"Couldn't find function overload for '{self.name}' that matched inputs with types: [{types}]"
        return WarpCodegenError(message + (f"\n{extra}" if extra else ""))

    def arg_node(self, index: int, name: str | None = None) -> Any:
        """The source expression of argument ``index`` (or of keyword ``name``), if any."""
        if index < len(self.arg_nodes):
            return self.arg_nodes[index]
        return self.kw_nodes.get(name) if name is not None else None

    def assign_back(self, index: int, value: Value, name: str | None = None) -> None:
        """Write ``value`` into the variable passed as argument ``index`` (or as keyword ``name``):
        Warp's in-out parameters."""
        node = self.arg_node(index, name)
        if self.lowerer is None or node is None:
            return
        from jwarp.lang.tile_types import is_tile_type

        if is_tile_type(value.type) and type(node).__name__ == "Name":  # in place, through tile views
            from jwarp.compiler import tile_views

            tile_views.write(self.lowerer, node.id, value)
            return
        self.lowerer.assign_to_node(node, value)


class Builtin:
    """A kernel builtin, callable from kernels and (where it makes sense) from Python."""

    def __init__(self, name: str, impl: Callable, group: str, doc: str = "", kernel_only: bool = False):
        self.name = name
        self.__name__ = name
        self.impl = impl
        self.group = group
        self.__doc__ = doc
        self.kernel_only = kernel_only

    def lower(self, call: Call, args: list[Value], kwargs: dict[str, Value]) -> Value | None:
        return self.impl(call, *args, **kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.kernel_only:
            raise RuntimeError(f"wp.{self.name}() can only be called inside a kernel or wp.func")
        lifted = [_lift(self.name, a) for a in args]
        lifted_kw = {k: _lift(self.name, v) for k, v in kwargs.items()}
        with jax.enable_x64(True):
            call = Call(self.name)
            call.python_args = args + tuple(kwargs.values())
            result = python_scope.call(self, call, lifted, lifted_kw)
            return None if result is None else _python_result(result)

    def __repr__(self) -> str:
        return f"<jwarp builtin {self.name}>"


def _python_result(value: Value) -> Any:
    """Warp's Python-scope results: ``int``/``float``/``bool`` for int32, float32 and bool scalars,
    a typed scalar (``wp.uint32(7)``, ``wp.float64(2.5)``) for every other scalar type."""
    from jwarp.compiler.values import TupleType
    from jwarp.lang import scalars

    if isinstance(value.type, TupleType):
        return tuple(_python_result(v) for v in value.data)
    plain = value_to_python(value)
    t = value.type
    if scalars.is_scalar_type(t) and t not in (scalars.int32, scalars.float32, scalars.bool_):
        return t(plain)
    return plain


def _lift(name: str, obj: Any) -> Value:
    from jwarp.compiler.values import STATIC

    value = python_to_value(obj)
    if value is None:
        return Value(STATIC, obj)
    return value


BUILTINS: dict[str, Builtin] = {}


def builtin(name: str, group: str, kernel_only: bool = False) -> Callable[[Callable], Builtin]:
    """Register ``impl`` as builtin ``name``; returns the Builtin object to export as ``wp.<name>``."""

    def register(impl: Callable) -> Builtin:
        if name in BUILTINS:
            raise ValueError(f"builtin {name!r} registered twice")
        b = Builtin(name, impl, group, impl.__doc__ or "", kernel_only)
        BUILTINS[name] = b
        return b

    return register
