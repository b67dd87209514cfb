"""Deferred launch chains: consecutive ``wp.launch`` calls that recur run as one XLA program.

A plain ``wp.launch`` served by a launch plan (:mod:`jwarp.runtime.fastpath`) of a kernel whose only
effect is rewriting device arrays does not run at once: it joins the *pending chain*, the deferred
work of :mod:`jwarp.runtime.deferred`. Anything that could observe an array runs the chain first
(the same points that run deferred ``Launch`` replays: any read or replacement of an array's buffer,
a launch that is not chained, ``wp.synchronize()``, events, a graph capture, a Tape's launch). The
launches then run in order, each reading what the previous ones wrote, so every observable result is
the one of running them one by one.

A chain that has been seen :data:`FUSE_AFTER` times before — the same kernels and plans, reading and
writing the same pattern of arrays, such as the substeps of a simulation step between two
``wp.synchronize()`` calls — runs as **one** executable: the kernels' traced bodies called one after
another inside a single jit, with the written buffers donated when nothing else holds them. XLA then
fuses across kernel boundaries (a force accumulator cleared by one kernel and scattered into by the
next never exists in memory) and the chain pays one dispatch instead of one per launch. Measured on
the cloth benchmark (20 launches per step, 2-core CPU): 18% less CPU time per step. A chain seen for
the first times, a chain of one kernel only (repeats of one launch gain little from fusing, and a
long chain costs a long compile), a chain whose set of kernels already has :data:`MAX_VARIANTS`
fused programs (a period longer than a chain shows as ever new rotations of it), or one whose fused
program cannot be built or run, runs launch by launch.

``wp.config.fuse_launch_chains = False`` turns chains off (every ``wp.launch`` runs at once). Like an
asynchronous GPU launch, an error a chained launch raises (a buffer freed meanwhile) surfaces when
the chain runs.

Example:
    >>> from jwarp.runtime import chain
    >>> chain.pending_length()  # nothing deferred
    0
"""

from __future__ import annotations

import math
import sys
from typing import Any

import jax
import numpy as np
from jax.extend import core as jax_core

from jwarp.compiler.emitters import level_options
from jwarp.runtime import deferred, solo
from jwarp.runtime.preparation import prepare
from jwarp.runtime.execution import concrete_array_type
from jwarp.runtime.locking import state_lock

# A chain key seen this many times before runs fused (each fused program costs one compile).
FUSE_AFTER = 3
# At most this many launches per chain (a longer sequence runs as several chains).
MAX_LENGTH = 32
# Chain keys remembered (seen counts and fused programs); the table is cleared when full.
_TABLE_LIMIT = 64
# Fused programs built for one set of kernels. A launch sequence that fills chains without a period
# (or before its period shows, see _Stream) makes ever new keys, each of which would compile once
# seen (Warp's wave example before _Stream: 32 rotations of its 33-launch step, 1.7 s each). Past
# this many programs, a set's other chains run launch by launch.
MAX_VARIANTS = 2
# A written buffer referenced by its array, the operand list and getrefcount's argument only.
_SOLE_OWNER_REFS = 3

_table: dict = {}  # chain key -> _Fused
_variants: dict = {}  # frozenset of the plans of a chain -> fused programs built for such chains


class _Fused:
    """What is known about one chain key: how often it ran, and its fused program once built."""

    __slots__ = ("seen", "program", "failed", "over_budget")

    def __init__(self) -> None:
        self.seen = 0
        self.program: Any = None
        self.failed = False
        self.over_budget = False  # its set of kernels had MAX_VARIANTS programs: runs launch by launch


class Chain:
    """The pending chain: launches (plan, roots, values, args) in order, on one device."""

    __slots__ = ("device", "entries", "slots", "roots", "key")

    def __init__(self, device: Any) -> None:
        self.device = device
        self.entries: list = []  # (plan, slot of each base, values, args)
        self.slots: dict = {}  # id(root) -> slot
        self.roots: list = []
        self.key: list = []

    def add(self, plan: Any, roots: list, values: list, args: list) -> None:
        slots = []
        for r in roots:
            s = self.slots.get(id(r))
            if s is None:
                s = self.slots[id(r)] = len(self.roots)
                self.roots.append(r)
            slots.append(s)
        slots = tuple(slots)
        self.entries.append((plan, slots, values, args))
        self.key.append((plan, slots, tuple(_kind(v) for v in values)))

    def run_deferred(self, count: int) -> None:
        """Run the chain (called by :func:`jwarp.runtime.deferred.flush`, holding ``state_lock``)."""
        solo.chain_ran(len(self.entries))
        if len(self.entries) > 1 and any(e[0] is not self.entries[0][0] for e in self.entries):
            key = tuple(self.key)
            info = _table.get(key)
            if info is None:
                if len(_table) >= _TABLE_LIMIT:
                    _table.clear()
                    _variants.clear()
                info = _table[key] = _Fused()
            info.seen += 1
            if info.seen > FUSE_AFTER and not info.failed and self._within_budget(info) and self._run_fused(info):
                return
        self._run_each()

    def _within_budget(self, info: _Fused) -> bool:
        """Whether the chain may run fused: its program exists, or its set of kernels has had fewer
        than :data:`MAX_VARIANTS` programs built (counting this one)."""
        if info.program is not None:
            return True
        if info.over_budget:
            return False
        kernels = frozenset(e[0] for e in self.entries)
        built = _variants.get(kernels, 0)
        if built >= MAX_VARIANTS:
            info.over_budget = True  # (the table and the counts are cleared together)
            return False
        _variants[kernels] = built + 1
        return True

    # -- one by one --------------------------------------------------------------------------------
    def _run_each(self) -> None:
        for plan, _, values, args in self.entries:
            if not plan.run_now(args, values):
                _full_launch(plan, args)

    # -- fused -------------------------------------------------------------------------------------
    def _run_fused(self, info: _Fused) -> bool:
        """Run the whole chain as one program; False (nothing done) when it cannot."""
        roots = self.roots
        impl = concrete_array_type()
        bufs = [r._buf for r in roots]  # (no local name per buffer: it would count as a reference)
        if any(type(b) is not impl or b.is_deleted() for b in bufs):
            return False
        written = self._written_slots()
        values = tuple(tuple(e[2]) for e in self.entries)
        donate = all(_sole(bufs, s) for s in written)
        program = info.program
        try:
            if program is None:
                program = info.program = _build(self.entries, len(roots), written, bufs, values)
            kept = tuple(b for s, b in enumerate(bufs) if s not in written)
            moved = tuple(bufs[s] for s in written)
            if not donate:
                moved = tuple(jax.device_put(b, may_alias=False) for b in moved)
                jax.block_until_ready(moved)  # (see execution.Program._copies)
            del bufs
            out = program(moved, kept, values)
        except Exception:  # noqa: BLE001 - operands it was not built for, a failed build: run one by one
            info.failed = program is None
            return False
        for s, buf in zip(written, out):
            roots[s]._store(buf)
        return True

    def _written_slots(self) -> tuple:
        out: set = set()
        for plan, slots, _, _ in self.entries:
            out.update(slots[b] for _, b in plan.written)
        return tuple(sorted(out))


def _kind(value: Any) -> Any:
    """What a fused program's signature needs of a launch value: its type, except that a numpy
    scalar (a value a plan saw once, see ``fastpath.LaunchPlan.convert``) and a device array of the
    same dtype make the same operand."""
    if type(value) is np.ndarray or isinstance(value, jax.Array):
        return value.dtype
    return type(value)


def _sole(bufs: list, slot: int) -> bool:
    return sys.getrefcount(bufs[slot]) <= _SOLE_OWNER_REFS


def _build(entries: list, n_slots: int, written: tuple, bufs: list, values: tuple) -> Any:
    """The fused program ``(moved, kept, values) -> new buffers of the written slots``, compiled for
    these operands (``moved``: the written slots' buffers, donated)."""
    steps = [(plan.compiled._traced_fn, slots, plan.written) for plan, slots, _, _ in entries]
    known: dict = {}  # a plan (one kernel, one signature) -> its profile, traced once per chain
    with jax.enable_x64(True):
        for (plan, slots, _, _), v in zip(entries, values):
            if plan not in known:
                known[plan] = access_profile(plan.compiled._traced_fn, [bufs[s] for s in slots] + list(v))
    profiles = [known[plan] for plan, _, _, _ in entries]
    feeds = materialised_before([(slots, outs, p) for (_, slots, outs), p in zip(steps, profiles)], n_slots)
    written_set = set(written)
    kept_slots = [s for s in range(n_slots) if s not in written_set]

    def fused(moved: tuple, kept: tuple, vals: tuple, go: Any) -> tuple:
        state: list = [None] * n_slots
        for s, b in zip(written, moved):
            state[s] = b
        for s, b in zip(kept_slots, kept):
            state[s] = b
        for (inner, slots, outs), v, feed in zip(steps, vals, feeds):
            if feed:  # (see materialised_before)
                got = jax.lax.cond(go, lambda *a: a, lambda *a: tuple(jax.numpy.zeros_like(x) for x in a),
                                   *[state[s] for s in feed])
                for s, b in zip(feed, got):
                    state[s] = b
            out = inner(*[state[s] for s in slots], *v)
            for i, b in outs:
                state[slots[b]] = out[i]
        return tuple(state[s] for s in written)

    moved = tuple(bufs[s] for s in written)
    kept = tuple(b for s, b in enumerate(bufs) if s not in written_set)
    with jax.enable_x64(True):  # the kernels' cached traces were made with 64-bit types on
        # keep_unused: chains that only overwrite a buffer must still receive it to write it in place
        options = level_options(*(plan.compiled.signature for plan, _, _, _ in entries)) or None
        # a run-time operand, on the buffers' device: XLA cannot fold a conditional on it away
        go = jax.device_put(True, next(iter(bufs[0].devices())))
        program = jax.jit(fused, donate_argnums=(0,), keep_unused=True, compiler_options=options).lower(
            moved, kept, values, go).compile()
    return lambda moved, kept, values: program(moved, kept, values, go)


# operations that move or reinterpret values without computing them (a scatter's result stays one)
_STRUCTURAL = frozenset({"reshape", "squeeze", "expand_dims", "broadcast_in_dim", "concatenate", "stack", "transpose",
                         "convert_element_type", "real", "imag", "copy", "copy_p", "slice"})


# A gathered value whose recomputation costs at least this many operations per element is materialised
# first (see materialised_before).
RECOMPUTE_LIMIT = 64


def materialised_before(steps: list, n_slots: int) -> list:
    """Per step ``(slots, outputs, (gathered, scattered, costs))`` of a chain, the slots to
    materialise before it runs.

    XLA fuses a kernel into the gathers of the next kernel that reads its output, recomputing it
    per element gathered. Where the recomputation is another gather, it compounds (a chain of
    stencil steps: per neighbour, per step; Warp's wave example ran 40x slower fused); where it is
    long arithmetic, it is paid per read (the wave example's displacement, 190 operations with an
    integer division, recomputed per neighbour of the stencil after it: 2.2 ms instead of 0.3).
    So a slot a kernel gathers from (``gathered``, per operand) is materialised first when a kernel
    of the chain computed it since it last was, through a gather or with at least
    :data:`RECOMPUTE_LIMIT` operations per element (``costs``, per output, a division or a
    transcendental function counting 8, and the unmaterialised values it read counted in). Cheap
    values keep fusing into the gathers (the cloth benchmark's integration, 16-22 operations,
    gathered by the springs: materialised before every spring kernel it ran 1-12% slower), and
    reads lane by lane keep fusing across kernels, where most of a chain's gain is (its cleared
    force buffer). A scatter's result is materialised anyway; chain inputs are buffers.

    >>> stencil = ((0, 1), [(0, 1)], ((True, False), (False,), (9,)))  # gathers slot 0, writes slot 1
    >>> swap = ((1, 0), [(0, 1)], ((True, False), (False,), (9,)))  # gathers slot 1, writes slot 0
    >>> materialised_before([stencil, swap, stencil], 2)
    [[], [1], [0]]
    """
    pending = [0.0] * n_slots  # per slot, what recomputing its value costs per element (0: materialised)
    feeds = []
    for slots, outs, (gathered, scattered, costs) in steps:
        feed = sorted({s for s, g in zip(slots, gathered) if g and pending[s] >= RECOMPUTE_LIMIT})
        for s in feed:
            pending[s] = 0.0
        feeds.append(feed)
        inherited = sum(pending[s] for s in set(slots))
        derived = math.inf if any(gathered) else inherited
        for i, b in outs:
            pending[slots[b]] = 0.0 if scattered[i] else max(costs[i] + derived, 1.0)
    return feeds


def access_profile(fn: Any, args: list) -> tuple:
    """``(gathered, scattered, costs)`` of a kernel's traced function: per argument, whether a
    gather reads from it (its value reaches a gather's operand); per output, whether it is a
    scatter's result (moved or reinterpreted only) and how many operations per element compute it
    (those it depends on, the ones inside loops and calls counted once)."""
    jaxpr = jax.make_jaxpr(fn)(*args).jaxpr
    outvars = list(jaxpr.outvars)
    gathered = _gathered_inputs(jaxpr)
    while len(jaxpr.eqns) == 1 and "jaxpr" in jaxpr.eqns[0].params and list(jaxpr.eqns[0].outvars) == outvars:
        inner = jaxpr.eqns[0].params["jaxpr"]
        jaxpr = getattr(inner, "jaxpr", inner)
        outvars = list(jaxpr.outvars)
    producer = {id(v): e for e in jaxpr.eqns for v in e.outvars}

    def scattered(var: Any, depth: int = 0) -> bool:
        eqn = producer.get(id(var))
        if eqn is None or depth > 32:
            return False
        name = eqn.primitive.name
        if name.startswith("scatter"):
            return True
        ins = [x for x in eqn.invars if not isinstance(x, jax_core.Literal)]
        return name in _STRUCTURAL and bool(ins) and all(scattered(x, depth + 1) for x in ins)

    costs = _output_costs(jaxpr)
    return tuple(i in gathered for i in range(len(args))), tuple(scattered(v) for v in outvars), costs


def _output_costs(jaxpr: Any) -> tuple:
    """Per output of ``jaxpr``, the operations of the equations it depends on (structural ones free,
    costly ones weighted: see :data:`_COSTLY`)."""
    producer = {id(v): e for e in jaxpr.eqns for v in e.outvars}
    weights: dict = {}
    costs = []
    for out in jaxpr.outvars:
        seen: set = set()
        todo = [out]
        total = 0
        while todo:
            eqn = producer.get(id(todo.pop()))
            if eqn is None or id(eqn) in seen:
                continue
            seen.add(id(eqn))
            if id(eqn) not in weights:
                weights[id(eqn)] = _weight(eqn)
            total += weights[id(eqn)]
            todo.extend(v for v in eqn.invars if not isinstance(v, jax_core.Literal))
        costs.append(total)
    return tuple(costs)


# primitives that cost several cycles per element where an add costs one (divisions, roots,
# transcendental functions): they count this many operations in a value's cost
_COSTLY = frozenset({"div", "rem", "sqrt", "rsqrt", "cbrt", "exp", "exp2", "log", "log1p", "expm1", "sin", "cos",
                     "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "pow",
                     "erf", "erfc", "erf_inv", "lgamma", "digamma", "logistic"})
_COSTLY_WEIGHT = 8


def _weight(eqn: Any) -> int:
    name = eqn.primitive.name
    own = 0 if name in _STRUCTURAL else _COSTLY_WEIGHT if name in _COSTLY else 1
    return own + sum(_weight(e) for sub in jax_core.jaxprs_in_params(eqn.params) for e in sub.eqns)


# primitives whose inner jaxpr takes the equation's operands in order
_POSITIONAL_CALLS = frozenset({"pjit", "jit", "closed_call", "core_call", "custom_jvp_call", "custom_vjp_call",
                               "remat", "checkpoint"})


def _gathered_inputs(jaxpr: Any) -> set:
    """Positions of ``jaxpr``'s inputs whose values reach the operand (not the indices) of a gather.
    Calls of inner jaxprs taking the operands in order are followed; any other equation holding a
    gather somewhere inside counts as gathering from every operand (materialising more only costs
    a copy)."""
    depends: dict = {id(v): {i} for i, v in enumerate(jaxpr.invars)}
    found: set = set()

    def of(var: Any) -> set:
        return set() if isinstance(var, jax_core.Literal) else depends.get(id(var), set())

    for eqn in jaxpr.eqns:
        ins = [of(v) for v in eqn.invars]
        if eqn.primitive.name == "gather":
            found |= ins[0]
        else:
            subs = list(jax_core.jaxprs_in_params(eqn.params))
            inner = eqn.params.get("jaxpr") if eqn.primitive.name in _POSITIONAL_CALLS else None
            inner = getattr(inner, "jaxpr", inner)
            if inner is not None and len(subs) == 1 and len(inner.invars) == len(ins):
                for k in _gathered_inputs(inner):
                    found |= ins[k]
            elif any(_has_gather(sub) for sub in subs):
                for dep in ins:
                    found |= dep
        joined = set().union(*ins) if ins else set()
        for v in eqn.outvars:
            depends[id(v)] = joined
    return found


def _has_gather(jaxpr: Any) -> bool:
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "gather":
            return True
        if any(_has_gather(sub) for sub in jax_core.jaxprs_in_params(eqn.params)):
            return True
    return False


def _full_launch(plan: Any, args: list) -> None:
    """A chained launch its plan could not run: the full launch path runs it (or raises its error)."""
    prepared = prepare(plan.kernel, plan.dim, args, plan.device, plan.block_dim, plan.max_blocks)
    prepared.run(record_tape=False)


def append(plan: Any, args: list) -> bool:
    """Defer ``plan``'s launch with ``args`` into the pending chain; False (nothing done) when it
    must run now. The caller holds ``state_lock``."""
    if not plan.chainable():
        return False
    roots = []
    written = {b for _, b in plan.written}
    impl = concrete_array_type()
    for i, p in enumerate(plan.base_pos):
        a = args[p]
        root = a._base if a._base is not None else a
        if not _live(root, impl):  # (traced, freed, a struct array's fields)
            return False
        if i in written and root._host_mirror is not None:
            return False
        roots.append(root)
    values = plan.launch_values(args)
    batch = deferred.pending
    current = batch[0] if batch is not None else None
    if type(current) is not Chain or current.device is not plan.device:
        _stream.reset()  # (the chain before ended otherwise than full: a synchronisation, another device)
        current = None
    elif len(current.entries) >= MAX_LENGTH:
        _stream.filled()
        current = None
    if _stream.recording:
        if _stream.starts_chain(hash((plan, tuple(map(id, roots)), tuple(map(_kind, values))))):
            current = None
    if current is None:
        current = Chain(plan.device)
        deferred.defer(current)  # runs any other pending work first
    current.add(plan, roots, values, list(args))
    return True


class _Stream:
    """Where chains are cut while launches fill them (no synchronisation within :data:`MAX_LENGTH`
    launches). Cut every MAX_LENGTH launches, a step whose launch count does not divide it (Warp's
    wave example: 33) starts each chain one launch further into the step: every chain a new key, and
    past :data:`MAX_VARIANTS` programs none runs fused. So from a chain that filled on, the launches'
    identities (plan, arrays, value kinds) are recorded, and once all of them (at least two periods,
    at most the last ``4 * MAX_LENGTH``) repeat with a period of at most ``2 * MAX_LENGTH`` launches,
    chains also cut at one phase of it: the same chains
    recur, period after period. A launch that breaks the period forgets it; a chain that ends
    otherwise than full (a synchronisation, which cuts where the step starts) stops the recording."""

    __slots__ = ("recording", "recent", "count", "period", "anchor")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.recording = False
        self.recent: list = []
        self.count = self.period = self.anchor = 0

    def filled(self) -> None:
        """A chain is full: record from now on, and look for the period in what was recorded."""
        self.recording = True
        if self.period:
            return
        h = self.recent
        for p in range(1, min(len(h) // 2, 2 * MAX_LENGTH) + 1):
            if h[p:] == h[:-p]:  # every launch recorded repeats the one a period before
                self.period, self.anchor = p, self.count
                return

    def starts_chain(self, ident: int) -> bool:
        """Record the identity of the launch about to be chained; whether a chain starts at it."""
        h = self.recent
        p = self.period
        if p and h[-p] != ident:
            p = self.period = 0
        h.append(ident)
        if len(h) > 4 * MAX_LENGTH:
            del h[: len(h) - 4 * MAX_LENGTH]
        self.count += 1
        return bool(p) and (self.count - 1 - self.anchor) % p == 0


_stream = _Stream()


def _live(root: Any, impl: type) -> bool:
    """Whether ``root`` holds a concrete, live buffer (no local reference to it outlives this call:
    running a pending chain must find written buffers held by their arrays only, to donate them)."""
    buf = root._buf
    return type(buf) is impl and not buf.is_deleted()


def pending_length() -> int:
    """How many launches the pending chain holds (0: none)."""
    batch = deferred.pending
    return len(batch[0].entries) if batch is not None and type(batch[0]) is Chain else 0


def has_callbacks(jaxpr: Any) -> bool:
    """Whether ``jaxpr`` (or a jaxpr nested in it) calls back into Python (``print``, host callbacks):
    such a kernel is never deferred."""
    for eqn in jaxpr.eqns:
        if "callback" in eqn.primitive.name:
            return True
        for sub in jax_core.jaxprs_in_params(eqn.params):
            if has_callbacks(sub):
                return True
    return False


def reset() -> None:
    """Forget every chain key and fused program (tests; frees the programs' memory)."""
    with state_lock:
        deferred.flush()
        _table.clear()
        _variants.clear()
        _stream.reset()
        solo.reset()


__all__ = ["Chain", "FUSE_AFTER", "MAX_LENGTH", "MAX_VARIANTS", "append", "has_callbacks", "pending_length", "reset"]
