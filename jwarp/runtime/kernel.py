"""``@wp.kernel`` and ``@wp.func``: the objects that carry kernel and function source.

A :class:`Kernel` is compiled lazily, once per launch signature (argument types, shapes,
grid, device), and keeps the compiled executables in its cache. A :class:`Function` holds
one or more overloads (defining a second ``@wp.func`` with the same name in the same module
adds an overload, as in Warp); calls in kernels are inlined by the compiler.

Example:
    >>> import jwarp as wp
    >>> @wp.func
    ... def square(x: float):
    ...     return x * x
    >>> @wp.kernel
    ... def k(a: wp.array(dtype=float)):
    ...     i = wp.tid()
    ...     a[i] = square(a[i])
    >>> square(3.0)
    9.0
"""

from __future__ import annotations

import ast
import inspect
import weakref
from typing import Any, Callable

from jwarp import config
from jwarp.compiler.source import FunctionSource, function_annotations, get_source
from jwarp.errors import WarpCodegenError
from jwarp.lang.arrays import resolve_annotation, type_name
from jwarp.lang.refs import is_reference, strip_reference

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
        t = resolve_annotation(hints[name])
        if t is None:
            raise WarpCodegenError(
                f"{what} '{func.__qualname__}' argument '{name}' has an unsupported annotation {hints[name]!r}"
            )
        params.append((name, t, p.default))
    return params


_KERNELS: "weakref.WeakSet[Kernel]" = weakref.WeakSet()


def forget_compiled() -> None:
    """Drop every live kernel's compiled executables and launch plans (``wp.clear_kernel_cache``)."""
    for k in list(_KERNELS):
        k._cache.clear()
        for table in ("_launch_plans", "_layout_plans"):
            getattr(k, table, {}).clear()


class Kernel:
    """A compiled-on-demand kernel (made by ``@wp.kernel``)."""

    _jwarp_kernel = True

    def __init__(self, func: Callable, key: str | None = None, options: dict | None = None, module: Any = None):
        self.func = func
        self.key = key or func.__qualname__
        self.options = dict(options or {})
        if self.options.get("enable_backward") is None:
            self.options["enable_backward"] = config.enable_backward
        from jwarp.runtime.modules import Module, get_module

        if isinstance(module, Module):
            self.module = module
        elif module == "unique":
            self.module = Module(f"{func.__module__}.{self.key}_unique")
        else:
            self.module = get_module(module if isinstance(module, str) else func.__module__)
        self.module.register_kernel(self)
        params = _param_types(func, "Kernel", require=True)
        for name, t, _ in params:
            if is_reference(t):
                raise WarpCodegenError(
                    f"Kernel '{self.key}' parameter '{name}': {t!r} is not allowed in @wp.kernel signatures; "
                    "pass addressable values to @wp.func helpers instead"
                )
        self.arg_names = [p[0] for p in params]
        self.arg_types = [p[1] for p in params]
        self._cache: dict = {}
        self._source: FunctionSource | None = None
        self._kernel_dim: int | None = None
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        _KERNELS.add(self)

    @property
    def source(self) -> FunctionSource:
        if self._source is None:
            self._source = get_source(self.func)
        return self._source

    @property
    def enable_backward(self) -> bool:
        return bool(self.options.get("enable_backward", True))

    @property
    def grid_stride(self) -> bool:
        value = self.options.get("grid_stride")
        return config.default_grid_stride if value is None else bool(value)

    @property
    def is_generic(self) -> bool:
        from jwarp.lang.arrays import ArrayType, _Generic

        return any(isinstance(t, _Generic) or (isinstance(t, ArrayType) and t.is_generic) for t in self.arg_types)

    @property
    def kernel_dim(self) -> int:
        """Number of thread-grid dimensions, from the widest ``wp.tid()`` unpacking (Warp's rule)."""
        if self._kernel_dim is None:
            widest = 0
            for node in ast.walk(self.source.tree):
                if isinstance(node, ast.Assign) and _is_tid_call(node.value):
                    target = node.targets[0]
                    widest = max(widest, len(target.elts) if isinstance(target, ast.Tuple) else 1)
            self._kernel_dim = widest or 1
        return self._kernel_dim

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"Kernel '{self.key}' cannot be called directly; launch it with wp.launch()")

    def __repr__(self) -> str:
        return f"<jwarp kernel {self.key}>"


def _is_tid_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return (isinstance(f, ast.Attribute) and f.attr == "tid") or (isinstance(f, ast.Name) and f.id == "tid")


def kernel(
    f: Callable | None = None,
    *,
    name: str | None = None,
    enable_backward: bool | None = None,
    module: Any = None,
    module_options: dict | None = None,
    grid_stride: bool | None = None,
    launch_bounds: Any = None,
    **options: Any,
) -> Any:
    """Decorator: make a kernel from a Python function with annotated parameters.

    Example:
        >>> import jwarp as wp
        >>> @wp.kernel(enable_backward=False)
        ... def fill(a: wp.array(dtype=float), v: float):
        ...     a[wp.tid()] = v
    """
    opts = dict(options)
    opts.update(enable_backward=enable_backward, grid_stride=grid_stride)
    if module_options:
        opts.update(module_options)

    def wrap(func: Callable) -> Kernel:
        from jwarp.runtime.modules import module_options_for

        # module="unique" gives the kernel a module of its own, so the defining module's options
        # (wp.set_module_options) do not apply to it, as in Warp
        merged = {} if module == "unique" else dict(module_options_for(func.__module__))
        merged.update({k: v for k, v in opts.items() if v is not None})
        return Kernel(func, key=name, options=merged, module=module)

    return wrap(f) if f is not None else wrap


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

    def __init__(self, key: str, module: str):
        self.key = key
        self.module = module
        self.overloads: list[FunctionOverload] = []
        self.__name__ = key.rsplit(".", 1)[-1]

    @property
    def func(self) -> Callable:
        return self.overloads[-1].func

    def add_overload(self, func: Callable) -> None:
        new = FunctionOverload(func)
        for i, existing in enumerate(self.overloads):
            if existing.concrete_types == new.concrete_types:
                self.overloads[i] = new
                return
        stripped = tuple(strip_reference(t) for t in new.concrete_types)
        for existing in self.overloads:
            if tuple(strip_reference(t) for t in existing.concrete_types) == stripped:
                raise RuntimeError(
                    f"Cannot overload Warp function '{self.key}' with signatures that differ only by "
                    "`wp.ref[T]`; use distinct value types or a different function name."
                )
        self.overloads.append(new)

    def select_overload(self, arg_types: list, kw_types: dict) -> FunctionOverload | None:
        exact = [o for o in self.overloads if o.matches(arg_types, kw_types) and None not in o.concrete_types]
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


_FUNCTIONS: dict[tuple[str, str], Function] = {}


def func(f: Callable | None = None, *, name: str | None = None, module: Any = None, inline: bool | None = None):
    """Decorator: a function that kernels can call (inlined at each call site).

    Defining several ``@wp.func`` with the same name and different argument types in one
    module makes overloads, resolved from the argument types at each call.
    """

    def wrap(fn: Callable) -> Function:
        key = name or fn.__qualname__
        registry_key = (fn.__module__, key)
        existing = _FUNCTIONS.get(registry_key)
        if existing is None:
            existing = Function(key, fn.__module__)
            _FUNCTIONS[registry_key] = existing
        existing.add_overload(fn)
        existing.__doc__ = fn.__doc__
        return existing

    return wrap(f) if f is not None else wrap


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


def overload(kernel_or_fn: Any, arg_types: Any = None) -> Any:
    """Warp's explicit overload declaration; jwarp specialises generic kernels at launch."""
    if isinstance(kernel_or_fn, Kernel):
        return kernel_or_fn
    if callable(kernel_or_fn):
        return kernel_or_fn
    raise RuntimeError("wp.overload() called with invalid argument!")
