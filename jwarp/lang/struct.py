"""User-defined structs (``@wp.struct``).

``@wp.struct`` turns an annotated class into a :class:`StructType`: a kernel argument
type, an array dtype, and (called) a factory of mutable Python-scope instances.

Example:
    >>> import jwarp as wp
    >>> @wp.struct
    ... class Particle:
    ...     pos: wp.vec3
    ...     mass: float
    >>> p = Particle()
    >>> p.mass = 2.0
    >>> p.mass, p.pos
    (2.0, vec3f([0.0, 0.0, 0.0]))
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any

import numpy as np

from jwarp.lang import composites, scalars


@dataclass(frozen=True)
class Var:
    """One struct field (mirrors Warp's ``Struct.vars[name]``)."""

    label: str
    type: Any


class StructInstance:
    """A mutable Python-scope value of a struct type; fields are plain attributes."""

    def __init__(self, cls: StructType, **fields: Any):
        object.__setattr__(self, "_cls", cls)
        for name, var in cls.vars.items():
            object.__setattr__(self, name, _default_value(var.type))
        for name, value in fields.items():
            setattr(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        var = self._cls.vars.get(name)
        if var is None:
            raise RuntimeError(f"Trying to set Warp struct attribute that does not exist {name}")
        object.__setattr__(self, name, _convert_field(self._cls, var, value))

    def assign(self, value: StructInstance) -> None:
        """Copy every field of ``value`` (a struct of the same type) into this instance."""
        if not isinstance(value, StructInstance) or value._cls is not self._cls:
            raise RuntimeError(f"Trying to assign a non-matching value to a struct of type {self._cls.key}")
        for name in self._cls.vars:
            setattr(self, name, getattr(value, name))

    def to(self, device: Any) -> StructInstance:
        """A copy with every array field moved to ``device``."""
        out = self._cls()
        for name, var in self._cls.vars.items():
            value = getattr(self, name)
            if is_array_type(var.type) and value is not None:
                value = value.to(device)
            elif isinstance(var.type, StructType):
                value = value.to(device)
            setattr(out, name, value)
        return out

    def numpy_value(self) -> tuple:
        """The value as a tuple usable in a numpy structured array of ``numpy_dtype()``."""
        out = []
        for name, var in self._cls.vars.items():
            value = getattr(self, name)
            if isinstance(var.type, StructType):
                out.append(value.numpy_value())
            elif is_array_type(var.type):  # Warp's array descriptor (addresses are jwarp's)
                from jwarp.lang.array_descriptors import descriptor_value

                out.append(descriptor_value(var.type, value))
            elif composites.is_composite(var.type):  # plain numbers, as Warp gives them
                out.append(np.asarray(value, dtype=var.type._wp_scalar_type_._np_dtype).tolist())
            else:
                out.append(np.asarray(getattr(value, "value", value), dtype=var.type._np_dtype).item())
        return tuple(out)

    def numpy_dtype(self) -> dict:
        return self._cls.numpy_dtype()

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._cls.vars)
        return f"{self._cls.key}({fields})"

    # as in Warp, instances compare and hash by identity (a Tape keys their adjoints by instance)


def is_array_type(t: Any) -> bool:
    from jwarp.lang.arrays import ArrayType

    return isinstance(t, ArrayType)


_FAMILY_NAMES = {"array": "array", "indexedarray": "indexed array", "fabricarray": "Fabric array",
                 "indexedfabricarray": "indexed Fabric array"}


def _value_array_kind(value: Any) -> str | None:
    """The array family of a value holding data (``"array"`` for ``wp.array`` and its
    subclasses); None for annotation-only arrays and non-arrays."""
    if not getattr(value, "_jwarp_array", False) or isinstance(value, type) or getattr(value, "device", None) is None:
        return None
    return getattr(type(value), "_array_kind", "array")


def _default_value(t: Any) -> Any:
    if scalars.is_scalar_type(t):
        return t(0)  # a Warp scalar, as in Warp (keeps the field's exact type)
    if composites.is_composite(t):
        return t(0)  # zeros (a transform too: its no-argument constructor is the identity)
    if isinstance(t, StructType):
        return t()
    return None  # arrays


def _convert_field(cls: StructType, var: Var, value: Any) -> Any:
    t = var.type
    if scalars.is_scalar_type(t):
        if type(value) is t:
            return value  # a Warp scalar of the field's type is kept as is
        if isinstance(value, scalars.scalar_base):
            value = value.value
        return t._np_dtype.type(value).item()
    if composites.is_composite(t):
        if type(value) is t:
            return value
        if value is None:
            return _default_value(t)  # None zero-initializes, as in Warp
        if isinstance(value, (int, float, scalars.scalar_base)) and not isinstance(value, bool):
            name = _type_name(t)
            raise TypeError(
                f"Struct field '{var.label}' expects {name} but got a single value of type "
                f"{type(value).__name__}. Construct the value explicitly, e.g.: {name}(...)."
            )
        return t(value)
    if isinstance(t, StructType):
        if not isinstance(value, StructInstance) or value._cls is not t:
            raise RuntimeError(f"Trying to assign a non-structure value to a struct attribute with type: {t.key}")
        return value
    if is_array_type(t):
        if value is not None and _value_array_kind(value) != t.kind:
            family = _FAMILY_NAMES.get(t.kind, t.kind)
            raise TypeError(f"Struct field '{var.label}' expects a Warp {family}, got {type(value).__name__}")
        if value is not None:
            _check_array_field(var, t, value)
        return value
    return value


def _type_name(t: Any) -> str:
    from jwarp.lang.arrays import type_name

    return type_name(t)


def _check_array_field(var: Var, t: Any, value: Any) -> None:
    """Reject an array whose dtype or dimension count differs from the field's (Warp's wording)."""
    concrete = scalars.is_scalar_type(t.dtype) or composites.is_composite(t.dtype) or isinstance(t.dtype, StructType)
    if concrete and value.dtype is not t.dtype:
        raise TypeError(
            f"Struct field '{var.label}' expects dtype {_type_name(t.dtype)}, got {_type_name(value.dtype)}"
        )
    if isinstance(t.ndim, int) and value.ndim != t.ndim:
        raise TypeError(
            f"Struct field '{var.label}' expects an array with {t.ndim} dimension(s), got {value.ndim} dimension(s)"
        )


class StructType:
    """A struct type made by ``@wp.struct``: field table plus instance factory."""

    def __init__(self, cls: type):
        from jwarp.lang.arrays import resolve_annotation

        self.cls = cls
        self.key = cls.__qualname__
        self.__name__ = cls.__name__
        self.__qualname__ = cls.__qualname__
        self.__module__ = cls.__module__
        self.__doc__ = cls.__doc__
        hints = typing.get_type_hints(cls, include_extras=False) if cls.__dict__.get("__annotations__") else {}
        annotations = cls.__dict__.get("__annotations__", {})
        self.vars: dict[str, Var] = {}
        for name in annotations:
            t = resolve_annotation(hints.get(name, annotations[name]))
            if t is None:
                raise TypeError(f"Struct '{self.key}' field '{name}' has an unsupported type {annotations[name]!r}")
            self.vars[name] = Var(name, t)
        # instances are also instances of the user's class (``isinstance(Foo(), Foo.cls)``), as in Warp
        self._instance_class = type(cls.__name__, (cls, StructInstance), {"__module__": cls.__module__})

    def __mro_entries__(self, bases: tuple) -> tuple:
        # a class deriving from a struct type (``class Child(Parent)``): Warp forbids it
        raise RuntimeError("Warp structs must be defined as base classes")

    def __call__(self, **fields: Any) -> StructInstance:
        return self._instance_class(self, **fields)

    def __repr__(self) -> str:
        return f"<struct {self.key}>"

    @property
    def has_arrays(self) -> bool:
        return any(is_array_type(v.type) or (isinstance(v.type, StructType) and v.type.has_arrays) for v in self.vars.values())

    def numpy_dtype(self) -> dict:
        """The numpy structured dtype of one element in C layout, as Warp gives it (a dict of
        ``names``, ``formats``, ``offsets``, ``itemsize``; ``np.dtype(...)`` of it is the dtype of
        struct arrays' ``numpy()``). An array field is Warp's array descriptor record."""
        d = self.np_dtype()
        return {"names": list(d.names), "formats": [d.fields[n][0] for n in d.names],
                "offsets": [d.fields[n][1] for n in d.names], "itemsize": d.itemsize}

    def np_dtype(self) -> np.dtype:
        """:meth:`numpy_dtype` as a ``numpy.dtype``."""
        fields = []
        for name, var in self.vars.items():
            t = var.type
            if isinstance(t, StructType):
                fields.append((name, t.np_dtype()))
            elif composites.is_composite(t):
                fields.append((name, t._wp_scalar_type_._np_dtype, t._shape_))
            elif scalars.is_scalar_type(t):
                fields.append((name, t._np_dtype))
            else:
                from jwarp.lang.array_descriptors import descriptor_dtype

                fields.append((name, descriptor_dtype(t)))
        return np.dtype(fields, align=True)


# called with each struct type :func:`struct` declares (the runtime registers it with its Python module's
# wp.Module, as Warp's module.structs lists it); the language layer knows nothing of modules
_ON_DECLARE: list = []


def on_struct_declared(hook: Any) -> None:
    """Call ``hook(struct_type)`` for every struct declared from now on."""
    _ON_DECLARE.append(hook)


def struct(cls: type) -> StructType:
    """Decorator: declare a struct type from an annotated class.

    Example:
        >>> import jwarp as wp
        >>> @wp.struct
        ... class State:
        ...     x: wp.array(dtype=float)
        ...     k: float
    """
    declared = StructType(cls)
    for hook in _ON_DECLARE:
        hook(declared)
    return declared
