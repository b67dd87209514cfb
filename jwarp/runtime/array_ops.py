"""Python operators on arrays (``a + b``, ``s * a``, ``a %= s``): a builtin applied element by element.

As in Warp (whose array operators map the kernel builtin over the elements), the operands
follow the builtin's typing rules: ``wp.array(dtype=wp.float32) + wp.float32(5)`` and ``+ 5.0``
work, ``+ 5`` does not (an ``int`` is ``int32``); array operands broadcast like numpy. The
result is a new array on the first array operand's device; in-place operators write it back.

Example:
    >>> import jwarp as wp
    >>> a = wp.array([1.0, 2.0, 3.0], dtype=wp.float32)
    >>> (a * 2.0 + wp.float32(1.0)).numpy().tolist()
    [3.0, 5.0, 7.0]
"""

from __future__ import annotations

import itertools
from typing import Any

import jax.numpy as jnp

from jwarp.compiler.registry import BUILTINS, Call
from jwarp.compiler.values import Value, leaves_of, python_to_value, value_from_leaves
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import type_name
from jwarp.runtime import storage


def _broadcast_shape(shapes: list[tuple]) -> tuple:
    try:
        return tuple(jnp.broadcast_shapes(*shapes))
    except ValueError:
        listed = " and ".join(str(tuple(s)) for s in shapes)
        raise ValueError(f"Shapes {listed} are not broadcastable") from None


def _array_value(a: Any, shape: tuple) -> Value:
    """An array's elements as a value whose leaves are whole arrays (one per component)."""
    dtype = a.dtype
    if not (scalars.is_scalar_type(dtype) or composites.is_composite(dtype)):
        raise TypeError(f"Arithmetic operators need arrays of scalars, vectors or matrices, not {type_name(dtype)}")
    buf = a.buffer
    comp = storage.element_shape(dtype)
    leaves = [buf[(..., *idx)] for idx in itertools.product(*(range(n) for n in comp))] if comp else [buf]
    return value_from_leaves(dtype, [jnp.broadcast_to(leaf, shape) for leaf in leaves])


def elementwise(name: str, *operands: Any, out: Any = None) -> Any:
    """Apply builtin ``name`` to each element of the array operands (scalars are shared).

    Returns a new array, or writes into ``out`` and returns it.
    """
    arrays = [o for o in operands if isinstance(o, ArrayArithmetic)]
    shape = _broadcast_shape([a.shape for a in arrays])
    with storage.x64():
        values = []
        for o in operands:
            if isinstance(o, ArrayArithmetic):
                values.append(_array_value(o, shape))
                continue
            lifted = python_to_value(o)
            if lifted is None:
                return NotImplemented
            values.append(lifted)
        result = BUILTINS[name].impl(Call(name), *values)
        comp = storage.element_shape(result.type)
        leaves = [jnp.broadcast_to(jnp.asarray(leaf), shape) for leaf in leaves_of(result)]
        buf = jnp.stack(leaves, axis=-1).reshape(shape + comp) if comp else leaves[0]
        new = arrays[0]._make_result(buf, result.type)
    if out is None:
        return new
    if out.dtype is not result.type or out.shape != shape:
        raise TypeError(
            f"Cannot store the result of '{name}' ({type_name(result.type)}, shape {shape}) into an array "
            f"of {type_name(out.dtype)} with shape {out.shape}"
        )
    out.assign(new)
    return out


class ArrayArithmetic:
    """Python operators of ``wp.array`` (``+ - * / // % **``, reflected and in-place forms, unary
    ``-``/``+``): each applies the kernel builtin of that name over the elements (:func:`elementwise`).
    Subclasses provide ``_make_result(buffer, dtype)``."""

    def _make_result(self, buf: Any, dtype: Any) -> Any:
        raise NotImplementedError


def _install_operators() -> None:
    def forward(name: str):
        return lambda self, y: elementwise(name, self, y)

    def reflected(name: str):
        return lambda self, y: elementwise(name, y, self)

    def in_place(name: str):
        return lambda self, y: elementwise(name, self, y, out=self)

    for dunder, builtin in (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("truediv", "div"),
                            ("floordiv", "floordiv"), ("mod", "mod"), ("pow", "pow")):
        setattr(ArrayArithmetic, f"__{dunder}__", forward(builtin))
        setattr(ArrayArithmetic, f"__r{dunder}__", reflected(builtin))
        setattr(ArrayArithmetic, f"__i{dunder}__", in_place(builtin))
    ArrayArithmetic.__neg__ = lambda self: elementwise("neg", self)
    ArrayArithmetic.__pos__ = lambda self: elementwise("pos", self)


_install_operators()
