"""``warp.sparse``: block sparse row (BSR) matrices.

The kernel-side helpers (``bsr_row_index``, ``bsr_block_index``) are provided; the names
of Warp's sparse API that jwarp does not implement yet are stand-ins that raise
:class:`NotImplementedError` naming them when used.

Example:
    >>> import inspect
    >>> from jwarp.sparse import bsr_row_index
    >>> list(inspect.signature(bsr_row_index.func).parameters)
    ['offsets', 'row_count', 'block_index']
"""

from __future__ import annotations

from jwarp.sparse.kernel_funcs import bsr_block_index as bsr_block_index
from jwarp.sparse.kernel_funcs import bsr_row_index as bsr_row_index
from jwarp.unavailable import module_getattr

__getattr__ = module_getattr("warp.sparse", "this part of warp.sparse is not available")
