"""Warp's type factories as ``wp.types`` exposes them: ``vector``, ``matrix``, ``quaternion`` and
``transformation`` return, as Warp's, a class distinct from the named alias of the same type (``wp.vec3f``
subclasses ``wp.types.vector(length=3, dtype=wp.float32)``) but equal to it (``types_equal``). Kernels,
arrays and Python-scope arithmetic use the canonical (named) class, ``composites.canonical``.

Example:
    >>> import jwarp as wp
    >>> V = wp.types.vector(length=3, dtype=wp.float64)
    >>> V is wp.vec3d, issubclass(wp.vec3d, V), wp.types.types_equal(V, wp.vec3d)
    (False, True, True)
"""

from __future__ import annotations

from typing import Any

from jwarp.lang import composites


def _factory_type(t: type) -> type:
    """What Warp's type factories return for canonical type ``t``: the class the named type subclasses
    (generic and empty types are their own)."""
    return t.__dict__.get("_wp_factory_", t)


def public_vector(length: Any, dtype: Any = float) -> type:
    """``wp.types.vector``: as Warp's, a class distinct from the named alias (``wp.vec3f`` subclasses
    ``wp.types.vector(length=3, dtype=wp.float32)``) but equal to it (``types_equal``); kernels and
    arrays treat both alike. Generic arguments give the generic annotation type (see :func:`composites.vector`).

        >>> import jwarp as wp
        >>> V = wp.types.vector(length=3, dtype=wp.float64)
        >>> V is wp.vec3d, issubclass(wp.vec3d, V), wp.types.types_equal(V, wp.vec3d)
        (False, True, True)
    """
    return _factory_type(composites.vector(length, dtype))


def public_matrix(shape: tuple[Any, Any], dtype: Any = float) -> type:
    """``wp.types.matrix``: the factory class of :func:`matrix`'s type (see :func:`public_vector`)."""
    return _factory_type(composites.matrix(shape, dtype))


def public_quaternion(dtype: Any = Any) -> type:
    """``wp.types.quaternion``: the factory class of :func:`quaternion`'s type."""
    return _factory_type(composites.quaternion(dtype))


def public_transformation(dtype: Any = Any) -> type:
    """``wp.types.transformation``: the factory class of :func:`transformation`'s type."""
    return _factory_type(composites.transformation(dtype))


PUBLIC_FACTORIES = {public_vector: "vector", public_matrix: "matrix", public_quaternion: "quaternion",
                    public_transformation: "transformation"}
