"""``wp.utils``: Warp's array utilities (reductions, scans, sorts, run-length encoding, casts)
and ``wp.ScopedTimer``.

Each function validates its arguments with Warp 1.19's checks and messages, then computes on the
arrays' jax buffers and writes results with ``_set_buffer`` (views write through). Differences:

- Reductions and scans run as XLA reductions (tree order), so float sums can differ from Warp's
  CPU loop (sequential order) in the last bits, as Warp's own CUDA path does. A strided view
  reduced with ``axis=None`` sums the view's elements (Warp 1.19 reads it as if contiguous).
- ``radix_sort_pairs`` / ``segmented_sort_pairs`` leave the scratch half ``[count, 2*count)`` of
  ``keys``/``values`` untouched (Warp's documentation says it "may be overwritten").
- As in Warp, ``array_sum``/``array_inner``/``array_scan``/sorts are not recorded on a ``wp.Tape``;
  ``array_cast`` between arrays of the same shape is a kernel launch, so it is recorded.
- ``ScopedTimer(cuda_filter=...)`` collects no CUDA activity (XLA exposes none): ``timing_results``
  is empty.

Example:
    >>> import numpy as np, jwarp as wp
    >>> a = wp.array(np.arange(4, dtype=np.float32))
    >>> float(wp.utils.array_sum(a))
    6.0
"""

from __future__ import annotations

import operator
import sys
import threading
import time
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

import jwarp as wp
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import type_name
from jwarp.lang.struct import StructType
from jwarp.runtime import storage, tape_state
from jwarp.runtime.array import array

_FLOATS = (scalars.float32, scalars.float64)
_SCAN_SCALARS = (scalars.int32, scalars.int64, scalars.float32, scalars.float64)


class ScopedTimer:
    """Context manager timing its block (Warp's ``wp.ScopedTimer``; same arguments).

    ``elapsed`` is the block's wall time in milliseconds. ``synchronize=True`` waits for all
    outstanding device work on entry and exit, so the time includes jwarp's asynchronous launches.
    On exit it prints ``"<name> took <ms> ms"`` (indented when nested), appends to ``dict[name]``,
    and opens a named scope on the active ``wp.Tape`` unless ``skip_tape``.
    """

    _thread_local = threading.local()
    enabled = True

    def __init__(self, name: str, active: bool = True, print: bool = True, detailed: bool = False,
                 dict: dict[str, list[float]] | None = None, use_nvtx: bool = False, color: int | str = "rapids",
                 synchronize: bool = False, cuda_filter: int = 0,
                 report_func: Callable[[list, str], None] | None = None, skip_tape: bool = False):
        self.name = name
        self.active = active and self.enabled
        self.print = print
        self.detailed = detailed
        self.dict = dict
        self.use_nvtx = use_nvtx
        self.color = color
        self.synchronize = synchronize
        self.skip_tape = skip_tape
        self.elapsed = 0.0
        self.cuda_filter = cuda_filter
        self.report_func = report_func
        self.extra_msg = ""
        if self.dict is not None and name not in self.dict:
            self.dict[name] = []
        if not hasattr(ScopedTimer._thread_local, "indent"):
            ScopedTimer._thread_local.indent = -1

    def __enter__(self) -> ScopedTimer:
        if self.active:
            if self.synchronize:
                wp.synchronize()
            if self.detailed:
                import cProfile

                self.cp = cProfile.Profile()
                self.cp.enable()
            if self.use_nvtx:
                import nvtx

                self.nvtx_range_id = nvtx.start_range(self.name, color=self.color)
            if self.print:
                ScopedTimer._thread_local.indent += 1
                if wp.config.log_level <= 10:  # Warp's LOG_DEBUG
                    sys.stdout.write(f"{'    ' * ScopedTimer._thread_local.indent}{self.name} ...\n")
            self.start = time.perf_counter_ns()
        tape = tape_state.active_tape()
        if not self.skip_tape and tape is not None:
            tape.record_scope_begin(self.name)
        return self

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        tape = tape_state.active_tape()
        if not self.skip_tape and tape is not None:
            tape.record_scope_end()
        if not self.active:
            return
        sync_error = None
        if self.synchronize:
            try:
                wp.synchronize()
            except Exception as error:  # reported after the timer is closed, as in Warp
                sync_error = error
        self.elapsed = (time.perf_counter_ns() - self.start) / 1000000.0
        if self.use_nvtx:
            import nvtx

            nvtx.end_range(self.nvtx_range_id)
        if self.detailed:
            self.cp.disable()
            self.cp.print_stats(sort="tottime")
        self.timing_results = []  # no CUDA activity records on XLA
        if self.dict is not None:
            self.dict[self.name].append(self.elapsed)
        if self.print:
            indent = "    " * ScopedTimer._thread_local.indent
            if self.timing_results and self.report_func is not None:
                self.report_func(self.timing_results, indent)
            extra = f" {self.extra_msg}" if self.extra_msg else ""
            sys.stdout.write(f"{indent}{self.name} took {self.elapsed:.2f} ms{extra}\n")
            ScopedTimer._thread_local.indent -= 1
        if sync_error is not None and exc_type is None:
            raise sync_error


# -- helpers ---------------------------------------------------------------------------------------
def _scalar(dtype: Any) -> Any:
    return storage.scalar_of(dtype)


def _components(dtype: Any) -> tuple[int, ...]:
    return storage.element_shape(dtype)


def _size_in_bytes(dtype: Any) -> int:
    if isinstance(dtype, StructType):
        return dtype.np_dtype().itemsize
    return np.dtype(_scalar(dtype)._np_dtype).itemsize * int(np.prod(_components(dtype)))


def _flat(a: array) -> Any:
    """The buffer as ``(size, *components)`` (a tuple of those for struct dtypes)."""
    return jax.tree.map(lambda b: b.reshape((a.size,) + b.shape[a.ndim:]), a.buffer)


def _store_flat(a: array, flat: Any) -> None:
    a._set_buffer(jax.tree.map(lambda f: f.reshape(a.shape + f.shape[1:]), flat))


def _host_scalar(x: Any) -> Any:
    return np.asarray(storage.fetch(x))[()]


def _traced(x: Any) -> bool:
    return isinstance(x, jax.core.Tracer)


def _check_axis(operation: str, axis: Any, ndim: int) -> int:
    axis = operator.index(axis)
    if axis < -ndim or axis >= ndim:
        raise IndexError(f"{operation}() axis {axis} is out of bounds for an array with {ndim} dimensions")
    return axis % ndim


def _check_out(out: array, device: Any, dtype: Any, shape: tuple) -> None:
    if out.device != device:
        raise RuntimeError("out storage device should match values array")
    if out.dtype != dtype:
        raise RuntimeError(f"out array should have type {type_name(dtype)}")
    if out.shape != shape:
        raise RuntimeError(f"out array should have shape {shape}")


# -- reductions ------------------------------------------------------------------------------------
def _reduce(operation: str, inputs: tuple, out: array | None, count: int | None, axis: Any, out_dtype: Any) -> Any:
    """Shared body of :func:`array_sum` (one input) and :func:`array_inner` (two inputs)."""
    first = inputs[0]
    if axis is not None:
        axis = _check_axis(operation, axis, first.ndim)
    if count is None:
        count = first.size if axis is None else first.shape[axis]
    out_shape = (1,) if axis is None else tuple(1 if d == axis else n for d, n in enumerate(first.shape))
    host_return = out is None
    if out is not None:
        _check_out(out, first.device, out_dtype, out_shape)
    if count == 0:
        if axis is None and host_return:
            if len(inputs) == 2:
                return 0.0
            return np.zeros(_components(out_dtype), dtype=_scalar(out_dtype)._np_dtype)[()]
        out = out if out is not None else wp.empty(out_shape, dtype=out_dtype, device=first.device)
        out.zero_()
        return out
    if _scalar(first.dtype) not in _FLOATS:
        raise RuntimeError(f"Unsupported data type: {type_name(first.dtype)}")
    count = max(count, 0)  # Warp's loop runs no iteration for a negative count
    with storage.x64():
        if axis is None:
            parts = [_flat(a)[:count] for a in inputs]
            reduce_axis = 0
        else:
            parts = [jax.lax.slice_in_dim(a.buffer, 0, min(count, a.shape[axis]), axis=axis) for a in inputs]
            reduce_axis = axis
        values = parts[0]
        if len(parts) == 2:  # inner product: multiply, then add up each element's components
            values = values * parts[1]
            n_comp = len(_components(first.dtype))
            if n_comp:
                values = jnp.sum(values, axis=tuple(range(values.ndim - n_comp, values.ndim)), dtype=values.dtype)
        result = jnp.sum(values, axis=reduce_axis, dtype=values.dtype, keepdims=axis is not None)
        if axis is None:
            if host_return:
                return _host_scalar(result)
            result = result[None]
        if out is None:
            out = wp.empty(out_shape, dtype=out_dtype, device=first.device)
        out._set_buffer(result)
    return out


def array_sum(values: array, out: array | None = None, value_count: int | None = None, axis: int | None = None) -> Any:
    """Sum of ``values`` (float32/float64 scalars or composites, summed per component).

    With ``axis=None`` and no ``out`` the sum is returned on the host (a numpy scalar, or a numpy
    array for composite dtypes); otherwise ``out`` (shape ``(1,)``, or ``values.shape`` with 1 at
    ``axis``) receives it and is returned. ``value_count`` limits the sum to the first elements
    (along ``axis`` when given).
    """
    return _reduce("array_sum", (values,), out, value_count, axis, values.dtype)


def array_inner(a: array, b: array, out: array | None = None, count: int | None = None,
                axis: int | None = None) -> Any:
    """Inner product of two arrays of the same shape and dtype (composites: sum of component
    products), over the flattened arrays or along ``axis``; host return as :func:`array_sum`."""
    if a.shape != b.shape:
        raise ValueError(f"array_inner() arguments must have the same shape, got {a.shape} and {b.shape}")
    if a.device != b.device:
        raise RuntimeError(f"A and b array storage devices do not match ({a.device} vs {b.device})")
    if a.dtype != b.dtype:
        raise RuntimeError(f"A and b array data types do not match ({type_name(a.dtype)} vs {type_name(b.dtype)})")
    return _reduce("array_inner", (a, b), out, count, axis, _scalar(a.dtype))


# -- scan ------------------------------------------------------------------------------------------
def array_scan(in_array: array, out_array: array, inclusive: bool = True) -> None:
    """Prefix sum of ``in_array`` (flattened; vectors component-wise) into ``out_array``.

    Scalar types int32, int64, float32, float64; ``inclusive=False`` gives the exclusive scan.
    """
    if in_array.device != out_array.device:
        raise RuntimeError(f"In and out array storage devices do not match ({in_array.device} vs {out_array.device})")
    if in_array.size != out_array.size:
        raise RuntimeError(f"In and out array storage sizes do not match ({in_array.size} vs {out_array.size})")
    if in_array.dtype != out_array.dtype:
        raise RuntimeError(f"In and out array data types do not match ({type_name(in_array.dtype)} vs "
                           f"{type_name(out_array.dtype)})")
    if in_array.size == 0:
        return
    if not in_array.is_contiguous and in_array.ndim != 1:
        raise RuntimeError("Input array must be contiguous or one-dimensional")
    if not out_array.is_contiguous and out_array.ndim != 1:
        raise RuntimeError("Output array must be contiguous or one-dimensional")
    dtype = in_array.dtype
    if not (scalars.is_scalar_type(dtype) or composites.is_vector(dtype)) or _scalar(dtype) not in _SCAN_SCALARS:
        raise RuntimeError(f"Unsupported data type: {type_name(dtype)}")
    with storage.x64():
        flat = _flat(in_array)
        summed = jnp.cumsum(flat, axis=0, dtype=flat.dtype)
        if not inclusive:
            summed = jnp.concatenate([jnp.zeros_like(summed[:1]), summed[:-1]], axis=0)
        _store_flat(out_array, summed)


# -- sorting ---------------------------------------------------------------------------------------
_KEY_BITS = {scalars.int32: 32, scalars.uint32: 32, scalars.float32: 32,
             scalars.int64: 64, scalars.uint64: 64, scalars.float64: 64}


def _radix_key(keys: Any, dtype: Any) -> Any:
    """Keys mapped to unsigned integers whose order is the keys' order (Warp's radix keys:
    signed integers flip the sign bit; floats flip all bits of negatives, the sign of others)."""
    bits = _KEY_BITS[dtype]
    unsigned = jnp.uint32 if bits == 32 else jnp.uint64
    sign = unsigned(1 << (bits - 1))
    raw = jax.lax.bitcast_convert_type(keys, unsigned)
    if dtype in (scalars.int32, scalars.int64):
        return raw ^ sign
    if dtype in (scalars.float32, scalars.float64):
        return jnp.where((raw & sign) != 0, ~raw, raw ^ sign)
    return raw


def _permute_prefix(a: array, order: Any, count: int) -> None:
    """Reorder the first ``count`` elements of ``a`` by ``order``."""
    flat = _flat(a)
    _store_flat(a, jax.tree.map(lambda f: f.at[:count].set(f[:count][order]), flat))


def radix_sort_pairs(keys: array, values: array, count: int, begin_bit: int = 0, end_bit: int | None = None) -> None:
    """Stable sort of ``keys[:count]`` (and ``values[:count]`` with them), in place.

    Keys: int32, uint32, float32, int64, uint64, float64; values: any 4- or 8-byte type. As in
    Warp the arrays must hold ``2*count`` elements, and only key bits ``[begin_bit, end_bit)`` are
    compared (floats in Warp's radix order: ``-0.0`` before ``0.0``, NaN after ``inf``).
    """
    if keys.device != values.device:
        raise RuntimeError(f"Keys and values array storage devices do not match ({keys.device} vs {values.device})")
    if count == 0:
        return
    if keys.size < 2 * count or values.size < 2 * count:
        raise RuntimeError("Keys and values array storage must be large enough to contain 2*count elements")
    names = f"{type_name(keys.dtype)}, {type_name(values.dtype)}"
    if _size_in_bytes(values.dtype) not in (4, 8):
        raise RuntimeError(f"Unsupported keys and values data types: {names}")
    if not keys.is_contiguous:
        raise RuntimeError(f"radix_sort_pairs() requires a contiguous keys array, got non-contiguous keys with "
                           f"data types: {names}")
    if not values.is_contiguous:
        raise RuntimeError(f"radix_sort_pairs() requires a contiguous values array, got non-contiguous values with "
                           f"data types: {names}")
    bits = _KEY_BITS.get(keys.dtype)
    if bits is None:
        raise RuntimeError(f"Unsupported keys and values data types: {names}")
    end_bit = bits if end_bit is None else end_bit
    if not isinstance(begin_bit, int) or not isinstance(end_bit, int):
        raise RuntimeError("begin_bit and end_bit must be integers")
    if not 0 <= begin_bit <= end_bit <= bits:
        raise RuntimeError(f"Invalid radix sort bit range [{begin_bit}, {end_bit}) for {bits}-bit keys")
    if begin_bit == end_bit:
        return
    with storage.x64():
        radix = _radix_key(_flat(keys)[:count], keys.dtype)
        width = end_bit - begin_bit
        if width < bits:
            radix = (radix >> radix.dtype.type(begin_bit)) & radix.dtype.type((1 << width) - 1)
        order = jnp.argsort(radix, stable=True)
        _permute_prefix(keys, order, count)
        _permute_prefix(values, order, count)


def segmented_sort_pairs(keys: array, values: array, count: int, segment_start_indices: array,
                         segment_end_indices: array | None = None) -> None:
    """Stable sort of each segment ``[start, end)`` of ``keys[:count]`` (int32 or float32) with
    int32 ``values``, in place; elements outside the segments keep their place. Without
    ``segment_end_indices`` adjacent starts delimit the segments. Segments must not overlap.
    Invalid ranges raise ``ValueError`` on CPU devices (Warp does not check them on CUDA)."""
    if isinstance(count, bool):
        raise TypeError("count must be an integer")
    try:
        count = operator.index(count)
    except TypeError as e:
        raise TypeError("count must be an integer") from e
    if count < 0:
        raise ValueError(f"count must be non-negative, got {count}")
    if count > (1 << 31) - 1:
        raise ValueError(f"count must not exceed {(1 << 31) - 1}, got {count}")
    ends = segment_end_indices
    if keys.device != values.device or segment_start_indices.device != keys.device or (
            ends is not None and ends.device != keys.device):
        raise RuntimeError("Keys, values, and segment index array storage devices must match")
    if count == 0:
        return
    if keys.size < 2 * count or values.size < 2 * count:
        raise RuntimeError("Array storage must be large enough to contain 2*count elements")
    for what, a in (("keys", keys), ("values", values)):
        if not a.is_contiguous:
            raise RuntimeError(f"segmented_sort_pairs() requires a contiguous {what} array")
    for what, a in (("segment_start_indices", segment_start_indices), ("segment_end_indices", ends)):
        if a is None:
            continue
        if a.dtype != scalars.int32:
            raise RuntimeError(f"{what} array must be of type int32")
        if a.ndim != 1:
            raise RuntimeError(f"{what} must be one-dimensional")
        if not a.is_contiguous:
            raise RuntimeError(f"segmented_sort_pairs() requires a contiguous {what} array")
    starts = segment_start_indices.buffer
    if ends is None:
        if segment_start_indices.size < 2:
            return
        starts, ends = starts[:-1], starts[1:]
    else:
        if segment_start_indices.size != ends.size:
            raise RuntimeError("segment_start_indices and segment_end_indices must have the same size "
                               f"({segment_start_indices.size} vs {ends.size})")
        if ends.size == 0:
            return
        ends = ends.buffer
    if keys.dtype not in (scalars.int32, scalars.float32) or values.dtype != scalars.int32:
        raise RuntimeError(f"Unsupported data type: {type_name(keys.dtype)}")
    if keys.device.is_cpu and not _traced(starts):
        _check_segments(np.asarray(starts), np.asarray(ends), count)
    with storage.x64():
        order = _segmented_order(_flat(keys)[:count], keys.dtype, starts, ends, count)
        _permute_prefix(keys, order, count)
        _permute_prefix(values, order, count)


def _check_segments(starts: np.ndarray, ends: np.ndarray, count: int) -> None:
    for i, (start, end) in enumerate(zip(starts.tolist(), ends.tolist())):
        if start < 0 or end < start or end > count:
            raise ValueError(f"Warp sort error: Invalid segment range at index {i}: [{start}, {end}) for count {count}")


def _segmented_order(keys: Any, dtype: Any, starts: Any, ends: Any, count: int) -> Any:
    """Permutation sorting each segment: order by (segment start, key) for elements inside a
    segment and by their own position outside, which keeps every segment in its place."""
    position = jnp.arange(count, dtype=jnp.int32)
    nonempty = (starts < ends) & (starts >= 0) & (ends <= count)
    at_start = jnp.where(nonempty, starts, count)  # index ``count`` is dropped by the scatters
    marks = jnp.full(count, -1, jnp.int32).at[at_start].max(starts, mode="drop")
    depth = jnp.zeros(count + 1, jnp.int32).at[at_start].add(1, mode="drop")
    depth = depth.at[jnp.where(nonempty, ends, count + 1)].add(-1, mode="drop")
    inside = jnp.cumsum(depth)[:count] > 0
    primary = jnp.where(inside, jax.lax.cummax(marks, axis=0), position)
    secondary = jnp.where(inside, _radix_key(keys, dtype), jnp.uint32(0))
    return jax.lax.sort((primary, secondary, position), num_keys=2, is_stable=True)[2]


# -- run-length encoding ---------------------------------------------------------------------------
def runlength_encode(values: array, run_values: array, run_lengths: array, run_count: array | None = None,
                     value_count: int | None = None) -> Any:
    """Run-length encode the first ``value_count`` int32 ``values``: each run's value and length go
    to ``run_values``/``run_lengths`` (later entries are left as they were); the number of runs is
    returned as an int, or stored in ``run_count[0]`` (and ``run_count`` returned) when given."""
    if run_values.device != values.device or run_lengths.device != values.device:
        raise RuntimeError("run_values, run_lengths and values storage devices do not match")
    if value_count is None:
        value_count = values.size
    elif value_count < 0:
        raise RuntimeError(f"value_count must be non-negative, got {value_count}")
    if run_values.size < value_count or run_lengths.size < value_count:
        raise RuntimeError(f"Output array storage sizes must be at least equal to value_count ({value_count})")
    if values.dtype != run_values.dtype:
        raise RuntimeError(f"values and run_values data types do not match ({type_name(values.dtype)} vs "
                           f"{type_name(run_values.dtype)})")
    if run_lengths.dtype != scalars.int32:
        raise RuntimeError("run_lengths array must be of type int32")
    if run_count is None:
        if value_count == 0:
            return 0
    else:
        if run_count.device != values.device:
            raise RuntimeError("run_count storage device does not match other arrays")
        if run_count.dtype != scalars.int32:
            raise RuntimeError("run_count array must be of type int32")
        if value_count == 0:
            run_count.zero_()
            return run_count
    if values.dtype != scalars.int32:
        raise RuntimeError(f"Unsupported data type: {type_name(values.dtype)}")
    n = value_count
    v = _flat(values)[:n]
    starts = jnp.concatenate([jnp.ones(1, bool), v[1:] != v[:-1]])
    run = jnp.cumsum(starts.astype(jnp.int32)) - 1
    runs = run[-1] + 1
    written = jnp.arange(n) < runs
    out_values = jnp.zeros(n, v.dtype).at[run].set(v)
    out_lengths = jnp.zeros(n, jnp.int32).at[run].add(1)
    for target, new in ((run_values, out_values), (run_lengths, out_lengths)):
        flat = _flat(target)
        _store_flat(target, flat.at[:n].set(jnp.where(written, new, flat[:n])))
    if run_count is None:
        return int(runs)
    _store_flat(run_count, _flat(run_count).at[0].set(runs))
    return run_count


# -- casts -----------------------------------------------------------------------------------------
_cast_kernels: dict = {}


def _cast_kernel(dtype: Any, ndim: int) -> Any:
    """A kernel storing ``dtype(src[idx])`` into ``dest[idx]`` over an ``ndim`` grid."""
    key = (dtype, ndim)
    if key not in _cast_kernels:
        if ndim == 1:
            def cast_1d(dest: wp.array(dtype=Any), src: wp.array(dtype=Any)):
                i = wp.tid()
                dest[i] = dtype(src[i])
            fn = cast_1d
        elif ndim == 2:
            def cast_2d(dest: wp.array2d(dtype=Any), src: wp.array2d(dtype=Any)):
                i, j = wp.tid()
                dest[i, j] = dtype(src[i, j])
            fn = cast_2d
        elif ndim == 3:
            def cast_3d(dest: wp.array3d(dtype=Any), src: wp.array3d(dtype=Any)):
                i, j, k = wp.tid()
                dest[i, j, k] = dtype(src[i, j, k])
            fn = cast_3d
        else:
            def cast_4d(dest: wp.array4d(dtype=Any), src: wp.array4d(dtype=Any)):
                i, j, k, l = wp.tid()
                dest[i, j, k, l] = dtype(src[i, j, k, l])
            fn = cast_4d
        _cast_kernels[key] = wp.kernel(fn)
    return _cast_kernels[key]


def array_cast(in_array: array, out_array: array, count: int | None = None) -> None:
    """Cast ``in_array``'s elements into ``out_array``'s dtype (C conversions: float→int truncates).

    Arrays of different ndim or element shape are cast as flat scalar sequences (``count`` then
    counts elements of ``in_array``); multi-dimensional casts cannot be partial. The same dtype
    is a plain ``wp.copy``. Same-shape casts are kernel launches (recorded on a ``wp.Tape``).
    """
    if in_array.device != out_array.device:
        raise RuntimeError(f"Array storage devices do not match ({in_array.device} vs {out_array.device})")
    if in_array.ndim != out_array.ndim or _components(in_array.dtype) != _components(out_array.dtype):
        _cast_flat(in_array, out_array, count)
        return
    if count is None:
        count = in_array.size
    if in_array.ndim > 1 and count < in_array.size:
        raise RuntimeError("Partial cast is not supported for arrays with more than one dimension")
    if in_array.dtype == out_array.dtype:
        wp.copy(dest=out_array, src=in_array, count=count)
        return
    if in_array.ndim > 1 and in_array.shape != out_array.shape:
        raise RuntimeError(f"Array shapes do not match ({in_array.shape} vs {out_array.shape})")
    if count > in_array.size or count > out_array.size:
        raise RuntimeError(f"Cast count ({count}) exceeds the input size ({in_array.size}) or output size "
                           f"({out_array.size})")
    dim = count if in_array.ndim == 1 else in_array.shape
    wp.launch(_cast_kernel(out_array.dtype, in_array.ndim), dim=dim, inputs=[out_array, in_array],
              device=out_array.device)


def _cast_flat(in_array: array, out_array: array, count: int | None) -> None:
    """Warp casts mismatched layouts through flat scalar aliases of both arrays (no gradients)."""
    in_len, out_len = int(np.prod(_components(in_array.dtype))), int(np.prod(_components(out_array.dtype)))
    in_size, out_size = in_array.size * in_len, out_array.size * out_len
    count = in_size if count is None else count * in_len
    in_scalar, out_scalar = _scalar(in_array.dtype), _scalar(out_array.dtype)
    if in_scalar is out_scalar:
        if count < 0 or count > in_size or count > out_size:
            raise RuntimeError(f"Copy count ({count}) is out of bounds for sizes {in_size} and {out_size}")
    elif count > in_size or count > out_size:
        raise RuntimeError(f"Cast count ({count}) exceeds the input size ({in_size}) or output size ({out_size})")
    with storage.x64():
        source = in_array.buffer.reshape(-1)[:count].astype(out_scalar._np_dtype)
        target = out_array.buffer.reshape(-1).at[:count].set(source)
        out_array._set_buffer(target.reshape(out_array.buffer.shape))


__all__ = ["ScopedTimer", "array_cast", "array_inner", "array_scan", "array_sum", "radix_sort_pairs",
           "runlength_encode", "segmented_sort_pairs"]
