"""The backward pass of a :class:`~jwarp.runtime.tape.Tape`: recorded launches → one
``jax.vjp`` per segment of launches, accumulating into ``.grad`` arrays.

A *segment* is a run of recorded launches (cut at functions recorded with
``Tape.record_func``, and into chunks of at most :data:`MAX_SEGMENT` launches). For each
segment a pure function maps the entering contents of the arrays that have gradients to
their contents after the segment, by running every launch's kernel function in order;
arrays without gradients enter as the buffers the launch actually read, so gradients stop
there, as in Warp. ``jax.vjp`` of that function, pulled back from the arrays' current
``.grad`` contents, gives their new ``.grad`` contents: stored outputs' adjoints are
consumed, atomically updated ones pass through, read inputs accumulate (Warp's rules).

The jitted backward of a segment is cached by the segment's *structure* (compiled kernels,
how they share arrays, which arrays have gradients), numbered relative to the segment, so a
time-stepping loop's repeated chunks and the next iteration's tape reuse one executable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.extend.core as jax_core
import jax.numpy as jnp
import numpy as np

from jwarp.compiler.emitters import level_options
from jwarp.compiler.views import apply_chain, write_back
from jwarp.runtime.differentiable import (
    bounded_kernel,
    evaluate,
    has_dynamic_loops,
    float_leaves_vjp,
    is_float_array,
    keep_stored,
    stored_mask,
    transparent,
    trip_counts,
    x64_scope,
)
from jwarp.runtime.kernel import on_forget_compiled
from jwarp.runtime import memory_budget
from jwarp.runtime.lane_chunks import lane_chunk_kernel
from jwarp.runtime.launch_config import normalize_dim
from jwarp.runtime.preparation import prepare, prepare_with_trips
from jwarp.runtime.zero_buffers import is_shared_zeros, shared_zeros

# Launches differentiated by one fused program (rounded up to one period of a repeating launch
# pattern). Measured on a 2-core CPU: a 100-step simulation's backward 4.4 ms with 1, 7.3 ms with 8
# (compile 158 vs 437 ms), a 3-kernel elementwise chain the same for 1..8; longer programs compile
# slowly and XLA gains nothing from fusing across launches here.
MAX_SEGMENT = 1
_MAX_PERIOD = 16
# backward programs by segment structure, least recently used first; each holds a compiled
# executable (a few MB on CPU), so the cache is bounded
_CACHE: dict = {}
_CACHE_LIMIT = 64
on_forget_compiled(_CACHE.clear)


@dataclass
class LaunchRecord:
    """One recorded launch: the kernel, its compiled form, and the buffers it read/wrote."""

    kernel: Any
    compiled: Any
    bases: list  # root arrays, in binding order
    in_bufs: list  # buffers the launch read (aligned with bases)
    out_bufs: dict  # base index -> buffer the launch wrote
    values: list  # scalar/composite arguments as jax arrays
    trips: dict | None  # dynamic loop trip counts (record_trips run), or None
    dim: tuple = ()
    device: Any = None
    arguments: list = field(default_factory=list)  # array arguments (for tape.gradients)
    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    max_blocks: int = 0
    block_dim: int = 1
    _backward_kernel: Any = None

    @classmethod
    def from_launch(cls, prepared: Any, buffers: list, new_bases: dict, diagnostics: dict | None) -> LaunchRecord:
        trips = trip_counts(diagnostics) if diagnostics else None
        inputs, outputs = getattr(prepared, "tape_args", ([a for _, a in prepared.binding.arrays], []))
        return cls(
            kernel=prepared.kernel,
            compiled=prepared.compiled,
            bases=list(prepared.binding.bases),
            in_bufs=list(buffers),
            out_bufs=dict(new_bases),
            values=list(prepared.binding.values),
            trips=trips or None,
            dim=prepared.dim,
            device=prepared.device,
            arguments=[a for _, a in prepared.binding.arrays],
            inputs=inputs,
            outputs=outputs,
            max_blocks=prepared.max_blocks,
            block_dim=prepared.block_dim,
        )

    def backward_kernel(self) -> Any:
        """The compiled kernel to differentiate (bounded loops when the kernel has dynamic ones)."""
        if self._backward_kernel is None:
            if self.trips is None:
                self._backward_kernel = self.compiled
            else:
                self._backward_kernel = bounded_kernel(self.kernel, self.compiled, self.trips,
                                                       [*self.in_bufs, *self.values])
        return self._backward_kernel

    @property
    def skip(self) -> bool:
        return not self.kernel.enable_backward

    def step(self, diff_mask: tuple[bool, ...] = ()) -> tuple[Any, Callable, bool, list]:
        """(structure key, pure ``(bases, values) -> {base index: new buffer}``, needs 64-bit, the
        values to call it with).
        ``diff_mask``: which bases carry gradients; a large launch's vjp with respect to those then
        runs chunk by chunk over its grid (see lane_chunks.py)."""
        kern = self.backward_kernel()
        budget = memory_budget.budget_bytes(self.device) if any(diff_mask) else 0
        chunked = lane_chunk_kernel(self.kernel, kern, self.in_bufs, self.values, self.out_bufs, diff_mask, budget)
        # a chunked launch's backward takes what the launch wrote as its forward's result
        values = list(self.values) if chunked is None else [*self.values, *chunked[1]]
        kern = kern if chunked is None else chunked[0]
        return (id(kern), kern), (lambda bufs, values: evaluate(kern, bufs, values)), kern.uses_x64, values

    # Warp's tape entries are lists [kernel, dim, max_blocks, inputs, outputs, device, block_dim, metadata]
    def __getitem__(self, index: int) -> Any:
        return (self.kernel, self.dim, self.max_blocks, self.inputs, self.outputs, self.device, self.block_dim,
                {})[index]

    def __len__(self) -> int:
        return 8


@dataclass
class DeferredLaunch:
    """A launch recorded with ``Tape.record_launch`` without running it: the backward pass
    differentiates it at the arrays' contents at that time (as Warp does)."""

    kernel: Any
    dim: tuple
    max_blocks: int
    inputs: list
    outputs: list
    device: Any
    block_dim: int
    metadata: dict

    def __getitem__(self, index: int) -> Any:
        return (self.kernel, self.dim, self.max_blocks, self.inputs, self.outputs, self.device, self.block_dim,
                self.metadata)[index]

    def __len__(self) -> int:
        return 8

    def resolve(self) -> LaunchRecord:
        """Evaluate the launch functionally (nothing is written) and record what it did."""
        dim, _ = normalize_dim(self.dim)
        args = [*self.inputs, *self.outputs]
        prepared = prepare(self.kernel, dim, args, self.device, self.block_dim, self.max_blocks, taped=True)
        if has_dynamic_loops(prepared.compiled):
            prepared = prepare_with_trips(prepared, args)
        prepared.tape_args = (list(self.inputs), list(self.outputs))
        buffers, new_bases, diagnostics = prepared.evaluate()
        return LaunchRecord.from_launch(prepared, buffers, new_bases, diagnostics)


@dataclass
class CopyRecord:
    """A ``wp.copy`` (or ``assign``/``clone``) between arrays that both have gradients."""

    dest: Any
    src: Any
    dest_offset: int
    src_offset: int
    count: int
    bases: list
    in_bufs: list
    out_bufs: dict
    values: list = field(default_factory=list)
    skip: bool = False

    @classmethod
    def from_copy(cls, dest: Any, src: Any, dest_offset: int, src_offset: int, count: int,
                  before: tuple) -> CopyRecord:
        bases = [dest.root] if src.root is dest.root else [dest.root, src.root]
        in_bufs = list(before[: len(bases)])
        return cls(dest, src, dest_offset, src_offset, count, bases, in_bufs, {0: dest.root._buffer})

    @property
    def arguments(self) -> list:
        return [self.dest, self.src]

    def step(self, diff_mask: tuple[bool, ...] = ()) -> tuple[Any, Callable, bool, list]:
        dest, src, d_off, s_off, count = self.dest, self.src, self.dest_offset, self.src_offset, self.count
        d_chain, s_chain, s_base = dest._chain, src._chain, len(self.bases) - 1
        d_shape, s_shape = dest.shape, src.shape
        d_size, s_size = dest.size, src.size

        def copy(bufs: list, values: list) -> dict:
            d_view = apply_chain(bufs[0], d_chain)
            s_view = apply_chain(bufs[s_base], s_chain)
            d_flat = d_view.reshape((d_size,) + d_view.shape[len(d_shape):])
            s_flat = s_view.reshape((s_size,) + s_view.shape[len(s_shape):])
            new = d_flat.at[d_off : d_off + count].set(s_flat[s_off : s_off + count]).reshape(d_view.shape)
            return {0: write_back(bufs[0], d_chain, new)}

        # the backward cache keys on the first item: it must identify the copy's whole structure
        key = (("copy", d_chain, s_chain, d_shape, s_shape, d_off, s_off, count, s_base),)
        return key, copy, any(np.dtype(b.dtype).itemsize == 8 for b in self.in_bufs), list(self.values)


def run_backward(entries: list, warn_skipped: Callable[[Any], None]) -> None:
    """Walk ``entries`` (LaunchRecords and callables) in reverse, updating ``.grad`` arrays."""
    entries = [e.resolve() if isinstance(e, DeferredLaunch) else e for e in entries]
    segment: list[LaunchRecord] = []
    for entry in reversed(entries):
        if isinstance(entry, (LaunchRecord, CopyRecord)):
            segment.append(entry)
            continue
        _run_segment(segment[::-1], warn_skipped)
        segment = []
        entry()
    _run_segment(segment[::-1], warn_skipped)


def _run_segment(records: list, warn_skipped: Callable[[Any], None]) -> None:
    for r in records:
        if r.skip:
            warn_skipped(r.kernel)
    for chunk in reversed(_chunks(records)):
        _backward_chunk(chunk)


def _chunks(records: list) -> list[list]:
    """Split a long segment into chunks whose length is a multiple of the launch pattern's
    period, so that the chunks of a time-stepping loop share one structure."""
    n = len(records)
    if n <= MAX_SEGMENT:
        return [records] if records else []
    ids = [id(getattr(r, "compiled", None)) for r in records]
    period = 1
    for p in range(1, _MAX_PERIOD + 1):
        same = sum(ids[i] == ids[i + p] for i in range(n - p))
        if same >= 0.9 * (n - p):
            period = p
            break
    length = max(period, (MAX_SEGMENT // period) * period)
    return [records[i : i + length] for i in range(0, n, length)]


def _backward_chunk(records: list) -> None:
    arrays: list = []
    local: dict[int, int] = {}
    for r in records:
        for b in r.bases:
            if id(b) not in local:
                local[id(b)] = len(arrays)
                arrays.append(b)
    diff = tuple(a._grad is not None and is_float_array(a) for a in arrays)
    if not any(diff):
        return
    retain = tuple(d and a._retain_grad for d, a in zip(diff, arrays))
    # (a launch writing a retain_grad array keeps the whole-grid vjp: keep_stored differentiates it forward)
    steps = [r.step(() if any(retain[local[id(b)]] for b in r.bases) else tuple(diff[local[id(b)]] for b in r.bases))
             for r in records]
    last: dict[int, Any] = {}
    first: dict[int, Any] = {}
    keys, consts = [], []
    for r, (step_key, _, _, step_values) in zip(records, steps):
        ids = tuple(local[id(b)] for b in r.bases)
        refresh, c_in = [], []
        for lid, buf in zip(ids, r.in_bufs):
            if not diff[lid]:
                refresh.append(False)
                c_in.append(buf)
            elif lid not in last:
                first[lid] = last[lid] = buf
                refresh.append(False)
                c_in.append(None)
            elif last[lid] is buf:
                refresh.append(False)
                c_in.append(None)
            else:  # written outside kernels since the last launch (fill_, assign…): gradient passes through
                last[lid] = buf
                refresh.append(True)
                c_in.append(buf)
        skip = r.skip
        c_out = {}
        for index, buf in r.out_bufs.items():
            if diff[ids[index]]:
                last[ids[index]] = buf
                if skip:
                    c_out[index] = buf
        keys.append((step_key[0], ids, tuple(refresh), skip, tuple(sorted(r.out_bufs))))
        consts.append((c_in, step_values, c_out))
    diff_ids = [lid for lid, d in enumerate(diff) if d]
    cts = tuple(arrays[lid]._grad.buffer for lid in diff_ids)
    zero_cts = tuple(is_shared_zeros(c) for c in cts)  # (after Tape.zero: the program need not read them)
    key = (tuple(keys), diff, retain, zero_cts)
    fn = _CACHE.pop(key, None)
    if fn is None:
        while len(_CACHE) >= _CACHE_LIMIT:
            del _CACHE[next(iter(_CACHE))]
        level = level_options(*(r.compiled.signature for r in records if getattr(r, "compiled", None) is not None))
        fn = (_make_backward([f for _, f, _, _ in steps], keys, diff, retain, diff_ids, zero_cts, level), steps)
    _CACHE[key] = fn  # (re)inserted last: the most recently used
    with x64_scope(any(x64 for _, _, x64, _ in steps)):
        new = fn[0]([first[lid] for lid in diff_ids], consts, cts, [arrays[lid]._grad for lid in diff_ids])
    for lid, g in zip(diff_ids, new):
        arrays[lid]._grad._set_buffer(g)


def _make_backward(fns: list, keys: list, diff: tuple, retain: tuple, diff_ids: list, zero_cts: tuple,
                   level: dict) -> Callable:
    """The backward program of a segment; ``zero_cts[k]``: the incoming gradient ``k`` is the shared
    zero buffer, so the program uses a constant zero instead of reading it. ``level``: XLA's options
    for the kernels' optimisation level (:func:`jwarp.compiler.emitters.level_options`)."""
    static = [(fn, ids, refresh, skip) for fn, (_, ids, refresh, skip, _) in zip(fns, keys)]

    def chain(entering: list, consts: list) -> tuple:
        env = dict(zip(diff_ids, entering))
        for (apply, ids, refresh, skip), (c_in, values, c_out) in zip(static, consts):
            bufs = []
            for j, lid in enumerate(ids):
                if not diff[lid]:
                    bufs.append(c_in[j])
                    continue
                if refresh[j]:
                    env[lid] = transparent(c_in[j], env[lid])
                bufs.append(env[lid])
            if skip:
                for index, buf in c_out.items():
                    env[ids[index]] = transparent(buf, bufs[index])
                continue
            for index, buf in apply(bufs, values).items():
                lid = ids[index]
                if retain[lid]:  # retain_grad: stores do not consume the adjoint
                    buf = keep_stored(buf, bufs[index], stored_mask(apply, bufs, values, index))
                if diff[lid]:
                    env[lid] = buf
        return tuple(env[lid] for lid in diff_ids)

    def backward(entering: list, consts: list, cts: tuple) -> tuple:
        cts = tuple(jax.tree_util.tree_map(jnp.zeros_like, c) if zero else c for c, zero in zip(cts, zero_cts))
        return tuple(float_leaves_vjp(lambda e: list(chain(e, consts)), list(entering), list(cts)))

    return _Backward(backward, level)


class _Backward:
    """A segment's jitted backward whose identically-zero gradients (those consumed by stores that
    overwrite a whole array) are not written by the program: they take the shared zero buffer of
    their shape (:func:`jwarp.runtime.zero_buffers.shared_zeros`), as ``Tape.zero`` gives them.
    Called as ``(entering, consts, cts, arrays)`` -> new gradient buffers of ``arrays``."""

    def __init__(self, fn: Callable, level: dict):
        self.fn = fn
        self.options = level or None
        self.exe: Callable | None = None
        self.zero: tuple = ()

    def __call__(self, entering: list, consts: list, cts: tuple, arrays: list) -> tuple:
        if self.exe is None:
            self._build(entering, consts, cts)
        if not self.zero:
            return self.exe(entering, consts, cts)
        computed = iter(self.exe(*jax.tree_util.tree_leaves((entering, consts, cts))))
        return tuple(shared_zeros(a.shape, a.dtype, a.device) if z else next(computed)
                     for a, z in zip(arrays, self.zero))

    def _build(self, entering: list, consts: list, cts: tuple) -> None:
        jitted = jax.jit(self.fn, compiler_options=self.options)
        closed = jitted.trace(entering, consts, cts).jaxpr
        outvars = closed.jaxpr.outvars
        zero = tuple(_is_zero_fill(closed.jaxpr, v) for v in outvars)
        if len(outvars) != len(cts) or not any(zero):  # (struct gradients: several leaves per array)
            self.exe = jitted
            return
        kept = closed.jaxpr.replace(outvars=[v for v, z in zip(outvars, zero) if not z])
        self.exe = jax.jit(jax_core.jaxpr_as_fun(jax_core.ClosedJaxpr(kept, closed.consts)),
                           compiler_options=self.options)
        self.zero = zero


def _is_zero_fill(jaxpr: Any, var: Any) -> bool:
    """Whether output ``var`` of ``jaxpr`` is a broadcast of the literal 0."""
    for eqn in jaxpr.eqns:
        if var in eqn.outvars:
            operand = eqn.invars[0] if eqn.invars else None
            return (eqn.primitive.name == "broadcast_in_dim" and isinstance(operand, jax_core.Literal)
                    and np.all(np.asarray(operand.val) == 0))
    return False
