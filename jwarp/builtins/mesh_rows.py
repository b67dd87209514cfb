"""The node table a mesh's BVH walks read: one 16-float row per in-order slot, faces included.

:func:`jwarp.builtins.bvh_trail.node_rows` lays a tree out for the stackless walk; for a mesh every
query kind reads the same leaf data (:func:`leaf_columns`): the face's three corners, then its
vertex angles (Warp's weights in ``mesh_query_point_sign_normal``), the first one -1 for a sliver
face (which closest-point and ray queries skip). Building that table costs a pass over every slot
(0.4-0.5 ms for the 12,200 faces of Warp's bunny), so a :class:`~jwarp.runtime.geometry.mesh.Mesh`
keeps one built from its current points and node boxes and binds it as the ``trail_rows`` table;
a launch whose points changed since (written in place without a refit, or traced) builds it in
the kernel from the live points instead (:func:`rows_of`), as before: the results are the same.

Example (inside a builtin):
    >>> rows = rows_of(view)  # (2^levels, 16) float32  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any, Callable


from jwarp.builtins import bvh_trail, inverse_trig
from jwarp.builtins import triangle_math as tm
from jwarp.builtins.bvh_walk import Tree, table
from jwarp.compiler.selects import clip, where

# the leaf data column holding the angle at the first corner, -1 for a sliver face
SLIVER_COLUMN = 9


def angle(x: tuple, y: tuple, acos: Callable[[Any], Any] = inverse_trig.acos) -> Any:
    """The angle between the 3-vectors ``x`` and ``y`` (tuples of lane arrays)."""
    return acos(clip(tm.dot(tm.normalize(x), tm.normalize(y)), -1.0, 1.0))


def vertex_angles(a: tuple, b: tuple, c: tuple) -> tuple:
    """A face's angles at ``a``, ``b``, ``c`` (Warp's vertex weights), in float32 vector code (XLA's
    ``acos`` took 0.4 ms for the 12,200 faces of Warp's bunny)."""
    e0, e1, e2 = tm.sub(b, a), tm.sub(c, a), tm.sub(c, b)
    neg = lambda x: tuple(-y for y in x)  # noqa: E731
    acos = inverse_trig.acos_within_ulp
    return angle(e0, e1, acos), angle(e2, neg(e0), acos), angle(neg(e1), neg(e2), acos)


def leaf_columns(a: tuple, b: tuple, c: tuple) -> list:
    """The 12 leaf data columns of the faces with corners ``a``, ``b``, ``c``: the 9 corner
    coordinates and the :func:`vertex_angles`, the first -1 for a sliver."""
    at_a, at_b, at_c = vertex_angles(a, b, c)
    return [*a, *b, *c, where(tm.is_sliver(a, b, c), -1.0, at_a), at_b, at_c]


def is_sliver(column: Any) -> Any:
    """Whether a row's :data:`SLIVER_COLUMN` marks a sliver face (vertex angles are never negative)."""
    return column < 0


def build(bounds: Any, links: Any, face_count: int, corners: Callable[[Any], tuple]) -> Any:
    """The node table of a mesh tree (node ``bounds`` and ``links`` in pre-order) whose faces have
    ``corners(faces)`` (three corners, each a tuple of x, y, z lane arrays)."""
    tree = Tree(bounds, links, int(links.shape[0]))
    return bvh_trail.node_rows(tree, face_count, lambda prim: leaf_columns(*corners(prim)))


def rows_of(view: Any) -> Any:
    """The node table of the mesh of ``view`` (a :class:`~jwarp.builtins.mesh_common.MeshView`): the
    mesh's own where it bound a current one, else built here from the live points."""
    if view.handle.fact("trail_rows"):
        return table(view.call, view.handle, "trail_rows")[0]
    return build(view.tree.bounds, view.tree.links, view.face_count, view.corners)


__all__ = ["SLIVER_COLUMN", "angle", "build", "is_sliver", "leaf_columns", "rows_of", "vertex_angles"]
