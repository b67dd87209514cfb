"""Kernel builtins, one module per Warp documentation group. Importing this package
registers every builtin in :data:`jwarp.compiler.registry.BUILTINS`."""

from jwarp.builtins import atomics, construct, kernel_arrays, operators, scalar_math, utility  # noqa: F401
from jwarp.builtins import scalar_casts  # noqa: F401
from jwarp.builtins import tile_core, tile_linalg, tile_reduce, tile_scan_sort, tile_shape  # noqa: F401
from jwarp.builtins import tile_arange, tile_fft, tile_fused, tile_index, tile_random, tile_solvers  # noqa: F401
from jwarp.builtins import tile_stack  # noqa: F401
from jwarp.builtins import _optional  # noqa: F401  (groups added by later modules)
from jwarp.builtins import adjoints  # noqa: F401,E402  (Warp adjoint conventions; after every group)
