"""Modules (``wp.Module``, ``kernel.module``, ``wp.get_module``) and their options.

A module groups the kernels and functions of one Python module (or of one ``module="unique"``
kernel) and carries their compile options. jwarp compiles per kernel and launch signature, so
``load`` has nothing to build ahead of a launch; what a module does decide is *when a kernel
must be rebuilt*: ``set_module_options``, ``mark_modified`` and new registrations bump the
module's version, and each kernel re-digests its content at its next launch, dropping its
compiled executables if the digest changed (see :meth:`Kernel.check_current`).

Options follow Warp 1.19: ``kernel.options`` holds only a kernel's own overrides; the module's
options apply when it compiles (:func:`effective_options`), so ``wp.set_module_options`` after
a kernel's definition still takes effect at its next compile.

Example:
    >>> import jwarp as wp
    >>> wp.set_module_options({"enable_backward": False}, module="my_module")
    >>> wp.get_module_options("my_module")["enable_backward"]
    False
"""

from __future__ import annotations

import hashlib
import inspect
import operator
import sys
import weakref
from typing import Any

from jwarp import config
from jwarp.compiler.content_hash import kernel_digest
from jwarp.lang.struct import on_struct_declared
from jwarp.runtime.device import get_device


def _default_options() -> dict[str, Any]:
    """Warp 1.19's module options, with the values it captures from ``wp.config`` at creation."""
    return {
        "max_unroll": config.max_unroll,
        "enable_backward": config.enable_backward,
        "enable_mathdx_gemm": None,
        "enable_mathdx_solver": None,
        "enable_mathdx_fft": None,
        "fast_math": False,
        "fuse_fp": True,
        "lineinfo": config.lineinfo,
        "cuda_output": None,
        "mode": None,
        "optimization_level": None,
        "cpu_compiler_flags": None,
        "block_dim": 256,
        "compile_time_trace": config.compile_time_trace,
        "strip_hash": False,
        "extra_build_options": None,
        "deterministic": config.deterministic,
        "deterministic_max_records": config.deterministic_max_records,
        "default_grid_stride": None,
    }


class ModuleExec:
    """What ``Module.load`` returns: the module as loaded for a device and block size.

    jwarp keeps each kernel's executables on the kernel (built at its first launch for a
    signature), so this record only names the variant: ``device``, ``block_dim`` and the
    module ``hash`` it was loaded with; ``kernel_hooks`` stays empty."""

    def __init__(self, module: "Module", device: Any, block_dim: int, module_hash: bytes):
        self.module = module
        self.device = device
        self.block_dim = block_dim
        self.hash = module_hash
        self.kernel_hooks: dict = {}


class Module:
    """A named group of kernels and functions sharing compile options (Warp's ``wp.Module``).

    Example:
        >>> import jwarp as wp
        >>> m = wp.get_module("my_module")
        >>> m.options["enable_backward"] = False
        >>> wp.get_module_options("my_module")["enable_backward"]
        False
    """

    def __init__(self, name: str | None, loader: Any = None):
        self.name = name if name is not None else "None"
        self.loader = loader
        self.kernels: dict[str, Any] = {}  # latest kernel per key
        self.functions: dict[str, Any] = {}
        self.structs: dict[str, Any] = {}
        self._live_kernels: "weakref.WeakSet[Any]" = weakref.WeakSet()  # every kernel still referenced
        self.execs: dict[tuple, ModuleExec] = {}
        self.hashers: dict[Any, bytes] = {}  # block_dim -> module hash (cleared by mark_modified)
        self.failed_builds: dict = {}
        self.options: dict[str, Any] = _default_options()
        self.references: set[Module] = set()  # modules whose functions this one calls
        self.dependents: set[Module] = set()  # modules that call this one's functions
        self._version = 0

    # -- registration ---------------------------------------------------------------------------

    def register_kernel(self, kernel: Any) -> None:
        self.kernels[kernel.key] = kernel
        self._live_kernels.add(kernel)
        self.mark_modified()

    def register_function(self, function: Any) -> None:
        self.functions[function.key] = function
        self.mark_modified()

    def register_struct(self, struct: Any) -> None:
        self.structs[getattr(struct, "key", getattr(struct, "__name__", str(struct)))] = struct
        self.mark_modified()

    def _get_live_kernels(self) -> list:
        """The kernels of this module that are still referenced (a kernel factory's discarded
        kernels drop out as Python frees them)."""
        return list(self._live_kernels)

    def _add_reference(self, other: "Module") -> None:
        if other is not self:
            self.references.add(other)
            other.dependents.add(self)

    def _detach_references(self) -> None:
        """Remove this module from the dependents of the modules it references."""
        for ref in tuple(self.references):
            ref.dependents.discard(self)
        self.references.clear()

    def _find_references(self, kernel: Any) -> bytes:
        """Digest ``kernel`` and link this module to the modules of the functions it calls."""
        found: set = set()
        digest = kernel_digest(kernel, found)
        for function in found:
            if isinstance(function.module, Module):
                self._add_reference(function.module)
        return digest

    # -- options and hashing ----------------------------------------------------------------------

    def resolve_options(self, block_dim: int | None = None) -> dict[str, Any]:
        """A copy of the options with every "inherit" (``None``) resolved from ``wp.config``,
        validated as Warp does (``ValueError`` / ``TypeError`` naming the option)."""
        options = dict(self.options)
        if block_dim is not None:
            options["block_dim"] = block_dim
        for name in ("mode", "optimization_level", "enable_mathdx_gemm", "enable_mathdx_solver",
                     "enable_mathdx_fft", "default_grid_stride"):
            if options.get(name) is None:
                options[name] = getattr(config, name, None)
        if options.get("cpu_compiler_flags") is None:
            options["cpu_compiler_flags"] = config.cpu_compiler_flags if config.cpu_compiler_flags is not None \
                else "-march=native"
        if options.get("max_unroll") is None:
            options["max_unroll"] = config.max_unroll
        if options.get("enable_backward") is None:
            options["enable_backward"] = config.enable_backward
        if options["mode"] not in ("release", "debug"):
            raise ValueError(f"Module option 'mode' must be 'release' or 'debug', got {options['mode']!r}")
        if not isinstance(options["deterministic"], config.DeterministicMode):
            raise ValueError(f"deterministic must be a warp.DeterministicMode value, got {options['deterministic']!r}")
        options["deterministic_max_records"] = check_max_records(options["deterministic_max_records"])
        for name in ("verify_fp", "line_directives", "enable_vector_component_overwrites", "llvm_cuda",
                     "use_precompiled_headers", "verify_autograd_array_access"):
            options[name] = getattr(config, name, None)
        return options

    def get_module_hash(self, block_dim: int | None = None) -> bytes:
        """sha256 over the module's live kernels (content, own options, generic kernels'
        instantiated signatures) and its resolved options. Cached per ``block_dim`` until
        :meth:`mark_modified` (or ``hashers.clear()``), as in Warp."""
        if block_dim is None:
            block_dim = self.options["block_dim"]
        cached = self.hashers.get(block_dim)
        if cached is not None:
            return cached
        options = self.resolve_options(block_dim)
        kernel_hashes = set()
        for kernel in self._get_live_kernels():
            digest = self._find_references(kernel)
            if kernel.is_generic:
                h = hashlib.sha256(digest)
                for sig in sorted(kernel.overloads):
                    h.update(sig.encode())
                digest = h.digest()
            kernel_hashes.add(digest)
        h = hashlib.sha256()
        for digest in sorted(kernel_hashes):
            h.update(digest)
        for name in sorted(options):
            h.update(f"{name}:{options[name]}".encode())
        self.hashers[block_dim] = h.digest()
        return self.hashers[block_dim]

    def hash_module(self) -> bytes:
        """Recompute the module hash for the default ``block_dim``."""
        self.hashers.pop(self.options["block_dim"], None)
        return self.get_module_hash()

    def get_module_identifier(self, block_dim: int | None = None) -> str:
        return f"wp_{self.name}_{self.get_module_hash(block_dim).hex()[:7]}"

    # -- loading ----------------------------------------------------------------------------------

    def load(self, device: Any = None, block_dim: int | None = None) -> ModuleExec:
        """Validate the options and record the module as loaded on ``device`` (kernels still
        compile at their first launch for a signature)."""
        device = get_device(device)
        if block_dim is None:
            block_dim = self.options["block_dim"]
        module_hash = self.get_module_hash(block_dim)
        key = (device.alias, block_dim)
        loaded = self.execs.get(key)
        if loaded is None or loaded.hash != module_hash:
            loaded = self.execs[key] = ModuleExec(self, device, block_dim, module_hash)
        return loaded

    def unload(self) -> None:
        """Drop the compiled executables of this module's kernels (they rebuild at their next launch)."""
        for kernel in self._get_live_kernels():
            kernel._forget_compiled()
        self.mark_modified()
        self.execs = {}

    def mark_modified(self) -> None:
        """Force a re-hash: each kernel re-digests its content at its next launch and rebuilds if
        it changed (e.g. a closure or global it reads was reassigned)."""
        self.hashers = {}
        self.failed_builds = {}
        self._version += 1


_MODULES: dict[str, Module] = {}


def get_module(name: str) -> Module:
    """The module named ``name`` (made on first use), as ``wp.get_module``.

    Example:
        >>> import jwarp as wp
        >>> wp.get_module("my_module") is wp.get_module("my_module")
        True
    """
    module = _MODULES.get(name)
    if module is None:
        parent = sys.modules.get(name)
        module = _MODULES[name] = Module(name, getattr(parent, "__loader__", None))
    return module


def _register_struct(declared: Any) -> None:
    get_module(declared.cls.__module__).register_struct(declared)


on_struct_declared(_register_struct)  # every @wp.struct is listed in its Python module's wp.Module


def register_unique(module: Module) -> None:
    _MODULES[module.name] = module


def find_module(name: str) -> Module | None:
    return _MODULES.get(name)


def check_max_records(value: Any) -> int:
    """Warp's rule for ``deterministic_max_records``: a non-negative integer (not a bool)."""
    if isinstance(value, bool):
        raise TypeError("deterministic_max_records must be a non-negative integer, got bool")
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(
            f"deterministic_max_records must be a non-negative integer, got {type(value).__name__}"
        ) from None
    if value < 0:
        raise ValueError(f"deterministic_max_records must be non-negative, got {value}")
    return value


def effective_options(kernel: Any) -> dict[str, Any]:
    """The options ``kernel`` compiles with: its module's resolved options overlaid with the
    kernel's own overrides (``enable_backward``, ``grid_stride``…), ``grid_stride`` resolved
    through the module's ``default_grid_stride``."""
    options = kernel.module.resolve_options()
    options.update(kernel.options)
    if options.get("grid_stride") is None:
        options["grid_stride"] = bool(options["default_grid_stride"])
    return options


def _caller_module(module: Any, depth: int = 2) -> str:
    if isinstance(module, Module):
        return module.name
    if module is None:
        frame = inspect.currentframe()
        for _ in range(depth):
            frame = frame.f_back if frame is not None else None
        return frame.f_globals.get("__name__", "__main__") if frame is not None else "__main__"
    return module if isinstance(module, str) else getattr(module, "__name__", str(module))


def set_module_options(options: dict[str, Any], module: Any = None) -> None:
    """Set compile options of ``module`` (the calling module by default); they apply to its
    kernels at their next compile, including kernels defined earlier.

    Example:
        >>> import jwarp as wp
        >>> wp.set_module_options({"max_unroll": 4}, module="my_module")
    """
    target = module if isinstance(module, Module) else get_module(_caller_module(module))
    target.options.update(options)
    target.mark_modified()


def get_module_options(module: Any = None) -> dict[str, Any]:
    """The options of ``module`` (the calling module by default): the module's own dict, as Warp
    returns it (``None`` means "inherit from ``wp.config`` at compile time")."""
    target = module if isinstance(module, Module) else get_module(_caller_module(module))
    return target.options


def load_module(module: Any = None, device: Any = None, recursive: bool = False, block_dim: Any = None) -> None:
    """Load ``module`` (the calling module by default) on ``device``: validates its options."""
    target = module if isinstance(module, Module) else get_module(_caller_module(module))
    target.load(device, block_dim)
    if recursive:
        for ref in list(target.references):
            ref.load(device, block_dim)


def force_load(device: Any = None, modules: Any = None, block_dim: Any = None) -> None:
    """Load ``modules`` (default: every module) on ``device``; kernels still compile per signature."""
    for module in list(modules if modules is not None else _MODULES.values()):
        target = module if isinstance(module, Module) else get_module(module)
        target.load(device, block_dim)


def get_cpu_kernel_cache_key(*, cpu_compiler_flags: str | None = None) -> str:
    """A key naming the CPU compilation target, for external kernel-cache archives (Warp 1.19):
    ``"<version>-<OS>-<arch>-<hash>"``. The hash covers the compiler (jax/jaxlib versions) and,
    when the resolved flags contain ``-march=native`` (``None`` inherits
    ``wp.config.cpu_compiler_flags``, itself ``-march=native`` when ``None``), the host's ISA
    features; an empty string selects a generic target.

    Example:
        >>> import jwarp as wp
        >>> wp.get_cpu_kernel_cache_key(cpu_compiler_flags="") != wp.get_cpu_kernel_cache_key()
        True
    """
    import platform

    import jax
    import jaxlib

    flags = cpu_compiler_flags if cpu_compiler_flags is not None else config.cpu_compiler_flags
    flags = flags if flags is not None else "-march=native"
    target = f"jax-{jax.__version__}|jaxlib-{getattr(jaxlib, '__version__', '')}"
    if "-march=native" in flags.split():
        target += "|native:" + _cpu_features()
    digest = hashlib.sha256(target.encode()).hexdigest()[:8]
    return f"{config.version}-{platform.system()}-{platform.machine()}-{digest}"


def _cpu_features() -> str:
    import platform

    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith(("flags", "Features")):
                    return " ".join(sorted(line.split(":", 1)[1].split()))
    except OSError:
        pass
    return platform.processor()
