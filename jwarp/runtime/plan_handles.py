"""Geometry ids in launch plans: what a replayed launch reads from the objects its ``uint64`` arguments name.

A launch that receives a geometry object's id (``mesh.id``, ``grid.id``) binds the object's arrays
and values as extra operands (:mod:`jwarp.runtime.handles`). A plan (:mod:`jwarp.runtime.fastpath`)
replays such a launch while each ``uint64`` argument names the object it named when the plan was
made (or still none) and the objects' static facts and array layouts are those the plan was made
with; it reads the objects' *current* buffers (a refit or a rebuild replaces them) and values (a
grid's cell width) at every replay, as the full path would. Anything else (another object, a
rebuilt object of another size, an id stored in an array, an object array that is also an argument)
goes through the full launch path.

Example (inside the fast path):
    >>> sources = HandleSources.of(binding, kernel, device, args, positions, bases, uint64s)  # doctest: +SKIP
    >>> ops = sources.operands(args)  # None: the full path must bind this launch  # doctest: +SKIP
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import jax

from jwarp.runtime import handles
from jwarp.runtime.array_layouts import layout_id
from jwarp.runtime.binding import convert_value, device_constant

_VALUE_LIMIT = 64


@dataclass(frozen=True)
class _Object:
    """One geometry object of a planned launch."""

    position: int  # the argument holding its id
    ref: Any  # weakref to the object
    static: tuple
    arrays: tuple  # (key, base index, layout id) of each of its arrays
    values: tuple  # (key, value index, type, cache) of each of its launch values


class HandleSources:
    """The geometry objects of a planned launch, and what each ``uint64`` argument named."""

    __slots__ = ("objects", "watched", "bases", "_kernel_key", "_device")

    def __init__(self, objects: tuple, watched: tuple, kernel_key: str, device: Any):
        self.objects = objects
        self.watched = watched  # (position, weakref to the object it named, or None) per uint64 argument
        # base index -> (object number, array key)
        self.bases = {base: (k, key) for k, o in enumerate(objects) for key, base, _ in o.arrays}
        self._kernel_key = kernel_key
        self._device = device

    @staticmethod
    def of(binding: Any, kernel: Any, device: Any, args: list, value_positions: dict, argument_bases: set,
           uint64_positions: tuple) -> HandleSources | None:
        """The sources of ``binding`` for the launch arguments ``args`` (``value_positions``: value
        index -> argument position of the scalar arguments; ``argument_bases``: base indices the
        arguments provide), None when the launch has no ``uint64`` arguments. Raises ValueError when
        the launch cannot be planned."""
        if not binding.handles and not uint64_positions:
            return None
        objects = []
        for spec, obj in zip(binding.handles, binding.geometry):
            position = value_positions.get(spec.id_index)
            if position is None:  # an id read from an array's contents, or a struct field
                raise ValueError("not plannable")
            arrays = []
            for key, aspec in spec.arrays:
                if aspec.base in argument_bases or aspec.indices:
                    raise ValueError("not plannable")  # (an object's array also passed as an argument)
                array = obj._launch_operands().arrays[key]
                arrays.append((key, aspec.base, layout_id(array)))
            values = tuple((key, vspec.index, vspec.type, {}) for key, vspec in spec.values)
            objects.append(_Object(position, weakref.ref(obj), tuple(spec.static), tuple(arrays), values))
        watched = []
        for p in uint64_positions:  # (an id given twice binds its object once, for its first argument)
            obj = handles.lookup(args[p])
            watched.append((p, weakref.ref(obj) if obj is not None else None))
        return HandleSources(tuple(objects), tuple(watched), kernel.key, device)

    def operands(self, args: list) -> list | None:
        """Each object's current :class:`~jwarp.runtime.handles.LaunchOperands`, or None when a
        ``uint64`` argument names another object than it did (or names one now, or names a collected
        one) or an object's static facts or array layouts changed."""
        for p, ref in self.watched:
            named = handles.lookup(args[p])
            if named is not (ref() if ref is not None else None):
                return None
        out = []
        for o in self.objects:
            obj = o.ref()
            if obj is None:
                return None
            ops = obj._launch_operands()
            if tuple(ops.static) != o.static:
                return None
            for key, _, layout in o.arrays:
                a = ops.arrays[key]
                if a is None or layout_id(a) != layout:
                    return None
            out.append(ops)
        return out

    def buffer_root(self, ops: list, base: int) -> Any:
        """The root array behind base ``base`` of the launch (an object's array)."""
        k, key = self.bases[base]
        a = ops[k].arrays[key]
        return a._base if a._base is not None else a

    def fill_values(self, ops: list, out: list) -> None:
        """Write the objects' launch values (device constants) into their slots of ``out``."""
        for o, op in zip(self.objects, ops):
            for key, index, t, cache in o.values:
                v = op.values[key][1]
                held = cache.get(id(v))  # by identity (objects keep their values until they change)
                if held is not None and held[0] is v:
                    c = held[1]
                elif isinstance(v, jax.Array) and v.shape == () and v.dtype == t._np_dtype:
                    c = v  # already a device scalar (a mesh refit's average edge length)
                else:
                    c = device_constant(convert_value(self._kernel_key, key, t, v), self._device)
                    if len(cache) > _VALUE_LIMIT:
                        cache.clear()
                    cache[id(v)] = (v, c)  # (the value is held: its id is not reused while cached)
                out[index] = c


__all__ = ["HandleSources"]
