"""Object handles: ``grid.id``, ``mesh.id``, ``bvh.id`` and ``volume.id`` as ``uint64`` kernel values.

A geometry object (HashGrid, Mesh, Bvh, Volume) registers itself here and receives an id, a
``uint64`` that Python code passes to kernels like any other scalar (also inside structs). When a
launch binds a ``uint64`` argument whose value is a live object's id, the object's buffers join
the launch as extra operands (:class:`jwarp.compiler.signature.HandleSpec`), and the kernel's query
builtins read them through :mod:`jwarp.compiler.handles`. The id itself stays an ordinary value,
so rebuilding an object (new buffers of the same shapes) reuses the compiled kernel.

An object taking part implements ``_launch_operands() -> LaunchOperands``.

Example:
    >>> from jwarp.runtime import handles
    >>> class Thing:
    ...     def __init__(self):
    ...         self.id = handles.register(self)
    >>> t = Thing()
    >>> handles.lookup(t.id) is t
    True
"""

from __future__ import annotations

import itertools
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# ids are large and sparse so that an ordinary uint64 argument practically never collides with one
_ID_BASE = 0x6A77_0000_0000_0000
_ID_STRIDE = 0x40
_counter = itertools.count(1)
_objects: "weakref.WeakValueDictionary[int, Any]" = weakref.WeakValueDictionary()


@dataclass
class LaunchOperands:
    """What an object contributes to a launch that receives its id.

    Attributes:
        kind: the object kind the query builtins ask for ("hash_grid", "mesh", "bvh", "volume").
        static: hashable compile-time facts (grid dimensions, dtype), part of the kernel signature.
        arrays: named ``wp.array`` buffers (read-only in kernels).
        values: named ``(type, value)`` scalars or composites, passed as launch values.
    """

    kind: str
    static: tuple = ()
    arrays: dict = field(default_factory=dict)
    values: dict = field(default_factory=dict)


def launch_state(objects: Any, identities: bool = True) -> tuple:
    """What a prepared launch of ``objects`` depends on besides their buffers' contents: their static
    facts and launch values (a grid's cell width after a rebuild), and (``identities``) which array
    objects hold their buffers (a mesh given a new points array). A captured graph or a ``Launch``
    object whose geometry's state changed binds the objects again, as Warp's launches read the object
    an id names when they run."""
    state = []
    for obj in objects:
        operands = obj._launch_operands()
        values = sorted((key, str(np.asarray(value))) for key, (_type, value) in operands.values.items())
        arrays = tuple(id(a.root) if a is not None else None for a in operands.arrays.values()) if identities else ()
        state.append((repr(tuple(operands.static)), repr(values), arrays))
    return tuple(state)


def register(obj: Any) -> int:
    """A new id for ``obj`` (held weakly: the id dies with the object)."""
    new_id = _ID_BASE + next(_counter) * _ID_STRIDE
    _objects[new_id] = obj
    return new_id


def lookup(handle: Any) -> Any:
    """The live object whose id is ``handle``, or None."""
    try:
        key = int(handle)
    except (TypeError, ValueError, OverflowError):
        return None
    if key < _ID_BASE:
        return None
    return _objects.get(key)


def live_ids(values: Any) -> list[int]:
    """The distinct values of an integer numpy array that are ids of live objects, in first-seen order."""
    if not _objects:
        return []
    flat = values.reshape(-1)
    unique, first = np.unique(flat[flat >= np.uint64(_ID_BASE)], return_index=True)
    return [int(v) for v in unique[np.argsort(first)] if int(v) in _objects]


def any_live() -> bool:
    """Whether any geometry object is alive (else no array can hold a live id)."""
    return len(_objects) > 0


def unregister(handle: int) -> None:
    """Forget ``handle`` (objects are held weakly, so this only matters for an id released early)."""
    objects = _objects
    if objects is not None:  # (module globals are cleared at interpreter exit)
        objects.pop(int(handle), None)


class Registered:
    """Base of the objects with an id (HashGrid, Mesh, Bvh, Volume): Warp's ``__del__``, safe on an
    object whose constructor never ran (``wp.Mesh.__new__(wp.Mesh).__del__()``) and at interpreter exit.

    Example:
        >>> class Thing(Registered):
        ...     def __init__(self):
        ...         self.id = register(self)
        >>> Thing.__new__(Thing).__del__()  # nothing to release
    """

    __slots__ = ()

    def __del__(self, _release: Any = unregister) -> None:  # (a default survives module teardown)
        handle = getattr(self, "id", None)
        if handle:
            _release(handle)


__all__ = ["LaunchOperands", "Registered", "any_live", "live_ids", "lookup", "register", "unregister"]
