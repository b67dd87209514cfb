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

import copy
import inspect
import types
import typing
import re
from typing import Any, Callable

from jwarp.compiler.source import function_annotations, remember_declaration
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
        remember_declaration(func)
        params = _param_types(func, "Function", require=False)
        self._params = [(name, t) for name, t, _ in params]
        # Warp's ``overload.defaults``: a mutable dict; kernels compiled later (and the module
        # hash) see changes to it
        self.defaults: dict[str, Any] = {name: d for name, _, d in params if d is not _NO_DEFAULT}
        hints = function_annotations(func)
        ret = hints.get("return")
        self.return_type = resolve_annotation(ret) if ret is not None else None
        self.ref_params = frozenset(name for name, t in self._params if is_reference(t))
        self.custom_grad: Callable | None = None
        self.custom_replay: Callable | None = None

    @property
    def params(self) -> list[tuple[str, Any, Any]]:
        """(name, type, default or ``NO_DEFAULT``) of each parameter, in order."""
        return [(name, t, self.defaults.get(name, _NO_DEFAULT)) for name, t in self._params]

    @property
    def input_types(self) -> dict[str, Any]:
        """Warp's ``input_types``: parameter name -> annotated type (``None`` when unannotated)."""
        return {name: t for name, t in self._params}

    def instantiate(self, arg_types: list) -> FunctionOverload:
        """A record of this generic overload used with concrete ``arg_types`` (Warp keeps one per
        signature in ``user_overloads``; it holds types only, never the call's values)."""
        out = copy.copy(self)
        out._params = [(name, at) for (name, _), at in zip(self._params, arg_types)] + self._params[len(arg_types):]
        out.generic_parent = self
        return out

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
        self._instantiations: dict[str, FunctionOverload] = {}  # generic overloads used with concrete types
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
                if o.is_generic and not kw_types and all(t is not None and not _is_generic_type(t) for t in arg_types):
                    key = _signature_key(arg_types)
                    if key not in self._instantiations:
                        self._instantiations[key] = o.instantiate(arg_types)
                return o
        return None

    # -- Warp's Python-side API ------------------------------------------------------------------

    @property
    def defaults(self) -> dict[str, Any]:
        """Default argument values of the primary overload (a mutable dict, as in Warp)."""
        return self.overloads[0].defaults

    @defaults.setter
    def defaults(self, value: dict[str, Any]) -> None:
        self.overloads[0].defaults = value

    @property
    def input_types(self) -> dict[str, Any]:
        """Parameter name -> annotated type of the primary overload."""
        return self.overloads[0].input_types

    @property
    def user_overloads(self) -> dict[str, FunctionOverload]:
        """Warp's ``user_overloads``: the concrete overloads by signature, with the
        instantiations of generic overloads made so far (by kernels or Python-scope calls)."""
        out = {_signature_key(o.concrete_types): o for o in self.overloads if not o.is_generic}
        out.update(self._instantiations)
        return out

    @property
    def user_templates(self) -> dict[str, FunctionOverload]:
        """Warp's ``user_templates``: the generic overloads by signature."""
        return {_signature_key(o.concrete_types): o for o in self.overloads if o.is_generic}

    def get_overload(self, arg_types: Any, kwarg_types: dict) -> FunctionOverload | None:
        """The overload a call with arguments of ``arg_types`` (Warp types, Python ``int``/``float``/
        ``bool``, or ``wp.Function`` values for function-valued parameters) resolves to, or None."""
        types_ = [_as_call_type(t) for t in arg_types]
        kw = {k: _as_call_type(t) for k, t in kwarg_types.items()}
        return self.select_overload(types_, kw)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Python-scope call, as in Warp: a function with concrete overloads runs the one the
        arguments' types select (``RuntimeError`` when none does); a generic-only function runs as
        plain Python (the builtins it uses work in Python too)."""
        if not self.user_overloads:
            return self.overloads[-1].func(*args, **kwargs)
        signature = inspect.signature(self.overloads[0].func)
        given = signature.bind(*args, **kwargs).arguments
        defaults = self.defaults
        arguments = tuple(given[n] if n in given else defaults[n] for n in signature.parameters
                          if n in given or n in defaults)
        overload = self.get_overload(tuple(_value_type(a) for a in arguments), {})
        if overload is None:
            raise RuntimeError(f"Error calling function '{self.key}', no overload found for arguments {args}")
        if len(arguments) != len(overload.input_types):
            raise RuntimeError(
                f"Invalid number of arguments for function '{self.key}', "
                f"expected {len(overload.input_types)}, got {len(arguments)}"
            )
        return overload.func(*arguments)

    def __repr__(self) -> str:
        sigs = ["(" + ", ".join(f"{n}: {type_name(t)}" for n, t, _ in o.params) + ")" for o in self.overloads]
        return f"<jwarp func {self.key} {' | '.join(sigs)}>"


def _is_generic_type(t: Any) -> bool:
    from jwarp.lang.arrays import ArrayType, _Generic

    return isinstance(t, _Generic) or (isinstance(t, ArrayType) and t.is_generic)


def _signature_key(types_: Any) -> str:
    return ",".join(type_name(t) for t in types_)


def _as_call_type(t: Any) -> Any:
    """A type as given to :meth:`Function.get_overload` -> the compiler's type for matching."""
    from jwarp.compiler.values import STATIC
    from jwarp.lang.introspection import type_to_warp

    if _is_callable_target(t):
        return STATIC  # a function value passed to a ``wp.Function`` parameter
    return type_to_warp(t)


def _is_callable_target(value: Any) -> bool:
    from jwarp.compiler.registry import Builtin

    return getattr(value, "_jwarp_function", False) or isinstance(value, Builtin)


def _value_type(value: Any) -> Any:
    """The type a Python-scope argument has for overload selection (Warp's rule: a Python
    ``float`` is ``float32``, an ``int`` is ``int32``; arrays by dtype and rank)."""
    from jwarp.compiler.values import python_to_value
    from jwarp.lang.struct import StructInstance

    if _is_callable_target(value):
        return value
    if isinstance(value, StructInstance):
        return value._cls
    if getattr(value, "_jwarp_array", False) and not isinstance(value, type) and hasattr(value, "array_type"):
        return value.array_type
    lifted = python_to_value(value)
    return lifted.type if lifted is not None else type(value)


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


_P = typing.ParamSpec("_P")
_R = typing.TypeVar("_R")


@typing.overload
def func(f: Callable[_P, _R]) -> Callable[_P, _R]: ...


@typing.overload
def func(
    f: None = None, *, name: str | None = None, module: Any = None, inline: bool | None = None
) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]: ...


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


