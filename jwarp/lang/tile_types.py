"""The type of tile values: block-uniform arrays of static shape (Warp's ``Tile[dtype, shape]``).

A tile belongs to one block of a tile kernel: all threads of the block see the same elements.
``dtype`` is a scalar, vector, matrix or struct type; ``shape`` is a tuple of static extents;
``storage`` (``"register"`` or ``"shared"``) is accepted for compatibility and has no effect in jwarp.
A tile of structs keeps its elements' scalar components (every field's, in storage order) along
one trailing axis of float64 data (:func:`struct_planes`), so tile operations that move elements
work on it unchanged.

Example:
    >>> from jwarp.lang import scalars
    >>> TileType(scalars.float32, (4, 8)).__name__
    'tile(float32, (4, 8))'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jwarp.lang import composites, scalars
from jwarp.lang.arrays import TupleType, dtype_leaf_shapes
from jwarp.lang.struct import StructType

STORAGE_KINDS = ("register", "shared")


@dataclass(frozen=True)
class TileType:
    dtype: Any
    shape: tuple[int, ...]
    storage: str = field(default="register", compare=False)

    _jwarp_tile_class = True  # wp.tile[float] annotations are tiles to wp.types.is_tile (as in Warp)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def scalar(self) -> Any:
        """The scalar type of the elements (of their components for vector/matrix dtypes; float64,
        the type holding them, for structs)."""
        if isinstance(self.dtype, StructType):
            return scalars.float64
        return self.dtype._wp_scalar_type_ if composites.is_composite(self.dtype) else self.dtype

    @property
    def dtype_shape(self) -> tuple[int, ...]:
        """Trailing axes of the element dtype in a tile's dense data (``()`` for scalars, one axis
        of scalar components for structs)."""
        if isinstance(self.dtype, StructType):
            return (len(struct_planes(self.dtype)),)
        return tuple(self.dtype._shape_) if composites.is_composite(self.dtype) else ()

    @property
    def __name__(self) -> str:
        dname = getattr(self.dtype, "__name__", repr(self.dtype))
        return f"tile({dname}, {self.shape})"


@dataclass(frozen=True)
class TileStackType(TupleType):
    """A block-shared stack (``wp.tile_stack(capacity=..., dtype=...)``): a value holding a tile of
    ``capacity`` elements and a one-element count tile (``types``), so it is carried and selected
    like any tuple of tiles.

    Example:
        >>> TileStackType.of(scalars.int32, 8).__name__
        'tile_stack(int32, 8)'
    """

    dtype: Any = None
    capacity: int = 0

    @staticmethod
    def of(dtype: Any, capacity: int) -> "TileStackType":
        return TileStackType((TileType(dtype, (capacity,)), TileType(scalars.int32, (1,))), dtype, capacity)

    @property
    def __name__(self) -> str:
        dname = getattr(self.dtype, "__name__", repr(self.dtype))
        return f"tile_stack({dname}, {self.capacity})"


def is_tile_type(t: Any) -> bool:
    return isinstance(t, TileType)


def is_tile_struct(t: Any) -> bool:
    """Whether ``t`` is a struct type (tiles hold structs; an array field travels as its
    descriptor record)."""
    return isinstance(t, StructType)


def struct_planes(t: StructType) -> list:
    """The scalar type of every scalar component of struct ``t``, in storage order (the order of
    its value's leaves).

    Example:
        >>> from jwarp.lang.struct import struct
        >>> @struct
        ... class P:
        ...     a: scalars.int32
        ...     b: composites.vec3
        >>> [s.__name__ for s in struct_planes(P)]
        ['int32', 'float32', 'float32', 'float32']
    """
    out = []
    for comp_shape, scalar in dtype_leaf_shapes(t):
        n = 1
        for d in comp_shape:
            n *= d
        out.extend([scalar] * n)
    return out


ACCUMULATED_SCALARS = (scalars.float16, scalars.float32, scalars.float64, scalars.int32, scalars.int64,
                       scalars.uint32, scalars.uint64)
"""Struct field scalar types that tile arithmetic, sums and atomic adds accumulate (those with an
atomic addition); the other fields (bool, narrow integers) are carried along unchanged."""


def is_tile_dtype(t: Any) -> bool:
    return scalars.is_scalar_type(t) or composites.is_composite(t) or is_tile_struct(t)


__all__ = ["ACCUMULATED_SCALARS", "TileType", "TileStackType", "is_tile_type", "is_tile_dtype", "is_tile_struct",
           "struct_planes", "STORAGE_KINDS"]
