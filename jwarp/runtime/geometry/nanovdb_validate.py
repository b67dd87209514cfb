"""Structural validation of serialized NanoVDB buffers, with Warp's rules for ``Volume.load_from_nvdb``.

Every grid of a decompressed ``.nvdb`` payload is checked before any is read (the grids must consume
the payload exactly): the header (magic, a size that is a multiple of NanoVDB's 32-byte alignment and
fits the payload, a known grid type, a blind-metadata table inside the grid), then the tree of a
breadth-first grid. The tree's node arrays (root, upper, lower, leaves; FpN leaves have per-leaf
sizes, so they are scanned) must start 32-byte aligned after the tree header and lie inside the
grid; populated levels must follow each other in that order without overlapping and end before the
blind metadata; every child reference (root tiles, and the child-masked table entries of upper and
lower nodes) must land exactly on a node of the next level. A grid that is not breadth-first is
unsupported (``RuntimeError("Unsupported NanoVDB tree layout")``) unless another grid is invalid
(``RuntimeError("Invalid NanoVDB grid structure")``).

Example:
    >>> validate_payload(b"")
    Traceback (most recent call last):
    ...
    RuntimeError: Invalid NanoVDB grid structure
"""

from __future__ import annotations

import struct

import numpy as np

GRID_HEADER = 672
TREE_HEADER = 64
ALIGNMENT = 32
_MAGICS = (0x304244566F6E614E, 0x314244566F6E614E)
_TYPE_END = 27
_FPN = 16
_BREADTH_FIRST = 1 << 5
_ROOT_BASE, _ROOT_TILE_BASE = 28, 20  # bytes every root / root tile has (key, child, state …)
_UPPER_MASK, _LOWER_MASK = 4128, 544  # byte offsets of the child masks
_UPPER_ENTRIES, _LOWER_ENTRIES = 32768, 4096
_FPN_LEAF_HEADER = 96

# grid type -> (root size, root tile size, table stride, upper table offset, lower table offset, leaf size)
# (PNanoVDB.h's type constants, for the types jwarp reads and FpN; leaf size 0: variable). The trees of
# other types are not checked here (reading them raises NotImplementedError).
_LAYOUTS = {
    1: (64, 32, 8, 8256, 1088, 2144), 2: (96, 32, 8, 8256, 1088, 4224), 4: (64, 32, 8, 8256, 1088, 2144),
    5: (96, 32, 8, 8256, 1088, 4224), 6: (96, 32, 16, 8256, 1088, 6272), 7: (128, 64, 24, 8288, 1120, 12448),
    10: (64, 32, 8, 8256, 1088, 2144), 16: (64, 32, 8, 8256, 1088, 0), 17: (96, 64, 16, 8288, 1120, 8320),
    18: (160, 64, 32, 8320, 1152, 16544), 19: (96, 32, 8, 8256, 1088, 96), 20: (96, 32, 8, 8256, 1088, 96),
}


class _Invalid(Exception):
    pass


def validate_payload(buf: bytes) -> None:
    """Check every grid of a decompressed NanoVDB payload (raises Warp's ``RuntimeError``s)."""
    offset, unsupported = 0, False
    try:
        while offset < len(buf):
            size, breadth_first = _validate_grid(buf, offset)
            unsupported |= not breadth_first
            offset += size
        if offset != len(buf) or offset == 0:
            raise _Invalid
    except (_Invalid, struct.error, IndexError, ValueError, OverflowError):
        raise RuntimeError("Invalid NanoVDB grid structure") from None
    if unsupported:
        raise RuntimeError("Unsupported NanoVDB tree layout")


def _validate_grid(buf: bytes, base: int) -> tuple[int, bool]:
    """The grid's size and whether it is breadth-first (its tree then checked)."""
    available = len(buf) - base
    if available < GRID_HEADER + TREE_HEADER:
        raise _Invalid
    magic, flags = struct.unpack_from("<Q", buf, base)[0], struct.unpack_from("<I", buf, base + 20)[0]
    size = struct.unpack_from("<Q", buf, base + 32)[0]
    gtype = struct.unpack_from("<I", buf, base + 636)[0]
    meta_offset, meta_count = struct.unpack_from("<qI", buf, base + 640)
    if magic not in _MAGICS or size % ALIGNMENT or not GRID_HEADER + TREE_HEADER <= size <= available:
        raise _Invalid
    if meta_count and (meta_offset < GRID_HEADER or meta_offset + meta_count * 288 > size):
        raise _Invalid
    if gtype == 0 or gtype >= _TYPE_END:
        raise _Invalid
    if not flags & _BREADTH_FIRST:
        return size, False
    if gtype not in _LAYOUTS:
        return size, True
    boundary = size if meta_count == 0 and meta_offset == 0 else meta_offset
    _validate_tree(memoryview(buf)[base: base + size], gtype, size, boundary)
    return size, True


def _node_begin(relative: int, size: int) -> int:
    if relative < TREE_HEADER or relative > size - GRID_HEADER or relative % ALIGNMENT:
        raise _Invalid
    return GRID_HEADER + relative


def _fixed_range(relative: int, count: int, stride: int, size: int) -> tuple:
    """``(begin, end, node starts or None, stride)`` of ``count`` nodes of ``stride`` bytes."""
    if count == 0:
        return (0, 0, None, stride)
    begin = _node_begin(relative, size)
    if count > (size - begin) // stride:
        raise _Invalid
    return (begin, begin + count * stride, None, stride)


def _fpn_range(buf: memoryview, relative: int, count: int, size: int) -> tuple:
    """FpN leaves: a 96-byte header, then 512 values of 2**log2 bits (log2 in the flags' top bits)."""
    if count == 0:
        return (0, 0, None, 0)
    begin = _node_begin(relative, size)
    if count > (size - begin) // (_FPN_LEAF_HEADER + 64):
        raise _Invalid
    starts, at = [], begin
    for _ in range(count):
        if _FPN_LEAF_HEADER > size - at:
            raise _Invalid
        bits = 1 << (struct.unpack_from("<I", buf, at + 12)[0] >> 29)
        if bits > 16:
            raise _Invalid
        starts.append(at)
        at += _FPN_LEAF_HEADER + bits * 64
        if at > size:
            raise _Invalid
    return (begin, at, np.asarray(starts, np.int64), 0)


def _contains(rng: tuple, offset: int) -> bool:
    begin, end, starts, stride = rng
    if not begin <= offset < end:
        return False
    if starts is not None:
        at = np.searchsorted(starts, offset)
        return bool(at < starts.shape[0] and starts[at] == offset)
    return (offset - begin) % stride == 0


def _validate_tree(buf: memoryview, gtype: int, size: int, boundary: int) -> None:
    root_size, tile_size, table_stride, upper_table, lower_table, leaf_size = _LAYOUTS[gtype]
    leaf_rel, lower_rel, upper_rel, root_rel = struct.unpack_from("<QQQQ", buf, GRID_HEADER)
    n_leaf, n_lower, n_upper = struct.unpack_from("<III", buf, GRID_HEADER + 32)
    upper_size = upper_table + _UPPER_ENTRIES * table_stride
    lower_size = lower_table + _LOWER_ENTRIES * table_stride
    root = _fixed_range(root_rel, 1, root_size, size)
    upper = _fixed_range(upper_rel, n_upper, upper_size, size)
    lower = _fixed_range(lower_rel, n_lower, lower_size, size)
    leaves = _fpn_range(buf, leaf_rel, n_leaf, size) if gtype == _FPN else _fixed_range(leaf_rel, n_leaf, leaf_size,
                                                                                        size)
    n_tiles = struct.unpack_from("<I", buf, root[0] + 24)[0]
    if n_tiles > (size - root[1]) // tile_size:
        raise _Invalid
    occupied = root[1] + n_tiles * tile_size
    for rng, count in ((upper, n_upper), (lower, n_lower), (leaves, n_leaf)):
        if count:
            if rng[0] < occupied:
                raise _Invalid
            occupied = rng[1]
    if occupied > boundary:
        raise _Invalid
    for t in range(n_tiles):
        child = struct.unpack_from("<q", buf, root[1] + t * tile_size + 8)[0]
        if child and not _contains(upper, root[0] + child):
            raise _Invalid
    _check_children(buf, upper, n_upper, _UPPER_MASK, upper_table, _UPPER_ENTRIES, table_stride, lower)
    _check_children(buf, lower, n_lower, _LOWER_MASK, lower_table, _LOWER_ENTRIES, table_stride, leaves)


def _check_children(buf: memoryview, parents: tuple, count: int, mask_offset: int, table: int, entries: int,
                    stride: int, children: tuple) -> None:
    """Every child-masked table entry of every node in ``parents`` refers to a node of ``children``."""
    for k in range(count):
        node = parents[0] + k * parents[3]
        words = np.frombuffer(buf, np.uint32, entries // 32, node + mask_offset)
        slots = np.flatnonzero(np.unpackbits(words.view(np.uint8), bitorder="little"))
        for slot in slots:
            child = struct.unpack_from("<q", buf, node + table + int(slot) * stride)[0]
            if not _contains(children, node + child):
                raise _Invalid


__all__ = ["validate_payload"]
