"""Sparse marching cubes driven by an implicit function (``wp.geometry.sparse_marching_cubes``).

:func:`lipschitz_octree` finds the cells that may hold the ``threshold`` level set of a field with a
bounded Lipschitz constant: starting from one root cell, every level evaluates the field at the
cells' centres and keeps a cell when ``|f(centre) - threshold| <= lipschitz_bound * |diagonal| / 2``;
kept cells split into 8 children (child ``di + 2 dj + 4 dk``) until ``max_depth``.
:func:`sparse_marching_cubes_from_cells` runs marching cubes on an explicit cell list with values at
its corners (:mod:`jwarp.runtime.geometry.sparse_marching_cubes`), sharing vertices between
neighbouring cells. :func:`sparse_marching_cubes` combines them on the grid of
``IsoSurfaceMarchingCubes.extract`` (``nx, ny, nz`` nodes over ``[lower, upper]``): the octree's
root covers the next power-of-two cell count, cells past the requested grid are dropped, and the
field is evaluated once per distinct corner. Outputs are Warp's, vertex and triangle order included.

Inside a ``wp.Tape``, gradients flow from the output vertices to the corner values (the field's
output array, or ``corner_values``), as in Warp; cell selection is not differentiated.

Example:
    >>> import numpy as np, jwarp as wp
    >>> import jwarp.geometry
    >>> def sphere(points):
    ...     p = points.numpy()
    ...     return wp.array(np.linalg.norm(p, axis=1) - 0.5, dtype=wp.float32)
    >>> verts, indices = wp.geometry.sparse_marching_cubes(sphere, 17, 17, 17, lower=(-1, -1, -1), upper=(1, 1, 1))
    >>> verts.dtype is wp.vec3, indices.shape[0] % 3
    (True, 0)
"""

from __future__ import annotations

from typing import Any, Callable

import jax.numpy as jnp
import numpy as np

from jwarp.lang import composites, scalars
from jwarp.runtime import tape_state
from jwarp.runtime.array import array
from jwarp.runtime.device import get_device
from jwarp.runtime.functions import Function
from jwarp.runtime.geometry import sparse_marching_cubes as smc
from jwarp.runtime.geometry.iso_surface import resolve_domain_bounds

_BATCH_HINT = (
    "`field` must be a batched callable with signature evaluate(points: wp.array[wp.vec3]) -> "
    "wp.array[wp.float32], not a single-point @wp.func. Wrap it in a small kernel that evaluates it over the "
    "batch, e.g.:\n\n"
    "    @wp.kernel\n"
    "    def eval_kernel(points: wp.array[wp.vec3], values: wp.array[wp.float32]):\n"
    "        i = wp.tid()\n"
    "        values[i] = my_sdf(points[i])\n\n"
    "    def evaluate(points):\n"
    "        values = wp.empty(points.shape[0], dtype=wp.float32, device=points.device)\n"
    "        wp.launch(eval_kernel, dim=points.shape[0], inputs=[points], outputs=[values], device=points.device)\n"
    "        return values"
)


def _evaluator(field: Any) -> Callable[[array], array]:
    """``field`` checked as a batched implicit function (Warp's errors), with its results checked."""
    if isinstance(field, Function):
        raise TypeError(_BATCH_HINT)
    if not callable(field):
        raise TypeError("`field` must be a callable mapping a warp.array[wp.vec3] batch of query points to a "
                        f"warp.array[wp.float32] of distances, but got {type(field)}.")

    def evaluate(points: array) -> array:
        values = field(points)
        if not isinstance(values, array):
            raise TypeError("The implicit function callable must return a warp.array of float32 distance values, "
                            f"but returned {type(values)}.")
        if values.shape[0] != points.shape[0]:
            raise ValueError(
                f"The implicit function returned {values.shape[0]} values for {points.shape[0]} query points.")
        if values.device != points.device:
            raise ValueError(f"The implicit function returned values on device '{values.device}', but the query "
                             f"points are on device '{points.device}'. Evaluate the field on the device of the "
                             "points it is given.")
        if values.dtype != scalars.float32:
            raise TypeError(
                f"The implicit function must return a warp.array of float32 distance values, got {values.dtype}.")
        return values

    return evaluate


MIN_BATCH = 4096
"""Fewest points a padded field evaluation passes (see :func:`_padded`)."""


def _padded(evaluate: Callable[[array], array]) -> Callable[[array], array]:
    """``evaluate`` called on batches padded to a power of two (at least :data:`MIN_BATCH` points,
    copies of the first) and its values cut back to the points given (a view, so gradients reach
    the padded batch). Octree levels and frames give the field a new batch size at every call, and
    each new size of a kernel launch compiles anew (6 s for the mesh-SDF field of Warp's
    ``example_sparse_marching_cubes``); padded, the sizes are a handful of powers of two."""

    def evaluate_padded(points: array) -> array:
        n = points.shape[0]
        size = max(MIN_BATCH, 1 << max(0, n - 1).bit_length())
        if n == 0 or size == n:
            return evaluate(points)
        xyz = points.numpy()
        batch = np.concatenate([xyz, np.broadcast_to(xyz[:1], (size - n, 3))])
        return evaluate(array(batch, dtype=composites.vec3, device=points.device))[:n]

    return evaluate_padded


def _points(xyz: np.ndarray, device: Any) -> array:
    if xyz.shape[0] == 0:
        return array(shape=(0,), dtype=composites.vec3, device=device)
    return array(xyz.astype(np.float32), dtype=composites.vec3, device=device)


def _octree(evaluate: Callable, origin: np.ndarray, root_width: np.ndarray, max_depth: int, threshold: float,
            lipschitz_bound: float, device: Any) -> np.ndarray:
    """Leaf cells ``(n, 3)`` int32 at depth ``max_depth`` that may hold the level set (in the order
    of their parents, children ``di + 2 dj + 4 dk``)."""
    cells = np.zeros((1, 3), np.int32)
    children = np.array([[c & 1, (c >> 1) & 1, (c >> 2) & 1] for c in range(8)], np.int32)
    iso = np.float32(threshold)
    for depth in range(max_depth + 1):
        width = (root_width * np.float32(1.0 / float(1 << depth))).astype(np.float32)
        diagonal = float(np.sqrt(np.float32(width[0] * width[0] + width[1] * width[1]) + width[2] * width[2]))
        band = np.float32(lipschitz_bound * 0.5 * diagonal)
        centers = origin + width * (cells.astype(np.float32) + np.float32(0.5))
        values = evaluate(_points(centers, device)).numpy().reshape(-1)
        cells = cells[np.abs(values - iso) <= band]
        if cells.shape[0] == 0 or depth == max_depth:
            return cells
        cells = (2 * cells[:, None, :] + children[None, :, :]).reshape(-1, 3)
    raise AssertionError("unreachable: the loop returns at max_depth")


def _empty_mesh(device: Any, requires_grad: bool = False) -> tuple[array, array]:
    return (array(shape=(0,), dtype=composites.vec3, device=device, requires_grad=requires_grad),
            array(shape=(0,), dtype=scalars.int32, device=device))


def _mesh(corners: smc.Corners, values: array, source: Any, threshold: float, device: Any) -> tuple[array, array]:
    """Extract the surface; ``values[source]`` are the unique corners' values (``source=None``: the
    values are the corners'). Records the backward function on an active tape when ``values``
    requires gradients."""
    flat = values.numpy().reshape(-1)
    surface = smc.extract(corners, flat if source is None else flat[source], threshold)
    requires_grad = values.requires_grad
    if surface.verts.shape[0] == 0:
        return _empty_mesh(device, requires_grad)
    verts = array(surface.verts, dtype=composites.vec3, device=device, requires_grad=requires_grad)
    if surface.tris.shape[0] == 0:
        indices = array(shape=(0,), dtype=scalars.int32, device=device)
    else:
        indices = array(surface.tris, dtype=scalars.int32, device=device)
    tape = tape_state.active_tape()
    if tape is not None and requires_grad and values.grad is not None and verts.grad is not None:

        def backward() -> None:
            n = corners.positions.shape[0]
            grad = smc.values_gradient(surface, corners.positions, n, verts.grad.numpy())
            if source is not None:
                grad = np.bincount(source, weights=grad, minlength=flat.shape[0]).astype(np.float32)
            target = values.grad
            target._set_buffer(target.buffer + jnp.asarray(grad).reshape(target.buffer.shape))
            verts.grad.zero_()  # consumed, as the adjoint of Warp's array store leaves it

        tape.record_func(backward, [values, verts])
    return verts, indices


def lipschitz_octree(field: Callable[[array], array], origin: Any, root_width: float, max_depth: int,
                     threshold: float = 0.0, lipschitz_bound: float = 1.0, device: Any = None) -> tuple[array, float]:
    """Leaf cells of an octree over the cube ``[origin, origin + root_width]`` that may intersect the
    ``threshold`` level set of ``field`` (a batched implicit function, as :func:`sparse_marching_cubes`).

    Returns:
        ``(cells, cell_width)``: a ``wp.vec3i`` array of the leaves' minimum-corner subscripts (cell
        ``(i, j, k)`` spans ``origin + cell_width * [(i, j, k), (i + 1, j + 1, k + 1)]``; empty when
        the level set is not bracketed) and ``root_width / 2**max_depth``.

    Raises:
        ValueError: ``max_depth`` or ``lipschitz_bound`` is negative, or ``root_width`` not positive.
        TypeError: ``field`` is not a batched callable.

    Example:
        >>> import numpy as np, jwarp as wp
        >>> import jwarp.geometry
        >>> f = lambda p: wp.array(np.linalg.norm(p.numpy(), axis=1) - 0.5, dtype=wp.float32)
        >>> cells, width = wp.geometry.lipschitz_octree(f, (-1.0, -1.0, -1.0), 2.0, 3)
        >>> cells.dtype is wp.vec3i, width
        (True, 0.25)
    """
    if max_depth < 0:
        raise ValueError(f"max_depth must be non-negative, got {max_depth}.")
    if root_width <= 0.0:
        raise ValueError(f"root_width must be positive, got {root_width}.")
    if lipschitz_bound < 0.0:
        raise ValueError(f"lipschitz_bound must be non-negative, got {lipschitz_bound}.")
    device = get_device(device)
    root_width = float(root_width)
    cell_width = root_width / float(1 << max_depth)
    origin = np.asarray(tuple(origin), np.float32).reshape(3)
    cells = _octree(_padded(_evaluator(field)), origin, np.full(3, root_width, np.float32), max_depth, threshold,
                    lipschitz_bound, device)
    if cells.shape[0] == 0:
        return array(shape=(0,), dtype=composites.vec3i, device=device), cell_width
    return array(cells, dtype=composites.vec3i, device=device), cell_width


def _cell_subscripts(cells: Any) -> np.ndarray:
    if isinstance(cells, array):
        cells = cells.numpy()
    return np.ascontiguousarray(cells, dtype=np.int32).reshape(-1, 3)


def sparse_marching_cubes_from_cells(cells: Any, corner_values: Any, origin: Any = (0.0, 0.0, 0.0),
                                     cell_width: float = 1.0, threshold: float = 0.0,
                                     device: Any = None) -> tuple[array, array]:
    """Marching cubes on an explicit list of cells with the field's values at their corners.

    Args:
        cells: ``(N, 3)`` integer minimum-corner subscripts (``wp.vec3i``, ``(N, 3)`` ``wp.int32`` or
            array-like); may be negative and need not be contiguous. Cells should be distinct.
        corner_values: ``N * 8`` float32 values, ``(N, 8)`` in ``CUBE_CORNER_OFFSETS`` order. A
            corner shared by several cells takes its value (and gradient) from its first cell.
        origin: world position of subscript ``(0, 0, 0)``.
        cell_width: side length of a cell.
        threshold: the isovalue.
        device: where the outputs live.

    Returns:
        ``(vertices, indices)``: ``wp.vec3`` vertices and flat ``wp.int32`` triangle corners.

    Raises:
        ValueError: ``cell_width`` not positive, ``corner_values`` not float32 or not ``8 * N``
            values, or subscripts spanning too far to pack into 64-bit codes.

    Example:
        >>> import numpy as np, jwarp as wp
        >>> import jwarp.geometry
        >>> values = np.array([[-1, 1, 1, 1, 1, 1, 1, 1]], np.float32)
        >>> verts, indices = wp.geometry.sparse_marching_cubes_from_cells([[0, 0, 0]], values)
        >>> verts.shape, indices.numpy().tolist()
        ((3,), [0, 1, 2])
    """
    device = get_device(device)
    if cell_width <= 0.0:
        raise ValueError(f"cell_width must be positive, got {cell_width}.")
    cells_np = _cell_subscripts(cells)
    n_cells = cells_np.shape[0]
    values = corner_values if isinstance(corner_values, array) else array(
        np.ascontiguousarray(corner_values, dtype=np.float32), dtype=scalars.float32, device=device)
    if values.dtype != scalars.float32:
        raise ValueError(f"corner_values must be float32, got {values.dtype}.")
    if values.size != 8 * n_cells:
        raise ValueError(f"corner_values must have {8 * n_cells} entries for {n_cells} cells, got {values.size}.")
    if n_cells == 0:
        return _empty_mesh(device)
    width = np.full(3, np.float32(cell_width), np.float32)
    corners = smc.dedupe_corners(cells_np, origin, width)
    return _mesh(corners, values, corners.source, float(threshold), device)


def sparse_marching_cubes(field: Callable[[array], array], nx: int, ny: int, nz: int, *, lower: Any = None,
                          upper: Any = None, threshold: float = 0.0, lipschitz_bound: float = 1.0, device: Any = None,
                          return_stats: bool = False) -> tuple:
    """The ``threshold`` isosurface of an implicit function on the grid of ``nx, ny, nz`` nodes over
    ``[lower, upper]`` (as ``IsoSurfaceMarchingCubes.extract``), evaluating it only near the surface.

    Args:
        field: ``evaluate(points: wp.array[wp.vec3]) -> wp.array[wp.float32]`` (a batched callable;
            a bare ``@wp.func`` is rejected). Its values must change by at most ``lipschitz_bound``
            per unit distance.
        nx, ny, nz: node counts (at least 2).
        lower, upper: positions of nodes ``(0, 0, 0)`` and ``(nx-1, ny-1, nz-1)`` (default: integer
            coordinates).
        threshold: the isovalue.
        lipschitz_bound: bound on the field's Lipschitz constant (1 for a signed distance).
        device: where the work runs.
        return_stats: also return a dict with ``leaf_cells``, ``unique_corners``,
            ``field_evaluations``, ``resolution``, ``requested_ncells`` and ``culled_cells``.

    Returns:
        ``(vertices, indices)`` or ``(vertices, indices, stats)``.

    Raises:
        ValueError: a node count below 2 or a negative ``lipschitz_bound``.
        TypeError: ``field`` is not a batched callable.

    Example:
        >>> import numpy as np, jwarp as wp
        >>> import jwarp.geometry
        >>> f = lambda p: wp.array(np.linalg.norm(p.numpy(), axis=1) - 3.0, dtype=wp.float32)
        >>> _, _, stats = wp.geometry.sparse_marching_cubes(f, 9, 9, 9, lower=(-4, -4, -4), upper=(4, 4, 4),
        ...                                                 return_stats=True)
        >>> stats["resolution"], stats["culled_cells"]
        (8, 0)
    """
    if nx < 2 or ny < 2 or nz < 2:
        raise ValueError(f"nx, ny, nz must each be at least 2, got ({nx}, {ny}, {nz}).")
    if lipschitz_bound < 0.0:
        raise ValueError(f"lipschitz_bound must be non-negative, got {lipschitz_bound}.")
    device = get_device(device)
    lo, delta = resolve_domain_bounds((nx, ny, nz), lower, upper)
    ncells = (nx - 1, ny - 1, nz - 1)
    max_depth = (max(ncells) - 1).bit_length()
    resolution = 1 << max_depth
    root_width = (delta * np.float32(resolution)).astype(np.float32)
    evaluate = _padded(_evaluator(field))
    stats = {"leaf_cells": 0, "unique_corners": 0, "field_evaluations": 0, "resolution": resolution,
             "requested_ncells": ncells, "culled_cells": 0}
    count = [0]

    def counted(points: array) -> array:
        count[0] += points.shape[0]
        return evaluate(points)

    def finish(verts: array, indices: array) -> tuple:
        stats["field_evaluations"] = count[0]
        return (verts, indices, stats) if return_stats else (verts, indices)

    cells = _octree(counted, lo, root_width, max_depth, threshold, lipschitz_bound, device)
    inside = np.all(cells < np.asarray(ncells, np.int32), axis=1)
    stats["culled_cells"] = int(cells.shape[0] - inside.sum())
    cells = cells[inside]
    if cells.shape[0] == 0:
        return finish(*_empty_mesh(device))
    stats["leaf_cells"] = int(cells.shape[0])
    width = (root_width * np.float32(1.0 / float(resolution))).astype(np.float32)
    corners = smc.dedupe_corners(cells, lo, width, offset=(0, 0, 0), stride=resolution + 1)
    stats["unique_corners"] = int(corners.positions.shape[0])
    values = counted(_points(corners.positions, device))
    return finish(*_mesh(corners, values, None, float(threshold), device))


__all__ = ["lipschitz_octree", "sparse_marching_cubes", "sparse_marching_cubes_from_cells"]
