"""``warp.sparse``: block sparse row (BSR) matrices.

:class:`BsrMatrix` with Warp's construction, arithmetic and products (``bsr_zeros``,
``bsr_from_triplets``/``bsr_set_from_triplets``, ``bsr_mv``, ``bsr_mm``, ``bsr_transposed``,
``bsr_copy``, ``bsr_assign``, ``bsr_diag``, ``bsr_identity``, ``bsr_get_diag``, ``bsr_axpy``,
``bsr_scale``, ``bsr_set_zero``; compact topology), and the kernel-side helpers
(``bsr_row_index``, ``bsr_block_index``). The other names of Warp's sparse API (work arrays,
triplet maps, padded/masked topologies) are stand-ins that raise :class:`NotImplementedError`.

Example:
    >>> import inspect
    >>> from jwarp.sparse import bsr_row_index
    >>> list(inspect.signature(bsr_row_index.func).parameters)
    ['offsets', 'row_count', 'block_index']
"""

from __future__ import annotations

from jwarp.sparse.bsr import (  # noqa: F401
    BsrMatrix,
    bsr_assign,
    bsr_axpy,
    bsr_copy,
    bsr_diag,
    bsr_from_triplets,
    bsr_get_diag,
    bsr_identity,
    bsr_mm,
    bsr_mv,
    bsr_scale,
    bsr_set_from_triplets,
    bsr_set_zero,
    bsr_transposed,
    bsr_zeros,
)
from jwarp.sparse.kernel_funcs import bsr_block_index as bsr_block_index
from jwarp.sparse.kernel_funcs import bsr_row_index as bsr_row_index
from jwarp.unavailable import module_getattr

# Warp's public names in this module (each a stand-in unless defined above)
_WARP_NAMES = """
    BSR_STATUS_ROW_CAPACITY_EXCEEDED BSR_STATUS_SUCCESS BsrMatrix BsrTripletMap bsr_assign bsr_axpy
    bsr_axpy_work_arrays bsr_block_index bsr_compress bsr_copy bsr_diag bsr_from_triplets bsr_get_diag
    bsr_identity bsr_matrix_t bsr_mm bsr_mm_work_arrays bsr_mv bsr_row_index bsr_scale bsr_set_diag
    bsr_set_from_mapped_values bsr_set_from_triplets bsr_set_identity bsr_set_transpose bsr_set_zero
    bsr_transposed bsr_zeros
"""

__getattr__ = module_getattr("warp.sparse", _WARP_NAMES, "this part of warp.sparse is not available")
