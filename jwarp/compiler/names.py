"""Bare names that Warp resolves through its own namespace.

Inside a kernel, a name that is neither local, closure, global nor a Python builtin is looked up
as an attribute of the ``warp`` module, so ``v = vec3(1.0, 2.0, 3.0)`` and ``expect_eq(a, b)``
work without the ``wp.`` prefix in a file that only did ``import warp as wp``.

Example:
    >>> from jwarp.compiler.names import warp_namespace_lookup
    >>> warp_namespace_lookup("mat22").__name__
    'mat22f'
"""

from __future__ import annotations

from typing import Any

from jwarp import constants
from jwarp.compiler.registry import BUILTINS
from jwarp.lang import composites, scalars

# builtins that exist only in kernels (Warp keeps them off its module, so a bare name does not reach them)
_KERNEL_ONLY = frozenset({"vector", "matrix", "quaternion", "transformation", "tuple", "zeros"})
_SCALARS = {t.__name__: t for t in scalars.scalar_and_bool_types}

_MISSING = object()


def warp_namespace_lookup(name: str) -> Any:
    """The object ``warp.<name>`` names (a type, a builtin or a constant), or None."""
    if name in composites.ALIASES:
        return composites.ALIASES[name]
    if name in _SCALARS:
        return _SCALARS[name]
    if name in BUILTINS and not name.startswith("_") and name not in _KERNEL_ONLY:
        return BUILTINS[name]
    if not name.startswith("_"):
        value = getattr(constants, name, _MISSING)
        if isinstance(value, float):
            return value
    return None
