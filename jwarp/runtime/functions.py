"""``@wp.func``: user functions callable from kernels, with their overloads.

A :class:`Function` holds one or more overloads (a second ``@wp.func`` with the same name in
the same scope adds one, as in Warp); calls in kernels are inlined by the compiler.

Example:
    >>> import jwarp as wp
    >>> @wp.func
    ... def square(x: float):
    ...     return x * x
    >>> square(3.0)
    9.0
"""

from __future__ import annotations

import inspect
import types
import typing
import re
from typing import Any, Callable

from jwarp.compiler.source import function_annotations
from jwarp.errors import WarpCodegenError
from jwarp.lang.arrays import resolve_annotation, type_name
from jwarp.lang.refs import is_reference, strip_reference
from jwarp.runtime.modules import Module, get_module

_NO_DEFAULT = inspect.Parameter.empty


def _param_types(func: Callable, what: str, require: bool) -> list[tuple[str, Any, Any]]:
    sig = inspect.signature(func)
    hints = function_annotations(func)
    params = []
    for name, p in sig.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise WarpCodegenError(f"{what} '{func.__qualname__}' cannot take *args or **kwargs")
        if name not in hints:
            if require:
                raise WarpCodegenError(f"Incomplete argument annotations on {what.lower()} {func.__qualname__}")
            params.append((name, None, p.default))
            continue
        if typing.get_origin(hints[name]) in (typing.Union, types.UnionType):
            raise RuntimeError(
                f"{what} '{func.__qualname__}' argument '{name}': Union type annotations are only supported "
                "at Python scope"
            )
        t = resolve_annotation(hints[name])
        if t is None:
            raise WarpCodegenError(
                f"{what} '{func.__qualname__}' argument '{name}' has an unsupported annotation {hints[name]!r}"
            )
        params.append((name, t, p.default))
    return params


class FunctionOverload:
    """One signature of a ``@wp.func``."""

    NO_DEFAULT = _NO_DEFAULT

    def __init__(self, func: Callable):
        self.func = func
        self.params = _param_types(func, "Function", require=False)
        hints = function_annotations(func)
        ret = hints.get("return")
        self.return_type = resolve_annotation(ret) if ret is not None else None
        self.ref_params = frozenset(name for name, t, _ in self.params if is_reference(t))
        self.custom_grad: Callable | None = None
        self.custom_replay: Callable | None = None

    @property
    def concrete_types(self) -> tuple:
        return tuple(t for _, t, _ in self.params)

    @property
    def is_generic(self) -> bool:
        """Has an unannotated, ``Any``/TypeVar or generic-composite parameter (concrete overloads win)."""
        from jwarp.lang.arrays import ArrayType, VariadicTupleType, _Generic

        return any(
            t is None or isinstance(t, (_Generic, VariadicTupleType)) or (isinstance(t, ArrayType) and t.is_generic)
            for t in self.concrete_types
        )

    def matches(self, arg_types: list, kw_types: dict) -> bool:
        from jwarp.compiler.calls import _types_match

        if len(arg_types) > len(self.params):
            return False
        for (name, t, default), at in zip(self.params, arg_types):
            if t is not None and not _types_match(t, at):
                return False
        for name, t, default in self.params[len(arg_types):]:
            if name in kw_types:
                if t is not None and not _types_match(t, kw_types[name]):
                    return False
            elif default is _NO_DEFAULT:
                return False
        return all(any(p[0] == k for p in self.params) for k in kw_types)


class Function:
    """A user function callable from kernels (made by ``@wp.func``), with its overloads."""

    _jwarp_function = True
    _jwarp_function_annotation = True  # ``g: wp.Function`` annotates a function-valued parameter

    def __init__(self, key: str, module: Any, python_function: Callable | None = None):
        self.key = key
        self.module = module  # the wp.Module it is registered in
        self.overloads: list[FunctionOverload] = []
        self.native_snippet: str | None = None  # set by @wp.func_native (not runnable in jwarp)
        self.__name__ = python_function.__name__ if python_function is not None else key
        if python_function is not None:
            self.__qualname__ = python_function.__qualname__
            self.__module__ = python_function.__module__
            self.__wrapped__ = python_function

    @property
    def func(self) -> Callable:
        return self.overloads[-1].func

    def check_new_overload(self, new: FunctionOverload) -> None:
        """Warp refuses overloads whose signatures differ only by ``wp.ref[T]``."""
        stripped = tuple(strip_reference(t) for t in new.concrete_types)
        for existing in self.overloads:
            if tuple(strip_reference(t) for t in existing.concrete_types) == stripped:
                raise RuntimeError(
                    f"Cannot overload Warp function '{self.key}' with signatures that differ only by "
                    "`wp.ref[T]`; use distinct value types or a different function name."
                )

    def select_overload(self, arg_types: list, kw_types: dict) -> FunctionOverload | None:
        exact = [o for o in self.overloads if o.matches(arg_types, kw_types) and not o.is_generic]
        if exact:
            return exact[-1]
        for o in reversed(self.overloads):
            if o.matches(arg_types, kw_types):
                return o
        return None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Python-scope call: runs the Python function (builtins it uses work in Python too)."""
        return self.overloads[-1].func(*args, **kwargs)

    def __repr__(self) -> str:
        sigs = ["(" + ", ".join(f"{n}: {type_name(t)}" for n, t, _ in o.params) + ")" for o in self.overloads]
        return f"<jwarp func {self.key} {' | '.join(sigs)}>"


def qualified_key(fn: Callable) -> str:
    """Warp's registration key for a function or kernel: its ``__qualname__`` with ``.`` as
    ``__`` and other non-identifier characters dropped (``make.<locals>.k`` -> ``make__locals__k``)."""
    return re.sub("[^0-9a-zA-Z_]+", "", fn.__qualname__.replace(".", "__"))


def resolve_module(module: Any, fn: Callable) -> Any:
    """The :class:`Module` a decorated ``fn`` registers into (Warp's rule): its Python module by
    default, a fresh one for ``"unique"``, the named one for a string, or the given Module."""
    if module is None:
        return get_module(fn.__module__)
    if isinstance(module, Module):
        return module
    if module == "unique":
        return Module(fn.__name__, None)
    if isinstance(module, str):
        return get_module(module)
    raise TypeError(f"module must be a wp.Module, a module name or \"unique\", got {type(module).__name__}")


def func(f: Callable | None = None, *, name: str | None = None, module: Any = None, inline: bool | None = None):
    """Decorator: a function that kernels can call (inlined at each call site).

    As in Warp, a second ``@wp.func`` with the name of a function already defined *in the same
    scope* adds an overload when its argument types differ, and replaces that signature in a new
    function object when they are the same (earlier references keep the old definition).
    Functions made in different scopes (e.g. by two calls of a factory) stay independent.

    Example:
        >>> import jwarp as wp
        >>> @wp.func
        ... def twice(x: int):
        ...     return 2 * x
        >>> @wp.func
        ... def twice(x: float):
        ...     return 2.0 * x
        >>> len(twice.overloads)
        2
    """
    if inline is not None and not isinstance(inline, bool):
        raise TypeError(f"inline must be a bool or None, got {type(inline).__name__}: {inline!r}")
    frame = inspect.currentframe()
    try:
        scope = frame.f_back.f_locals if frame is not None and frame.f_back is not None else {}
    finally:
        del frame

    def wrap(fn: Callable) -> Function:
        key = name or qualified_key(fn)
        target = resolve_module(module, fn)
        new = FunctionOverload(fn)
        existing = scope.get(fn.__name__)
        if not isinstance(existing, Function):
            result = Function(key, target, fn)
            result.overloads.append(new)
        elif any(o.concrete_types == new.concrete_types for o in existing.overloads):
            # same signature: a new function object, with the other overloads carried over
            result = Function(key, target, fn)
            result.overloads = [new if o.concrete_types == new.concrete_types else o for o in existing.overloads]
        else:
            existing.check_new_overload(new)
            existing.overloads.append(new)
            result = existing
        result.__doc__ = fn.__doc__
        target.register_function(result)
        return result

    return wrap(f) if f is not None else wrap


def func_native(snippet: str, adj_snippet: str | None = None, replay_snippet: str | None = None):
    """Decorator: Warp's function made of a C++/CUDA ``snippet``. Decorating works; calling the
    function from a kernel raises :class:`NotImplementedError` (jwarp runs no native code).

    Example:
        >>> import jwarp as wp
        >>> @wp.func_native("return a + 2.0f;")
        ... def add_two(a: float) -> float: ...
        >>> add_two.native_snippet
        'return a + 2.0f;'
    """

    def wrap(fn: Callable) -> Function:
        out = func(fn)
        out.native_snippet = snippet
        out.native_adj_snippet = adj_snippet
        out.native_replay_snippet = replay_snippet
        return out

    return wrap


def func_grad(forward: Function) -> Callable[[Callable], Callable]:
    """Decorator: a custom adjoint for ``forward`` (``@wp.func_grad(f)``).

    The adjoint takes ``f``'s arguments followed by the adjoint of its result and
    accumulates into ``wp.adjoint[arg]``-style outputs as in Warp.
    """

    def register(grad: Callable) -> Callable:
        types = tuple(t for _, t, _ in _param_types(grad, "Function", require=False))
        for overload in forward.overloads:
            if overload.concrete_types == types[: len(overload.params)]:
                overload.custom_grad = grad
                return grad
        forward.overloads[-1].custom_grad = grad
        return grad

    return register


def func_replay(forward: Function) -> Callable[[Callable], Callable]:
    """Decorator: a custom replay function for ``forward`` (used by Warp's tape replays)."""

    def register(replay: Callable) -> Callable:
        forward.overloads[-1].custom_replay = replay
        return replay

    return register


