"""The native array classes ("families") a Warp array value can belong to.

User subclasses of ``wp.array`` (and the indexed and fabric kinds) belong to the family of the native
class they derive from; overloads and ``wp.map`` reason about families, not concrete classes.

Example:
    >>> import jwarp as wp
    >>> from jwarp.runtime.array_families import array_family
    >>> array_family(wp.zeros(3)) is wp.array
    True
"""

from __future__ import annotations

from typing import Any

from jwarp.runtime.array import array
from jwarp.runtime.fabric import fabricarray, indexedfabricarray
from jwarp.runtime.indexed import indexedarray

FAMILIES = (indexedfabricarray, fabricarray, indexedarray, array)
"""Most derived first: an indexed fabric array is tested before a fabric array."""


def array_family(a: Any) -> type:
    """The native array class an array (or an instance of a subclass of one) belongs to."""
    for family in FAMILIES:
        if isinstance(a, family):
            return family
    raise TypeError(f"{type(a).__name__} is not a Warp array")


def is_array(x: Any) -> bool:
    """Whether ``x`` is an array of any family."""
    return isinstance(x, FAMILIES)


__all__ = ["FAMILIES", "array_family", "is_array"]
