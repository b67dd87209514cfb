"""Array views as pure functions of their base buffer.

A view (``a[2:8]``, ``a[1]``, ``a.reshape(...)``, ``a.transpose()``, ``a.view(dtype)``…)
is its base array plus a *chain* of static operations on the storage buffer. Reading a
view applies the chain; writing a view writes the new contents back through the chain,
producing a new base buffer. Both are plain jnp code, used inside launches (so a view
written by a kernel updates its base in the same XLA program) and eagerly by the runtime.

Storage buffers carry vector/matrix components as trailing axes; struct arrays are tuples
of per-field buffers, and every op applies to each part.

Example:
    >>> import jax.numpy as jnp
    >>> base = jnp.arange(6.0)
    >>> chain = (("index", ((1, 5, 2),)),)
    >>> apply_chain(base, chain)
    Array([1., 3.], dtype=float32)
    >>> write_back(base, chain, jnp.zeros(2))
    Array([0., 0., 2., 0., 4., 5.], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jwarp.compiler.selects import clip, where

ViewOp = tuple  # ("index", key) | ("reshape", (new_shape, old_ndim)) | ("transpose", axes) | ("bitcast", dtype)
#                | ("reinterpret", (src components, dst components, dst dtype, src dtype)) (byte-level)
Chain = tuple


def _map(buf: Any, fn) -> Any:
    if isinstance(buf, tuple):
        return tuple(fn(part) for part in buf)
    return fn(buf)


def _map2(buf: Any, new: Any, fn) -> Any:
    if isinstance(buf, tuple):
        return tuple(fn(b, n) for b, n in zip(buf, new))
    return fn(buf, new)


def _key(arg: tuple) -> tuple:
    """Index keys are stored hashable: (start, stop, step) tuples stand for slices."""
    return tuple(slice(*k) if isinstance(k, tuple) else k for k in arg)


def apply_op(buf: Any, op: ViewOp) -> Any:
    kind, arg = op
    if kind == "index":
        key = _key(arg)
        return _map(buf, lambda b: b[key])
    if kind == "reshape":
        new_shape, old_ndim = arg
        return _map(buf, lambda b: b.reshape(tuple(new_shape) + b.shape[old_ndim:]))
    if kind == "transpose":
        return _map(buf, lambda b: jnp.transpose(b, arg + tuple(range(len(arg), b.ndim))))
    if kind == "bitcast":
        return _map(buf, lambda b: _bitcast(b, jnp.dtype(arg)))
    if kind == "reinterpret":
        src_comp, dst_comp, dst_dtype, _ = arg
        return _map(buf, lambda b: _reinterpret(b, src_comp, dst_comp, jnp.dtype(dst_dtype)))
    raise ValueError(f"unknown view op {kind}")


def _bitcast(x: Any, dtype: Any) -> Any:
    """The same bytes seen as ``dtype`` (same item size; bool <-> 8-bit integers by value)."""
    if x.dtype == dtype:
        return x
    if x.dtype == jnp.bool_ or dtype == jnp.bool_:
        return x.astype(dtype)
    return jax.lax.bitcast_convert_type(x, dtype)


def _reinterpret(x: Any, src_comp: tuple, dst_comp: tuple, dtype: Any) -> Any:
    """Elements with component shape ``src_comp`` read byte for byte as elements of ``dtype`` with
    component shape ``dst_comp`` (same element size in bytes; e.g. ``vec4ub`` as ``uint32``)."""
    outer = x.shape[: x.ndim - len(src_comp)]
    raw = x.astype(jnp.uint8) if x.dtype == jnp.bool_ else x
    if raw.dtype.itemsize > 1:
        raw = jax.lax.bitcast_convert_type(raw, jnp.uint8)
    raw = raw.reshape(outer + tuple(dst_comp) + (dtype.itemsize,))
    if dtype == jnp.bool_:
        return raw[..., 0] != 0
    if dtype.itemsize == 1:
        return jax.lax.bitcast_convert_type(raw[..., 0], dtype)
    return jax.lax.bitcast_convert_type(raw, dtype)


def invert_op(buf: Any, op: ViewOp, new_child: Any) -> Any:
    kind, arg = op
    if kind == "index":
        key = _key(arg)
        return _map2(buf, new_child, lambda b, n: b.at[key].set(n.astype(b.dtype)))
    if kind == "reshape":
        return _map2(buf, new_child, lambda b, n: n.reshape(b.shape))
    if kind == "transpose":
        def undo(b, n):
            perm = arg + tuple(range(len(arg), b.ndim))
            inverse = [0] * len(perm)
            for i, p in enumerate(perm):
                inverse[p] = i
            return jnp.transpose(n, inverse)

        return _map2(buf, new_child, undo)
    if kind == "bitcast":
        return _map2(buf, new_child, lambda b, n: _bitcast(n, b.dtype))
    if kind == "reinterpret":
        src_comp, dst_comp, _, src_dtype = arg
        return _map2(buf, new_child, lambda b, n: _reinterpret(n, dst_comp, src_comp, jnp.dtype(src_dtype)))
    raise ValueError(f"unknown view op {kind}")


def apply_chain(buf: Any, chain: Chain) -> Any:
    for op in chain:
        buf = apply_op(buf, op)
    return buf


def write_back(buf: Any, chain: Chain, new: Any) -> Any:
    """New base buffer whose view through ``chain`` equals ``new``."""
    if not chain:
        return new
    child = apply_op(buf, chain[0])
    return invert_op(buf, chain[0], write_back(child, chain[1:], new))


def _index_grids(shape: tuple, indices: tuple, write: bool = False) -> tuple:
    """Broadcasting index grids selecting the outer product of ``indices`` (None = whole axis).
    Out-of-range entries read a clamped element and, for writes, point past the end (dropped)."""
    n = len(indices)
    grids = []
    for axis, idx in enumerate(indices):
        if idx is None:
            idx = jnp.arange(shape[axis])
        elif write:
            idx = idx.astype(jnp.int32)
            idx = where((idx < 0) | (idx >= shape[axis]), shape[axis], idx)
        else:
            idx = clip(idx.astype(jnp.int32), 0, max(shape[axis] - 1, 0))
        grids.append(idx.reshape((1,) * axis + (-1,) + (1,) * (n - axis - 1)))
    return tuple(grids)


def gather_indexed(buf: Any, indices: tuple) -> Any:
    """The elements of an indexed array (Warp's ``wp.indexedarray``): along each axis with an
    index buffer, the entries it lists (outer product over axes); other axes whole.

    >>> import jax.numpy as jnp
    >>> gather_indexed(jnp.arange(6.0).reshape(2, 3), (None, jnp.array([2, 0])))
    Array([[2., 0.],
           [5., 3.]], dtype=float32)
    """
    return _map(buf, lambda b: b[_index_grids(b.shape, indices)])


def scatter_indexed(buf: Any, indices: tuple, new: Any) -> Any:
    """New buffer whose indexed elements (see :func:`gather_indexed`) are ``new`` (the runtime's
    eager writes through a ``wp.indexedarray``; where index entries repeat, one value stays).

    >>> import jax.numpy as jnp
    >>> scatter_indexed(jnp.zeros(3), (jnp.array([2, 0]),), jnp.array([2.0, 5.0]))
    Array([5., 0., 2.], dtype=float32)
    """

    def put(b: Any, n: Any) -> Any:
        return b.at[_index_grids(b.shape, indices, True)].set(n.astype(b.dtype), mode="drop")

    return _map2(buf, new, put)

