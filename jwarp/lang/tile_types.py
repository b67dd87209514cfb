"""The type of tile values: block-uniform arrays of static shape (Warp's ``Tile[dtype, shape]``).

A tile belongs to one block of a tile kernel: all threads of the block see the same elements.
``dtype`` is a scalar, vector or matrix type; ``shape`` is a tuple of static extents; ``storage``
(``"register"`` or ``"shared"``) is accepted for compatibility and has no effect in jwarp.

Example:
    >>> from jwarp.lang import scalars
    >>> TileType(scalars.float32, (4, 8)).__name__
    'tile(float32, (4, 8))'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jwarp.lang import composites, scalars
from jwarp.lang.arrays import TupleType

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
        """The scalar type of the elements (of their components for vector/matrix dtypes)."""
        return self.dtype._wp_scalar_type_ if composites.is_composite(self.dtype) else self.dtype

    @property
    def dtype_shape(self) -> tuple[int, ...]:
        """Trailing axes of the element dtype in a tile's dense data (``()`` for scalars)."""
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


def is_tile_dtype(t: Any) -> bool:
    return scalars.is_scalar_type(t) or composites.is_composite(t)


__all__ = ["TileType", "TileStackType", "is_tile_type", "is_tile_dtype", "STORAGE_KINDS"]
