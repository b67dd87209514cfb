"""Array views made in kernel code: indexing and slicing of array references.

An :class:`~jwarp.compiler.values.ArrayRef` normally is a slot plus leading indices
(``prefix``). Slicing in kernel code (``a[i, 1:3]``, ``a[::2]``, ``a[start:stop:step][i]``)
makes a view that lists every axis of the slot in ``axes``: an axis is either *fixed* by an
index (``("fixed", Value)``), ``("identity",)``, a *view* axis ``("view", start, step, length)``
(leaves, which may vary per lane) that the view's own indices address as ``start + k * step``,
or an *indexed* axis ``("indexed", entries, length)`` whose view index ``k`` addresses the slot
element ``entries[k]`` (``entries``: the ``length`` int32 index entries of a
``wp.indexedarray`` as the launch received it, see :func:`indexed_ref`). Bounds may be run-time
values; they follow Python's slice rules, and negative indices into a view count from its end, as
for arrays. Indexed axes are not sliced in kernel code (Warp cannot either).

An indexed array is thus a view of its data array's slot, like a slice: loads, stores and atomics
through it address the data directly, so they see (and are seen by) every other access to the
same data in the launch. An index entry outside the data's extent, or a view index outside the
indexed extent, addresses no element: reads clamp and writes are dropped, as for any
out-of-bounds access (Warp leaves both undefined).

Example (kernel code)::

    row = a[i, 1:3]          # a 1-D view of two elements
    row[0] = 5.0             # writes a[i, 1]
    a[0:4:2][k] += 1.0       # a[2 * k] += 1
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

import jax.numpy as jnp
import numpy as np

from jwarp.compiler.values import Affine, ArrayRef, Value, is_const, xp
from jwarp.errors import WarpCodegenError, WarpCodegenIndexError, WarpCodegenValueError
from jwarp.lang import scalars
from jwarp.lang.arrays import ArrayType, type_name
from jwarp.compiler.selects import clip, where

if TYPE_CHECKING:
    from jwarp.compiler.lower import FunctionLowerer

_INT = scalars.int32


def _axes(ref: ArrayRef, ndim: int) -> list:
    """Every slot axis of ``ref``: fixed, identity, view or indexed (see the module docstring)."""
    if ref.axes is not None:
        return list(ref.axes)
    return [("fixed", v) for v in ref.prefix] + [("identity",)] * (ndim - len(ref.prefix))


def slot_axes(ref: ArrayRef, ndim: int) -> list:
    """Every axis of the ``ndim``-d slot ``ref`` views: fixed, identity, view or indexed (see above)."""
    return _axes(ref, ndim)


def _free(axes: list) -> list[int]:
    return [k for k, a in enumerate(axes) if a[0] != "fixed"]


def view_shape(ref: ArrayRef, shape: tuple) -> list:
    """The view's extent along each of its dimensions (ints, or leaves for run-time slices)."""
    axes = _axes(ref, len(shape))
    return [shape[k] if axes[k][0] == "identity" else axes[k][-1] for k in _free(axes)]


def indexed_ref(slot: int, entries: tuple) -> ArrayRef:
    """The view of ``slot`` that a ``wp.indexedarray`` is: along each axis with an index buffer
    in ``entries`` (None: the whole axis), the elements that buffer lists.

    >>> import jax.numpy as jnp
    >>> indexed_ref(0, (jnp.array([2, 0]), None)).axes[0][0]
    'indexed'
    """
    axes = [("identity",) if e is None else ("indexed", e, np.int32(e.shape[0])) for e in entries]
    return _make_ref(slot, axes)


def _indexed_source(axis: tuple, n: int, index: Value) -> Value:
    """Slot index for view index ``index`` along an indexed axis over a slot axis of extent ``n``:
    the index entry it selects; ``n`` (out of bounds) for a view index past the indexed extent
    or an entry outside ``[0, n)``."""
    _, entries, length = axis
    if length == 0:
        return Value(_INT, np.int32(n))
    i = jnp.asarray(index.data, jnp.int32)
    i = where(i < 0, i + length, i)  # negative indices count from the indexed extent's end
    in_view = (i >= 0) & (i < length)
    src = entries[clip(i, 0, length - 1)].astype(jnp.int32)
    return Value(_INT, where(in_view & (src >= 0) & (src < n), src, np.int32(n)))


def _map_index(axis: tuple, n: int, index: Value) -> Value:
    """Source index along one slot axis of extent ``n`` for a view index along ``axis``."""
    if axis[0] == "identity":
        return index  # negative indices wrap later, against the slot's extent
    if axis[0] == "indexed":
        return _indexed_source(axis, n, index)
    _, start, step, length = axis
    i = index.data
    m = xp(i, start, step, length)
    i = m.where(m.less(i, 0), i + length, i)  # negative indices count from the view's end
    src = m.add(start, m.multiply(i, step)).astype(np.int32) if m is np else start + i * step
    affine = None
    a = index.affine
    if a is not None and a.offset >= 0 and all(is_const(x) for x in (start, step)) and int(step) > 0:
        affine = Affine(a.axis, int(start) + a.offset * int(step), a.scale * int(step))
    return Value(_INT, src, affine)


def _too_many_indices(given: int, ndim: int) -> WarpCodegenError:
    return WarpCodegenError(f"Incorrect number of indices specified for array indexing, got {given} indices for a "
                            f"{ndim} dimensional array.")


def index(ref: ArrayRef, shape: tuple, idx: list[Value]) -> tuple[list[Value] | None, ArrayRef]:
    """Apply indices to a view: (full slot indices, None) for an element, else (None, sub-view)."""
    axes = _axes(ref, len(shape))
    free = _free(axes)
    if len(idx) > len(free):
        raise _too_many_indices(len(idx), len(free))
    for value, k in zip(idx, free):
        if not scalars.is_int(value.type):
            raise WarpCodegenIndexError(f"Array indices must be integers, got {type_name(value.type)}")
        axes[k] = ("fixed", _map_index(axes[k], shape[k], value))
    if len(idx) == len(free):
        return [a[1] for a in axes], ref
    return None, _make_ref(ref.slot, axes)


def _make_ref(slot: int, axes: list) -> ArrayRef:
    fixed = 0
    while fixed < len(axes) and axes[fixed][0] == "fixed":
        fixed += 1
    if all(a[0] == "identity" for a in axes[fixed:]):
        return ArrayRef(slot, tuple(a[1] for a in axes[:fixed]))
    return ArrayRef(slot, (), tuple(axes))


def _slice_bounds(lw: FunctionLowerer, node: ast.Slice, n: Any) -> tuple:
    """(start, step, length) of ``node`` over an axis of extent ``n`` (Python's slice rules)."""
    parts = []
    for part in (node.lower, node.upper, node.step):
        if part is None:
            parts.append(None)
            continue
        v = lw.eval(part)
        if not scalars.is_int(v.type):
            raise WarpCodegenIndexError(f"Slice bounds must be integers, got {type_name(v.type)}")
        parts.append(v.data)
    lo, hi, st = parts
    if st is not None and is_const(st) and int(st) == 0:
        raise WarpCodegenValueError("Slice step cannot be zero")
    if all(x is None or is_const(x) for x in parts) and is_const(n):
        r = range(int(n))[slice(*(None if x is None else int(x) for x in parts))]
        return np.int32(r.start if len(r) else 0), np.int32(r.step), np.int32(len(r))
    n = jnp.asarray(n, jnp.int32)
    # a run-time step of 0 fails the launch, as Warp aborts (XLA path; Pallas kernels keep no accumulators)
    if st is not None and not is_const(st) and lw.ctx.ref_memory is None:
        zero = st == 0 if lw.active is None else (st == 0) & lw.active
        lw.ctx.flag_site("zero_step", lw.ctx.add_site(lw.location(node)), zero)
    st = jnp.asarray(1 if st is None else st, jnp.int32)
    neg = st < 0
    default_lo = where(neg, n - 1, 0)
    default_hi = where(neg, -1, n)

    def clamp(x, default):
        if x is None:
            return default
        x = jnp.asarray(x, jnp.int32)
        x = where(x < 0, x + n, x)
        return where(neg, clip(x, -1, n - 1), clip(x, 0, n))

    lo, hi = clamp(lo, default_lo), clamp(hi, default_hi)
    safe = where(st == 0, 1, st)
    length = where(neg, (lo - hi - safe - 1) // (-safe), (hi - lo + safe - 1) // safe)
    return lo, st, jnp.maximum(length, 0).astype(jnp.int32)


def slice_view(lw: FunctionLowerer, base: Value, parts: list[ast.expr]) -> Value:
    """``base[parts]`` where some parts are slices: a view, or an element when none remain."""
    ref: ArrayRef = base.data
    shape = lw.ctx.slots[ref.slot].shape
    axes = _axes(ref, len(shape))
    free = _free(axes)
    if len(parts) > len(free):
        raise _too_many_indices(len(parts), len(free))
    for part, k in zip(parts, free):
        axis = axes[k]
        if not isinstance(part, ast.Slice):
            axes[k] = ("fixed", _map_index(axis, shape[k], lw.eval(part)))
            continue
        if axis[0] == "indexed":
            raise WarpCodegenIndexError("Indexed arrays (wp.indexedarray) cannot be sliced in kernel code, as in Warp")
        if axis[0] == "identity":
            axis = ("view", np.int32(0), np.int32(1), np.int32(shape[k]))
        _, start0, step0, length0 = axis
        start, step, length = _slice_bounds(lw, part, length0)
        m = xp(start0, step0, start, step)
        axes[k] = ("view", m.add(start0, m.multiply(start, step0)), m.multiply(step0, step), length)
    new = _make_ref(ref.slot, axes)
    ndim = len(_free(axes))
    return Value(ArrayType(base.type.dtype, ndim), new)


def first_extent(ref: ArrayRef, shape: tuple) -> Any:
    """Extent of the view's first dimension (``len(a)``, ``a.shape[0]``)."""
    return view_shape(ref, shape)[0]
