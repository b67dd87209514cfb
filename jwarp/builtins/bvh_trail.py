"""Nearest-first BVH traversal with no per-lane stack: in-order numbered nodes and a bit trail.

A tree built by :func:`jwarp.runtime.geometry.bvh_build.build` without groups has a shape that
depends on its primitive count only (every node splits its range in half), so it can be numbered
as a complete binary tree (:func:`heap_order`; some slots of the last levels stay empty), here *in
order* (:func:`inorder_order`): a slot's lowest set bit ``h`` is its height bit and its children are
``slot - h/2`` and ``slot + h/2``; the root is ``2^(levels-1)``. A lane's traversal state is two
integers, the slot it stands on and a *trail* holding the height bits of the ancestors whose
farther child is still to be visited. Going down into the nearer of two entered children adds the
node's height bit; popping takes the lowest trail bit ``b`` (the nearest such ancestor), clears it
and moves to that ancestor's other child, ``((slot ^ b) & -b) | b/2`` (0 when the trail is empty:
done). This visits nodes in exactly the order of a stack walk (Warp's: nearer child first, the
farther one pushed) without a stack array, whose per-lane scatter and gather dominated each step,
and with only bitwise operations and constant shifts (which vectorise without AVX2).

Each step reads one row of a per-launch table (:mod:`jwarp.builtins.bvh_layout`): for an internal
node the boxes of both children, for a leaf its primitive's data and index; the query's arithmetic then
vectorises over the lanes (see :mod:`jwarp.builtins.lane_pool`). In narrow pools a step goes down
two levels (:func:`lookahead_stepper`: a node's box tests, then its nearer entered child's row),
since there a step's cost is mostly fixed. Closest-primitive walks can share their pending subtrees
with idle pool slots (:func:`sharing`): a lane's *order key* (the far children it stands in) ranks
its leaves in visiting order, so the pieces' results merge into what one walk finds, ties included.

Example (inside a builtin):
    >>> rows = node_rows(tree, face_count, leaf_data)  # doctest: +SKIP
    >>> state = walk_trail(rows, face_count, state, active, enter, candidate)  # doctest: +SKIP
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.builtins.bvh_layout import FLAG, PRIM, Table, as_table, heap_order, heap_rows, inorder_order, node_rows
from jwarp.builtins.lane_pool import Sharing, barrier, pooled_loop, uneven_width
from jwarp.compiler.selects import clip, where

# lanes walked at once by default (point queries: `lane_pool.uneven_width`; coherent rays pass a wider pool).
# `mesh_query_point_sign_normal` on the 16k-triangle sphere, 4,096 / 65,536 queries (one core):
# 1240 / 980 ms with 4096 lanes (then 256), 125 / 737 ms with 256, 92 / 832 ms with 128; Warp 19 / 288 ms.
_CHUNK = 8
MAX_LEVELS = 30
# pools at most this wide take two tree levels per step (:func:`lookahead_stepper`): their steps cost
# mostly fixed per-step work. In-process A/B (docs/performance.md, twenty-ninth session): Warp's
# `example_mesh`, 1,000 sign-normal queries in pools of 64, 2.15 -> 1.85 ms a launch (three or four levels:
# no faster than two); the 16k-triangle sphere, 4,096 closest points 155 -> 129 ms, 65,536 1,101 -> 1,012,
# 4,096 sign-normal 213 -> 168. Wider ray pools lost a little (any-hit, 16,384 lanes), so they keep one level.
LOOKAHEAD_WIDTH = 256
# narrow pools take only the lanes that enter some box this many levels below the root (32 boxes).
# `example_mesh` after 8 steps: of 1,000 queries, 325 enter a child of the root, 180 a box 3 levels
# down, 130 at 5, 84 at 8; its launch (in-process A/B, p25): 2.04-2.21 ms at depth 1, 1.95-2.06 at 5
# (the lanes left out had short walks).
CULL_DEPTH = 5
# walks asked to share (:func:`sharing`) do so when the launch has at most this many lanes per pool slot:
# beyond, the long walks are a small part of the work, and the bookkeeping costs more than the tail.
# Closest points on the 16k-triangle sphere (in-process A/B, CPU ms; pools of 64 / 128 / 256 / 256):
# 1,024 queries 31 -> 26, 4,096 129 -> 77, 16,384 304 -> 252, 65,536 1,012 -> 1,147.
SHARE_LANES_PER_SLOT = 128


def supported(count: int, grouped: bool) -> bool:
    """Whether :func:`walk_trail` can walk the tree over ``count`` primitives."""
    return not grouped and 1 <= count and heap_order(count)[1] <= MAX_LEVELS


def _is_leaf(row: Any) -> Any:
    """Which gathered rows are leaves (the flag column)."""
    return row[:, FLAG] != 0


def root_slot(count: int) -> int:
    """The in-order slot of the root (its height bit)."""
    return 1 << (inorder_order(count)[2] - 1)


def stepper(rows: Any, enter: Callable, candidate: Callable | None, best: str = "t", best_prim: str | None = "face",
            fast: tuple | None = None, update: Callable | None = None, stop: str | Callable | None = None) -> tuple:
    """``(running, step)`` of :func:`walk_trail` (for :func:`jwarp.builtins.lane_pool.pooled_loop`).
    ``fast``: ``(enter_fast, key)``, a cheaper ``enter`` that is exact for the lanes whose
    ``state[key]`` is False; ``step(s, go, general)`` uses it when ``general`` (from
    :func:`needs_general`, once per chunk of steps) is False. ``update``, ``stop``: see
    :func:`walk_trail`."""
    running = _running(stop)
    table = as_table(rows)

    def gather(node: Any) -> Any:
        return table.at(node)

    def tests(s: dict, row: Any, enter: Callable = enter) -> tuple:
        """The expensive part, computed once per lane: a code (bit 0/1: the left/right child
        is entered, bit 2: the left one is nearer) and the leaf's candidate value."""
        run = running(s)
        is_leaf = run & _is_leaf(row)
        prim = lax.bitcast_convert_type(row[:, PRIM], jnp.int32)
        cols = tuple(row[:, k] for k in range(12))
        if update is not None:  # the leaf's new state fields, kept where the lane is not at a leaf
            new = update(s, prim, cols)
            value = {k: where(is_leaf, v, s[k]) for k, v in new.items()}
        else:
            value = where(is_leaf, candidate(s, prim, cols), jnp.inf)
        (hl, kl), (hr, kr) = enter(s, cols[0:3], cols[3:6]), enter(s, cols[6:9], cols[9:12])
        inner = run & ~is_leaf
        code = ((inner & hl).astype(jnp.int32) | ((inner & hr).astype(jnp.int32) << 1)
                | ((kl < kr).astype(jnp.int32) << 2))
        return code, value

    def merged(s: dict, row: Any, enter: Callable = enter) -> Any:
        """:func:`tests` as one lane array (one fusion reads each row column once): a leaf's
        candidate value (``>= 0``), else ``-1 - code``."""
        code, value = tests(s, row, enter)
        is_leaf = running(s) & _is_leaf(row)
        return where(is_leaf, value, (-1 - code).astype(jnp.float32))

    def split(res: Any) -> tuple:
        code = where(res < 0, (-1.0 - res).astype(jnp.int32), 0)
        return code, where(res < 0, jnp.inf, res)

    def step(s: dict, go: Any, general: Any = None) -> dict:
        row = barrier(go, gather, s["node"])
        if update is None:  # one fusion computes the code and the candidate
            if fast is None:
                code, value = split(barrier(go, merged, s, row))
            else:
                general = needs_general(fast[1])(s) if general is None else general
                code, value = split(lax.cond(general, merged, partial(merged, enter=fast[0]), s, row))
        elif fast is None:
            code, value = barrier(go, tests, s, row)
        else:  # a conditional is a barrier too
            general = needs_general(fast[1])(s) if general is None else general
            code, value = lax.cond(general, tests, partial(tests, enter=fast[0]), s, row)
        node, trail = s["node"], s["trail"]
        run = running(s)
        hl, hr, near_left = (code & 1) != 0, (code & 2) != 0, (code & 4) != 0
        height = node & -node  # the node's height bit; its children are node -+ height / 2
        half = jnp.right_shift(height, 1)
        down = where(hl & (~hr | near_left), node - half, node + half)
        trail = trail | where(hl & hr, height, 0)
        pop = run & ~(hl | hr)
        far, popped = _pop(node, trail)
        out = _scored(s, value, node, best, best_prim, update is not None)
        if "far" in s:
            out["far"] = where(pop, _far_bits(s["far"], trail), s["far"])
        out["node"] = where(pop, far, where(hl | hr, down, node))  # far is 0 when nothing is pending
        out["trail"] = where(pop, popped, trail)
        return out

    return running, step


def _scored(s: Any, value: Any, slot: Any, best: str, best_prim: str | None, updated: bool) -> dict:
    """The state after a step's leaf: ``value`` holds the new fields of an ``update`` walk, or the
    leaf's candidate value (``inf`` off leaves), which replaces the best where strictly smaller,
    recording the leaf's ``slot`` (see :func:`walk_trail`) and, in a shared walk, its order key."""
    out = dict(s)
    if updated:
        out.update(value)
        return out
    better = value < s[best]
    out[best] = where(better, value, s[best])
    out[best_prim] = where(better, slot, s[best_prim])
    if "far" in s:
        out["rank"] = where(better, s["far"], s["rank"])
    return out


def _running(stop: str | Callable | None) -> Callable[[dict], Any]:
    """Which lanes still walk: those on a node (slot 0: done) that ``stop`` (see :func:`walk_trail`)
    has not ended."""
    def running(s: dict) -> Any:
        go = s["node"] > 0
        if stop is None:
            return go
        return go & ~(stop(s) if callable(stop) else s[stop])
    return running


def _pop(node: Any, trail: Any) -> tuple[Any, Any]:
    """``(slot, trail)`` after a pop from ``node``: the lowest trail bit is the height bit of the
    nearest ancestor with a pending far child; that child is the ancestor's other child, on the side
    of the node's bit flipped (slot 0 when nothing is pending)."""
    deepest = trail & -trail
    return ((node ^ deepest) & -deepest) | jnp.right_shift(deepest, 1), trail ^ deepest


def _far_bits(far: Any, trail: Any) -> Any:
    """A lane's *order key* after a pop with ``trail``: bit ``h`` is set where the lane stands in the
    far (second visited) child of its ancestor of height bit ``h``, so keys grow in visiting order
    (the root's choice is the highest bit). The pop moves to the far child of the ancestor of the
    lowest trail bit: that bit is set and the bits below it cleared."""
    deepest = trail & -trail
    return (far & -(deepest << 1)) | deepest


def _highest_bit(x: Any) -> Any:
    """The highest set bit of positive int32 lanes (0 for 0)."""
    return where(x > 0, jnp.left_shift(jnp.int32(1), 31 - lax.clz(jnp.maximum(x, 1))), 0)


def sharing(best: str, best_prim: str) -> Sharing:
    """:class:`jwarp.builtins.lane_pool.Sharing` for a ``candidate`` walk whose state carries the order
    key ``far`` (see :func:`_far_bits`) and ``rank`` (the key of the best leaf): a running lane
    with pending subtrees gives away the shallowest one, the last it would visit, to an idle slot,
    which walks it from the lane's best value so far. The pieces' results merge by (value, rank):
    the smallest value, ties to the leaf visited first in the whole walk's order, as one lane would
    find it (a piece prunes with a larger bound than the whole walk would at that point, so it visits
    more nodes, never fewer of those that hold the smallest value)."""
    def give(pool: Any) -> tuple:
        node, trail, far = pool["node"], pool["trail"], pool["far"]
        top = _highest_bit(trail)
        piece = {"node": ((node ^ top) & -top) | jnp.right_shift(top, 1), "trail": jnp.zeros_like(trail),
                 "far": (far & -(top << 1)) | top, best_prim: jnp.zeros_like(pool[best_prim]),
                 "rank": jnp.full_like(pool["rank"], _NO_RANK)}
        return (node > 0) & (trail != 0), piece, {"trail": trail ^ top}

    def merge(home: dict, rows: Any, values: dict) -> dict:
        # only the rows written are read and written (a refill's pool, not the launch's lanes)
        n = home[best].shape[0]
        valid, at = rows < n, clip(rows, 0, n - 1)
        before = home[best][at]
        value = home[best].at[rows].min(values[best], mode="drop")
        after = value[at]
        ties = valid & (values[best] == after)
        kept = where(after < before, _NO_RANK, home["rank"][at])  # a better value drops the old rank
        rank = home["rank"].at[rows].set(kept, mode="drop").at[rows].min(where(ties, values["rank"], _NO_RANK),
                                                                          mode="drop")
        won = ties & (values["rank"] == rank[at])
        prim = home[best_prim].at[where(won, rows, n)].set(values[best_prim], mode="drop")
        return {best: value, "rank": rank, best_prim: prim}

    return Sharing(give, merge)


_NO_RANK = np.iinfo(np.int32).max


def _code(*bits: Any) -> Any:
    """Boolean lane arrays as the bits of one int32 lane array (bit k: ``bits[k]``)."""
    return sum(b.astype(jnp.int32) << k for k, b in enumerate(bits))


def _bits(code: Any, count: int) -> tuple:
    return tuple((code >> k) & 1 != 0 for k in range(count))


def lookahead_stepper(rows: Any, enter: Callable, candidate: Callable | None, best: str = "t",
                      best_prim: str | None = "face", fast: tuple | None = None, update: Callable | None = None,
                      stop: str | Callable | None = None, levels: int = 2) -> tuple:
    """:func:`stepper` taking up to ``levels`` tree levels a step: a lane on an internal node tests
    its children's boxes and goes to the nearer entered child, whose row it then reads in the same
    step (testing its children's boxes in turn, or scoring it when it is a leaf); a lane on a leaf,
    or one that enters nothing, stops going down and pops (after scoring the leaf). Each level
    before the last reads a row and runs only the box tests; the last one also scores a leaf.

    The visits are those of :func:`stepper`, in the same order: no leaf is scored between a node
    and its child, so both see the same best value, and a lane that scores a leaf takes the pop
    the single step would take next. Steps of narrow pools cost mostly fixed work per step, so
    fewer, longer steps pay there (see :data:`LOOKAHEAD_WIDTH`)."""
    running = _running(stop)
    table = as_table(rows)

    def gather(node: Any) -> Any:
        return table.at(node)

    def entered(s: dict, row: Any, inner: Any, enter: Callable) -> tuple:
        """(left entered, right entered, go left) for the lanes ``inner`` on an internal row."""
        cols = tuple(row[:, k] for k in range(12))
        (hl, kl), (hr, kr) = enter(s, cols[0:3], cols[3:6]), enter(s, cols[6:9], cols[9:12])
        hl, hr = inner & hl, inner & hr
        return hl, hr, hl & (~hr | (kl < kr))

    def ahead(s: dict, row: Any, live: Any, enter: Callable = enter) -> Any:
        """A row before the last level: bit 0 a leaf, bits 1-3 :func:`entered`."""
        leaf = live & _is_leaf(row)
        return _code(leaf, *entered(s, row, live & ~leaf, enter))

    def last(s: dict, row: Any, live: Any, enter: Callable = enter) -> tuple:
        """The last level's row: (bits 0-2 :func:`entered`, the leaf's new state fields) or, for a
        ``candidate`` walk, one lane array as :func:`stepper`'s: the leaf's value (``>= 0``) or
        ``-1 - code`` (a lane stands on a leaf or on an internal node, never both)."""
        leaf = live & _is_leaf(row)
        prim = lax.bitcast_convert_type(row[:, PRIM], jnp.int32)
        cols = tuple(row[:, k] for k in range(12))
        code = _code(*entered(s, row, live & ~leaf, enter))
        if update is not None:
            return code, {k: where(leaf, v, s[k]) for k, v in update(s, prim, cols).items()}
        return where(leaf, candidate(s, prim, cols), (-1 - code).astype(jnp.float32))

    def step(s: dict, go: Any, general: Any = None) -> dict:
        if fast is not None and general is None:
            general = needs_general(fast[1])(s)

        def apart(fn: Callable, *args: Any) -> Any:
            if fast is None:
                return barrier(go, fn, *args)
            return lax.cond(general, fn, partial(fn, enter=fast[0]), *args)  # a conditional is a barrier too

        run = running(s)
        at, trail = s["node"], s["trail"]
        live, at_leaf = run, jnp.zeros_like(run)  # lanes still going down; lanes standing on a leaf
        for _ in range(levels - 1):
            leaf, hl, hr, left = _bits(apart(ahead, s, barrier(go, gather, at), live), 4)
            height = at & -at
            half = jnp.right_shift(height, 1)
            trail = trail | where(hl & hr, height, 0)
            down = hl | hr
            at = where(down, where(left, at - half, at + half), at)
            at_leaf, live = at_leaf | leaf, live & down
        result = apart(last, s, barrier(go, gather, at), live | at_leaf)
        if update is None:
            code, value = where(result < 0, (-1.0 - result).astype(jnp.int32), 0), where(result < 0, jnp.inf, result)
        else:
            code, value = result
        hl, hr, left = _bits(code, 3)
        height = at & -at
        half = jnp.right_shift(height, 1)
        far, popped = _pop(at, trail)  # a lane that goes no deeper pops from where it stands
        deeper = hl | hr
        out = _scored(s, value, at, best, best_prim, update is not None)
        if "far" in s:
            out["far"] = where(run & ~deeper, _far_bits(s["far"], trail), s["far"])
        out["node"] = where(run, where(deeper, where(left, at - half, at + half), far), s["node"])
        out["trail"] = where(run, where(deeper, trail | where(hl & hr, height, 0), popped), s["trail"])
        return out

    return running, step


def needs_general(key: str, running: Callable[[Any], Any] | None = None) -> Callable[[Any], Any]:
    """Whether any running lane of a pool has ``key`` set (the ``hint`` of :func:`stepper`'s ``fast``)."""
    def hint(s: Any) -> Any:
        go = s["node"] > 0 if running is None else running(s)
        return jnp.sum(s[key] & go, dtype=jnp.int32) > 0
    return hint


def _enter_root(rows: Any, count: int, flat: dict, enter: Callable, derive: Callable | None, depth: int = 1) -> Any:
    """Which lanes enter some box ``depth`` levels below the root (at most two levels above the
    deepest leaves, where every node is internal; ``count > 1``), for every lane at once and with the
    walk's starting state: a lane that enters none can reach no leaf, and would spend its first steps
    in the pool (and a refill's wait for its slot) to change nothing. Depth 1 is the first step's
    test; narrow pools look further (:data:`CULL_DEPTH`)."""
    levels = inorder_order(count)[2]
    depth = max(1, min(depth, levels - 2))
    height = 1 << (levels - depth)  # the parents' height bit, one level above the boxes tested
    parents = as_table(rows).at(jnp.asarray(np.arange(1 << (depth - 1)) * 2 * height + height, jnp.int32))
    s = dict(flat)
    if derive is not None:
        s.update(derive(s))
    s = {k: v[:, None] for k, v in s.items()}
    boxes = jnp.concatenate([parents[:, 0:6], parents[:, 6:12]], axis=0)  # (2^depth, 6)
    lower, upper = tuple(boxes[None, :, k] for k in range(3)), tuple(boxes[None, :, k] for k in range(3, 6))
    return jnp.any(enter(s, lower, upper)[0], axis=1)


def _with_uniform(uniform: dict, enter: Callable, candidate: Callable | None, update: Callable | None,
                  derive: Callable | None, fast: tuple | None) -> tuple:
    """The callbacks of :func:`walk_trail` reading the lane-invariant inputs ``uniform`` (scalars)
    alongside the pool's lane data."""
    def view(s: Any) -> dict:
        return {**{k: s[k] for k in s}, **uniform}

    def on_state(fn: Callable | None) -> Callable | None:
        return None if fn is None else (lambda s, *rest: fn(view(s), *rest))

    def derive_(lanes: Any) -> dict:  # derived arrays are per lane, even from lane-invariant inputs
        some = next(iter(lanes))
        return {k: jnp.broadcast_to(v, jnp.shape(lanes[some])) for k, v in derive(view(lanes)).items()}

    fast_ = None if fast is None else (on_state(fast[0]), fast[1])
    return on_state(enter), on_state(candidate), on_state(update), None if derive is None else derive_, fast_


def walk_trail(rows: Any, count: int, state: dict, active: Any, enter: Callable[[dict, tuple, tuple], tuple],
               candidate: Callable[[dict, Any, tuple], Any] | None, best: str = "t", best_prim: str | None = "face",
               fast: tuple | None = None, derive: Callable[[Any], dict] | None = None,
               update: Callable[[dict, Any, tuple], dict] | None = None, changes: tuple = (),
               stop: str | Callable[[dict], Any] | None = None, pool: int | None = None,
               leaf_columns: dict | None = None, levels: int | None = None, share: bool = False) -> dict:
    """Closest-primitive search over the node table ``rows`` (a :class:`~jwarp.builtins.bvh_layout.Table`, or
    the array of :func:`~jwarp.builtins.bvh_layout.node_rows`; see the module docstring), nearest child first.

    ``enter(state, lower, upper)`` returns ``(enter, key)`` (which lanes enter a child box: those
    that may hold a candidate below ``state[best]``; the key orders the children, smaller first,
    the right child on ties as Warp). ``candidate(state, prim, data)`` is a leaf primitive's value
    (``>= 0``, or ``inf`` when it does not count; ``data`` the 12 row columns). ``state[best]`` starts at the
    limit; ``state[best_prim]`` receives the primitive of the smallest candidate (the first found
    wins ties). ``fast``: see :func:`stepper`. ``derive``: per-lane constants computed from the
    state when a lane enters the pool (see :func:`jwarp.builtins.lane_pool.pooled_loop`).
    State entries given as scalars (0-d) other than the outputs are lane-invariant inputs (e.g. one
    ray origin for every lane): not stored per lane, the callbacks read them as scalars.
    ``update(state, prim, data)`` (instead of ``candidate``): a leaf's new values of the state
    fields it changes (``best``, ``best_prim`` and the fields named in ``changes``), for searches
    that keep more than the smallest candidate (or visit every entered leaf: counts); then
    ``best_prim`` may be None. ``stop``: a bool state field (or a function of the state) that ends
    a lane's walk once true (an any-hit search). ``pool``: lanes walked at once (see
    :func:`jwarp.builtins.lane_pool.pooled_loop`; default :func:`jwarp.builtins.lane_pool.uneven_width`).
    ``leaf_columns``: ``{name: column}``, leaf data columns of the best primitive's row returned as
    ``name`` (0 where none was found; searches with ``candidate`` only), read in the same gather as the
    primitive. ``levels``: tree levels a step may go down (:func:`lookahead_stepper`; default 2 for
    pools of at most :data:`LOOKAHEAD_WIDTH` lanes, else 1); the result does not depend on it.
    ``share``: once no lane waits, idle pool slots take the pending subtrees of running lanes
    (:func:`sharing`; ``candidate`` walks without ``stop``): a few long walks then run on many
    lanes (launches of more lanes than the pool and at most :data:`SHARE_LANES_PER_SLOT` per slot).
    Returns the final state."""
    shape = active.shape
    # inputs given as scalars are the same for every lane: they stay out of the pool's lane data
    kept = (best, best_prim) + tuple(changes)
    uniform = {k: v for k, v in state.items() if jnp.ndim(v) == 0 and k not in kept}
    if len(uniform) == len([k for k in state if k not in kept]):
        uniform = {}  # every input lane-invariant: keep them per lane (the pool needs lane data)
    flat = {k: jnp.broadcast_to(v, shape).reshape(-1) for k, v in state.items() if k not in uniform}
    if uniform:
        enter, candidate, update, derive, fast = _with_uniform(uniform, enter, candidate, update, derive, fast)
        if callable(stop):
            stop = _with_uniform(uniform, stop, None, None, None, None)[0]
    # a lane's position lives only in the pool: it starts at the root with nothing pending
    scratch = {"node": ((), jnp.int32, root_slot(count)), "trail": ((), jnp.int32, 0)}
    if update is None and (candidate is None or best_prim is None):
        raise ValueError("walk_trail: a search without update needs candidate and best_prim")
    width = uneven_width(int(active.size)) if pool is None else pool
    if levels is None:
        levels = 2 if width <= LOOKAHEAD_WIDTH else 1
    if levels > 1:
        running, step = lookahead_stepper(rows, enter, candidate, best, best_prim, fast, update, stop, levels)
    else:
        running, step = stepper(rows, enter, candidate, best, best_prim, fast, update, stop)
    if update is None:  # the walk keeps the best leaf's slot (0: none), its primitive is read at the end
        initial = flat[best_prim]
        flat[best_prim] = jnp.zeros_like(initial)
    outputs = (best,) + ((best_prim,) if best_prim is not None else ()) + tuple(changes)
    if share and (update is not None or stop is not None or changes):
        raise ValueError("walk_trail: share needs a candidate walk without stop or changes")
    shared = None
    if share and width < active.size <= SHARE_LANES_PER_SLOT * width:
        scratch["far"] = ((), jnp.int32, 0)
        flat["rank"] = jnp.full(flat[best].shape, _NO_RANK, jnp.int32)
        outputs += ("rank",)
        shared = sharing(best, best_prim)
    lanes = active.reshape(-1)
    if count > 1:  # lanes that enter neither child of the root are done before the pool
        lanes = lanes & _enter_root(rows, count, flat, enter, derive, CULL_DEPTH if width <= LOOKAHEAD_WIDTH else 1)
    out = pooled_loop(flat, lanes, running, step, width=width, chunk=_CHUNK, scratch=scratch, sharing=shared,
                      outputs=outputs, derive=derive, pack_inputs=True,
                      hint=None if fast is None else needs_general(fast[1], running))
    if update is None:
        slot = out[best_prim]
        names = tuple(leaf_columns or {})
        picked = as_table(rows).at(slot)[:, [PRIM, *(leaf_columns[k] for k in names)]]
        prim = lax.bitcast_convert_type(picked[:, 0], jnp.int32)
        out[best_prim] = where(slot > 0, prim, initial)
        out.update({k: where(slot > 0, picked[:, 1 + j], 0.0) for j, k in enumerate(names)})
    elif leaf_columns:
        raise ValueError("walk_trail: leaf_columns needs a search with candidate")
    out.pop("rank", None)
    return {k: v.reshape(shape) for k, v in out.items()}


__all__ = ["CULL_DEPTH", "FLAG", "LOOKAHEAD_WIDTH", "MAX_LEVELS", "PRIM", "SHARE_LANES_PER_SLOT", "Table",
           "heap_order", "heap_rows", "inorder_order", "lookahead_stepper", "needs_general", "node_rows", "root_slot",
           "sharing", "stepper", "supported", "walk_trail"]
