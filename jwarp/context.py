"""Process-level entry points: ``wp.init``, ``wp.constant``, version information."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
version = __version__


def init() -> None:
    """Initialise jwarp (idempotent; jax initialises lazily, so there is nothing to do)."""


def constant(x: Any) -> Any:
    """Mark a global as a kernel constant (``wp.constant``); returns ``x`` unchanged.

    Only values kernels can hold are accepted (numbers, bools, boxed scalars, vectors,
    matrices…), as in Warp: ``wp.constant((1, 2, 3))`` raises ``TypeError``.

    Example:
        >>> import jwarp as wp
        >>> wp.constant(wp.vec3(1.0, 2.0, 3.0))
        vec3f([1.0, 2.0, 3.0])
    """
    from jwarp.lang.introspection import is_value

    if not is_value(x):
        raise TypeError(f"Invalid constant type: {type(x)}")
    return x
