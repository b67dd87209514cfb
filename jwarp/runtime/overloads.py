"""``wp.overload``: declare a concrete signature of a generic kernel, as Warp does.

jwarp specialises generic kernels at launch from the arguments' types, so a declaration is not
needed to launch; it is checked as Warp checks it and recorded in ``kernel.overloads``. Both
forms work: ``wp.overload(kernel, [wp.vec3, float])`` (or a ``{name: type}`` dict) and the
decorator on a stub with the kernel's name whose body is only ``...``/``pass``/a docstring.

Example:
    >>> import jwarp as wp
    >>> from typing import Any
    >>> @wp.kernel
    ... def scale(a: wp.array(dtype=Any), s: Any):
    ...     a[wp.tid()] = a[wp.tid()] * s
    >>> @wp.overload
    ... def scale(a: wp.array(dtype=wp.vec3), s: float): ...
    >>> len(scale.overloads)
    1
"""

from __future__ import annotations

import copy
import inspect
import types
from typing import TYPE_CHECKING, Any, Callable

from jwarp.compiler.source import check_stub_body
from jwarp.lang.arrays import resolve_annotation, type_name
from jwarp.runtime.array_families import array_family
from jwarp.runtime.launch_config import overload_signature
from jwarp.runtime.modules import get_module

if TYPE_CHECKING:
    from jwarp.runtime.kernel import Kernel


def overload(kernel: Any, arg_types: list | dict | None = None) -> Kernel:
    """Overload generic ``kernel`` with concrete ``arg_types`` (or decorate a typed stub)."""
    if callable(getattr(kernel, "add_overload", None)):  # a kernel object
        return kernel.add_overload(arg_types)
    if isinstance(kernel, types.FunctionType):
        stub = kernel
        kernel = _find_kernel(stub)
        _require_generic(kernel)
        check_stub_body(stub)
        _add_overload(kernel, _stub_types(stub))
        return kernel  # the decorator gives back the generic kernel, as Warp's does
    raise RuntimeError("wp.overload() called with invalid argument!")


def _require_generic(kernel: Kernel) -> None:
    if not kernel.is_generic:
        raise RuntimeError(f"Only generic kernels can be overloaded.  Kernel {kernel.key} is not generic")


def _storage_free(t: Any) -> Any:
    """A live array given as an overload type stands for its native family's annotation (as in
    Warp): the overload keeps neither the array nor a user subclass of its class."""
    if getattr(t, "_jwarp_array", False) and not isinstance(t, type) and getattr(t, "device", None) is not None:
        return array_family(t)(dtype=t.dtype, ndim=t.ndim)
    return t


def infer_argument_types(kernel: Kernel, args: list) -> list:
    """Warp's ``kernel.infer_argument_types(args)``: the concrete type of each launch argument
    (arrays as their native family's annotation, Python numbers as Warp scalars, a ``None`` array
    as the parameter's own annotation)."""
    from jwarp.lang.introspection import type_to_warp
    from jwarp.lang.struct import StructInstance

    if len(args) != len(kernel.arg_types):
        raise RuntimeError(f"Invalid number of arguments for kernel {kernel.key}")
    out = []
    for name, template, arg in zip(kernel.arg_names, kernel.arg_types, args):
        if isinstance(arg, StructInstance):
            out.append(arg._cls)
        elif arg is None and getattr(template, "ndim", None) is not None:
            out.append(template)
        elif arg is None:
            raise TypeError(f"Error launching kernel '{kernel.key}': Unable to infer the type of argument "
                            f"'{name}', got None")
        elif getattr(arg, "_jwarp_array", False):
            out.append(_storage_free(arg))
        elif type(arg) in (int, float, bool):
            out.append(type_to_warp(type(arg)))
        else:
            out.append(type(arg))
    return out


def _arg_list(kernel: Kernel, arg_types: list | dict | None) -> list:
    if isinstance(arg_types, list):
        return [_storage_free(t) for t in arg_types]
    if isinstance(arg_types, dict):
        out = list(kernel.arg_types)
        for name, t in arg_types.items():
            if name not in kernel.arg_names:
                raise RuntimeError(f"Invalid argument name '{name}' in overload of kernel {kernel.key}")
            out[kernel.arg_names.index(name)] = _storage_free(t)
        return out
    if arg_types is None:
        return []
    raise TypeError("Kernel overload types must be given in a list or dict")


def _add_overload(kernel: Kernel, arg_list: list) -> Kernel:
    if len(arg_list) != len(kernel.arg_types):
        raise RuntimeError(
            f"Kernel {kernel.key} takes {len(kernel.arg_types)} arguments but the overload gives {len(arg_list)} types"
        )
    resolved = []
    for name, t in zip(kernel.arg_names, arg_list):
        if getattr(t, "_jwarp_fixed", False):
            raise TypeError(
                f"Kernel '{kernel.key}', argument '{name}': Cannot use wp.fixedarray as a host argument or kernel "
                "overload type; it is a compiler-only stack array"
            )
    for name, template, t in zip(kernel.arg_names, kernel.arg_types, arg_list):
        concrete = resolve_annotation(t)
        if concrete is None:
            raise TypeError(f"Kernel {kernel.key} overload: unsupported type {t!r} for argument '{name}'")
        if not _matches(template, concrete):
            raise TypeError(
                f"Kernel {kernel.key} argument '{name}' type mismatch: expected {type_name(template)}, "
                f"got {type_name(concrete)}"
            )
        resolved.append(concrete)
    kernel.note_overload(overload_signature(resolved))
    return kernel


def concrete_overload(kernel: Kernel, arg_types: list | dict) -> Kernel:
    """``kernel.add_overload(arg_types)``: the overload declared as by :func:`overload`, returned as a
    kernel object of its own whose parameters have the concrete types (``jax_kernel`` needs concrete
    output dtypes). It shares the function and module; compiled code is kept per object."""
    _require_generic(kernel)
    arg_list = _arg_list(kernel, arg_types)
    _add_overload(kernel, arg_list)
    signature = overload_signature([resolve_annotation(t) for t in arg_list])
    shared = kernel.__dict__.setdefault("_concrete_overloads", {})
    if signature in shared:  # one object per signature, from wp.overload and add_overload alike
        return shared[signature]
    concrete = copy.copy(kernel)
    concrete.arg_types = [resolve_annotation(t) for t in arg_list]
    concrete._cache = {}
    concrete.overloads = {}
    for table in ("_launch_plans", "_layout_plans"):
        if table in concrete.__dict__:
            setattr(concrete, table, {})
    concrete.__dict__.pop("_concrete_overloads", None)
    shared[signature] = concrete
    return concrete


def _matches(template: Any, concrete: Any) -> bool:
    from jwarp.compiler.calls import _types_match

    return _types_match(template, concrete)


def _find_kernel(stub: Callable) -> Kernel:
    module = get_module(stub.__module__)
    kernel = module.kernels.get(stub.__qualname__)
    if kernel is not None:
        return kernel
    matches = [k for k in module.kernels.values() if k.func.__qualname__ == stub.__qualname__]
    if len(matches) > 1:
        keys = ", ".join(repr(k.key) for k in matches)
        raise RuntimeError(
            f"Ambiguous kernel lookup for '{stub.__qualname__}': it matches several custom-named kernels ({keys}). "
            "Pass the kernel object to wp.overload() instead of using the decorator form."
        )
    if not matches:
        raise RuntimeError(f"Failed to find a kernel named '{stub.__name__}' in module {stub.__module__}")
    return matches[0]


def _stub_types(stub: Callable) -> list:
    annotations = inspect.get_annotations(stub, eval_str=True)
    params = list(inspect.signature(stub).parameters)
    if any(p not in annotations for p in params):
        raise RuntimeError(f"Incomplete argument annotations on kernel overload {stub.__name__}")
    ret = annotations.get("return", None)
    if "return" in annotations and ret is not None and ret is not type(None):
        raise TypeError(
            "Return annotations are not allowed on @wp.overload stubs; omit the return annotation or use `-> None`."
        )
    return [annotations[p] for p in params]


__all__ = ["overload"]
