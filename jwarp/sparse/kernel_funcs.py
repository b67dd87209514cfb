"""Kernel-side helpers of ``warp.sparse``: locate blocks of a BSR matrix from kernel code.

A BSR matrix stores, for ``row_count`` block rows, the ``offsets`` (``row_count + 1`` entries:
row ``r`` owns blocks ``offsets[r]:offsets[r+1]``) and the block ``columns``.

Example:
    >>> import jwarp as wp
    >>> from jwarp.sparse import bsr_row_index
    >>> @wp.kernel
    ... def rows(offsets: wp.array(dtype=int), out: wp.array(dtype=int)):
    ...     i = wp.tid()
    ...     out[i] = bsr_row_index(offsets, 2, i)
    >>> out = wp.zeros(4, dtype=int)
    >>> wp.launch(rows, dim=4, inputs=[wp.array([0, 1, 3], dtype=int), out])
    >>> out.numpy().tolist()
    [0, 1, 1, -1]
"""

from __future__ import annotations

import jwarp as wp


@wp.func
def bsr_row_index(offsets: wp.array(dtype=int), row_count: int, block_index: int) -> int:
    """The row that holds block ``block_index`` (binary search of ``offsets``), or -1 if none does."""
    if block_index < 0 or block_index >= offsets[row_count]:
        return -1
    lo = int(0)
    hi = row_count
    while hi - lo > 1:  # invariant: offsets[lo] <= block_index < offsets[hi]
        mid = (lo + hi) // 2
        if offsets[mid] <= block_index:
            lo = mid
        else:
            hi = mid
    return lo


@wp.func
def bsr_block_index(row: int, col: int, bsr_offsets: wp.array(dtype=int), bsr_columns: wp.array(dtype=int)) -> int:
    """The index of block (``row``, ``col``) (columns sorted within each row), or -1 if absent."""
    if row < 0:
        return -1
    lo = bsr_offsets[row]
    hi = bsr_offsets[row + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        if bsr_columns[mid] < col:
            lo = mid + 1
        else:
            hi = mid
    if lo < bsr_offsets[row + 1]:
        if bsr_columns[lo] == col:
            return lo
    return -1


__all__ = ["bsr_block_index", "bsr_row_index"]
