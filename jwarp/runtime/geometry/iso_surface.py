"""Isosurface extraction from dense fields: ``wp.geometry.IsoSurfaceBase`` and
``wp.geometry.IsoSurfaceMarchingCubes`` (also ``wp.MarchingCubes``, Warp's deprecated alias).

The extraction itself is :mod:`jwarp.runtime.geometry.marching_cubes` (two jitted passes, Warp's
vertex and triangle order). Inside a ``wp.Tape``, a field with ``requires_grad`` gets a recorded
backward function: the output vertices' gradients flow to the field through the edge
interpolation, as in Warp; triangles carry none.

Example:
    >>> import numpy as np, jwarp as wp
    >>> import jwarp.geometry
    >>> f = np.linalg.norm(np.indices((8, 8, 8)).T - 3.5, axis=-1).astype(np.float32) - 2.0
    >>> verts, faces = wp.geometry.IsoSurfaceMarchingCubes.extract(wp.array(f, dtype=float), 0.0)
    >>> faces.dtype is wp.int32, faces.shape[0] % 3
    (True, 0)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Final

import jax.numpy as jnp
import numpy as np

from jwarp.lang import composites, scalars
from jwarp.logger import log_warning
from jwarp.runtime import tape_state
from jwarp.runtime.array import array
from jwarp.runtime.geometry import marching_cubes as mc
from jwarp.runtime.geometry import marching_cubes_tables as tables
from jwarp.runtime.geometry import surface_nets as sn


def validate_field(field: array) -> None:
    """Raise Warp's errors for a field that is not a 3D float32 array spanning a cell."""
    if len(field.shape) != 3:
        raise ValueError(f"Expected a 3D array for 'field', but got an array with shape {field.shape}.")
    if any(n < 2 for n in field.shape):
        raise ValueError(
            f"Expected 'field' to have at least 2 nodes on each axis, but got an array with shape {field.shape}.")
    if field.dtype != scalars.float32:
        raise TypeError(f"Expected a dtype of wp.float32 for 'field', but got {field.dtype}.")


def resolve_domain_bounds(shape: tuple, lower: Any, upper: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(lower, cell size)`` as float32 triples: ``lower`` defaults to the origin, ``upper`` to the
    last node's integer coordinates."""
    cells = np.array([n - 1 for n in shape[:3]], np.float32)
    lo = np.zeros(3, np.float32) if lower is None else np.asarray(tuple(lower), np.float32).reshape(3)
    hi = cells.copy() if upper is None else np.asarray(tuple(upper), np.float32).reshape(3)
    return lo, ((hi - lo) / cells).astype(np.float32)


class IsoSurfaceBase(ABC):
    """The interface of Warp's dense-field isosurface extractors.

    Construct with the grid's node counts, call :meth:`surface` to fill :attr:`verts` (``wp.vec3``)
    and :attr:`indices` (flat ``wp.int32``, three per triangle), or use :meth:`extract` for one call.

    Args:
        nx, ny, nz: numbers of grid nodes along each axis.
        lower, upper: coordinates of the nodes ``(0, 0, 0)`` and ``(nx-1, ny-1, nz-1)``; by
            default the nodes sit at integer coordinates.
    """

    def __init__(self, nx: int, ny: int, nz: int, *, lower: Any = None, upper: Any = None):
        self.nx, self.ny, self.nz = nx, ny, nz
        self.lower = lower
        self.upper = upper
        self.verts: array | None = None
        self.indices: array | None = None

    def resize(self, nx: int, ny: int, nz: int) -> None:
        """Use another grid size from the next :meth:`surface` call on."""
        self.nx, self.ny, self.nz = nx, ny, nz

    def _check_field_shape(self, field: array) -> None:
        if tuple(field.shape) != (self.nx, self.ny, self.nz):
            raise ValueError(
                f"Field shape {field.shape} does not match context grid dimensions {(self.nx, self.ny, self.nz)}.")

    @abstractmethod
    def surface(self, field: array, threshold: float) -> None:
        """Extract the ``threshold`` isosurface of ``field`` into :attr:`verts` / :attr:`indices`."""

    @classmethod
    @abstractmethod
    def extract(cls, field: array, threshold: float = 0.0, *, lower: Any = None, upper: Any = None) -> tuple:
        """Extract the ``threshold`` isosurface of ``field``: ``(vertices, indices)``."""


_UNSET = object()


def _deprecated_attribute(name: str, replacement: str) -> None:
    log_warning(f"IsoSurfaceMarchingCubes.{name} is deprecated and will be removed in a future version of Warp. "
                f"Use `{replacement}` instead.", category=DeprecationWarning, stacklevel=3)


def _legacy_bound(value: Any, legacy: Any, name: str, legacy_name: str) -> Any:
    if legacy is _UNSET:
        return value
    if value is not None and legacy is not None:
        raise TypeError(f"Cannot specify both `{name}` and `{legacy_name}`.")
    log_warning(f"IsoSurfaceMarchingCubes() argument `{legacy_name}` is deprecated and will be removed in a future "
                f"version of Warp. Use `{name}` instead.", category=DeprecationWarning, stacklevel=3)
    return value if legacy is None else legacy


def _record_backward(field: array, verts: array, where: Any, threshold: Any, lower: Any, delta: Any,
                     vjp: Any = mc.positions_vjp) -> None:
    """Record ``verts.grad -> field.grad`` on the active tape (``where``: the vertices' edges or cells)."""
    tape = tape_state.active_tape()
    if tape is None or not field.requires_grad or verts.grad is None or field.grad is None:
        return
    values = field.buffer.reshape(field.shape)

    def backward() -> None:
        grad = verts.grad.buffer.reshape(-1, 3)
        g = vjp(values, where, threshold, lower, delta, grad)
        field.grad._set_buffer((field.grad.buffer.reshape(field.shape) + g).reshape(field.grad.buffer.shape))
        verts.grad.zero_()  # consumed, as the adjoint of Warp's array store leaves it

    tape.record_func(backward, [field, verts])


class IsoSurfaceMarchingCubes(IsoSurfaceBase):
    """Marching cubes over a dense ``wp.float32`` field (Warp's vertex and triangle order).

    A vertex is made on every grid edge whose end values straddle the threshold (one end
    ``>= threshold``), numbered in (i, j, k, axis) order; triangles follow the cells in row-major
    order with the classic case table (:attr:`CASE_TO_TRI_RANGE`, :attr:`TRI_LOCAL_INDICES`).
    Differentiable from ``field`` to ``verts`` inside a ``wp.Tape``.

    Args:
        nx, ny, nz, lower, upper: see :class:`IsoSurfaceBase`.
        domain_bounds_lower_corner, domain_bounds_upper_corner: deprecated names of ``lower`` / ``upper``.
    """

    CUBE_CORNER_OFFSETS: Final = tables.CUBE_CORNER_OFFSETS
    EDGE_TO_CORNERS: Final = tables.EDGE_TO_CORNERS
    CASE_TO_TRI_RANGE: Final = tables.CASE_TO_TRI_RANGE
    TRI_LOCAL_INDICES: Final = tables.TRI_LOCAL_INDICES

    def __init__(self, nx: int, ny: int, nz: int, lower: Any = None, upper: Any = None, *,
                 domain_bounds_lower_corner: Any = _UNSET, domain_bounds_upper_corner: Any = _UNSET):
        lower = _legacy_bound(lower, domain_bounds_lower_corner, "lower", "domain_bounds_lower_corner")
        upper = _legacy_bound(upper, domain_bounds_upper_corner, "upper", "domain_bounds_upper_corner")
        super().__init__(nx, ny, nz, lower=lower, upper=upper)

    @property
    def domain_bounds_lower_corner(self) -> Any:
        """Deprecated name of :attr:`lower`."""
        _deprecated_attribute("domain_bounds_lower_corner", "lower")
        return self.lower

    @domain_bounds_lower_corner.setter
    def domain_bounds_lower_corner(self, value: Any) -> None:
        _deprecated_attribute("domain_bounds_lower_corner", "lower")
        self.lower = value

    @property
    def domain_bounds_upper_corner(self) -> Any:
        """Deprecated name of :attr:`upper`."""
        _deprecated_attribute("domain_bounds_upper_corner", "upper")
        return self.upper

    @domain_bounds_upper_corner.setter
    def domain_bounds_upper_corner(self, value: Any) -> None:
        _deprecated_attribute("domain_bounds_upper_corner", "upper")
        self.upper = value

    def surface(self, field: array, threshold: float) -> None:
        """Extract the ``threshold`` isosurface of ``field`` (shape ``(nx, ny, nz)``) into
        :attr:`verts` and :attr:`indices`."""
        self._check_field_shape(field)
        self.verts, self.indices = self.extract(field, float(np.float32(threshold)), lower=self.lower,
                                                upper=self.upper)

    @classmethod
    def extract(cls, field: array, threshold: float = 0.0, *, lower: Any = None, upper: Any = None) -> tuple:
        """Extract the ``threshold`` isosurface of ``field``.

        Returns:
            ``(vertices, indices)``: a ``wp.vec3`` array and a flat ``wp.int32`` array, three
            vertex numbers per triangle.

        Raises:
            ValueError: ``field`` is not 3D or has fewer than 2 nodes on an axis.
            TypeError: ``field`` is not ``wp.float32``.
        """
        validate_field(field)
        lo, delta = resolve_domain_bounds(field.shape, lower, upper)
        values = field.buffer.reshape(field.shape)
        thr = jnp.float32(threshold)
        verts_data, edges, tris = mc.extract_buffers(values, thr, lo, delta)
        verts = array(verts_data, dtype=composites.vec3, device=field.device, requires_grad=field.requires_grad)
        indices = array(tris, dtype=scalars.int32, device=field.device)
        _record_backward(field, verts, edges, thr, jnp.asarray(lo), jnp.asarray(delta))
        return verts, indices

    @staticmethod
    def extract_surface_marching_cubes(field: array, threshold: float = 0.0, domain_bounds_lower_corner: Any = None,
                                       domain_bounds_upper_corner: Any = None) -> tuple:
        """Deprecated name of :meth:`extract`."""
        log_warning("IsoSurfaceMarchingCubes.extract_surface_marching_cubes() is deprecated and will be removed in "
                    "a future version of Warp. Use IsoSurfaceMarchingCubes.extract() instead.",
                    category=DeprecationWarning, stacklevel=2)
        return IsoSurfaceMarchingCubes.extract(field, threshold, lower=domain_bounds_lower_corner,
                                               upper=domain_bounds_upper_corner)


_TOPOLOGIES = ("triangle", "quad")


def _check_topology(topology: str) -> str:
    if topology not in _TOPOLOGIES:
        raise ValueError(f"topology must be 'triangle' or 'quad', got {topology!r}")
    return topology


class IsoSurfaceNets(IsoSurfaceBase):
    """Surface nets over a dense ``wp.float32`` field (:mod:`jwarp.runtime.geometry.surface_nets`).

    One vertex per cell the surface passes through, at the mean of the crossing points on the
    cell's edges; one quad per interior crossing edge, wound counter-clockwise seen from outside
    (negative inside), split into triangles ``(0, 1, 2), (0, 2, 3)`` unless ``topology="quad"``.
    Differentiable from ``field`` to ``verts`` inside a ``wp.Tape``. Unlike Warp, a cell crossed by
    two sheets of the surface gets one vertex, not two.

    Args:
        nx, ny, nz, lower, upper: see :class:`IsoSurfaceBase`.
        topology: ``"triangle"`` (default) or ``"quad"``.
    """

    def __init__(self, nx: int, ny: int, nz: int, *, lower: Any = None, upper: Any = None,
                 topology: str = "triangle"):
        self.topology = _check_topology(topology)
        super().__init__(nx, ny, nz, lower=lower, upper=upper)

    def surface(self, field: array, threshold: float) -> None:
        """Extract the ``threshold`` isosurface of ``field`` into :attr:`verts` and :attr:`indices`."""
        self._check_field_shape(field)
        self.verts, self.indices = self.extract(field, float(np.float32(threshold)), lower=self.lower,
                                                upper=self.upper, topology=self.topology)

    @classmethod
    def extract(cls, field: array, threshold: float = 0.0, *, lower: Any = None, upper: Any = None,
                topology: str = "triangle") -> tuple:
        """Extract the ``threshold`` isosurface of ``field``: ``(vertices, indices)`` with three
        indices per triangle, or four per quad with ``topology="quad"``."""
        _check_topology(topology)
        validate_field(field)
        lo, delta = resolve_domain_bounds(field.shape, lower, upper)
        thr = jnp.float32(threshold)
        verts_data, cells, quads = sn.extract_buffers(field.buffer.reshape(field.shape), thr, lo, delta)
        faces = quads if topology == "quad" else quads[:, jnp.array([0, 1, 2, 0, 2, 3])]
        if verts_data.shape[0] == 0:
            verts = array(shape=(0,), dtype=composites.vec3, device=field.device, requires_grad=field.requires_grad)
        else:
            verts = array(verts_data, dtype=composites.vec3, device=field.device, requires_grad=field.requires_grad)
        indices = array(faces.reshape(-1).astype(jnp.int32), dtype=scalars.int32, device=field.device)
        _record_backward(field, verts, cells, thr, jnp.asarray(lo), jnp.asarray(delta), sn.positions_vjp)
        return verts, indices


__all__ = ["IsoSurfaceBase", "IsoSurfaceMarchingCubes", "IsoSurfaceNets", "resolve_domain_bounds", "validate_field"]
