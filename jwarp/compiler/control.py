"""Control flow: ``if``, ``for``, ``while``, ``break``, ``continue`` and ``return`` as lane masks.

- ``if`` on a compile-time constant picks a branch in Python; otherwise both branches run,
  each under its part of the active mask.
- ``break``/``continue``/``return`` remove the current lanes from the active mask (breaks
  until the loop ends, continues until the next iteration, returns for good).
- ``for i in range(...)``: constant bounds with at most ``config.max_unroll`` iterations are
  unrolled; other launch-uniform bounds become a ``fori_loop`` (a ``while_loop`` when lanes
  can leave early); per-lane bounds and ``while`` become a masked ``while_loop`` that runs
  until no lane is active.
- In *bounded mode* (``ctx.loop_bounds``, used for reverse-mode AD) every dynamic loop is a
  ``fori_loop`` over a static trip bound measured by a forward run; extra iterations are
  fully masked, so results are unchanged and JAX can differentiate the loop.

A lax loop carries the locals and array planes its body writes. They are found by running
the body: when the body writes something not carried, or turns a uniform value into a
per-lane one, the loop is lowered again with a wider carry (:class:`LoopRetry`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp import config
from jwarp.compiler.masks import Mask, any_lane, exits_or, mask_and, mask_andnot, mask_not, mask_or
from jwarp.compiler.operators import truth
from jwarp.compiler import tile_contraction
from jwarp.compiler.loop_carry import CarrySpec, assigned_names, run_lax_loop
from jwarp.compiler.loop_shapes import CONDITION_COPY_LIMIT, condition_size, keeps_tile_products_rolled, unroll_factor
from jwarp.compiler.values import (
    STATIC,
    Value,
    is_const,
    is_launch_mask,
    leaves_of,
    scalar_value,
    select_value,
    to_device_leaf,
)
from jwarp.errors import WarpCodegenError, WarpCodegenTypeError
from jwarp.lang import scalars
from jwarp.lang.arrays import ArrayType, type_name
from jwarp.compiler.selects import where

if TYPE_CHECKING:
    from jwarp.compiler.lower import FunctionLowerer

_FALSE = np.bool_(False)


@dataclass
class LoopFrame:
    continued: Mask = None  # exit set of this iteration's `continue`s


def _as_exit(active: Mask) -> Mask:
    return np.bool_(True) if active is None else active


def _rejoin(active: Mask, exits: Mask) -> Mask:
    """``active | exits`` where active None = all lanes and exits None = no lane."""
    if exits is None:
        return active
    if active is not None and is_const(active) and not bool(active):
        return exits
    return mask_or(active, exits)


def _walk_exits(nodes: list[ast.stmt], loop_level: bool) -> tuple[bool, bool]:
    """(has break/continue at this loop level, has return) in ``nodes``."""
    brk = ret = False
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Return):
            ret = True
        elif isinstance(n, (ast.Break, ast.Continue)) and loop_level:
            brk = True
        if isinstance(n, (ast.For, ast.While)):
            inner_brk, inner_ret = _walk_exits(n.body + n.orelse, False)
            ret = ret or inner_ret
            continue
        if isinstance(n, (ast.FunctionDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return brk, ret


def _has_break(nodes: list[ast.stmt]) -> bool:
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Break):
            return True
        if isinstance(n, (ast.For, ast.While, ast.FunctionDef)):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return False


# ------------------------------------------------------------------------------------------------
# if / return / break / continue


def lower_if(lw: FunctionLowerer, node: ast.If) -> None:
    cond = truth(lw.eval(node.test))
    if is_const(cond):
        lw.exec_block(node.body if bool(cond) else node.orelse)
        return
    before = lw.active
    brk, ret = _walk_exits(node.body + node.orelse, True)
    lw.active = mask_and(before, cond)
    lw.exec_block(node.body)
    then_end = lw.active
    lw.active = mask_and(before, mask_not(cond))
    lw.exec_block(node.orelse)
    else_end = lw.active
    lw.active = mask_or(then_end, else_end) if (brk or ret) else before


def lower_return(lw: FunctionLowerer, node: ast.Return) -> None:
    frame = lw.frame
    if frame.is_kernel and node.value is not None:  # even `return None` (Warp's rule)
        from jwarp.compiler.lower import KERNEL_RETURN_ERROR

        raise WarpCodegenTypeError(f"'{frame.name}': {KERNEL_RETURN_ERROR}")
    value = lw.eval(node.value) if node.value is not None else None
    if value is not None and value.type is STATIC and value.data is None:
        value = None
    if frame.is_kernel and value is not None:
        raise WarpCodegenError("Kernels cannot return values")
    if value is not None:
        if isinstance(value.type, ArrayType):
            _check_array_return(lw, frame, value)
        if frame.track_nonzero and not _constant_zero(value):
            # (a return inside a loop: its mask belongs to the loop's trace, so every lane counts)
            frame.nonzero = mask_or(frame.nonzero, None if lw.loops else lw.active)
        if frame.ret is None:
            frame.ret = value
        elif frame.ret.type != value.type:
            raise WarpCodegenTypeError(
                f"Function '{frame.name}' returns values of different types: {type_name(frame.ret.type)} and "
                f"{type_name(value.type)}"
            )
        else:
            frame.ret = select_value(lw.active, value, frame.ret)
    frame.returned = exits_or(frame.returned, _as_exit(lw.active))
    lw.active = _FALSE


def _constant_zero(value: Value) -> bool:
    """Whether ``value`` is a compile-time zero (``return 0.0``, ``return wp.vec3()``)."""
    if value.type is STATIC or isinstance(value.type, ArrayType):
        return False
    try:
        leaves = leaves_of(value)
    except Exception:  # noqa: BLE001 - not a plain value: not known to be zero
        return False
    return bool(leaves) and all(is_const(x) and not np.any(x) for x in leaves)


def _check_array_return(lw: FunctionLowerer, frame: Any, value: Value) -> None:
    """Functions may return a fixed-size array of their own (``wp.zeros`` in kernel code), from one
    place: the caller gets that array."""
    if not lw.ctx.slots[value.data.slot].local:
        raise WarpCodegenTypeError("Functions cannot return arrays passed to them (only fixed-size arrays made by wp.zeros)")
    if frame.ret is not None and frame.ret.data != value.data:
        raise WarpCodegenTypeError(f"Function '{frame.name}' returns different fixed-size arrays on different paths")
    if lw.active is not None and not is_const(lw.active) and not is_launch_mask(lw.active):
        raise WarpCodegenTypeError(f"Function '{frame.name}' returns a fixed-size array under a per-thread condition")


def lower_break(lw: FunctionLowerer, node: ast.Break) -> None:
    if not lw.loops:
        raise WarpCodegenError("'break' outside a loop")
    lw.active = _FALSE


def lower_continue(lw: FunctionLowerer, node: ast.Continue) -> None:
    if not lw.loops:
        raise WarpCodegenError("'continue' outside a loop")
    loop = lw.loops[-1]
    loop.continued = exits_or(loop.continued, _as_exit(lw.active))
    lw.active = _FALSE


# ------------------------------------------------------------------------------------------------
# for / while


def _loop_key(lw: FunctionLowerer, node: ast.stmt) -> tuple:
    code = lw.src.func.__code__
    return lw.call_stack + ((code.co_filename, code.co_firstlineno, node.lineno, node.col_offset),)


def _range_args(lw: FunctionLowerer, call: ast.Call) -> list[Value]:
    args = [lw.eval(a) for a in call.args]
    # a compile-time bool (range(wp.static(True))) counts as the int it equals, as in Python
    args = [scalar_value(scalars.int32, int(a.data)) if a.type is scalars.bool_ and is_const(a.data) else a
            for a in args]
    if not 1 <= len(args) <= 3 or call.keywords:
        raise WarpCodegenError("range() takes 1 to 3 positional arguments in kernels")
    for a in args:
        if not scalars.is_int(a.type):
            raise WarpCodegenTypeError(f"range() arguments must be integers, got {type_name(a.type)}")
    if len(args) == 1:
        zero = scalar_value(args[0].type, 0)
        args = [zero, args[0]]
    if len(args) == 2:
        args.append(scalar_value(args[0].type, 1))
    t = args[0].type
    if any(a.type != t for a in args):
        raise WarpCodegenTypeError("range() arguments must all have the same integer type")
    return args


def _is_range_call(lw: FunctionLowerer, node: ast.expr) -> bool:
    if not isinstance(node, ast.Call):
        return False
    fn = lw.eval(node.func)
    return fn.type is STATIC and (fn.data is range or getattr(fn.data, "_jwarp_range", False))


def _calls_static(lw: FunctionLowerer, loop: ast.For) -> bool:
    """Whether the loop contains a ``wp.static(...)`` call (Warp unrolls such constant loops
    whatever ``max_unroll`` says, so the expression can see each iteration's value)."""
    from jwarp.compiler.calls import StaticMarker

    for node in ast.walk(loop):
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            target = node.func
            path = []
            while isinstance(target, ast.Attribute):
                path.append(target.attr)
                target = target.value
            if not isinstance(target, ast.Name) or target.id in lw.env:
                continue
            try:
                obj = lw.lookup(target.id).data
                for attr in reversed(path):
                    obj = getattr(obj, attr)
            except Exception:
                continue
            if isinstance(obj, StaticMarker):
                return True
    return False


def _is_reversed_range(lw: FunctionLowerer, node: ast.expr) -> bool:
    if not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords):
        return False
    fn = lw.eval(node.func)
    return fn.type is STATIC and fn.data is reversed and _is_range_call(lw, node.args[0])


def _reversed_bounds(start: Any, stop: Any, step: Any) -> tuple:
    """Bounds of ``reversed(range(start, stop, step))`` as a forward range."""
    if all(is_const(x) for x in (start, stop, step)):
        r = range(int(start), int(stop), int(step))[::-1]
        dtype = start.dtype.type
        return dtype(r.start), dtype(r.stop), dtype(r.step)
    start, stop, step = (to_device_leaf(x) for x in (start, stop, step))
    trip = _trip_count(start, stop, step).astype(start.dtype)
    return start + (trip - 1) * step, start - step, -step


def lower_for(lw: FunctionLowerer, node: ast.For) -> None:
    if node.orelse:
        raise WarpCodegenError("for/else is not supported in kernels")
    if not isinstance(node.target, ast.Name):
        raise WarpCodegenError("Loop targets must be a single name")
    reverse = _is_reversed_range(lw, node.iter)
    range_call = node.iter.args[0] if reverse else node.iter
    if not reverse and not _is_range_call(lw, node.iter):
        _lower_static_iteration(lw, node)
        return
    args = _range_args(lw, range_call)
    t = args[0].type
    start, stop, step = (a.data for a in args)
    if reverse:
        start, stop, step = _reversed_bounds(start, stop, step)
    if all(is_const(x) for x in (start, stop, step)):
        values = range(int(start), int(stop), int(step))
        if not _calls_static(lw, node) and tile_contraction.lower_contracted_loop(lw, node, t, values):
            return
        max_unroll = lw.ctx.max_unroll if lw.ctx.max_unroll is not None else config.max_unroll
        rolled = keeps_tile_products_rolled(node, len(values))
        if (len(values) <= max_unroll and not rolled) or _calls_static(lw, node):  # wp.static forces unrolling
            _unrolled(lw, node, [scalar_value(t, v) for v in values])
            return
    if all(jnp.ndim(x) == 0 for x in (start, stop, step)):
        _uniform_loop(lw, node, t, start, stop, step)
    else:
        _lane_loop(lw, node, t, start, stop, step)


def _lower_static_iteration(lw: FunctionLowerer, node: ast.For) -> None:
    """``for x in <compile-time tuple>`` (e.g. ``wp.static(...)``) or over a vector's components."""
    seq = lw.eval(node.iter)
    from jwarp.compiler.lower import lift_python
    from jwarp.lang import composites

    if seq.type is STATIC and isinstance(seq.data, (tuple, list)):
        items = [lift_python(x) for x in seq.data]
    elif composites.is_vector_like(seq.type):
        items = [Value(seq.type._wp_scalar_type_, x) for x in seq.data]
    elif composites.is_matrix(seq.type):
        rows, cols = seq.type._shape_
        row_t = composites.vector(cols, seq.type._wp_scalar_type_)
        items = [Value(row_t, tuple(seq.data[r * cols : (r + 1) * cols])) for r in range(rows)]
    elif getattr(seq.type, "_jwarp_query_next_", None):
        _query_loop(lw, node, seq)
        return
    else:
        raise WarpCodegenError("for loops must iterate over range(...), a vector, or a compile-time sequence")
    _unrolled(lw, node, items)


def _query_loop(lw: FunctionLowerer, node: ast.For, query: Value) -> None:
    """``for index in wp.hash_grid_query(...)`` (and other query iterators): a masked while loop whose
    condition advances the query with its ``*_next`` builtin, writing the found index to the target."""
    from jwarp.compiler.registry import BUILTINS, Call
    from jwarp.lang import scalars

    hidden = f"__query_{node.lineno}_{node.col_offset}"
    if getattr(query.type, "_jwarp_query_pairs_", None) is not None:
        from jwarp.compiler import pair_analysis, pair_loop

        names = pair_analysis.accumulators(lw, node)
        key = _acc_key(_loop_key(lw, node))
        record = lambda trips: lw.ctx.record_trip_count(key, trips)  # noqa: E731
        if names is not None and pair_loop.lower_pairs(lw, node, query, names, record):
            return
        from jwarp.compiler import pair_exit

        exit_if = pair_exit.exit_split(lw, node) if names is None else None
        if exit_if is not None and pair_exit.lower_first_hit(lw, node, query, exit_if, record):
            return
    lw.env[hidden] = query
    lw.env[node.target.id] = Value(scalars.int32, jnp.zeros(lw.ctx.grid, jnp.int32))
    step = BUILTINS[query.type._jwarp_query_next_]
    nodes = [ast.Name(id=hidden, ctx=ast.Store()), ast.Name(id=node.target.id, ctx=ast.Store())]

    def condition() -> Any:
        call = Call(step.name, lw.ctx, lw.active, lw, nodes)
        found = step.lower(call, [lw.env[hidden], lw.env[node.target.id]], {})
        return truth(found)

    _masked_while(lw, node, condition, None, None, None, test_at_top=True)
    del lw.env[hidden]


def _unrolled(lw: FunctionLowerer, node: ast.For, items: list[Value]) -> None:
    entry = lw.active
    _, has_return = _walk_exits(node.body, True)
    for item in items:
        if lw.active is not None and is_const(lw.active) and not bool(lw.active):
            break
        lw.env[node.target.id] = item
        loop = LoopFrame()
        lw.loops.append(loop)
        lw.exec_block(node.body)
        lw.loops.pop()
        lw.active = _rejoin(lw.active, loop.continued)
    lw.active = mask_andnot(entry, lw.frame.returned) if has_return else entry


def _trip_count(start: Any, stop: Any, step: Any) -> Any:
    """Iterations of range(start, stop, step) for uniform or per-lane bounds (0 for step 0)."""
    one = jnp.asarray(1, jnp.result_type(start))
    up = (stop - start + step - one) // where(step > 0, step, one)
    down = (start - stop - step - one) // where(step < 0, -step, one)
    trips = where(step > 0, up, where(step < 0, down, 0))
    return jnp.maximum(trips, 0).astype(jnp.int32)


def _uniform_loop(lw: FunctionLowerer, node: ast.For, t: type, start, stop, step) -> None:
    brk, has_return = _walk_exits(node.body, True)
    static_trip = None
    if all(is_const(x) for x in (start, stop, step)):
        static_trip = len(range(int(start), int(stop), int(step)))
    trip = static_trip if static_trip is not None else _trip_count(*(to_device_leaf(x) for x in (start, stop, step)))
    entry = lw.active
    key = _loop_key(lw, node)
    bounded = lw.ctx.loop_bounds is not None and static_trip is None
    early_exit = (brk and _has_break(node.body)) or has_return
    spec = CarrySpec(names=assigned_names(node.body) - {node.target.id}, active=early_exit, returned=has_return)
    spec.ignore.add(node.target.id)
    if static_trip is None:
        lw.ctx.record_trip_count(_acc_key(key), trip)

    def iteration(k: Any) -> None:
        i = to_device_leaf(start) + jnp.asarray(k, jnp.dtype(t._np_dtype)) * to_device_leaf(step)
        lw.env[node.target.id] = Value(t, i)
        if not early_exit:
            lw.active = entry
        if bounded:
            lw.active = mask_and(lw.active, k < trip)
        loop = LoopFrame()
        lw.loops.append(loop)
        lw.exec_block(node.body)
        lw.loops.pop()
        lw.active = _rejoin(lw.active, loop.continued)

    def emit(init: dict, step_fn) -> dict:
        def body(k, carry):
            return step_fn(carry, lambda: iteration(k))

        if static_trip is not None:
            unroll = unroll_factor(lw, node, static_trip)
            return lax.fori_loop(0, static_trip, body, init, unroll=unroll)
        if bounded:
            bound = int(lw.ctx.loop_bounds.get(_acc_key(key), 0))
            return lax.fori_loop(0, bound, body, init)
        if not early_exit:
            return lax.fori_loop(jnp.int32(0), trip, body, init)

        def cond(state):
            k, carry = state
            return (k < trip) & any_lane(carry["active"])

        def wbody(state):
            k, carry = state
            return k + 1, body(k, carry)

        return lax.while_loop(cond, wbody, (jnp.int32(0), init))[1]

    run_lax_loop(lw, node, spec, emit)
    lw.active = mask_andnot(entry, lw.frame.returned) if has_return else entry


def _acc_key(key: tuple) -> str:
    """A loop's key in ``loop_bounds`` (its trip count is diagnostics["trip:" + key])."""
    return "/".join(f"{f}:{a}:{b}:{c}" for f, a, b, c in key)


def _lane_loop(lw: FunctionLowerer, node: ast.For, t: type, start, stop, step) -> None:
    """A range with per-lane bounds: a masked while loop with a per-lane counter."""
    dtype = jnp.dtype(t._np_dtype)
    start, stop, step = (jnp.asarray(to_device_leaf(x), dtype) for x in (start, stop, step))

    def in_range(i):
        return where(step > 0, i < stop, where(step < 0, i > stop, False))

    counter = f"__loop_i_{node.lineno}_{node.col_offset}"
    lw.env[counter] = Value(t, jnp.broadcast_to(start, lw.ctx.grid))
    _masked_while(lw, node, lambda: in_range(lw.env[counter].data), node.target.id, counter, step)
    del lw.env[counter]


def lower_while(lw: FunctionLowerer, node: ast.While) -> None:
    if node.orelse:
        raise WarpCodegenError("while/else is not supported in kernels")
    from jwarp.compiler import pair_while

    key = _acc_key(_loop_key(lw, node))
    if pair_while.lower_query_while(lw, node, lambda trips: lw.ctx.record_trip_count(key, trips)):
        return
    _masked_while(lw, node, lambda: truth(lw.eval(node.test)), None, None, None, watch=lw.ctx.watch_loops,
                  test_at_top=condition_size(lw, node.test) > CONDITION_COPY_LIMIT)



def _unchanged(before: dict, after: dict) -> Any:
    """Scalar bool: the loop state is the same after an iteration as before it (NaN equals NaN).

    The iteration counters (``a:iters:...``) always advance and are left out."""
    same = jnp.asarray(True)
    for key, new in after.items():
        if key.startswith("a:iters:"):
            continue
        old = before[key]
        equal = old == new
        if jnp.issubdtype(jnp.result_type(new), jnp.inexact):
            equal = equal | (jnp.isnan(old) & jnp.isnan(new))
        same = same & jnp.all(equal)
    return same


def _watched_while(lw: FunctionLowerer, init: dict, iterate) -> tuple[dict, Any]:
    """A ``while_loop`` that also stops when an iteration leaves its state unchanged with lanes inside.

    Such a loop would run forever: in lockstep its lanes wait on each other (a spin lock's holder
    cannot reach its release while the other lanes spin), so the stall is recorded in the ``stall``
    site flag and the kernel later reruns with threads serialised (see ``kernel_compile``); with
    threads serialised it is a real infinite loop, recorded in ``hang`` (an error at launch).
    Once a stall was recorded, later watched loops do not start (the launch's result is discarded).
    Returns the final carry and whether this loop stalled.
    """
    key = "hang" if lw.ctx.serial else "stall"
    earlier = lw.ctx.accumulators.get(key)
    stopped = jnp.asarray(False) if earlier is None else earlier >= 0

    def cond(state):
        carry, stalled = state
        return any_lane(carry["active"]) & jnp.logical_not(stalled)

    def body(state):
        carry, _ = state
        new = iterate(carry)
        return new, _unchanged(carry, new)

    final, stalled = lax.while_loop(cond, body, (init, stopped))
    return final, stalled & jnp.logical_not(stopped)


def _masked_while(lw: FunctionLowerer, node, condition, target: str | None, counter: str | None, step,
                  watch: bool = False, test_at_top: bool = False) -> None:
    """A loop of lanes: ``condition()`` (traced where the lanes test it) decides which lanes run the
    body again. It is lowered before the loop and after each iteration's body, or, with
    ``test_at_top`` (a large condition: one copy of its code), at the start of each iteration, which
    then ends the loop one masked iteration later."""
    entry = lw.active
    _, has_return = _walk_exits(node.body, True)
    key = _loop_key(lw, node)
    names = assigned_names(node.body)
    if counter is not None:
        names = (names - {target}) | {counter}
    spec = CarrySpec(names=names, active=True, returned=has_return)
    if target is not None:
        spec.ignore.add(target)
    iters_key = "iters:" + _acc_key(key)
    spec.accs[iters_key] = jnp.int32(0)
    lw.ctx.accumulators[iters_key] = jnp.int32(0)
    lw.active = entry if test_at_top else mask_and(entry, condition())
    bounded = lw.ctx.loop_bounds is not None

    def iteration() -> None:
        lw.ctx.accumulators[iters_key] = lw.ctx.accumulators[iters_key] + 1
        if test_at_top:
            lw.active = mask_and(lw.active, condition())
        if counter is not None:
            lw.env[target] = lw.env[counter]
        loop = LoopFrame()
        lw.loops.append(loop)
        lw.exec_block(node.body)
        lw.loops.pop()
        still = _rejoin(lw.active, loop.continued)
        if counter is not None:
            current = lw.env[counter]
            lw.env[counter] = Value(current.type, current.data + step)
        lw.active = still if test_at_top else mask_and(still, condition())

    stall: dict = {}

    def emit(init: dict, step_fn) -> dict:
        if bounded:
            bound = int(lw.ctx.loop_bounds.get(_acc_key(key), 0))
            return lax.fori_loop(0, bound, lambda k, c: step_fn(c, iteration), init)
        if watch:
            final, stall["now"] = _watched_while(lw, init, lambda c: step_fn(c, iteration))
            return final
        return lax.while_loop(lambda c: any_lane(c["active"]), lambda c: step_fn(c, iteration), init)

    run_lax_loop(lw, node, spec, emit)
    if "now" in stall:
        lw.ctx.flag_site("hang" if lw.ctx.serial else "stall", lw.ctx.add_site(lw.location(node)), stall["now"])
    iters = lw.ctx.accumulators.pop(iters_key)
    lw.ctx.record_trip_count(_acc_key(key), iters)
    lw.active = mask_andnot(entry, lw.frame.returned) if has_return else entry
