"""Python-scope arithmetic on boxed scalars (``wp.float16(1) + wp.float16(2)``), as Warp does it.

Rules (checked against Warp 1.19):

- both operands must have one scalar type; a Python ``int`` counts as ``int32``, a Python
  ``float`` as ``float32`` and a numpy scalar as its own type. Anything else numeric raises
  ``RuntimeError("Couldn't find a function 'add' compatible with the arguments 'float32, int'")``;
  arrays and composites get ``NotImplemented`` so their own operators run;
- the operation runs in the type: integers wrap, ``/`` on integers truncates toward zero,
  ``%`` takes the dividend's sign (C ``fmod``); integer division or modulo by zero gives 0,
  as in jwarp kernels (Warp's process stops with SIGFPE);
- a ``float32`` result is a Python ``float`` and an ``int32`` result a Python ``int``
  (Warp's native return types); other types give a boxed scalar of the type.

Example:
    >>> import jwarp as wp
    >>> wp.int8(100) * wp.int8(2)
    int8(-56)
    >>> wp.int32(-7) / 2
    -3
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jwarp.lang import scalars


def _operand_type(x: Any) -> tuple[type | None, str]:
    """(scalar type, name for messages) of an operand; type None when it is not a scalar."""
    if isinstance(x, scalars.scalar_base):
        return scalars.canonical_scalar(type(x)), type(x).__name__
    if isinstance(x, np.generic):  # before float: np.float64 is a float subclass
        t = scalars.canonical_scalar(x.dtype)
        return t, t.__name__ if t is not None else type(x).__name__
    if isinstance(x, bool):
        return scalars.bool_, "bool"
    if isinstance(x, int):
        return scalars.int32, "int"
    if isinstance(x, float):
        return scalars.float32, "float"
    return None, type(x).__name__


def _box(t: type, result: np.generic) -> Any:
    if t is scalars.float32:
        return float(result)
    if t is scalars.int32:
        return int(result)
    return t(result.item())


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _compute(name: str, t: type, a: np.generic, b: np.generic) -> np.generic:
    with np.errstate(all="ignore"):
        if name == "add":
            return a + b
        if name == "sub":
            return a - b
        if name == "mul":
            return a * b
        if name == "pow":
            return np.power(a, b)
        if t._kind == "f":
            return a / b if name == "div" else np.fmod(a, b)
    # integer div / mod: C semantics on exact Python integers, then wrapped to the type
    x, y = int(a), int(b)
    if y == 0:  # 0, as in jwarp kernels and wp.div (Warp's process stops with SIGFPE)
        return scalars.to_numpy_scalar(t, 0)
    q = _trunc_div(x, y)
    return scalars.to_numpy_scalar(t, q if name == "div" else x - q * y)


def binary(self: Any, other: Any, name: str, reverse: bool = False) -> Any:
    """``self <name> other`` (or ``other <name> self`` when ``reverse``) for a boxed scalar ``self``."""
    t, self_name = _operand_type(self)
    u, other_name = _operand_type(other)
    if u is None:
        return NotImplemented
    if t is not u or t is scalars.bool_:
        names = (other_name, self_name) if reverse else (self_name, other_name)
        raise RuntimeError(f"Couldn't find a function '{name}' compatible with the arguments '{', '.join(names)}'")
    a, b = scalars.to_numpy_scalar(t, self.value), scalars.to_numpy_scalar(t, other)
    if reverse:
        a, b = b, a
    return _box(t, _compute(name, t, a, b))


def unary(self: Any, name: str) -> Any:
    """``-self`` / ``+self`` for a boxed scalar (integers wrap: ``-wp.uint8(3) == uint8(253)``)."""
    t = scalars.canonical_scalar(type(self))
    a = scalars.to_numpy_scalar(t, self.value)
    if name == "pos":
        return _box(t, a)
    if t._kind == "f":
        return _box(t, -a)
    return _box(t, scalars.to_numpy_scalar(t, -int(a)))
