"""``warp.fem`` stand-in: Warp's finite-element toolkit is not implemented in jwarp.

Importing the module works, and so do the pieces a program may touch without running FEM
code: the sample/coordinate types (``Sample``, ``Coords``, index types and the ``NULL_*``
constants), which are plain structs and scalars, and the ``@integrand`` decorator (the
decorated function raises when used). Every other name is a stand-in that raises
:class:`NotImplementedError` naming it when called or instantiated.

Example:
    >>> import jwarp.fem as fem
    >>> fem.Sample().qp_index
    0
    >>> fem.Grid2D(res=(2, 2))
    Traceback (most recent call last):
    ...
    NotImplementedError: warp.fem.Grid2D is not implemented in jwarp (warp.fem is not available)
"""

from __future__ import annotations

import jwarp as _wp
from jwarp.unavailable import missing_decorator, module_getattr

_HINT = "warp.fem is not available"

Coords = _wp.vec3f
Coords_f64 = _wp.vec3d
ElementIndex = int
QuadraturePointIndex = int
NodeIndex = int

NULL_ELEMENT_INDEX = -1
NULL_QP_INDEX = -1
NULL_NODE_INDEX = (1 << 31) - 1
OUTSIDE = -1.0e8


@_wp.struct
class Sample:
    """A quadrature point of an element: indices, local coordinates and weight, dof pair."""

    element_index: _wp.int32
    element_coords: _wp.vec3f
    qp_index: _wp.int32
    qp_weight: _wp.float32
    test_dof: _wp.vec2i
    trial_dof: _wp.vec2i


@_wp.struct
class Sample_f64:
    """:class:`Sample` in double precision."""

    element_index: _wp.int32
    element_coords: _wp.vec3d
    qp_index: _wp.int32
    qp_weight: _wp.float64
    test_dof: _wp.vec2i
    trial_dof: _wp.vec2i


integrand = missing_decorator("warp.fem.integrand", _HINT)

__getattr__ = module_getattr("warp.fem", _HINT)
