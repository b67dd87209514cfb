"""Content digests of kernels and functions: what identifies a kernel's generated code.

A kernel's digest covers its key, its own options, its source text, its parameter annotations
and the values of every outside name its body reads (closure cells first, then globals),
recursively through the ``@wp.func`` functions it calls. Two kernels made by one factory that
capture different values therefore digest differently, and an identical redefinition digests
the same (Warp's rule for ``module="unique"`` reuse and for rebuilding after
``Module.mark_modified``).

Example:
    >>> import jwarp as wp
    >>> from jwarp.compiler.content_hash import kernel_digest
    >>> def make(v):
    ...     @wp.kernel
    ...     def k(a: wp.array(dtype=int)):
    ...         a[0] = v
    ...     return k
    >>> kernel_digest(make(1)) != kernel_digest(make(2))
    True
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import types
from typing import Any, Callable, Iterator

_MAX_ARRAY_BYTES = 1 << 20  # larger captured numpy arrays are identified by object, not content


def kernel_digest(kernel: Any, found_functions: set | None = None) -> bytes:
    """sha256 of what determines ``kernel``'s code (see the module docstring).

    ``found_functions`` (optional) collects the ``@wp.func`` objects the kernel reaches."""
    h = hashlib.sha256()
    h.update(kernel.key.encode())
    for name in sorted(kernel.options):
        h.update(f"{name}:{kernel.options[name]}".encode())
    seen: set[int] = set()
    _digest_callable(h, kernel.func, seen, found_functions)
    return h.digest()


def function_digest(function: Any) -> bytes:
    """sha256 of a ``@wp.func`` with all its overloads (and custom gradients)."""
    h = hashlib.sha256()
    _digest_value(h, function, set(), None)
    return h.digest()


def outside_names(func: Callable) -> Iterator[tuple[str, Any]]:
    """(name, value) of each name ``func``'s body reads from its closure or globals, in order of
    first use. An empty closure cell falls back to the global of that name, as kernel lookup does."""
    names = _static_parts(func)[1]
    if names is None:
        return
    cells = {}
    if func.__closure__:
        for name, cell in zip(func.__code__.co_freevars, func.__closure__):
            try:
                cells[name] = cell.cell_contents
            except ValueError:  # empty cell: assigned later in the enclosing function
                pass
    for name in names:
        root, _, rest = name.partition(".")
        if root in cells:
            value = cells[root]
        elif root in func.__globals__:
            value = func.__globals__[root]
        else:
            continue
        if rest:  # ``module.attr``: what a kernel reads through another Python module
            if not isinstance(value, types.ModuleType) or value.__name__.split(".")[0] == "jwarp":
                continue
            try:
                for part in rest.split("."):
                    value = getattr(value, part)
            except AttributeError:
                continue
        yield name, value


# code object -> (digest of the body's syntax tree, names read from outside in order of first use);
# both depend only on the source, shared by every function a factory makes from one code object
_STATIC: dict[Any, tuple[bytes, list[str] | None]] = {}


def _static_parts(func: Callable) -> tuple[bytes, list[str] | None]:
    code = getattr(func, "__code__", None)
    cached = _STATIC.get(code)
    if cached is not None:
        return cached
    tree = _tree_of(func)
    if tree is None:
        result = (hashlib.sha256(func.__code__.co_code + repr(func.__code__.co_consts).encode()).digest(), None)
    else:
        params = {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}
        stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        done = set(params) | stored
        names = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in done:
                done.add(node.id)
                names.append(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                dotted = _dotted(node)
                if dotted is not None and dotted.split(".")[0] not in params | stored and dotted not in done:
                    done.add(dotted)
                    names.append(dotted)
        result = (hashlib.sha256(ast.dump(tree).encode()).digest(), names)
    if code is not None:
        _STATIC[code] = result
    return result


def _dotted(node: ast.Attribute) -> str | None:
    """``a.b.c`` of an attribute chain rooted at a plain name (None otherwise)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _tree_of(func: Callable) -> ast.FunctionDef | None:
    from jwarp.compiler.source import get_source

    try:
        return get_source(func).tree
    except Exception:
        return None


def _digest_callable(h: Any, func: Callable, seen: set[int], found: set | None) -> None:
    h.update(_static_parts(func)[0])
    annotations = getattr(func, "__annotations__", {})
    for name in sorted(annotations):
        h.update(name.encode())
        token = _annotation_token(annotations[name])
        if token is None:
            _digest_value(h, annotations[name], seen, found)
        else:
            h.update(token.encode())
    for name, value in outside_names(func):
        h.update(b"\x00" + name.encode() + b"=")
        _digest_value(h, value, seen, found)


def _annotation_token(annotation: Any) -> str | None:
    """A stable description of a parameter annotation (``wp.array(dtype=float)`` builds a new
    object each time; two equal annotations must digest alike)."""
    from jwarp.lang.arrays import ArrayType, resolve_annotation

    if isinstance(annotation, str):
        return f"str:{annotation}"
    try:
        t = resolve_annotation(annotation)
    except Exception:
        return None
    if t is None:
        return None
    if isinstance(t, ArrayType):
        return f"array({_type_token(t.dtype)},{t.ndim})"
    return _type_token(t)


def _type_token(t: Any) -> str:
    from jwarp.lang.arrays import ArrayType, _Generic
    from jwarp.lang.struct import StructType

    if isinstance(t, ArrayType):
        return f"array({_type_token(t.dtype)},{t.ndim})"
    if isinstance(t, _Generic):
        return f"generic:{t!r}"
    if isinstance(t, StructType):  # by content: a struct redefined identically hashes the same (Warp's rule)
        fields = ",".join(f"{name}:{_type_token(var.type)}" for name, var in t.vars.items())
        return f"struct:{t.__module__}.{t.key}({fields})"
    return f"type:{getattr(t, '__module__', '')}.{getattr(t, '__qualname__', repr(t))}#{id(t)}"


def _digest_value(h: Any, value: Any, seen: set[int], found: set | None) -> None:
    from jwarp.lang.arrays import ArrayType, _Generic
    from jwarp.lang.struct import StructType

    if isinstance(value, (ArrayType, _Generic, StructType)):
        h.update(_type_token(value).encode())
        return
    if getattr(value, "_jwarp_function", False):
        if found is not None:
            found.add(value)
        if id(value) in seen:
            h.update(f"func-cycle:{value.key}".encode())
            return
        seen.add(id(value))
        h.update(f"func:{value.key}".encode())
        for overload in value.overloads:
            _digest_callable(h, overload.func, seen, found)
            for name, default in sorted(getattr(overload, "defaults", {}).items()):
                h.update(b"\x01" + name.encode() + b"=")  # a mutable default (wp.Function target) counts
                _digest_value(h, default, seen, found)
            for extra in (overload.custom_grad, overload.custom_replay):
                if extra is not None:
                    _digest_callable(h, extra, seen, found)
        return
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        h.update(f"{type(value).__name__}:{value!r}".encode())
        return
    if isinstance(value, (tuple, list)):
        h.update(f"{type(value).__name__}[{len(value)}]".encode())
        if id(value) in seen:
            return
        seen.add(id(value))
        for item in value:
            _digest_value(h, item, seen, found)
        return
    if isinstance(value, dict):
        h.update(f"dict[{len(value)}]".encode())
        if id(value) in seen:
            return
        seen.add(id(value))
        for key, item in value.items():
            _digest_value(h, key, seen, found)
            _digest_value(h, item, seen, found)
        return
    if isinstance(value, types.ModuleType):
        h.update(f"module:{value.__name__}".encode())
        return
    if inspect.isclass(value) or isinstance(value, (types.BuiltinFunctionType, types.FunctionType)):
        h.update(f"obj:{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}#{id(value)}".encode())
        return
    if getattr(value, "_jwarp_kernel", False):
        h.update(f"kernel:{value.key}#{id(value)}".encode())
        return
    if hasattr(type(value), "_np_dtype"):  # a jwarp scalar instance (wp.float32(2.0))
        h.update(f"scalar:{value!r}".encode())
        return
    array = _small_array(value)
    if array is not None:
        h.update(f"array:{array.dtype.str}:{array.shape}".encode())
        h.update(array.tobytes())
        return
    h.update(f"obj:{type(value).__module__}.{type(value).__qualname__}#{id(value)}".encode())


def _small_array(value: Any) -> Any:
    """``value`` as a numpy array when it is a numpy array/scalar or a jwarp scalar/vector/matrix
    value of modest size; else None."""
    import numpy as np

    if isinstance(value, (np.ndarray, np.generic)):
        return value if value.nbytes <= _MAX_ARRAY_BYTES else None
    if hasattr(value, "_wp_scalar_type_") or hasattr(value, "_length_") or hasattr(value, "_shape_"):
        try:
            out = np.asarray(value)
        except Exception:
            return None
        return out if out.dtype != object else None
    return None
