"""``wp.copy``: element copies between arrays (views and indexed arrays included).

As in Warp, two paths:

- both arrays contiguous: a flat copy of ``count`` elements; the dtypes only need the same size
  in bytes (a float32 copied into an int32 array keeps its bits);
- otherwise: an element-wise copy between arrays of equal shape; ``src_offset``/``dest_offset``/
  ``count`` are then only accepted for 1-D strided arrays (they select ``a[offset:offset + count]``).
"""

from __future__ import annotations

import operator
import os
from functools import lru_cache
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from jwarp.lang.introspection import type_repr, type_size_in_bytes, types_equal
from jwarp import config
from jwarp.runtime import capture, storage, tape_state
from jwarp.runtime.array import array, is_array
from jwarp.runtime.locking import exclusive
from jwarp.runtime.read_flags import caller_location

# jwarp's own files: a copy's read/write marks name the first caller outside them
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _as_index(value: Any) -> int:
    try:
        return operator.index(value)
    except TypeError as e:
        raise RuntimeError("Copy src_offset, dest_offset, and count must be integers") from e


def _check_element_sizes(dest: Any, src: Any) -> None:
    if type_size_in_bytes(src.dtype) != type_size_in_bytes(dest.dtype):
        raise RuntimeError(
            "Incompatible array data types: "
            f"destination dtype={type_repr(dest.dtype)}, source dtype={type_repr(src.dtype)}"
        )


def _check_contiguous_ranges(dest: Any, src: Any, dest_offset: int, src_offset: int, count: int) -> None:
    """Warp's byte-range messages for the contiguous path."""
    s_item, d_item = type_size_in_bytes(src.dtype), type_size_in_bytes(dest.dtype)
    n_bytes = count * s_item
    if src_offset * s_item + n_bytes > src.size * s_item:
        raise RuntimeError(
            f"Trying to copy source buffer with size ({n_bytes}) from offset ({src_offset * s_item}) "
            f"is larger than source size ({src.size * s_item})"
        )
    if dest_offset * d_item + n_bytes > dest.size * d_item:
        raise RuntimeError(
            f"Trying to copy source buffer with size ({n_bytes}) to offset ({dest_offset * d_item}) "
            f"is larger than destination size ({dest.size * d_item})"
        )


def _check_strided_ranges(dest: Any, src: Any, dest_offset: int, src_offset: int, count: int) -> None:
    """Offsets on the non-contiguous path: only 1-D strided arrays, ranges inside both arrays."""
    if not isinstance(src, array) or not isinstance(dest, array):
        raise RuntimeError(
            "dest_offset, src_offset, and count are not supported when copying to/from "
            "non-contiguous indexed or Fabric arrays"
        )
    if src.ndim != 1 or dest.ndim != 1:
        raise RuntimeError("dest_offset, src_offset, and count are only supported for 1-D non-contiguous arrays")
    if src_offset + count > src.size:
        raise RuntimeError(
            f"Trying to copy a range of {count} element(s) from source offset ({src_offset}) "
            f"exceeds the source size ({src.size})"
        )
    if dest_offset + count > dest.size:
        raise RuntimeError(
            f"Trying to copy a range of {count} element(s) to destination offset ({dest_offset}) "
            f"exceeds the destination size ({dest.size})"
        )


def _reinterpret(piece: jax.Array, src_dtype: Any, dest_dtype: Any, count: int) -> jax.Array:
    """The bits of ``count`` ``src_dtype`` elements read as ``dest_dtype`` elements (same byte size)."""
    dest_shape = storage.element_shape(dest_dtype)
    dest_np = np.dtype(storage.scalar_of(dest_dtype)._np_dtype)
    raw = piece.astype(jnp.uint8) if piece.dtype == jnp.bool_ else piece
    if raw.dtype.itemsize > 1:
        raw = jax.lax.bitcast_convert_type(raw, jnp.uint8)
    raw = raw.reshape((count, *dest_shape, dest_np.itemsize))
    if dest_np == np.bool_:
        return raw[..., 0] != 0
    if dest_np.itemsize == 1:
        return jax.lax.bitcast_convert_type(raw[..., 0], dest_np)
    return jax.lax.bitcast_convert_type(raw, dest_np)


@lru_cache(maxsize=256)
def _mover(dest_ndim: int, src_ndim: int, src_dtype: Any, dest_dtype: Any, same_dtype: bool, dest_offset: int,
           src_offset: int, count: int) -> Callable[[jax.Array, jax.Array], jax.Array]:
    """The compiled copy of ``count`` flat elements of a source buffer into a destination buffer
    (one dispatch; eager indexing dispatched each of its steps apart: 0.6 ms for 1,000 vec3s)."""
    def move(d: jax.Array, s: jax.Array) -> jax.Array:
        d_flat = d.reshape((-1,) + d.shape[dest_ndim:])
        s_flat = s.reshape((-1,) + s.shape[src_ndim:])
        piece = s_flat[src_offset : src_offset + count]
        if not same_dtype:
            piece = _reinterpret(piece, src_dtype, dest_dtype, count)
        return d_flat.at[dest_offset : dest_offset + count].set(piece).reshape(d.shape)
    return jax.jit(move)


@exclusive
def copy_elements(dest: Any, src: Any, dest_offset: Any = 0, src_offset: Any = 0, count: Any = 0) -> None:
    """``wp.copy(dest, src, dest_offset, src_offset, count)`` (module docstring for the rules)."""
    if not is_array(dest) or not is_array(src):
        raise RuntimeError("Copy source and destination must be arrays")
    src_offset, dest_offset, count = _as_index(src_offset), _as_index(dest_offset), _as_index(count)
    if src_offset < 0:
        raise RuntimeError(f"Source offset must be non-negative, got {src_offset}")
    if dest_offset < 0:
        raise RuntimeError(f"Destination offset must be non-negative, got {dest_offset}")
    if count < 0:
        raise RuntimeError(f"Copy count must be non-negative, got {count}")
    if count == 0:
        count = src.size
    if count == 0:
        return

    if src.is_contiguous and dest.is_contiguous:
        _check_element_sizes(dest, src)
        _check_contiguous_ranges(dest, src, dest_offset, src_offset, count)
    else:
        if src_offset != 0 or dest_offset != 0 or count != src.size or count != dest.size:
            _check_strided_ranges(dest, src, dest_offset, src_offset, count)
            src_shape, dest_shape = (count,), (count,)
        else:
            src_shape, dest_shape = tuple(src.shape), tuple(dest.shape)
        if src_shape != dest_shape:
            raise RuntimeError(
                f"Incompatible array shapes: destination shape={dest_shape}, source shape={src_shape}"
            )
        _check_element_sizes(dest, src)

    if capture.deferred(dest.device, lambda: copy_elements(dest, src, dest_offset, src_offset, count), [dest, src],
                        key=("copy", id(dest), id(src), dest_offset, src_offset, count)):
        return

    same_dtype = types_equal(dest.dtype, src.dtype)  # (vec3 and vector(length=3, dtype=float32) alike)
    if not same_dtype and (isinstance(dest.buffer, tuple) or isinstance(src.buffer, tuple)):
        raise RuntimeError(
            f"Incompatible array data types: destination dtype={type_repr(dest.dtype)}, "
            f"source dtype={type_repr(src.dtype)}"
        )

    whole = dest_offset == 0 and src_offset == 0 and count == src.size == dest.size and dest.shape == src.shape
    if whole and same_dtype and dest.device is src.device:
        new = src.buffer  # buffers are immutable: the copy shares it (as ``assign``; never donated while shared)
    else:
        with storage.x64():
            d_buf, s_buf = dest.buffer, src.buffer
            if dest.device is not src.device:
                s_buf = jax.tree.map(lambda b: jax.device_put(b, dest.device.jax_device), s_buf)
            mover = _mover(dest.ndim, src.ndim, src.dtype, dest.dtype, same_dtype, dest_offset, src_offset, count)
            new = tuple(mover(d, s) for d, s in zip(d_buf, s_buf)) if isinstance(d_buf, tuple) else mover(d_buf, s_buf)
    before = (dest.root._buffer, src.root._buffer)
    dest._set_buffer(new)
    if same_dtype:
        copy_gradients(dest, src, dest_offset, src_offset, count, before)


def copy_gradients(dest: Any, src: Any, dest_offset: int, src_offset: int, count: int, before: tuple) -> None:
    """After ``wp.copy(dest, src)`` (also ``assign``/``clone``), as in Warp: when both arrays
    have gradients, copy ``src.grad``'s region into ``dest.grad`` and, under a tape, record
    the copy so the backward pass moves ``dest``'s adjoint back to ``src``.
    ``before`` holds the (dest root, src root) buffers the copy read."""
    if getattr(src, "grad", None) is None or getattr(dest, "grad", None) is None:
        return
    copy_elements(dest.grad, src.grad, dest_offset, src_offset, count)
    tape = tape_state.active_tape()
    if tape is not None:
        tape._record_copy(dest, src, dest_offset, src_offset, count, before)
        check_copy_access(tape, dest, src)


def check_copy_access(tape: Any, dest: Any, src: Any) -> None:
    """``wp.config.verify_autograd_array_access``: a recorded copy writes ``dest`` and reads ``src``
    (see read_flags.py); a warning names the user's line that made the copy."""
    if not config.verify_autograd_array_access:
        return
    if dest._is_read:
        filename, lineno = caller_location(_PACKAGE_DIR)
        if filename is not None:
            dest.mark_write(operation="an array copy", filename=filename, lineno=lineno)
        else:
            dest.mark_write()
    src.mark_read()
    tape._access_arrays.extend((dest, src))
