"""Scalar types: ``float16 … float64``, ``int8 … uint64`` and ``bool``.

Each scalar type is a Python class, as in Warp: it names a dtype in annotations
(``x: wp.float64``), converts values in kernels (``wp.float64(x)``) and, called in
Python scope, makes a small boxed value (``wp.float32(1.5).value``).

Example:
    >>> import jwarp as wp
    >>> wp.float32(1.5) + wp.float32(2.0)
    float32(3.5)
    >>> wp.types.type_size_in_bytes(wp.int16)
    2
"""

from __future__ import annotations

import builtins
from typing import Any, TypeVar

import ml_dtypes
import numpy as np


class scalar_base:
    """Base of all scalar classes; instances box one Python-scope value."""

    _np_dtype: np.dtype = np.dtype(np.float32)
    _kind: str = "f"  # 'f' float, 'i' signed int, 'u' unsigned int, 'b' bool

    def __init__(self, x: Any = 0):
        if isinstance(x, scalar_base):
            x = x.value
        self.value = self._np_dtype.type(np.asarray(x).astype(self._np_dtype)).item()

    def __bool__(self) -> builtins.bool:
        return self.value != 0

    def __float__(self) -> float:
        return float(self.value)

    def __int__(self) -> int:
        return int(self.value)

    def __index__(self) -> int:
        if self._kind == "f":
            raise TypeError(f"{type(self).__name__} cannot be used as an index")
        return int(self.value)

    def __str__(self) -> str:
        return str(self.value)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.value})"

    def __eq__(self, other: object) -> builtins.bool:
        other_value = other.value if isinstance(other, scalar_base) else other
        return builtins.bool(self.value == other_value)

    def __hash__(self) -> int:
        return hash(self.value)

    def _binary(self, other: Any, op, reverse: builtins.bool = False):
        other_value = other.value if isinstance(other, scalar_base) else other
        a, b = self._np_dtype.type(self.value), self._np_dtype.type(other_value)
        with np.errstate(all="ignore"):
            result = op(b, a) if reverse else op(a, b)
        return type(self)(result)

    def __add__(self, y):
        return self._binary(y, np.add)

    def __radd__(self, y):
        return self._binary(y, np.add, True)

    def __sub__(self, y):
        return self._binary(y, np.subtract)

    def __rsub__(self, y):
        return self._binary(y, np.subtract, True)

    def __mul__(self, y):
        return self._binary(y, np.multiply)

    def __rmul__(self, y):
        return self._binary(y, np.multiply, True)

    def __truediv__(self, y):
        return self._binary(y, np.divide if self._kind == "f" else _c_int_div)

    def __rtruediv__(self, y):
        return self._binary(y, np.divide if self._kind == "f" else _c_int_div, True)

    def __neg__(self):
        return type(self)(-np.asarray(self.value, dtype=self._np_dtype))

    def __pos__(self):
        return self


def _c_int_div(a, b):
    """Integer division truncating toward zero, with x / 0 == 0 (Warp's rule)."""
    if b == 0:
        return a * 0
    q = abs(int(a)) // abs(int(b))
    return q if (a >= 0) == (b >= 0) else -q


def _make(name: str, np_type: type, kind: str) -> type:
    cls = type(name, (scalar_base,), {"_np_dtype": np.dtype(np_type), "_kind": kind, "__module__": __name__})
    return cls


float16 = _make("float16", np.float16, "f")
bfloat16 = _make("bfloat16", ml_dtypes.bfloat16, "f")
float32 = _make("float32", np.float32, "f")
float64 = _make("float64", np.float64, "f")
int8 = _make("int8", np.int8, "i")
int16 = _make("int16", np.int16, "i")
int32 = _make("int32", np.int32, "i")
int64 = _make("int64", np.int64, "i")
uint8 = _make("uint8", np.uint8, "u")
uint16 = _make("uint16", np.uint16, "u")
uint32 = _make("uint32", np.uint32, "u")
uint64 = _make("uint64", np.uint64, "u")
bool_ = _make("bool", np.bool_, "b")

# Warp's ``wp.handle`` (an opaque 64-bit handle: mesh/volume ids, pointers) behaves as uint64
# everywhere in kernels; jwarp makes it the same type so handle values and uint64 arrays mix.
handle = uint64

float_types = (float16, bfloat16, float32, float64)
int_types = (int8, uint8, int16, uint16, int32, uint32, int64, uint64)
scalar_types = float_types + int_types  # Warp's scalar_types excludes bool
scalar_and_bool_types = scalar_types + (bool_,)

# Generic placeholders used in Warp annotations (wp.Float, wp.Int, wp.Scalar).
Float = TypeVar("Float", float16, bfloat16, float32, float64)
Int = TypeVar("Int", *int_types)
Scalar = TypeVar("Scalar", *scalar_types)

_PYTHON_ALIASES = {builtins.float: float32, builtins.int: int32, builtins.bool: bool_}
_BY_NUMPY = {np.dtype(t._np_dtype): t for t in scalar_and_bool_types}


def canonical_scalar(t: Any) -> type | None:
    """Return the jwarp scalar class for ``t`` (a scalar class, Python type or numpy dtype), or None."""
    if isinstance(t, type) and issubclass(t, scalar_base):
        return t
    if t in _PYTHON_ALIASES:
        return _PYTHON_ALIASES[t]
    try:
        return _BY_NUMPY.get(np.dtype(t))
    except TypeError:
        return None


def is_scalar_type(t: Any) -> builtins.bool:
    return isinstance(t, type) and issubclass(t, scalar_base)


def is_float(t: Any) -> builtins.bool:
    return is_scalar_type(t) and t._kind == "f"


def is_int(t: Any) -> builtins.bool:
    return is_scalar_type(t) and t._kind in "iu"


def is_bool(t: Any) -> builtins.bool:
    return t is bool_


def np_dtype(t: type) -> np.dtype:
    """numpy dtype of a scalar class."""
    return t._np_dtype


def dtype_from_numpy(dtype: Any) -> type:
    """Warp's ``wp.dtype_from_numpy``: the scalar class for a numpy dtype."""
    t = _BY_NUMPY.get(np.dtype(dtype))
    if t is None:
        raise TypeError(f"Cannot convert numpy dtype {dtype} to a jwarp type")
    return t


def scalar_name(t: type) -> str:
    return t.__name__
