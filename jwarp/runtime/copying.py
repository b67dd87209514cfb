"""``wp.copy``: flat element copies between arrays (views included)."""

from __future__ import annotations

import jax

from jwarp.lang.arrays import type_name
from jwarp.runtime import storage
from jwarp.runtime.array import array, is_array
from jwarp.runtime.locking import exclusive
from jwarp.runtime.tape_state import copy_gradients


@exclusive
def copy_elements(dest: array, src: array, dest_offset: int, src_offset: int, count: int) -> None:
    """Flat-order element copy; either side may be a ``wp.indexedarray``."""
    if not is_array(dest) or not is_array(src):
        raise RuntimeError("wp.copy() expects two arrays")
    if dest.dtype != src.dtype:
        raise RuntimeError(f"Incompatible array types in wp.copy(): {type_name(src.dtype)} and {type_name(dest.dtype)}")
    if count == 0:
        count = src.size
    if src_offset < 0 or src_offset + count > src.size:
        raise RuntimeError(f"Source range {src_offset}..{src_offset + count} is out of bounds for size {src.size}")
    if dest_offset < 0 or dest_offset + count > dest.size:
        raise RuntimeError(
            f"Destination range {dest_offset}..{dest_offset + count} is out of bounds for size {dest.size}"
        )

    from jwarp.runtime import capture

    if capture.deferred(dest.device, lambda: copy_elements(dest, src, dest_offset, src_offset, count), [dest, src]):
        return

    def move(d, s):
        d_flat = d.reshape((dest.size,) + d.shape[dest.ndim:])
        s_flat = s.reshape((src.size,) + s.shape[src.ndim:])
        piece = s_flat[src_offset : src_offset + count]
        if dest.device is not src.device:
            piece = jax.device_put(piece, dest.device.jax_device)
        return d_flat.at[dest_offset : dest_offset + count].set(piece).reshape(d.shape)

    with storage.x64():
        d_buf, s_buf = dest.buffer, src.buffer
        if isinstance(d_buf, tuple):
            new = tuple(move(d, s) for d, s in zip(d_buf, s_buf))
        else:
            new = move(d_buf, s_buf)
    before = (dest.root._buffer, src.root._buffer)
    dest._set_buffer(new)
    copy_gradients(dest, src, dest_offset, src_offset, count, before)

