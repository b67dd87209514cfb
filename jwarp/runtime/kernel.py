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
from jwarp.compiler import python_scope
from jwarp.compiler.content_hash import kernel_digest
from jwarp.compiler.source import FunctionSource, get_source, refresh_closure, remember_declaration
from jwarp.errors import WarpCodegenError
from jwarp.lang.arrays import UnsupportedDtypeError
from jwarp.lang.refs import is_reference
from jwarp.runtime.functions import (  # noqa: F401  (re-exported: wp.func and friends live there)
    Function,
    FunctionOverload,
    _param_types,
    func,
    func_grad,
    func_native,
    func_replay,
    qualified_key,
    resolve_module,
)
from jwarp.runtime.kernel_adj import KernelAdjoint
from jwarp.runtime.kernel_options import kernel_overrides
from jwarp.runtime.modules import Module, check_max_records, find_module, register_unique
from jwarp.runtime.overloads import concrete_overload, infer_argument_types


_KERNELS: "weakref.WeakSet[Kernel]" = weakref.WeakSet()


class _Unresolved:
    """A parameter type that could not be resolved when the kernel was defined (an array of a
    dtype that is no Warp type); using the kernel raises the error then, as Warp does."""

    def __init__(self, error: Exception):
        self.error = error


# caches built from kernels' executables elsewhere (adjoint launches, tape backward programs): cleared
# whenever kernels forget their executables, so those executables are really released
_FORGET_HOOKS: list[Callable[[], None]] = []


def on_forget_compiled(hook: Callable[[], None]) -> None:
    """Call ``hook`` (which clears a cache derived from compiled kernels) in :func:`forget_compiled`."""
    _FORGET_HOOKS.append(hook)


on_forget_compiled(python_scope.forget)  # the programs of builtins called in Python scope


def forget_compiled(kernels: Any = None) -> None:
    """Drop the compiled executables and launch plans of ``kernels`` (default: every live kernel, as
    ``wp.clear_kernel_cache``), and the adjoint / tape-backward programs built from any kernel's."""
    for k in list(_KERNELS if kernels is None else kernels):
        for overload in list(getattr(k, "overloads", {}).values()):
            if overload is not k:
                overload._forget_compiled()
        k._forget_compiled()
    for hook in _FORGET_HOOKS:
        hook()


class Kernel:
    """A compiled-on-demand kernel (made by ``@wp.kernel``).

    ``options`` holds only the kernel's own overrides (as in Warp); the module's options apply
    when it compiles (:func:`jwarp.runtime.modules.effective_options`)."""

    _jwarp_kernel = True

    def __init__(self, func: Callable, key: str | None = None, options: dict | None = None, module: Any = None):
        self.func = func
        remember_declaration(func)
        self.key = key or qualified_key(func)
        self.options = dict(options or {})
        self.module = resolve_module(module, func)
        try:
            params = _param_types(func, "Kernel", require=True)
        except UnsupportedDtypeError as e:  # as Warp: an array dtype is checked when the kernel is built
            params = [(name, _Unresolved(e), None) for name in inspect.signature(func).parameters]
        for name, t, _ in params:
            if is_reference(t):
                raise WarpCodegenError(
                    f"Kernel '{self.key}' parameter '{name}': {t!r} is not allowed in @wp.kernel signatures; "
                    "pass addressable values to @wp.func helpers instead"
                )
        self.arg_names = [p[0] for p in params]
        self._arg_types = [p[1] for p in params]
        self.overloads: dict[str, Kernel] = {}  # generic kernels: instantiated signatures
        self._cache: dict = {}
        self._launch_sizes: dict = {}  # launch sizes compiled exactly, per signature (launch_buckets.py)
        self._source: FunctionSource | None = None
        self._kernel_dim: int | None = None
        self._seen_version = -1  # module version at the last content check
        self._digest: bytes | None = None  # content digest the compiled executables were built from
        self.__name__ = func.__name__
        self.__qualname__ = func.__qualname__
        self.__module__ = func.__module__
        self.__doc__ = func.__doc__
        self.__wrapped__ = func
        self._resolve_statics()
        self.module.register_kernel(self)
        _KERNELS.add(self)

    def _resolve_statics(self) -> None:
        """Evaluate the kernel's Python-scope ``wp.static()`` expressions now, as Warp does when a
        kernel is declared (:mod:`jwarp.compiler.static_eval`)."""
        from jwarp.compiler.calls import StaticMarker
        from jwarp.compiler.static_eval import resolve_statics

        code, scope = self.func.__code__, self.func.__globals__
        cells = [c.cell_contents for c in (self.func.__closure__ or ()) if _filled(c)]
        if "static" not in code.co_names and not any(
                isinstance(x, StaticMarker) for x in [scope.get(n) for n in code.co_names] + cells):
            return  # no wp.static (nor an alias of it) in the kernel: skip parsing its source now

        try:
            source = self.source
        except WarpCodegenError:  # no source to read (exec'd code): statics resolve when compiling
            return
        resolve_statics(source)

    @property
    def arg_types(self) -> list[Any]:
        for t in self._arg_types:
            if isinstance(t, _Unresolved):
                raise WarpCodegenError(f"Kernel '{self.key}': {t.error}") from t.error
        return self._arg_types

    @arg_types.setter
    def arg_types(self, types: list[Any]) -> None:
        self._arg_types = list(types)

    @property
    def source(self) -> FunctionSource:
        if self._source is None:
            self._source = get_source(self.func)
        return self._source

    @property
    def enable_backward(self) -> bool:
        """Whether the kernel has a backward pass: its own option, else its module's (at call time)."""
        value = self.options.get("enable_backward")
        if value is None:
            value = self.module.options.get("enable_backward")
        return True if value is None else bool(value)

    @property
    def grid_stride(self) -> bool:
        value = self.options.get("grid_stride")
        if value is None:
            value = self.module.options.get("default_grid_stride")
        if value is None:
            value = config.default_grid_stride
        return bool(value)

    def check_current(self) -> None:
        """Before a launch: if the module changed since the last check (``mark_modified``,
        ``set_module_options``, a new registration), re-digest the kernel's content and drop its
        compiled executables when it differs from what they were built from."""
        version = self.module._version
        if self._seen_version == version:
            return
        digest = kernel_digest(self)
        if self._digest is not None and digest != self._digest:
            self._forget_compiled()
        else:  # module options may have changed: launch plans re-derive their signature
            for table in ("_launch_plans", "_layout_plans"):
                getattr(self, table, {}).clear()
        try:
            refresh_closure(self.source)  # closure cells may have been filled or reassigned
        except Exception:
            pass  # no source: the launch reports it
        self._digest = digest
        self._seen_version = version
        # as Warp's launch loads the module: hash it (cached until the next change), which also
        # links the modules of the functions its kernels reach (``references``/``dependents``)
        self.module.get_module_hash()

    def note_overload(self, signature: str) -> None:
        """Record an instantiated signature of a generic kernel (Warp's ``kernel.overloads``)."""
        if signature not in self.overloads:
            self.overloads[signature] = self
            self.module.mark_modified()
            self._seen_version = self.module._version  # a new overload changes no existing code

    def _forget_compiled(self) -> None:
        self._cache.clear()
        self._launch_sizes.clear()
        for table in ("_launch_plans", "_layout_plans"):
            getattr(self, table, {}).clear()

    def add_overload(self, arg_types: list | dict) -> Kernel:
        """Declare a concrete signature of this generic kernel (Warp's ``kernel.add_overload``; as
        ``wp.overload(kernel, arg_types)``) and return a kernel object with those parameter types."""
        concrete = concrete_overload(self, arg_types)
        _KERNELS.add(concrete)  # wp.clear_kernel_cache reaches it too
        return concrete

    def infer_argument_types(self, args: list) -> list:
        """The concrete types of launch arguments ``args`` (for :meth:`add_overload`)."""
        return infer_argument_types(self, args)

    @property
    def adj(self) -> Any:
        """Warp's ``kernel.adj``: name, location and parameters (:mod:`jwarp.runtime.kernel_adj`)."""
        return KernelAdjoint(self)

    @property
    def is_generic(self) -> bool:
        from jwarp.lang.arrays import ArrayType, _Generic

        return any(isinstance(t, _Generic) or (isinstance(t, ArrayType) and t.is_generic) for t in self.arg_types)

    @property
    def kernel_dim(self) -> int:
        """Number of thread-grid dimensions, from the widest ``wp.tid()`` unpacking (Warp's rule)."""
        if self._kernel_dim is None:
            from jwarp.compiler.tid_rank import tid_rank

            self._kernel_dim = tid_rank(self.source)
        return self._kernel_dim

    @property
    def uses_tiles(self) -> bool:
        """Whether the kernel calls tile builtins (``wp.tile_*``, ``wp.tile``, ``wp.untile``): its
        blocks of ``block_dim`` threads then cooperate, and the launch keeps the lane dimension."""
        if getattr(self, "_uses_tiles", None) is None:
            self._uses_tiles = any(
                isinstance(node, ast.Call) and _called_name(node.func) in _TILE_ENTRY_POINTS
                or isinstance(node, ast.Call) and (_called_name(node.func) or "").startswith("tile_")
                for node in ast.walk(self.source.tree)
            )
        return self._uses_tiles

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"Kernel '{self.key}' cannot be called directly; launch it with wp.launch()")

    def __repr__(self) -> str:
        return f"<jwarp kernel {self.key}>"


_TILE_ENTRY_POINTS = ("tile", "untile")


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents
    except ValueError:  # an empty closure cell (defined later)
        return False
    return True


def _called_name(func: ast.AST) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def kernel(
    f: Callable | None = None,
    *,
    name: str | None = None,
    enable_backward: bool | None = None,
    launch_bounds: Any = None,
    cuda_max_registers: int | None = None,
    enable_cuda_smem_spilling: bool | None = None,
    cluster_dim: int | None = None,
    module: Any = None,
    module_options: dict | None = None,
    entry_point_abi: str | None = None,
    grid_stride: bool | None = None,
    pallas: str | None = None,
) -> Any:
    """Decorator: make a kernel from a Python function with annotated parameters.

    ``module="unique"`` gives the kernel a module of its own, named after the kernel and a hash
    of its content and options; defining an identical kernel again returns the same object.
    ``module_options`` (only with ``module="unique"``) sets that module's options.
    ``pallas`` (jwarp extension): ``"auto"``/``"always"``/``"never"`` overrides ``wp.config.pallas`` for
    this kernel (see docs/launch.md).

    Example:
        >>> import jwarp as wp
        >>> @wp.kernel(enable_backward=False)
        ... def fill(a: wp.array(dtype=float), v: float):
        ...     a[wp.tid()] = v
        >>> fill.options
        {'enable_backward': False}
    """
    def wrap(func: Callable) -> Kernel:
        overrides = kernel_overrides(
            func, name=name, enable_backward=enable_backward, launch_bounds=launch_bounds,
            cuda_max_registers=cuda_max_registers, enable_cuda_smem_spilling=enable_cuda_smem_spilling,
            cluster_dim=cluster_dim, entry_point_abi=entry_point_abi, grid_stride=grid_stride, pallas=pallas,
        )
        target = Module(name or func.__name__, None) if module == "unique" else resolve_module(module, func)
        if module_options is not None:
            _apply_module_options(func, target, module, module_options)
        k = Kernel(func, key=name, options=overrides, module=target)
        if module == "unique":
            k = _dedupe_unique(k)
        return k

    return wrap(f) if f is not None else wrap


def _apply_module_options(func: Callable, target: Any, module: Any, module_options: Any) -> None:
    if not isinstance(module_options, dict):
        raise TypeError(
            f"@wp.kernel for '{func.__name__}': module_options must be a dict, got {type(module_options).__name__}."
        )
    if module != "unique":
        raise ValueError(
            f"@wp.kernel for '{func.__name__}': module_options requires module=\"unique\". "
            "Use wp.set_module_options() to set module-level options for a shared module."
        )
    unknown = sorted(set(module_options) - set(target.options))
    if unknown:
        raise ValueError(
            f"@wp.kernel for '{func.__name__}': unknown module_options: {', '.join(repr(k) for k in unknown)}. "
            f"Valid options are: {', '.join(repr(k) for k in sorted(target.options))}."
        )
    if "deterministic_max_records" in module_options:
        check_max_records(module_options["deterministic_max_records"])
    target.options.update(module_options)


def _dedupe_unique(k: Kernel) -> Kernel:
    """Name a ``module="unique"`` kernel's module after its content hash; an identical earlier
    kernel (same content, options and module options) is returned instead of the new one."""
    module = k.module
    module.name = f"{k.key}_{module.get_module_hash().hex()[:8]}"
    existing = find_module(module.name)
    earlier = existing.kernels.get(k.key) if existing is not None else None
    # struct types hash by content; the earlier kernel is reused only with the very same types
    if earlier is not None and len(earlier.arg_types) == len(k.arg_types) and all(
            a == b for a, b in zip(earlier.arg_types, k.arg_types)):
        module._detach_references()
        _KERNELS.discard(k)
        return existing.kernels[k.key]
    register_unique(module)
    return k
