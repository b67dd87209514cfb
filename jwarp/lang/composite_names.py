"""Names and arguments of composite types: Warp's type names (``vec3f``, ``mat22d``, ``transformh``),
the names values print with, and the checks of the type factories' arguments.

Example:
    >>> from jwarp.lang import scalars
    >>> from jwarp.lang.composite_names import type_name
    >>> type_name("matrix", (2, 2), scalars.float64, generic=False)
    'mat22d'
"""

from __future__ import annotations

from typing import Any, TypeVar

from jwarp.lang import scalars
from jwarp.lang.scalars import canonical_scalar

SUFFIX = {
    "float16": "h",
    "bfloat16": "bf",
    "float32": "f",
    "float64": "d",
    "int8": "b",
    "uint8": "ub",
    "int16": "s",
    "uint16": "us",
    "int32": "i",
    "uint32": "ui",
    "int64": "l",
    "uint64": "ul",
    "bool": "bool",
}


def is_generic_scalar(dtype: Any) -> bool:
    return dtype is Any or isinstance(dtype, TypeVar)


def resolve_scalar(dtype: Any) -> Any:
    """Canonical scalar class of ``dtype``; ``Any`` and the TypeVars (``wp.Float`` ...) stay generic."""
    if is_generic_scalar(dtype):
        return dtype
    scalar = canonical_scalar(dtype)
    if scalar is None:
        raise TypeError(f"Invalid scalar type {dtype!r} for a composite type")
    return scalar


def resolve_dim(n: Any, what: str) -> int:
    """A composite dimension: a positive int, or 0 for ``Any`` (a generic dimension, as in Warp)."""
    if n is Any:
        return 0
    try:
        value = int(n)
    except (TypeError, ValueError):
        raise TypeError(f"Invalid {what} {n!r} for a composite type: expected an int or typing.Any") from None
    if value <= 0:
        raise TypeError(f"Invalid {what} {n!r} for a composite type: expected a positive int")
    return value


_CONSTRUCTORS = {"vector": "vector", "matrix": "matrix", "quaternion": "quaternion", "transformation": "transformation"}


def type_args(kind: str, shape: tuple[int, ...], scalar: Any) -> dict[str, Any]:
    dims = tuple(Any if d == 0 else d for d in shape)
    if kind == "vector":
        return {"length": dims[0], "dtype": scalar}
    if kind == "matrix":
        return {"shape": dims, "dtype": scalar}
    return {"dtype": scalar}


def type_name(kind: str, shape: tuple[int, ...], scalar: Any, generic: bool) -> str:
    if generic:  # e.g. "vector(length=Any, dtype=Float)", "matrix(shape=(Any, Any), dtype=float32)"

        def show(x: Any) -> str:
            if isinstance(x, tuple):
                return "(" + ", ".join(show(d) for d in x) + ")"
            return "Any" if x is Any else getattr(x, "__name__", str(x))

        args = ", ".join(f"{k}={show(v)}" for k, v in type_args(kind, shape, scalar).items())
        return f"{_CONSTRUCTORS[kind]}({args})"
    suffix = SUFFIX[scalar.__name__]
    if kind == "vector":
        return f"vec{shape[0]}{suffix}"
    if kind == "matrix":
        return f"mat{shape[0]}{shape[1]}{suffix}"
    return ("quat" if kind == "quaternion" else "transform") + suffix


def value_type_name(t: type) -> str:
    """The type name a value prints with, as Warp's ``type_repr``: ``vec3f`` for ``wp.types.vector(3,
    float)`` values and user subclasses, ``vector(length=5, dtype=float32)`` past the named sizes."""
    kind, shape, scalar = t._wp_type_kind_, t._shape_, t._wp_scalar_type_
    suffix = None if scalar is scalars.bool_ else SUFFIX.get(scalar.__name__)
    if kind in ("quaternion", "transformation"):
        prefix = "quat" if kind == "quaternion" else "transform"
        return f"{prefix}{suffix}" if suffix else f"{prefix}(dtype={scalar.__name__})"
    if kind == "vector":
        return f"vec{shape[0]}{suffix}" if suffix and shape[0] <= 4 else \
            f"vector(length={shape[0]}, dtype={scalar.__name__})"
    if suffix and max(shape) <= 4:
        return f"mat{shape[0]}{shape[1]}{suffix}"
    return f"matrix(shape=({shape[0]}, {shape[1]}), dtype={scalar.__name__})"
