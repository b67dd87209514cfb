"""Launch plans: the fast path shared by ``wp.launch`` and ``Launch.launch()``.

A full launch validates every argument, builds the launch signature and looks the compiled
executable up (``launch.prepare``). Everything it derives depends only on the *layout* of the
array arguments (an array's dtype, shape, view chain and device never change), on which of them
share a base array, and on the *types* of the scalar arguments. Plans are filed under the
arguments' identities (the fast lookup) and under their layouts (so new arrays of a known layout
find the plan too). A :class:`Plan` keeps that result: which argument provides
each base buffer, which arguments are converted to scalar constants, which outputs rebind which
arrays. A later launch with the same key (launch shape, device, options, array identities or layouts,
scalar types) only reads the arrays' current buffers, converts changed scalars (cached per
value) and calls the executable.

Plans are made only for plain launches: array, scalar, composite and ``None`` arguments on the
launch device (geometry ids included: :mod:`jwarp.runtime.plan_handles`), no debug diagnostics, no
``verify_fp``, nothing traced. Under an active Tape a plan
runs without donating and records the launch (:meth:`Plan.run_taped`), unless the kernel has loops
with run-time trip counts (their taped launches also measure the trip counts: full path). Anything
else takes the full path, which also produces every error message — a plan that cannot run
(a freed buffer, a traced value) hands the launch back to it before anything is written.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from jwarp import config
from jwarp.compiler.signature import ArraySpec, NoneArraySpec, ValueSpec, runtime_lanes
from jwarp.lang import composites
from jwarp.runtime import chain, deferred, launch_buckets, solo
from jwarp.runtime.array import array
from jwarp.runtime.array_layouts import layout_id
from jwarp.runtime.binding import convert_value, device_constant, names_objects
from jwarp.runtime.differentiable import has_dynamic_loops
from jwarp.runtime.execution import PreparedLaunch, concrete_array_type, new_buffers, program_of, rebind
from jwarp.runtime.plan_handles import HandleSources
from jwarp.runtime.tape_chain import LaunchRecord

_HASHABLE_SCALARS = {float, int, bool, np.bool_, *(np.dtype(c).type for c in "bBhHiIlLqQefd")}
_PLAN_LIMIT = 256
_VALUE_LIMIT = 1024


def arg_key(args: list) -> tuple | None:
    """Identity of the arguments for plan lookup: array ids and scalar types; None if not plannable."""
    key = []
    for v in args:
        tv = type(v)
        if tv is array:
            key.append(v._id)
        elif tv in _HASHABLE_SCALARS or v is None or isinstance(v, composites.composite_base):
            key.append(tv)
        else:
            return None
    return tuple(key)


def layout_key(args: list) -> tuple:
    """The structure of plannable arguments: each array's layout (dtype, shape, view chain, base
    shape, device, pinned: fixed for the array's lifetime, interned once) and which earlier argument
    shares its base array; scalar types as in :func:`arg_key`. Launches with equal layout keys bind
    alike, so a time-stepping loop passing new arrays each step (``x[k] -> x[k + 1]``) reuses a plan."""
    key: list = ["layout"]
    roots: list = []  # ids of the base arrays seen so far
    for v in args:
        if type(v) is array:
            layout = layout_id(v)
            root = id(v._base if v._base is not None else v)
            key.append((layout, roots.index(root)) if root in roots else layout)
            roots.append(root)
        else:
            key.append(type(v))
    return tuple(key)


class Plan:
    """A validated launch ready to re-dispatch (see module docstring)."""

    __slots__ = ("_kernel", "device", "program", "compiled", "base_pos", "values", "written", "dim", "max_blocks",
                 "block_dim", "array_pos", "tape_ok", "_array_impl", "_chainable", "lanes", "bucket", "handles")

    @property
    def kernel(self) -> Any:
        return self._kernel()

    def __init__(self, prepared: PreparedLaunch, args: list):
        self._array_impl = concrete_array_type()
        self._chainable: bool | None = None
        binding, compiled = prepared.binding, prepared.compiled
        # weak: plans live on their kernel, and a strong link back would keep a discarded kernel
        # (a factory's old closure) alive until a cyclic GC pass
        self._kernel = weakref.ref(prepared.kernel)
        self.device = prepared.device
        self.program = program_of(compiled)
        self.compiled = compiled
        self.dim, self.max_blocks, self.block_dim = prepared.dim, prepared.max_blocks, prepared.block_dim
        self.tape_ok = not has_dynamic_loops(compiled)  # else a taped launch must also measure trip counts
        self.written = self.program.written
        base_pos: list = [None] * len(binding.bases)
        # a bucketed launch's last value is its lane count (launch_buckets.py): the same at every replay
        self.lanes = binding.values[-1] if runtime_lanes(compiled.signature) else None
        self.bucket = prepared.bucket if self.lanes is not None else None
        values: list = [None] * (len(binding.values) - (self.lanes is not None))
        for pos, (name, t, spec) in enumerate(zip(self.kernel.arg_names, self.kernel.arg_types, binding.params)):
            if isinstance(spec, ArraySpec):
                if spec.indices:  # an indexed array: its bases are not the arguments themselves
                    raise ValueError("not plannable")
                if base_pos[spec.base] is None:
                    base_pos[spec.base] = pos
            elif isinstance(spec, ValueSpec):
                cache = {} if type(args[pos]) in _HASHABLE_SCALARS else None
                values[spec.index] = (pos, name, spec.type, cache)
            elif not isinstance(spec, NoneArraySpec):
                raise ValueError("not plannable")
        uint64s = tuple(pos for pos, spec in enumerate(binding.params)
                        if isinstance(spec, ValueSpec) and names_objects(spec.type))
        self.handles = HandleSources.of(binding, self.kernel, self.device, args,
                                        {index: v[0] for index, v in enumerate(values) if v is not None},
                                        {i for i, p in enumerate(base_pos) if p is not None}, uint64s)
        if self.handles is not None:  # an object's buffers and values: read from it at each replay
            for i in self.handles.bases:
                base_pos[i] = -1
            for o in self.handles.objects:
                for _, index, _, _ in o.values:
                    values[index] = (-1, None, None, None)
        if None in base_pos or None in values:
            raise ValueError("not plannable")
        self.array_pos = tuple(pos for pos, spec in enumerate(binding.params) if isinstance(spec, ArraySpec))
        self.base_pos = tuple(base_pos)
        self.values = tuple(values)

    def convert(self, pos: int, name: str, t: Any, cache: dict | None, v: Any) -> Any:
        """The launch-device constant for scalar argument ``v`` (validated on first sight).

        A value seen for the first time is passed on as a numpy scalar, which the executable call
        moves to the device itself (~3 µs): a ``jax.device_put`` costs ~27 µs, and many scalar
        arguments change at every launch (a simulation's time, a moving source's position). A value
        seen again becomes a device constant (then a launch moves nothing). 64-bit values are device
        constants at once."""
        if cache is None:  # (composite values: cached by their bytes)
            return device_constant(convert_value(self.kernel.key, name, t, v), self.device, staged=True)
        key = v if v else repr(v)  # 0.0 and -0.0 (and 0 / False) must not share an entry
        c = cache.get(key)
        if c is None:
            c = convert_value(self.kernel.key, name, t, v)
            if c.dtype.itemsize > 4:  # (64-bit values keep their type only as device arrays made under x64)
                c = device_constant(c, self.device)
            if v == v:  # NaN never matches itself: do not fill the cache with it
                if len(cache) > _VALUE_LIMIT:
                    cache.clear()
                cache[key] = c
        elif type(c) is np.ndarray:  # seen before: from now on a device constant
            c = cache[key] = device_constant(c, self.device)
        return c

    def _bases(self, args: list) -> tuple[list, list, list | None] | None:
        """(root arrays, their current buffers, the geometry objects' launch operands or None), or None
        if a buffer is not a concrete jax array or an object changed (see :mod:`jwarp.runtime.plan_handles`)."""
        roots, bufs = [], []
        impl = self._array_impl
        if deferred.pending is not None:
            deferred.flush()  # (then the buffers can be read without the check of array._buffer)
        ops = None
        if self.handles is not None:
            ops = self.handles.operands(args)
            if ops is None:
                return None
        for i, p in enumerate(self.base_pos):
            if p < 0:
                root = self.handles.buffer_root(ops, i)
            else:
                a = args[p]
                root = a._base if a._base is not None else a
            buf = root._buf
            if type(buf) is not impl and not _concrete_tuple(buf, impl):
                return None
            roots.append(root)
            bufs.append(buf)
        return roots, bufs, ops

    def _values(self, args: list, ops: list | None = None) -> list:
        out = []
        for pos, name, t, cache in self.values:
            if pos < 0:  # an object's value (filled below)
                out.append(None)
                continue
            v = args[pos]
            c = cache.get(v if v else repr(v)) if cache is not None else None
            out.append(c if c is not None and type(c) is not np.ndarray else self.convert(pos, name, t, cache, v))
        if ops is not None:
            self.handles.fill_values(ops, out)
        if self.lanes is not None:
            out.append(self.lanes)
        return out

    def _call(self, bufs: list, values: list, may_donate: bool) -> Any:
        """The executable's flat outputs, or None when it raised (e.g. a deleted buffer)."""
        try:
            return self.program.run(bufs, values, may_donate)
        except Exception:
            return None

    def chainable(self) -> bool:
        """Whether this plan's launches may join a deferred launch chain (:mod:`jwarp.runtime.chain`):
        a kernel that only rewrites arrays (no host callbacks), compiled from a cached trace,
        without 64-bit operands or geometry objects."""
        ok = self._chainable
        if ok is None:
            compiled = self.compiled
            ok = self._chainable = bool(
                self.written and compiled._traced_fn is not None and not self.program.x64
                and (self.handles is None or not self.handles.objects)
                and not chain.has_callbacks(compiled.closed_jaxpr.jaxpr)
            )
        return ok

    def launch_values(self, args: list) -> list:
        """The launch-device constants of the scalar arguments in ``args``."""
        return self._values(args)

    def run(self, args: list) -> bool:
        """Dispatch with ``args`` (or defer it into the pending launch chain); False (nothing done)
        when the full launch path must handle them (also when a bucketed size recurs enough to get its
        exact program, see launch_buckets.py). The caller holds ``state_lock``."""
        if self.bucket is not None and launch_buckets.recurs(self.bucket):
            return False
        if config.fuse_launch_chains and self.chainable():
            # (a chained launch is not bound again: a uint64 argument that named no object when the
            # plan was made and names one now takes the full path here; run_now checks it itself)
            if self.handles is not None and self.handles.operands(args) is None:
                return False
            if solo.lone():  # (a launch that something observes before the next one: solo.py)
                if not self.run_now(args, None):
                    return False
                solo.ran_lone()
                return True
            if chain.append(self, args):
                return True
        return self.run_now(args, None)

    def run_now(self, args: list, values: list | None) -> bool:
        """Dispatch with ``args`` at once (``values``: their converted scalars, None to convert them
        here); False (nothing done) when the full launch path must handle them."""
        found = self._bases(args)
        if found is None:
            return False
        roots, bufs, ops = found
        out = self._call(bufs, self._values(args, ops) if values is None else values, True)
        if out is None:
            return False  # the full path reports the problem (nothing was written)
        rebind(roots, self.written, out)
        return True

    def run_taped(self, args: list, n_inputs: int, tape: Any) -> bool:
        """Dispatch with ``args`` while ``tape`` records (no donation: the tape keeps the buffers the
        launch read); False (nothing done) when the full launch path must handle them."""
        if self.bucket is not None and launch_buckets.recurs(self.bucket):
            return False
        found = self._bases(args)
        if found is None:
            return False
        roots, bufs, ops = found
        values = self._values(args, ops)
        out = self._call(bufs, values, False)
        if out is None:
            return False
        new = new_buffers(self.written, out)
        if any(r._grad is not None for r in roots):
            # the recorded values as device arrays, as the full path records them: the backward pass is a
            # jitted function, which would compile again for a numpy value where it saw a device array
            values = [device_constant(v, self.device) if type(v) is np.ndarray else v for v in values]
            tape.launches.append(LaunchRecord(
                kernel=self.kernel, compiled=self.compiled, bases=roots, in_bufs=bufs, out_bufs=new, values=values,
                trips=None, dim=self.dim, device=self.device, arguments=[args[p] for p in self.array_pos],
                inputs=list(args[:n_inputs]), outputs=list(args[n_inputs:]), max_blocks=self.max_blocks,
                block_dim=self.block_dim,
            ))
        rebind(roots, self.written, out)
        return True


def _concrete_tuple(buf: Any, impl: type) -> bool:
    return type(buf) is tuple and all(type(b) is impl for b in buf)


def plannable(prepared: Any) -> bool:
    """Whether a prepared launch can be re-dispatched by a :class:`Plan`."""
    compiled = getattr(prepared, "compiled", None)
    if compiled is None or compiled.diagnostic_keys or prepared.binding.traced or prepared.kernel.is_generic:
        return False
    device = prepared.device
    return all(base.device is device for base in prepared.binding.bases)


def find_by_layout(kernel: Any, key: tuple, args: list) -> Plan | None:
    """After a miss on ``key`` (argument identities): the plan of a launch with the same argument
    layouts, then also filed under ``key`` so that the next lookup is a plain hit."""
    plan = layout_plans_of(kernel).get(key[:-1] + (layout_key(args),))
    if plan is not None:
        _file(plans_of(kernel), key, plan)
    return plan


def layout_plans_of(kernel: Any) -> dict:
    """The kernel's plans filed by argument layout (kept apart from the identity table, which a
    loop over many arrays fills and clears)."""
    table = getattr(kernel, "_layout_plans", None)
    if table is None:
        table = kernel._layout_plans = {}
    return table


def _file(table: dict, key: tuple, plan: Plan) -> None:
    if len(table) >= _PLAN_LIMIT:
        table.clear()
    table[key] = plan


def plans_of(kernel: Any) -> dict:
    """The kernel's plan table (an attribute of the kernel; each plan holds its own executable)."""
    table = getattr(kernel, "_launch_plans", None)
    if table is None:
        table = kernel._launch_plans = {}
    return table


def remember(kernel: Any, key: tuple, prepared: Any, args: list) -> None:
    """Store a plan for ``key`` after a successful full launch."""
    if not plannable(prepared):
        return
    try:
        plan = Plan(prepared, args)
    except ValueError:
        return
    _file(plans_of(kernel), key, plan)
    _file(layout_plans_of(kernel), key[:-1] + (layout_key(args),), plan)


def launch_key(dim: tuple, device: Any, block_dim: int, max_blocks: int, args: list) -> tuple | None:
    """The plan-table key of a launch, or None when it cannot use a plan."""
    if config.verify_fp:
        return None
    key = arg_key(args)
    if key is None:
        return None
    return (dim, device, block_dim, max_blocks, config.mode, config.launch_array_access_mode,
            config.launch_memory_budget, config.pallas, config.optimization_level, key)


__all__ = ["Plan", "arg_key", "find_by_layout", "launch_key", "layout_key", "layout_plans_of", "plannable", "plans_of",
           "remember"]
