"""Python-scope element access of composite values: key checking, scalar import/export.

Warp's composite values (vectors, matrices, quaternions, transforms) index like short
sequences, with Warp's own rules and error messages, which this module implements for
:mod:`jwarp.lang.composites`:

- a vector key is an ``int`` (negative wraps) or a ``slice``; a matrix key is an ``int`` (a
  row), a ``slice`` (rows) or a pair of them; anything else raises ``KeyError``;
- an element read gives a Python ``float``/``int``/``bool`` for ``float32``/``int32``/``bool``
  components and a boxed Warp scalar (``wp.float64(1.0)``) for the others, unless
  ``wp.config.legacy_scalar_return_types`` is set (then always a Python number);
- an element write accepts a number of the component's kind (no float into an integer
  component) and wraps integers; a slice write takes a sequence of such numbers of the same
  length.

Example:
    >>> import jwarp as wp
    >>> v = wp.vec3d(1.0, 2.0, 3.0)
    >>> v[0], v[1:]
    (float64(1.0), vec2d([float64(2.0), float64(3.0)]))
    >>> v[None]
    Traceback (most recent call last):
    KeyError: 'Invalid key None, expected int or slice'
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from jwarp import config
from jwarp.lang import scalars

# component types read back as plain Python numbers (as Warp does)
_PYTHON_RETURN_TYPES = (scalars.float32, scalars.int32, scalars.bool_)


def is_index(key: Any) -> bool:
    """An integer index (``bool`` excluded): ``int``, numpy integers, objects with ``__index__``."""
    return isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_))


def normalize_index(key: Any, size: int, error: str) -> int:
    """``key`` as a non-negative position below ``size`` (negative counts from the end)."""
    index = int(key)
    if index < 0:
        index += size
    if not 0 <= index < size:
        raise IndexError(error)
    return index


def export_scalar(scalar_type: type, value: np.generic) -> Any:
    """A component read from storage as Warp returns it (see the module docstring)."""
    plain = value.item()
    if scalar_type in _PYTHON_RETURN_TYPES or config.legacy_scalar_return_types:
        return plain
    return scalar_type(plain)


def _is_number(value: Any, scalar_type: type) -> bool:
    if isinstance(value, np.ndarray):
        return value.ndim == 0 and _is_number(value[()], scalar_type)
    if isinstance(value, scalars.scalar_base):
        value_kind = type(value)._kind
        return scalar_type._kind == "f" or value_kind != "f"
    if scalar_type._kind == "f":
        return isinstance(value, (numbers.Real, np.number, np.bool_))
    return isinstance(value, (numbers.Integral, np.integer, np.bool_))


def import_scalar(scalar_type: type, value: Any) -> np.generic:
    """``value`` converted for storage in a ``scalar_type`` component; ``TypeError`` as Warp's
    when it is not a number of the right kind."""
    if not _is_number(value, scalar_type):
        raise TypeError(
            f"Expected to assign a `{scalar_type.__name__}` value but got `{type(value).__name__}` instead"
        )
    return scalars.to_numpy_scalar(scalar_type, value)


def import_sequence(scalar_type: type, values: Any, size: int) -> np.ndarray:
    """A sequence assigned to a slice (or a matrix row) of ``size`` components."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise TypeError(
            f"Expected to assign a slice from a sequence of `{scalar_type.__name__}` values "
            f"but got `{type(values).__name__}` instead"
        )
    items = []
    for value in values:  # as Warp: the element types are checked before the length
        try:
            items.append(import_scalar(scalar_type, value))
        except TypeError:
            raise TypeError(
                f"Expected to assign a slice from a sequence of `{scalar_type.__name__}` values "
                f"but got `{type(value).__name__}` instead"
            ) from None
    if len(items) != size:
        raise ValueError("Can only assign sequence of same size")
    out = np.array(items, scalar_type._np_dtype).reshape(size)
    return out


def check_vector_key(key: Any) -> None:
    if not (is_index(key) or isinstance(key, slice)):
        raise KeyError(f"Invalid key {key}, expected int or slice")


def matrix_key(key: Any) -> tuple[Any, ...]:
    """A matrix key as a tuple of one or two ints/slices; ``KeyError`` as Warp's otherwise."""
    if is_index(key) or isinstance(key, slice):
        return (key,)
    if isinstance(key, tuple):
        if len(key) not in (1, 2):
            raise KeyError(f"Invalid key, expected one or two indices, got {len(key)}")
        if all(is_index(k) or isinstance(k, slice) for k in key):
            return key
    raise KeyError(f"Invalid key {key}, expected int or pair of ints")
