"""``wp.ref[T]``: pass-by-reference parameters of ``@wp.func``.

A ``wp.ref[T]`` parameter receives an *addressable* argument — a local variable, another
reference parameter, an array element, a struct field or a vector/matrix/quaternion/transform
component — and what the function assigns to it is visible in the caller's storage.

Example::

    @wp.func
    def bump(x: wp.ref[float], by: float):
        x += by

    @wp.kernel(enable_backward=False)
    def k(a: wp.array(dtype=float)):
        bump(a[wp.tid()], 1.0)   # a[i] += 1
"""

from __future__ import annotations

from typing import Any


class Reference:
    """The annotation ``wp.ref[T]``: a reference to a value of type ``T``."""

    def __init__(self, value_type: Any):
        self.value_type = value_type

    @property
    def dtype(self) -> Any:
        return self.value_type

    @property
    def __name__(self) -> str:
        return repr(self)

    def __repr__(self) -> str:
        return f"wp.ref[{getattr(self.value_type, '__name__', repr(self.value_type))}]"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Reference):
            return False
        a, b = self.value_type, other.value_type
        return a is b or (not isinstance(a, type) and a == b)

    def __hash__(self) -> int:
        try:
            return hash((Reference, self.value_type))
        except TypeError:
            return hash((Reference, id(self.value_type)))


class ref:
    """``wp.ref[T]`` makes the annotation of a pass-by-reference ``@wp.func`` parameter."""

    def __class_getitem__(cls, value_type: Any) -> Reference:
        return Reference(value_type)


def is_reference(t: Any) -> bool:
    return isinstance(t, Reference)


def strip_reference(t: Any) -> Any:
    """``T`` for ``wp.ref[T]``, else ``t`` itself."""
    return t.value_type if isinstance(t, Reference) else t


def address_of(expr: Any) -> Any:
    """Warp's ``wp.address_of(x)``: the address of addressable storage, for C++ snippets.

    jwarp kernels are XLA programs without memory addresses: in kernel code the argument is
    checked like a ``wp.ref`` argument and the call then raises an error explaining this.
    Outside kernels it raises, as in Warp.
    """
    raise RuntimeError("wp.address_of() can only be used inside @wp.kernel and @wp.func bodies")
