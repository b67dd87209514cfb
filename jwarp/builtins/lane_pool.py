"""Loops whose trip count varies by lane, run over a small pool of lanes that is refilled.

A vmapped ``lax.while_loop`` runs until its slowest lane is done, and every iteration costs work
for all lanes. :func:`pooled_loop` instead keeps a *pool* of ``width`` lanes: it steps the pool
``chunk`` times, writes the finished lanes' state back to their launch lanes, and refills the
freed slots with the next waiting lanes (a running count over the free slots numbers them). When no
lane waits and few are left, the survivors are packed into a smaller pool (static shapes: one
compiled loop per size). The pool's arrays stay in cache, and the work done is close
to the sum of the lanes' own trip counts.

Lane data is kept in few pool arrays, since every separate array operation is a thunk with its
own fixed cost: the read-only inputs (the state keys that are not ``outputs``) are kept as one
lane-minor ``(inputs, lanes)`` matrix in the pool (:class:`Lanes` cuts the columns out inside the
fusions that read them), gathered at a refill column by column from contiguous launch-lane arrays
(a launch-sized row-packed copy cost more, in its packing pass and page faults, than it saved in
the gathers); a step must not change them (state that changes in the pool without being written
back belongs in ``scratch``). Opt-in (``pack_inputs``): walks whose steps read few inputs gain
nothing from it. Outputs are packed into one row per launch lane when there are several.

Once no lane waits, a pool's idle slots can take pieces of its running lanes' work (:class:`Sharing`:
the pending subtrees of a tree walk), so that a few long lanes do not keep a mostly idle pool
stepping; the pieces' results merge at write-back.

:func:`barrier` evaluates a function in its own XLA computation. XLA:CPU fuses gathers into the
arithmetic that reads them, and a fusion containing a gather is not vectorised; it also
duplicates cheap arithmetic into every fusion that uses it. Gathering (or computing a few
results) behind a barrier keeps the arithmetic vectorised and computed once (measured: a BVH
step of 62 ns per lane fell to 17 ns).

Example:
    >>> import jax.numpy as jnp
    >>> state = {"x": jnp.arange(6, dtype=jnp.int32)}
    >>> out = pooled_loop(state, jnp.ones(6, bool), lambda s: s["x"] > 0,
    ...                   lambda s, go: dict(s, x=jnp.maximum(s["x"] - 1, 0)), width=4, chunk=2)
    >>> [int(v) for v in out["x"]]
    [0, 0, 0, 0, 0, 0]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
from jax import lax
from jwarp.compiler.selects import clip, where

Step = Callable[[dict, Any], dict]
# The survivors of a pool move to a pool SHRINK times smaller, down to SMALLEST lanes: each size is
# one more compiled copy of the step, and the last one runs the long tail (points deep inside a
# mesh walk most of its leaves). Measured on 65536 `mesh_query_point_no_sign` queries (16k-triangle
# sphere, one core): pools 4096 -> 512 683-761 ms, 4096 -> 256 617-630 ms, 4096 -> 128 617-668 ms,
# 4096 -> 512 -> 64 491-559 ms but a fifth longer to compile; ray casts the same either way.
SMALLEST = 256
SHRINK = 16
# The pool width of walks whose trip counts vary widely (BVH point, box and winding-number walks).
# A launch of at most ``width`` lanes runs as one lockstep loop, in which every step costs every lane
# until the slowest is done, so a wide pool makes such launches pay their longest walk on every lane:
# 4,096 `mesh_query_point_sign_normal` queries took 1,240 ms in a pool of 4096 lanes and 125 ms in
# refilled pools of 256 (figures per walk beside each use; docs/performance.md, twenty-fourth session).
UNEVEN_WIDTH = 256
# ...and narrower pools for smaller launches: about this many launch lanes per pool lane. Same sphere, one
# core, pools of 64 / 128 / 256 (ms): 1,024 closest-point queries 14.6 / 17.8 / 20.1, sign-normal 26.0 / 23.8 /
# 30.7; 4,096: 62.8 / 68.0 / 77.8 and 107.6 / 97.9 / 137.4; 16,384: 173 / 157 / 150 and 278 / 276 / 272.
_LANES_PER_POOL_LANE = 32
# outputs travel between the pool and the launch lanes packed as one row per lane when there are at
# least this many (fewer refill scatters); fewer stay separate arrays (no launch-sized packing pass)
_PACKED_OUTPUTS = 4


def uneven_width(lanes: int) -> int:
    """The pool width of a walk whose trip counts vary widely (see :data:`UNEVEN_WIDTH`) over
    ``lanes`` launch lanes: the power of two from 64 up to ``UNEVEN_WIDTH`` nearest above
    ``lanes / 32`` (Warp's ``example_mesh``, 1,000 sign-normal queries: 5.8 ms in pools of 256, 3.7 in 64).

    Example:
        >>> uneven_width(1000), uneven_width(4096), uneven_width(65536)
        (64, 128, 256)
    """
    width = 64
    while width < UNEVEN_WIDTH and width * _LANES_PER_POOL_LANE < lanes:
        width *= 2
    return width


def barrier(go: Any, fn: Callable, *args: Any) -> Any:
    """``fn(*args)`` computed apart from the surrounding computation (XLA fuses nothing across a
    conditional). ``go`` must be a traced boolean scalar that is True at run time (the other
    branch returns zeros); XLA cannot fold it away, so the conditional stays.

    ``fn`` is traced once: the taken branch replays its jaxpr, and the other branch is built from
    its output types (tracing ``fn`` for both branches doubled the trace of every BVH walk step)."""
    closed, shapes = jax.make_jaxpr(fn, return_shape=True)(*args)
    structure = jax.tree.structure(shapes)

    def taken(*a: Any) -> Any:
        return jax.tree.unflatten(structure, jax.core.eval_jaxpr(closed.jaxpr, closed.consts, *jax.tree.leaves(a)))

    def zeros(*a: Any) -> Any:
        return jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), shapes)

    return lax.cond(go, taken, zeros, *args)


def gather_rows(plane: Any, index: Any) -> Any:
    """``plane[index]`` for lane indices (clamped into range); rows keep their trailing axes."""
    index = clip(index, 0, plane.shape[0] - 1)
    return plane.at[index].get(mode="promise_in_bounds")


def blank_of(scratch: dict, size: int) -> dict:
    """Fresh scratch arrays: ``{name: (trailing shape, dtype)}`` (zeros) or ``(shape, dtype, fill)``."""
    out = {}
    for k, spec in scratch.items():
        shape, dtype = spec[0], spec[1]
        fill = spec[2] if len(spec) > 2 else 0
        out[k] = jnp.full((size,) + tuple(shape), fill, dtype)
    return out


def _gather(s: dict, rows: Any) -> dict:
    return {k: v.at[rows].get(mode="promise_in_bounds") for k, v in s.items()}


_WORDS = (jnp.float32, jnp.int32, jnp.bool_)


def _packable(home: dict, keys: tuple) -> tuple:
    """The keys of 1-d lane arrays of 32-bit (or bool) type, which :func:`_pack` stacks."""
    return tuple(k for k in keys if home[k].ndim == 1 and home[k].dtype in _WORDS)


def _as_word(v: Any) -> Any:
    """A 32-bit or bool lane array as float32 (ints by bit pattern, bools as 0/1)."""
    if v.dtype == jnp.int32:
        v = lax.bitcast_convert_type(v, jnp.float32)
    return v.astype(jnp.float32)


def _pack(home: dict, names: tuple) -> Any:
    """The lane arrays ``names`` as the columns of one float32 matrix (ints by bit pattern, bools as
    0/1), so a refill gathers or scatters one row per lane instead of one element per array."""
    return jnp.stack([_as_word(home[k]) for k in names], axis=1)


def _pack_minor(home: dict, names: tuple) -> Any:
    """:func:`_pack` laid out ``(names, lanes)`` (stacked along the first axis: no transpose)."""
    return jnp.stack([_as_word(home[k]) for k in names], axis=0)


def _unpack(matrix: Any, names: tuple, like: dict) -> dict:
    out = {}
    for j, k in enumerate(names):
        col, dtype = matrix[:, j], like[k].dtype
        if dtype == jnp.int32:
            col = lax.bitcast_convert_type(col, jnp.int32)
        elif dtype == jnp.bool_:
            col = col != 0
        out[k] = col
    return out


@jax.tree_util.register_pytree_node_class
class Lanes(Mapping):
    """A pool's state as ``step`` sees it: a mapping of lane arrays whose read-only inputs are the
    rows of one packed ``(inputs, lanes)`` matrix (:func:`_pack`, transposed), cut out only where
    they are read (inside the fusion that reads them; passing the mapping through
    :func:`barrier` passes the matrix)."""

    def __init__(self, arrays: dict, packed: Any, names: tuple, dtypes: tuple):
        self.arrays, self.packed, self.names, self.dtypes = arrays, packed, names, dtypes
        self._cut: dict = {}  # each input cut once (a step that passes it on returns this object)

    def __getitem__(self, key: str) -> Any:
        if key in self.arrays:
            return self.arrays[key]
        if key not in self._cut:
            if key not in self.names:
                raise KeyError(key)
            j = self.names.index(key)
            col, dtype = self.packed[j], self.dtypes[j]
            if dtype == jnp.int32:
                col = lax.bitcast_convert_type(col, jnp.int32)
            elif dtype == jnp.bool_:
                col = col != 0
            self._cut[key] = col
        return self._cut[key]

    def __iter__(self):
        return iter(tuple(self.arrays) + self.names)

    def __len__(self) -> int:
        return len(self.arrays) + len(self.names)

    def tree_flatten(self) -> tuple:
        keys = tuple(self.arrays)
        return (tuple(self.arrays[k] for k in keys), self.packed), (keys, self.names, self.dtypes)

    @classmethod
    def tree_unflatten(cls, aux: tuple, children: tuple) -> Lanes:
        keys, names, dtypes = aux
        return cls(dict(zip(keys, children[0])), children[1], names, dtypes)


def _free_ranks(flags: Any) -> Any:
    """Inclusive prefix count of a bool lane array: the rank (from 1) of each set lane among the set
    lanes, which numbers a refill's free slots. Flags are packed 32 to a word; a lane's count is the
    set bits of the words before its own (a prefix sum over the words) plus those of its own word up
    to it (a population count of the masked word). Other sizes: an associative scan."""
    size = flags.shape[0]
    if size % 32:
        return lax.associative_scan(jnp.add, flags.astype(jnp.int32))
    bit = jnp.arange(32, dtype=jnp.uint32)
    words = jnp.sum(flags.reshape(size // 32, 32).astype(jnp.uint32) << bit, axis=1, dtype=jnp.uint32)
    counts = lax.population_count(words).astype(jnp.int32)
    before = lax.associative_scan(jnp.add, counts) - counts
    upto = where(bit == 31, jnp.uint32(0xFFFFFFFF), (jnp.uint32(2) << bit) - 1)  # bits 0..j
    within = lax.population_count(words[:, None] & upto[None, :]).astype(jnp.int32)
    return (before[:, None] + within).reshape(size)


def _where(take: Any, new: dict, old: dict) -> dict:
    out = {}
    for k, v in old.items():
        mask = take.reshape(take.shape + (1,) * (v.ndim - 1))
        out[k] = where(mask, new[k], v)
    return out


def _scatter(home: dict, rows: Any, values: dict) -> dict:
    return {k: home[k].at[rows].set(values[k], mode="drop") for k in home}


class Sharing(NamedTuple):
    """How a pooled loop hands work of running lanes to idle pool slots once no lane waits.

    ``give(pool)``: ``(donors, piece, kept)`` for every pool slot (the pool as ``step`` sees it):
    which running lanes have work to give, the state fields of the piece a donor gives away (the
    other fields are copied from the donor: its inputs, its launch lane), and the donor's fields
    after giving it. ``merge(home, rows, values)``: the launch lanes' outputs ``home`` combined with
    the outputs ``values`` of finished pool slots for the launch lanes ``rows`` (``len(home)``:
    none); several pieces of one lane finish at different times, in any order."""

    give: Callable[[Any], tuple]
    merge: Callable[[dict, Any, dict], dict]


def _share(pool: dict, give: Callable[[Any], tuple], view: Callable[[dict], Any]) -> dict:
    """``pool`` with its idle slots (not ``__valid``) holding pieces of its donors' work: the k-th
    idle slot takes a piece of the k-th donor."""
    width = pool["__valid"].shape[0]
    idle = ~pool["__valid"]
    donors, piece, kept = give(view(pool))
    donors = donors & pool["__valid"]
    slot_rank, donor_rank = _free_ranks(idle) - 1, _free_ranks(donors) - 1
    hosts = idle & (slot_rank < jnp.sum(donors, dtype=jnp.int32))
    gives = donors & (donor_rank < jnp.sum(idle, dtype=jnp.int32))
    source = jnp.nonzero(donors, size=width, fill_value=0)[0][clip(slot_rank, 0, width - 1)]
    out = {}
    for k, v in pool.items():
        if k == "__in":  # lane-minor inputs
            out[k] = where(hosts[None, :], v[:, source], v)
            continue
        mask = hosts.reshape(hosts.shape + (1,) * (v.ndim - 1))
        taken = (piece[k] if k in piece else v)[source]
        own = where(gives.reshape(mask.shape), kept[k], v) if k in kept else v
        out[k] = where(mask, taken, own)
    out["__valid"] = pool["__valid"] | hosts
    return out


def pooled_loop(state: dict, active: Any, running: Callable[[dict], Any], step: Step, width: int = 4096,
                chunk: int = 4, scratch: dict | None = None, smallest: int = SMALLEST, outputs: tuple | None = None,
                shrink: int = SHRINK, derive: Callable[[Any], dict] | None = None,
                hint: Callable[[Any], Any] | None = None, pack_inputs: bool = False,
                sharing: Sharing | None = None) -> dict:
    """Run ``step`` on every active lane until ``running`` says it is done; returns the final state.

    ``state``: lane arrays ``(n,)`` (or ``(n, ...)``); ``active``: ``(n,)`` bool (inactive lanes keep
    their state). ``step(pool_state, go)`` advances a pool of lanes once (lanes that are not
    running must keep their state); ``go`` is the always-true scalar to pass to :func:`barrier`.
    ``scratch``: per-pool-lane arrays ``{name: (trailing shape, dtype)}`` that live only in the
    pool (zeros when a lane starts; e.g. a traversal stack); they are not returned. ``outputs``:
    the keys the loop changes (written back to the launch lanes; default all). Launches of at most
    ``width`` lanes run as one masked loop (one compiled copy of ``step``); larger ones refill a
    pool of ``width`` lanes, then pack the survivors into pools ``shrink`` times smaller, down to
    ``smallest`` lanes. ``derive(lanes)``: more read-only lane arrays (1-d, 32-bit or bool)
    computed from the inputs when lanes enter the pool (not stored for every launch lane); they
    are not returned. ``hint(pool)``: a scalar computed from the pool once per ``chunk`` steps and
    passed to ``step`` as a third argument (e.g. whether any pooled lane needs a slower path).
    ``pack_inputs``: keep the read-only inputs packed (see the module docstring; the step then
    sees a :class:`Lanes` mapping); otherwise they are separate pool arrays. ``sharing``: once no
    lane waits, idle slots of a refilled pool take pieces of running lanes' work (see
    :class:`Sharing`; the outputs must be few enough to stay unpacked)."""
    scratch = scratch or {}
    n = int(active.shape[0])
    if n == 0:
        return state
    total = jnp.sum(active, dtype=jnp.int32)
    if n <= width:  # inactive lanes keep their state whatever ``step`` does to them
        pool = dict(state, **blank_of(scratch, n))
        pool["__valid"] = active
        fixed = derive(pool) if derive is not None else {}

        def masked(p: dict) -> dict:
            lanes = dict(p, **fixed)
            new = step(lanes, total >= 0) if hint is None else step(lanes, total >= 0, hint(lanes))
            return _where(active, {k: new[k] for k in p}, p)

        pool = lax.while_loop(lambda p: jnp.any(active & running(dict(p, **fixed))), masked, pool)
        return {k: pool[k] for k in state}
    # the active lanes in order (all of them, the common case, without compacting)
    queue = lax.cond(total == n, lambda a: jnp.arange(n, dtype=jnp.int32),
                     lambda a: jnp.nonzero(a, size=n, fill_value=0)[0].astype(jnp.int32), active)
    sizes = [width]
    while sizes[-1] // shrink >= smallest:
        sizes.append(sizes[-1] // shrink)

    def blank(size: int) -> dict:
        return blank_of(scratch, size)

    keys = tuple(state) if outputs is None else tuple(outputs)
    inputs = tuple(k for k in state if k not in keys)
    # The lanes' read-only inputs stay packed in one matrix in the pool ("__in", one row per input:
    # steps read its rows inside their fusions); several outputs travel between the pool and the
    # launch as one row per lane ("__out").
    in_names = _packable(state, inputs) if pack_inputs or derive is not None else ()
    out_names = _packable(state, keys)
    if len(out_names) < _PACKED_OUTPUTS:
        out_names = ()
    if sharing is not None and out_names:
        raise ValueError("pooled_loop: sharing needs at most 3 outputs")
    write = _scatter if sharing is None else sharing.merge
    # each input as its own contiguous float32 lane array, computed before the loop (the barrier keeps
    # XLA from recomputing a column's producer inside the refill's gather, where it would not vectorise)
    in_cols = lax.optimization_barrier(tuple(_as_word(state[k]) for k in in_names)) if in_names else ()
    home = {k: state[k] for k in keys if k not in out_names}
    if out_names:
        home["__out"] = _pack(state, out_names)
    loose = {k: state[k] for k in inputs if k not in in_names}

    in_types = tuple(state[k].dtype for k in in_names)
    if derive is not None:  # the derived arrays' names and types, from a one-lane trial
        trial = jax.eval_shape(lambda st: derive(Lanes({}, _pack(st, in_names).T, in_names, in_types)),
                               {k: jax.ShapeDtypeStruct((1,), state[k].dtype) for k in in_names})
        extra = tuple(trial)
        in_names, in_types = in_names + extra, in_types + tuple(trial[k].dtype for k in extra)

    def view(pool: dict) -> Any:
        """The pool as ``step`` sees it (:class:`Lanes`)."""
        if not in_names:
            return pool
        return Lanes({k: v for k, v in pool.items() if k != "__in"}, pool["__in"], in_names, in_types)

    def live(s: dict) -> Any:
        return s["__valid"] & running(view(s))

    def steps(s: dict, go: Any) -> dict:
        h = hint(view(s)) if hint is not None else None
        packed = s.get("__in")  # read-only within the chunk: not part of the loop's carry

        def one(i: Any, x: dict) -> dict:
            lanes = view(dict(x, __in=packed)) if in_names else x
            new = step(lanes, go) if hint is None else step(lanes, go, h)
            changed = [k for k in in_names if k in new and new[k] is not lanes[k]]
            if changed:
                raise ValueError(f"pooled_loop: the step changes {changed}: list them in outputs or scratch")
            return {k: new[k] for k in x}
        out = lax.fori_loop(0, chunk, one, {k: v for k, v in s.items() if k != "__in"})
        if in_names:
            out["__in"] = packed
        return out

    def lanes_of(rows: Any) -> dict:
        """The launch lanes ``rows`` (inputs and current outputs) as pool entries."""
        got = _gather(loose, rows)
        if in_names:  # the pool keeps its inputs lane-minor, so steps read them contiguously
            base = jnp.stack([c.at[rows].get(mode="promise_in_bounds") for c in in_cols], axis=0)
            if derive is not None:
                stored = len(in_names) - len(extra)
                more = derive(Lanes({}, base, in_names[:stored], in_types[:stored]))
                base = jnp.concatenate([base, _pack_minor(more, extra)], axis=0)
            got["__in"] = base
        packed = _gather(home, rows)
        if out_names:
            got.update(_unpack(packed.pop("__out"), out_names, state))
        got.update(packed)
        return got

    def results_of(pool: dict) -> dict:
        out = {k: pool[k] for k in keys if k not in out_names}
        if out_names:
            out["__out"] = _pack(pool, out_names)
        return out

    w0 = sizes[0]
    # the first pool: refilled from the queue
    ids0 = jnp.arange(w0, dtype=jnp.int32)
    valid0 = ids0 < total
    pool0 = lanes_of(queue[jnp.minimum(ids0, n - 1)])
    pool0.update(blank(w0))
    pool0["__valid"] = valid0
    pool0["__id"] = queue[jnp.minimum(ids0, n - 1)]

    def refill_cond(c: tuple) -> Any:
        pool, nxt, _ = c
        left = jnp.sum(live(pool), dtype=jnp.int32)
        more = nxt < total
        if len(sizes) == 1:
            return more | (left > 0)
        return more | (left > sizes[1])

    def refill_body(c: tuple) -> tuple:
        pool, nxt, home = c
        go = nxt >= 0
        pool = steps(pool, go)
        done = pool["__valid"] & ~running(view(pool))
        rows = where(done, pool["__id"], n)
        home = write(home, rows, results_of(pool))  # in place (a barrier would copy home)
        free = done | ~pool["__valid"]
        rank = _free_ranks(free) - 1
        slot = nxt + rank
        take = free & (slot < total)
        ids = queue[clip(slot, 0, n - 1)]
        source = where(take, ids, pool["__id"])
        # every slot's inputs gathered from its (new or current) lane: no select of the input matrix
        fresh = barrier(go, lanes_of, source)
        inputs = fresh.pop("__in", None)
        fresh.update(blank(w0))
        body = {k: v for k, v in pool.items() if not k.startswith("__")}
        pool2 = _where(take, fresh, body)
        if in_names:
            pool2["__in"] = inputs
        pool2["__id"] = source
        pool2["__valid"] = take | (pool["__valid"] & ~done)
        nxt = jnp.minimum(nxt + jnp.sum(free, dtype=jnp.int32), total)
        if sharing is not None:  # no lane waits and some slots idle: they take pieces of running lanes
            pool2 = lax.cond((nxt >= total) & ~jnp.all(pool2["__valid"]),
                             lambda p: _share(p, sharing.give, view), lambda p: p, pool2)
        return pool2, nxt, home

    pool, _, home = lax.while_loop(refill_cond, refill_body, (pool0, jnp.minimum(jnp.int32(w0), total), home))

    for level, size in enumerate(sizes):
        if level > 0:  # pack the running lanes of the previous pool into this one
            run = live(pool)
            order = jnp.nonzero(run, size=size, fill_value=0)[0]
            packed = pool.pop("__in", None)
            pool = _gather(pool, order)
            if packed is not None:
                pool["__in"] = packed[:, order]
            pool["__valid"] = pool["__valid"] & (jnp.arange(size) < jnp.sum(run, dtype=jnp.int32))
        last = level == len(sizes) - 1
        smaller = sizes[level + 1] if not last else 0

        def cond(p: dict, smaller: int = smaller) -> Any:
            return jnp.sum(live(p), dtype=jnp.int32) > smaller

        if level > 0:
            pool = lax.while_loop(cond, lambda p: steps(p, jnp.sum(p["__valid"], dtype=jnp.int32) >= 0), pool)
        # write back every lane of this pool (running ones are written again by the next pool)
        rows = where(pool["__valid"], pool["__id"], n)
        home = write(home, rows, results_of(pool))
    out = dict(state)
    out.update({k: v for k, v in home.items() if k != "__out"})
    if out_names:
        out.update(_unpack(home["__out"], out_names, state))
    return out


__all__ = ["UNEVEN_WIDTH", "Sharing", "barrier", "gather_rows", "pooled_loop", "uneven_width"]
