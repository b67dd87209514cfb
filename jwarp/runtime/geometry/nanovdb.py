"""Reading NanoVDB files (``.nvdb``) into the leaves jwarp's ``wp.Volume`` keeps.

A NanoVDB grid is a tree (root table → upper nodes of 32³ children → lower nodes of 16³ → leaves of
8³ voxels) in one buffer. This module walks it on the host with numpy: it returns every leaf's
origin and 512 values (or voxel indices for index grids), in the buffer's leaf order, the values of
constant tiles of the internal nodes that differ from the background (each as the 8³ tiles it
covers), the background and the grid's transform. Offsets follow ``PNanoVDB.h`` (NanoVDB 32.x).

Example:
    >>> grids = read_file(open("grid.nvdb", "rb").read())  # doctest: +SKIP
    >>> grids[0].type_str, grids[0].leaf_origins.shape  # doctest: +SKIP
    ('float', (27, 3))
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

import numpy as np

from jwarp.runtime.geometry.nanovdb_validate import validate_payload

# NanoVDB grid types jwarp reads: (type name, numpy value dtype, components)
_TYPES = {1: ("float", np.float32, 1), 2: ("double", np.float64, 1), 4: ("int32", np.int32, 1),
          5: ("int64", np.int64, 1), 6: ("Vec3f", np.float32, 3), 7: ("Vec3d", np.float64, 3),
          10: ("uint32", np.uint32, 1), 17: ("Vec4f", np.float32, 4), 18: ("Vec4d", np.float64, 4),
          16: ("FloatN", None, 0), 19: ("Index", None, 0), 20: ("OnIndex", None, 0)}
_FPN = 16  # variable-bit quantized floats: loaded for their topology, read as no type (Warp samples them as 0)
# per grid type: (root_off_background, root_size, table_stride, root_tile_off_value, root_tile_size,
#                 upper_off_table, lower_off_table, leaf_off_table)  (PNanoVDB's constants table)
_LAYOUT = {1: (28, 64, 8, 20, 32, 8256, 1088, 96), 2: (32, 96, 8, 24, 32, 8256, 1088, 128),
           4: (28, 64, 8, 20, 32, 8256, 1088, 96), 5: (32, 96, 8, 24, 32, 8256, 1088, 128),
           6: (28, 96, 16, 20, 32, 8256, 1088, 128), 7: (32, 128, 24, 24, 64, 8288, 1120, 160),
           10: (28, 64, 8, 20, 32, 8256, 1088, 96), 16: (28, 64, 8, 20, 32, 8256, 1088, 96), 17: (28, 96, 16, 20, 64, 8288, 1120, 128),
           18: (32, 160, 32, 24, 64, 8320, 1152, 160), 19: (32, 96, 8, 24, 32, 8256, 1088, 80),
           20: (32, 96, 8, 24, 32, 8256, 1088, 80)}
# NanoVDB's names of its GridType values (nanovdb::toStr)
TYPE_NAMES = ("?", "float", "double", "int16", "int32", "int64", "Vec3f", "Vec3d", "Mask", "Half", "uint32", "bool",
              "RGBA8", "Float4", "Float8", "Float16", "FloatN", "Vec4f", "Vec4d", "Index", "OnIndex", "IndexMask",
              "OnIndexMask", "PointIndex", "Vec3u8", "Vec3u16", "uint8")
_GRID_MAGICS = (0x304244566F6E614E, 0x314244566F6E614E)
_FILE_MAGICS = (0x304244566F6E614E, 0x324244566F6E614E)


@dataclass
class Grid:
    """One NanoVDB grid as jwarp's volume needs it."""

    name: str
    size_in_bytes: int
    type_str: str
    background: np.ndarray
    leaf_origins: np.ndarray  # (leaves, 3) int32, buffer order
    leaf_values: np.ndarray | None  # (leaves * 512[, components]) values, or None for index grids
    voxel_index: np.ndarray | None  # (leaves * 512,) int32 voxel index or -1 (index grids)
    voxel_count: int
    tiles: list = field(default_factory=list)  # (origin of an 8³ tile, value) of constant internal tiles
    matf: np.ndarray = None
    invmatf: np.ndarray = None
    vecf: np.ndarray = None
    matd: np.ndarray = None
    invmatd: np.ndarray = None
    vecd: np.ndarray = None
    voxel_size: tuple = (1.0, 1.0, 1.0)
    breadth_first: bool = True
    value_offsets: np.ndarray | None = None  # byte offset of each leaf's value table
    features: list = field(default_factory=list)  # (name, bytes, value_size, value_count, type_str) blind data


def read_file(data: bytes) -> list[bytes]:
    """The grid buffers of a serialized ``.nvdb`` file (decompressed), in file order."""
    data = bytes(data)
    magic, version, grid_count, codec = struct.unpack("<QIHH", data[0:16])
    if magic not in _FILE_MAGICS:
        raise RuntimeError("NanoVDB signature not found")
    if version >> 21 != 32:
        raise RuntimeError("Unsupported NanoVDB version")
    offset, total = 16, 0
    for _ in range(grid_count):
        total += struct.unpack("<Q", data[offset + 8: offset + 16])[0]
        name_size = struct.unpack("<I", data[offset + 136: offset + 140])[0]
        offset += 176 + name_size
    end = offset + total
    if codec == 0:
        buffer = data[offset:end]
    elif codec in (1, 2):
        if codec == 2:
            try:
                import blosc  # noqa: PLC0415  (optional dependency, as in Warp)
            except ImportError as err:
                raise RuntimeError(f"NanoVDB buffer is compressed using blosc, but Python module could not be "
                                   f"imported: {err}") from err
        chunks = []
        while offset < end:
            size = struct.unpack("<Q", data[offset: offset + 8])[0]
            offset += 8
            chunk = data[offset: offset + size]
            chunks.append(zlib.decompress(chunk) if codec == 1 else blosc.decompress(chunk))
            offset += size
        buffer = b"".join(chunks)
    else:
        raise RuntimeError(f"Unsupported codec code: {codec}")
    if struct.unpack("<Q", buffer[0:8])[0] not in _GRID_MAGICS:
        raise RuntimeError("NanoVDB signature not found on grid!")
    validate_payload(buffer)
    return _split_grids(buffer)


def write_file(path: str, buffers: list, codec: str = "none") -> str:
    """Serialize grid buffers as a ``.nvdb`` file (Warp's ``save_to_nvdb`` layout: file header, one
    metadata record and name per grid, then each grid, compressed chunks prefixed by their size)."""
    codecs = {"none": 0, "zip": 1, "blosc": 2}
    if codec not in codecs:
        raise RuntimeError(f"Unsupported codec requested: {codec}")
    code = codecs[codec]
    if code == 2:
        try:
            import blosc  # noqa: PLC0415  (optional dependency, as in Warp)
        except ImportError as err:
            raise RuntimeError(f"blosc compression was requested, but Python module could not be imported: {err}"
                               ) from err
    version = 32 << 21 | 3 << 10 | 3
    records, payloads = [], []
    for buf in buffers:
        size = struct.unpack_from("<Q", buf, 32)[0]
        data = bytes(buf[:size])
        packed = zlib.compress(data) if code == 1 else blosc.compress(data) if code == 2 else data
        name = buf[40:296].split(b"\0", 1)[0]
        meta = struct.pack("<QQQQII", size, len(packed), 0, 0, struct.unpack_from("<I", buf, 636)[0],
                           struct.unpack_from("<I", buf, 632)[0])
        meta += bytes(buf[560:608]) + b"\0" * 24 + bytes(buf[608:632])  # world bbox, index bbox, voxel size
        meta += struct.pack("<I", len(name) + 1) + b"\0" * 28 + struct.pack("<HHI", code, 0, version)
        records.append(meta + name + b"\0")
        payloads.append((struct.pack("<Q", len(packed)) if code else b"") + packed)
    with open(path, "wb") as f:
        f.write(struct.pack("<QIHH", _GRID_MAGICS[0], version, len(buffers), code))
        f.write(b"".join(records))
        f.write(b"".join(payloads))
    return path


def patch_values(buf: bytes, offsets: np.ndarray, values: np.ndarray) -> bytes:
    """``buf`` with each leaf's value table (at ``offsets``) replaced by ``values`` (leaves × 512 …)."""
    out = bytearray(buf)
    per_leaf = values.reshape(len(offsets), -1)
    raw = np.ascontiguousarray(per_leaf).view(np.uint8).reshape(len(offsets), -1)
    for o, row in zip(offsets, raw):
        out[int(o): int(o) + row.shape[0]] = row.tobytes()
    return bytes(out)


def split_grids(buffer: bytes) -> list[bytes]:
    """The grids of a raw NanoVDB buffer (grids one after the other)."""
    if len(buffer) < 672 or struct.unpack_from("<Q", buffer, 0)[0] not in _GRID_MAGICS:
        raise RuntimeError("Invalid NanoVDB grid structure")
    return _split_grids(buffer)


def parse_all(buffers: list) -> list:
    """Every grid of a file or buffer parsed (structure errors first, then Warp's layout check)."""
    grids = [parse_grid(b) for b in buffers]
    if not all(g.breadth_first for g in grids):
        raise RuntimeError("Unsupported NanoVDB tree layout")
    return grids


def decode_name(raw: bytes) -> str:
    """A NUL-terminated NanoVDB name field."""
    end = raw.find(b"\0")
    if end < 0:
        raise RuntimeError("Invalid NanoVDB name")
    return raw[:end].decode("ascii")


def feature_values(feature: tuple, np_type: np.dtype, width: int, type_name: str) -> np.ndarray:
    """A blind data array as values of ``np_type`` × ``width`` (Warp's conversions: any type to and
    from bytes)."""
    _, data, size, count, _ = feature
    item = np.dtype(np_type).itemsize * width
    if item == 1:
        count, size = count * size, 1
    elif size == 1 and count % item == 0:
        count, size = count // item, item
    if item != size:
        raise RuntimeError(f"Cannot cast feature data of size {size} to array dtype {type_name}")
    raw = np.frombuffer(data, np_type)[: count * width].copy()
    return raw.reshape(count, width) if width > 1 else raw


def _split_grids(buffer: bytes) -> list[bytes]:
    grids, offset = [], 0
    while offset + 672 <= len(buffer) and struct.unpack("<Q", buffer[offset: offset + 8])[0] in _GRID_MAGICS:
        size = struct.unpack("<Q", buffer[offset + 32: offset + 40])[0]
        if size < 672 or offset + size > len(buffer):
            raise RuntimeError("Invalid NanoVDB grid structure")
        grids.append(buffer[offset: offset + size])
        offset += size
    return grids


def _decode_key(key: int) -> np.ndarray:
    mask = (1 << 21) - 1
    coords = [((key >> s) & mask) << 12 for s in (42, 21, 0)]
    return np.array([c - (1 << 32) if c >= (1 << 31) else c for c in coords], np.int64)


def _bits(buf: bytes, offset: int, count: int) -> np.ndarray:
    words = np.frombuffer(buf, np.uint64, count // 64, offset)
    return np.unpackbits(words.view(np.uint8), bitorder="little").astype(bool)


def parse_grid(buf: bytes) -> Grid:
    """Leaves, constant tiles, background and transform of one grid buffer (a buffer whose offsets
    or spans are out of range raises ``RuntimeError("Invalid NanoVDB grid structure")``)."""
    try:
        return _parse_grid(buf)
    except (struct.error, IndexError, ValueError, OverflowError) as err:
        raise RuntimeError("Invalid NanoVDB grid structure") from err


def _parse_grid(buf: bytes) -> Grid:
    u32 = lambda o: struct.unpack_from("<I", buf, o)[0]  # noqa: E731
    u64 = lambda o: struct.unpack_from("<Q", buf, o)[0]  # noqa: E731
    i64 = lambda o: struct.unpack_from("<q", buf, o)[0]  # noqa: E731
    gtype = u32(636)
    if gtype == 0 or gtype >= len(TYPE_NAMES):
        raise RuntimeError("Invalid NanoVDB grid structure")
    if gtype not in _TYPES:
        raise NotImplementedError(f"wp.Volume: NanoVDB grid type {gtype} is not supported by jwarp (supported: "
                                  f"{', '.join(t[0] for t in _TYPES.values())})")
    type_str, np_type, comps = _TYPES[gtype]
    bg_off, root_size, stride, tile_val, tile_size, upper_table, lower_table, leaf_table = _LAYOUT[gtype]
    name = decode_name(buf[40:296])
    m = 296
    grid = Grid(name, u64(32), type_str, None, None, None, None, 0,
                matf=np.frombuffer(buf, np.float32, 9, m).reshape(3, 3).copy(),
                invmatf=np.frombuffer(buf, np.float32, 9, m + 36).reshape(3, 3).copy(),
                vecf=np.frombuffer(buf, np.float32, 3, m + 72).copy(),
                matd=np.frombuffer(buf, np.float64, 9, m + 88).reshape(3, 3).copy(),
                invmatd=np.frombuffer(buf, np.float64, 9, m + 160).reshape(3, 3).copy(),
                vecd=np.frombuffer(buf, np.float64, 3, m + 232).copy(),
                voxel_size=tuple(float(x) for x in np.frombuffer(buf, np.float64, 3, 608)))
    grid.features = _blind_data(buf, u64(640), u32(648))
    tree = 672
    leaf_base, root = tree + u64(tree), tree + u64(tree + 24)
    leaf_count = u32(tree + 32)
    starts = _leaf_starts(buf, gtype, leaf_base, leaf_count)
    if (leaf_count and starts[-1] + _leaf_size(buf, gtype, int(starts[-1])) > len(buf)) or not tree < root < len(buf):
        raise RuntimeError("Invalid NanoVDB grid structure")
    grid.breadth_first = bool(u32(20) & (1 << 5))
    read_value = (lambda o: np.frombuffer(buf, np_type, comps, o).copy()) if np_type is not None else (
        lambda o: np.zeros(1, np.float32))
    grid.background = read_value(root + bg_off)
    origins = np.zeros((leaf_count, 3), np.int64)
    seen = np.zeros(leaf_count, bool)
    for t in range(u32(root + 24)):
        tile = root + root_size + t * tile_size
        child = i64(tile + 8)
        upper_origin = _decode_key(u64(tile))
        if child == 0:
            if np_type is not None and not np.array_equal(read_value(tile + tile_val), grid.background):
                raise NotImplementedError("wp.Volume: NanoVDB root tiles with non-background values (constant "
                                          "4096³ regions) are not supported by jwarp")
            continue
        upper = root + child
        _walk(buf, upper, upper_origin, 5, 128, upper_table, stride, (np_type, comps), grid,
              lambda lower, origin: _walk(buf, lower, origin, 4, 8, lower_table, stride, (np_type, comps), grid,
                                          lambda leaf, o: _leaf(leaf, o, starts, origins, seen)))
    if not seen.all():
        raise RuntimeError("Invalid NanoVDB grid structure")
    grid.leaf_origins = origins.astype(np.int32)
    offsets = starts + leaf_table
    grid.value_offsets = offsets
    if gtype == _FPN:  # no values jwarp reads: every voxel reads the background, as a volume of another type
        grid.voxel_index, grid.voxel_count = np.full(max(leaf_count, 1) * 512, -1, np.int32), leaf_count * 512
    elif np_type is not None:
        width = np.dtype(np_type).itemsize * comps * 512
        raw = b"".join(buf[o: o + width] for o in offsets)
        values = np.frombuffer(raw, np_type).copy()
        grid.leaf_values = values.reshape(-1, comps) if comps > 1 else values
        grid.voxel_count = leaf_count * 512
    else:
        grid.voxel_index, grid.voxel_count = _index_values(buf, gtype, offsets, u64(tree + 56))
    return grid


def _blind_data(buf: bytes, offset: int, count: int) -> list:
    """(name, bytes, value size, value count, type name) of each blind data array (Warp's feature arrays)."""
    out = []
    for i in range(count):
        meta = offset + i * 288
        if meta + 288 > len(buf):
            raise RuntimeError("Invalid NanoVDB grid structure")
        data_offset, value_count, value_size = struct.unpack_from("<qQI", buf, meta)
        data_type = struct.unpack_from("<I", buf, meta + 28)[0]
        raw_name = buf[meta + 32: meta + 288]
        if b"\0" not in raw_name:
            raise RuntimeError("Invalid NanoVDB name")
        start, size = meta + data_offset, value_count * value_size
        if start < 0 or start + size > len(buf):
            raise RuntimeError("Invalid NanoVDB grid structure")
        type_str = TYPE_NAMES[data_type] if data_type < len(TYPE_NAMES) else "?"
        out.append((raw_name.split(b"\0", 1)[0].decode("ascii", "replace"), bytes(buf[start: start + size]),
                    int(value_size), int(value_count), type_str))
    return out


def _leaf_size(buf: bytes, gtype: int, address: int) -> int:
    """Bytes of the leaf at ``address`` (FpN leaves: a 96-byte header and 512 values of 2**k bits)."""
    if gtype == _FPN:
        return 96 + (1 << (struct.unpack_from("<I", buf, address + 12)[0] >> 29)) * 64
    sizes = {1: 2144, 2: 4224, 4: 2144, 5: 4224, 6: 6272, 7: 12448, 10: 2144, 17: 8320, 18: 16544, 19: 96, 20: 96}
    return sizes[gtype]


def _leaf_starts(buf: bytes, gtype: int, base: int, count: int) -> np.ndarray:
    """Byte offsets of the ``count`` leaves stored from ``base`` on."""
    if gtype != _FPN:
        return base + np.arange(count, dtype=np.int64) * _leaf_size(buf, gtype, base)
    starts, at = np.zeros(count, np.int64), base
    for k in range(count):
        starts[k] = at
        at += _leaf_size(buf, gtype, at)
    return starts


def _walk(buf: bytes, node: int, origin: np.ndarray, log2dim: int, child_dim: int, table: int, stride: int,
          value_type: tuple, grid: Grid, visit) -> None:
    """Visit the children of an internal node (``visit(address, origin)``) and record its constant
    tiles whose value differs from the background (value grids only)."""
    n_entries = 1 << (3 * log2dim)
    children = _bits(buf, node + 32 + n_entries // 8, n_entries)  # value mask at 32, child mask after it
    entries = np.frombuffer(buf, np.uint8, n_entries * stride, node + table).reshape(n_entries, stride)
    n = np.arange(n_entries)
    dim = 1 << log2dim
    coords = np.stack([n >> (2 * log2dim), (n >> log2dim) & (dim - 1), n & (dim - 1)], axis=1).astype(np.int64)
    child_offsets = entries[:, :8].copy().view(np.int64).reshape(-1)
    for k in np.nonzero(children)[0]:
        visit(node + int(child_offsets[k]), origin + coords[k] * child_dim)
    np_type, comps = value_type
    if np_type is None:
        return
    width = np.dtype(np_type).itemsize * comps
    values = entries[:, :width].copy().view(np_type).reshape(n_entries, comps)
    differs = ~children & np.any(values != grid.background.reshape(1, comps), axis=1)
    for k in np.nonzero(differs)[0]:
        base = origin + coords[k] * child_dim
        for dx in range(0, child_dim, 8):
            for dy in range(0, child_dim, 8):
                for dz in range(0, child_dim, 8):
                    grid.tiles.append((base + np.array([dx, dy, dz]), values[k].copy()))


def _leaf(address: int, origin: np.ndarray, starts: np.ndarray, origins: np.ndarray, seen: np.ndarray) -> None:
    index = int(np.searchsorted(starts, address))
    if index >= starts.shape[0] or starts[index] != address:
        raise RuntimeError("Invalid NanoVDB grid structure")
    origins[index] = origin
    seen[index] = True


def _index_values(buf: bytes, gtype: int, offsets: np.ndarray, tree_voxels: int) -> tuple[np.ndarray, int]:
    """Per leaf voxel: Warp's ``volume_lookup_index`` (NanoVDB value index - 1, -1 when none)."""
    out = np.full(max(len(offsets), 1) * 512, -1, np.int32)
    for k, o in enumerate(offsets):
        first = struct.unpack_from("<Q", buf, int(o))[0]
        if gtype == 19:  # Index: every voxel of the leaf has an index
            out[k * 512:(k + 1) * 512] = first + np.arange(512) - 1
        else:  # OnIndex: active voxels only, ranked within the leaf
            leaf = int(o) - 80
            active = _bits(buf, leaf + 16, 512)
            rank = np.cumsum(active) - 1
            out[k * 512:(k + 1) * 512] = np.where(active, first + rank - 1, -1)
    count = tree_voxels if gtype == 20 else len(offsets) * 512
    return out, int(count)


__all__ = ["Grid", "parse_grid", "read_file"]
