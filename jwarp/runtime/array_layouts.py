"""Array layouts as small ints: what a launch plan compares instead of an array's dtype, shape and views.

An array's dtype, shape, view chain, base shape, device and pinning never change, so each array is
given the number of its layout once (interned in a table shared by all arrays); two arrays with the
same number bind alike in a launch.

Example:
    >>> import jwarp as wp
    >>> a, b = wp.zeros(3, dtype=float), wp.ones(3, dtype=float)
    >>> layout_id(a) == layout_id(b), layout_id(a) == layout_id(wp.zeros(4, dtype=float))
    (True, False)
"""

from __future__ import annotations

from typing import Any

_LAYOUTS: dict = {}


def layout_id(a: Any) -> int:
    """A small int standing for the layout of the ``wp.array`` ``a`` (hashing the layout at every
    launch would cost more)."""
    layout = a.__dict__.get("_plan_layout")
    if layout is None:
        root = a._base if a._base is not None else a
        key = (a.dtype, a.shape, a._chain, root.shape, a.device, a.pinned)
        layout = a._plan_layout = _LAYOUTS.setdefault(key, len(_LAYOUTS))
    return layout


__all__ = ["layout_id"]
