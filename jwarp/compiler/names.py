"""Called names that Warp resolves through its own namespace.

Inside a kernel, a *called* name that is neither local, closure, global nor a Python builtin is
looked up as an attribute of the ``warp`` module, so ``v = vec3(1.0, 2.0, 3.0)`` and
``expect_eq(a, b)`` work without the ``wp.`` prefix in a file that only did ``import warp as wp``.
The arguments of a call are resolved the same way (``wp.sin(half_pi)``); elsewhere a bare name
such as ``x = pi`` is undefined, as in Warp.

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


def warp_namespace_lookup(name: str, constants_too: bool = False) -> Any:
    """The callable ``warp.<name>`` names (a type or a builtin), or None; with ``constants_too``
    also Warp's math constants (a call's argument ``wp.sin(half_pi)`` reaches them in Warp)."""
    if name in composites.ALIASES:
        return composites.ALIASES[name]
    if name in _SCALARS:
        return _SCALARS[name]
    if name in BUILTINS and not name.startswith("_") and name not in _KERNEL_ONLY:
        return BUILTINS[name]
    if constants_too and not name.startswith("_") and isinstance(getattr(constants, name, None), float):
        return getattr(constants, name)
    return None
