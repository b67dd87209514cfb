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

# Warp's public names in this module (each a stand-in unless defined above)
_WARP_NAMES = """
    AdaptiveNanogrid BasisSpace BoundarySides CellBasedGeometryPartition Cells Coords Coords_f64 D
    DiscreteField DofMapper Domain Element ElementBasis ElementIndex ElementKind
    ExplicitGeometryPartition ExplicitQuadrature Field FieldLike FrontierSides FunctionSpace Geometry
    GeometryDomain GeometryField GeometryPartition Grid2D Grid3D Hexmesh ImplicitField Integrand
    LinearGeometryPartition NULL_ELEMENT_INDEX NULL_NODE_INDEX NULL_QP_INDEX Nanogrid NodalQuadrature
    NodeIndex NonconformingField OUTSIDE Operator PicQuadrature PointBasisSpace Polynomial Quadmesh2D
    Quadmesh3D Quadrature QuadraturePointIndex RegularQuadrature Sample Sample_f64 ShapeBasisSpace
    ShapeFunction Sides SkewSymmetricTensorMapper SpacePartition SpaceRestriction SpaceTopology
    Subdomain SymmetricTensorMapper Temporary TemporaryStore Tetmesh Trimesh2D Trimesh3D UniformField
    adaptive_nanogrid_from_field adaptive_nanogrid_from_hierarchy at_node average borrow_temporary
    borrow_temporary_like cells curl deformation_gradient degree div div_outer element_closest_point
    element_coordinates element_index element_partition_index environment_index grad grad_average
    grad_jump grad_outer inner integrand integrate interpolate jump lookup
    make_collocated_function_space make_contravariant_function_space make_covariant_function_space
    make_discrete_field make_element_based_space_topology make_element_shape_function make_free_sample
    make_polynomial_basis_space make_polynomial_space make_restriction make_space_partition
    make_space_restriction make_test make_trial measure measure_ratio node_count node_index
    node_inner_weight node_inner_weight_gradient node_outer_weight node_outer_weight_gradient
    node_partition_index normal normalize_dirichlet_projector outer partition_lookup position
    project_linear_system project_system_matrix project_system_rhs scalar_type
    set_default_temporary_store to_cell_side to_inner_cell to_outer_cell
"""

__getattr__ = module_getattr("warp.fem", _WARP_NAMES, _HINT)
