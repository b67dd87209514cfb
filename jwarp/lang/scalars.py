"""Scalar types: ``float16 … float64``, ``int8 … uint64`` and ``bool``.

Each scalar type is a Python class, as in Warp: it names a dtype in annotations
(``x: wp.float64``), converts values in kernels (``wp.float64(x)``) and, called in
Python scope, makes a small boxed value (``wp.float32(1.5).value``).

Python-scope semantics follow Warp's:

- ``.value`` holds what was passed in, unconverted (``wp.int8(300).value == 300``); the
  type's own view of it (wrapped, rounded) is what ``str``/``repr``, ``__index__`` and
  arithmetic see (``repr(wp.int8(300)) == "int8(44)"``);
- arithmetic (``+ - * / %``, ``**`` on floats, unary ``- +``) computes in the type, wrapping
  integers, and needs both operands of one type, a Python ``int`` counting as ``int32`` and a
  Python ``float`` as ``float32``; ``float32``/``int32`` results are plain Python numbers,
  other types give boxed scalars;
- comparisons compare numerically with Python numbers and other scalars.

Example:
    >>> import jwarp as wp
    >>> wp.float16(1.5) + wp.float16(2.0)
    float16(3.5)
    >>> wp.float32(1.5) * 2.0
    3.0
    >>> wp.uint8(250) + wp.uint8(10)
    uint8(4)
    >>> wp.types.type_size_in_bytes(wp.int16)
    2
"""

from __future__ import annotations

import builtins
import ctypes
from typing import Any, Callable, TypeVar

import ml_dtypes
import numpy as np

from jwarp.lang import scalar_arith


class scalar_base:
    """Base of all scalar classes; an instance boxes one Python-scope value (``.value``)."""

    _np_dtype: np.dtype = np.dtype(np.float32)
    _kind: str = "f"  # 'f' float, 'i' signed int, 'u' unsigned int, 'b' bool
    _length_ = 1
    _type_: type = ctypes.c_float

    def __init__(self, x: Any = 0):
        self.value = _unbox(x)

    def __bool__(self) -> builtins.bool:
        return builtins.bool(self.value != 0)

    def __float__(self) -> float:
        return float(self.value)

    def __int__(self) -> int:
        return int(self.value)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self!s})"

    def _typed(self) -> np.generic:
        """The value as this type's numpy scalar (integers wrap, floats round)."""
        return to_numpy_scalar(type(self), self.value)

    # Python-scope arithmetic: see scalar_arith (operands of one type, Warp's result types).
    def _arith(self, name: str, other: Any, reverse: builtins.bool = False):
        return scalar_arith.binary(self, other, name, reverse)

    def __add__(self, y):
        return self._arith("add", y)

    def __radd__(self, y):
        return self._arith("add", y, True)

    def __sub__(self, y):
        return self._arith("sub", y)

    def __rsub__(self, y):
        return self._arith("sub", y, True)

    def __mul__(self, y):
        return self._arith("mul", y)

    def __rmul__(self, y):
        return self._arith("mul", y, True)

    def __truediv__(self, y):
        return self._arith("div", y)

    def __rtruediv__(self, y):
        return self._arith("div", y, True)

    def __mod__(self, y):
        return self._arith("mod", y)

    def __rmod__(self, y):
        return self._arith("mod", y, True)

    def __neg__(self):
        return scalar_arith.unary(self, "neg")

    def __pos__(self):
        return scalar_arith.unary(self, "pos")


class float_base(scalar_base):
    """Base of the floating-point scalar classes."""

    def __str__(self) -> str:
        return str(self.value)

    def _compare(self, x: Any, op: Callable) -> Any:
        try:
            other = float(x)
        except (TypeError, ValueError):
            return NotImplemented
        return op(float(self), other)

    def __eq__(self, x):
        return self._compare(x, float.__eq__)

    def __ne__(self, x):
        return self._compare(x, float.__ne__)

    def __lt__(self, x):
        return self._compare(x, float.__lt__)

    def __le__(self, x):
        return self._compare(x, float.__le__)

    def __gt__(self, x):
        return self._compare(x, float.__gt__)

    def __ge__(self, x):
        return self._compare(x, float.__ge__)

    def __hash__(self) -> int:
        return hash(float(self))

    def __pow__(self, y):
        return self._arith("pow", y)

    def __rpow__(self, y):
        return self._arith("pow", y, True)

    def __abs__(self):
        return type(self)(abs(float(self)))

    def __round__(self, ndigits: int | None = None):
        return type(self)(round(float(self), ndigits))


_FLOAT_LIKE = (float, float_base, np.floating)


class int_base(scalar_base):
    """Base of the integer scalar classes."""

    def __index__(self) -> int:
        return int(self._typed())

    def __str__(self) -> str:
        return str(int(self._typed()))

    def _compare(self, x: Any, op: str) -> Any:
        # Against a float, compare as floats (1 != 1.5); otherwise as integers.
        try:
            if isinstance(x, _FLOAT_LIKE):
                a, b = float(self), float(x)
            else:
                a, b = int(self), int(x)
        except (TypeError, ValueError):
            return NotImplemented
        return getattr(a, op)(b)

    def __eq__(self, x):
        return self._compare(x, "__eq__")

    def __ne__(self, x):
        return self._compare(x, "__ne__")

    def __lt__(self, x):
        return self._compare(x, "__lt__")

    def __le__(self, x):
        return self._compare(x, "__le__")

    def __gt__(self, x):
        return self._compare(x, "__gt__")

    def __ge__(self, x):
        return self._compare(x, "__ge__")

    def __hash__(self) -> int:
        return hash(int(self))

    def __abs__(self):
        return type(self)(abs(int(self)))


class bool_base(scalar_base):
    """Base of ``wp.bool``: truth value only, no arithmetic and no ordering (as in Warp)."""

    def __float__(self) -> float:
        return float(self.value != 0)

    def __int__(self) -> int:
        return int(self.value != 0)

    def __str__(self) -> str:
        return str(builtins.bool(self.value != 0))

    def _arith(self, name: str, other: Any, reverse: builtins.bool = False):
        return NotImplemented

    def __neg__(self):
        raise TypeError("bad operand type for unary -: 'bool'")

    def __pos__(self):
        raise TypeError("bad operand type for unary +: 'bool'")


def _unbox(x: Any) -> Any:
    """What a scalar constructor stores: a boxed scalar's value, a 1-element array's element."""
    while isinstance(x, scalar_base):
        x = x.value
    if isinstance(x, np.ndarray) and x.size == 1:
        return x.reshape(())[()]
    return x


def to_numpy_scalar(t: type, value: Any) -> np.generic:
    """``value`` as a numpy scalar of scalar type ``t``, with C conversion rules
    (integers wrap modulo 2**bits, float → int truncates, anything → bool is ``!= 0``)."""
    value = _unbox(value)
    dtype = t._np_dtype
    if t._kind == "b":
        return np.bool_(value != 0)
    if t._kind in "iu" and isinstance(value, int):
        bits = dtype.itemsize * 8
        value &= (1 << bits) - 1
        if t._kind == "i" and value >= 1 << (bits - 1):
            value -= 1 << bits
        return dtype.type(value)
    with np.errstate(all="ignore"):
        return np.asarray(value).astype(dtype)[()]


def _make(name: str, base: type, np_type: Any, kind: str, ctype: type, doc: str) -> type:
    attrs = {"_np_dtype": np.dtype(np_type), "_kind": kind, "_type_": ctype, "__module__": __name__, "__doc__": doc}
    if np_type is not ml_dtypes.bfloat16:
        # numpy >= 2.4 reads this: np.dtype(wp.float32) == np.float32 (bfloat16 has no numpy equivalent)
        attrs["__numpy_dtype__"] = np.dtype(np_type)
    return type(name, (base,), attrs)


float16 = _make("float16", float_base, np.float16, "f", ctypes.c_uint16, "16-bit half-precision float.")
bfloat16 = _make("bfloat16", float_base, ml_dtypes.bfloat16, "f", ctypes.c_uint16, "16-bit brain float.")
float32 = _make("float32", float_base, np.float32, "f", ctypes.c_float, "32-bit single-precision float.")
float64 = _make("float64", float_base, np.float64, "f", ctypes.c_double, "64-bit double-precision float.")
int8 = _make("int8", int_base, np.int8, "i", ctypes.c_int8, "8-bit signed integer.")
int16 = _make("int16", int_base, np.int16, "i", ctypes.c_int16, "16-bit signed integer.")
int32 = _make("int32", int_base, np.int32, "i", ctypes.c_int32, "32-bit signed integer.")
int64 = _make("int64", int_base, np.int64, "i", ctypes.c_int64, "64-bit signed integer.")
uint8 = _make("uint8", int_base, np.uint8, "u", ctypes.c_uint8, "8-bit unsigned integer.")
uint16 = _make("uint16", int_base, np.uint16, "u", ctypes.c_uint16, "16-bit unsigned integer.")
uint32 = _make("uint32", int_base, np.uint32, "u", ctypes.c_uint32, "32-bit unsigned integer.")
uint64 = _make("uint64", int_base, np.uint64, "u", ctypes.c_uint64, "64-bit unsigned integer.")
bool_ = _make("bool", bool_base, np.bool_, "b", ctypes.c_bool, "Boolean scalar type.")


class handle(uint64):
    """Type for object handles (Mesh, Volume, BVH ids): behaves as ``uint64``."""


# Warp's ``wp.handle`` (an opaque 64-bit handle: mesh/volume ids, pointers) behaves as uint64
# everywhere in kernels; jwarp makes it the same type so handle values and uint64 arrays mix.
handle = uint64

float_types = (float16, bfloat16, float32, float64)
int_types = (int8, uint8, int16, uint16, int32, uint32, int64, uint64)
scalar_types = int_types + float_types  # Warp's order; excludes bool
scalar_and_bool_types = scalar_types + (bool_,)

# Generic placeholders used in Warp annotations (wp.Float, wp.Int, wp.Scalar).
Float = TypeVar("Float", float16, bfloat16, float32, float64)
Int = TypeVar("Int", *int_types)
Scalar = TypeVar("Scalar", *scalar_types)

_PYTHON_ALIASES = {builtins.float: float32, builtins.int: int32, builtins.bool: bool_}
_BY_NUMPY = {np.dtype(t._np_dtype): t for t in scalar_and_bool_types}


def canonical_scalar(t: Any) -> type | None:
    """The jwarp scalar class for ``t`` (a scalar class or subclass such as ``wp.handle``,
    a Python type or a numpy dtype), or None."""
    if isinstance(t, type) and issubclass(t, scalar_base):
        for cls in t.__mro__:
            if cls in _REGISTERED:
                return cls
        return None
    if t in _PYTHON_ALIASES:
        return _PYTHON_ALIASES[t]
    try:
        return _BY_NUMPY.get(np.dtype(t))
    except TypeError:
        return None


_REGISTERED = frozenset(scalar_and_bool_types)


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

