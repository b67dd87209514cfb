"""``LaunchBounds``: the thread-grid description a recorded :class:`Launch` exposes as ``bounds``
(Warp's ``launch_bounds_t``).

``shape`` holds one extent per ``wp.tid()`` dimension of the kernel: a shorter launch is padded
with 1s, and launch dimensions past the kernel's tid rank fold into ``coord_mult`` (threads that
share one coordinate tuple). ``size`` is the total thread count.

Example:
    >>> from jwarp.runtime.launch_bounds import LaunchBounds
    >>> b = LaunchBounds.for_kernel((3, 4), kernel_dim=1)
    >>> tuple(b.shape), b.coord_mult, b.size
    ((3,), 4, 12)
"""

from __future__ import annotations


class LaunchBounds:
    """Extents of a launch as seen by ``wp.tid()``: ``shape``, ``size`` and ``coord_mult``."""

    __slots__ = ("shape", "size", "coord_mult", "dim")

    def __init__(self, shape: tuple[int, ...], coord_mult: int = 1, dim: tuple[int, ...] | None = None):
        self.shape: tuple[int, ...] = tuple(shape)
        self.coord_mult: int = coord_mult
        size = coord_mult
        for extent in self.shape:
            size *= extent
        self.size: int = size
        self.dim: tuple[int, ...] = self.shape if dim is None else tuple(dim)  # the launch's own dimensions

    @classmethod
    def for_kernel(cls, dim: tuple[int, ...], kernel_dim: int) -> "LaunchBounds":
        """The bounds of launching a kernel of tid rank ``kernel_dim`` over ``dim`` (normalized)."""
        padded = tuple(dim) + (1,) * max(0, kernel_dim - len(dim))
        coord_mult = 1
        for extent in padded[kernel_dim:]:
            coord_mult *= extent
        return cls(padded[:kernel_dim], coord_mult, dim)

    def __repr__(self) -> str:
        return f"LaunchBounds(shape={self.shape}, size={self.size}, coord_mult={self.coord_mult})"


__all__ = ["LaunchBounds"]
