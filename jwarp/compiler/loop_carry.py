"""Loop carries: what a ``lax`` loop must carry, found by tracing its body.

A lax loop carries the locals and array planes its body writes, the kernel accumulators
(debug flags, trip counts), and — when lanes can leave the loop — the active mask and the
function's return state. They are discovered by running the body: when the body writes
something not carried, or turns a uniform value into a per-lane one, the loop is lowered
again with a wider carry (:class:`LoopRetry`). :func:`run_lax_loop` drives the attempts.

A leaf of a carried local that is a compile-time constant when the loop starts and that the body
leaves the same constant (a struct field the body never changes, e.g. a BVH query's kind) is not
carried: the body and the code after the loop see the constant, so what depends on it is decided
at compile time. A body that changes it retries with the leaf carried.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import jax.numpy as jnp

from jwarp.compiler.context import initial_accumulator
from jwarp.compiler.values import STATIC, is_const, leaves_of, to_device_leaf, value_from_leaves, zeros_value
from jwarp.errors import ControlSignal, WarpCodegenError, WarpCodegenTypeError
from jwarp.lang.arrays import ArrayType, type_name
from jwarp.lang.tile_types import TileType

if TYPE_CHECKING:
    from jwarp.compiler.lower import FunctionLowerer



class LoopRetry(ControlSignal):
    """Raised from a loop body trace when the carry must grow; the loop is lowered again."""

    def __init__(self, promote=(), names=(), slots=(), accs=None, ret=None, returned=False, new=None, varying=()):
        super().__init__("loop carry changed")
        self.varying = set(varying)  # constant leaves the body changes: carried from now on
        self.new = dict(new or {})  # locals first assigned inside the body: name -> type
        self.promote = set(promote)
        self.names = set(names)
        self.slots = set(slots)
        self.accs = dict(accs or {})
        self.ret = ret
        self.returned = returned


@dataclass
class CarrySpec:
    names: set = field(default_factory=set)
    slots: set = field(default_factory=set)
    accs: dict = field(default_factory=dict)  # key -> initial leaf for keys created inside the loop
    ret: Any = None  # type of the return value, when carried
    returned: bool = False
    active: bool = False
    promote: set = field(default_factory=set)
    ignore: set = field(default_factory=set)  # names rebound by the loop itself (its target)
    varying: set = field(default_factory=set)  # local leaves carried although constant at the start
    consts: dict = field(default_factory=dict)  # local leaves kept constant (not carried): key -> leaf


class Snapshot:
    """Lowerer state before a loop, restored when a loop attempt is retried."""

    def __init__(self, lw: FunctionLowerer):
        self.env = dict(lw.env)
        self.planes = [s.planes for s in lw.ctx.slots]
        self.written = [s.written for s in lw.ctx.slots]
        self.accs = dict(lw.ctx.accumulators)
        self.active = lw.active
        self.returned = lw.frame.returned
        self.ret = lw.frame.ret

    def restore(self, lw: FunctionLowerer) -> None:
        del lw.ctx.slots[len(self.planes):]  # thread-local arrays made inside the attempt
        lw.env = dict(self.env)
        for s, planes, written in zip(lw.ctx.slots, self.planes, self.written):
            # an in-place slot (Pallas) written inside a loop stays written: it is not carried, so no
            # unpacking marks it after the loop
            s.planes, s.written = planes, written or (s.in_place and s.written)
        lw.ctx.accumulators = dict(self.accs)
        lw.active = self.active
        lw.frame.returned = self.returned
        lw.frame.ret = self.ret


def _full(lw: FunctionLowerer, leaf: Any, promote: bool, tile_axes: int = 0) -> Any:
    leaf = to_device_leaf(leaf)
    if tile_axes or jnp.ndim(leaf) > len(lw.ctx.grid):  # a tile's data: full block grid, then its own axes
        from jwarp.compiler.tiles import block_grid

        n = len(lw.ctx.grid)
        own = leaf.shape[-tile_axes:] if tile_axes else leaf.shape[n:]
        return jnp.broadcast_to(leaf, block_grid(lw.ctx) + own)
    if promote or (jnp.ndim(leaf) > 0 and leaf.shape != lw.ctx.grid):
        return jnp.broadcast_to(leaf, lw.ctx.grid)
    return leaf


def _kept_constant(spec: CarrySpec, key: str, leaf: Any) -> bool:
    return is_const(leaf) and key not in spec.promote and key not in spec.varying


def pack(lw: FunctionLowerer, spec: CarrySpec, snap: Snapshot, start: bool = False) -> dict:
    """The carry of the locals, slots and states ``spec`` names, from the lowerer's current state.
    ``start``: the loop's entry (its constant leaves are recorded in ``spec.consts`` and left out);
    otherwise the constant leaves are left out too, and the body must have kept them (see
    :func:`check_body`)."""
    out: dict[str, Any] = {}
    for name in sorted(spec.names):
        value = lw.env[name]
        tile_axes = len(value.type.shape + value.type.dtype_shape) if isinstance(value.type, TileType) else 0
        for j, leaf in enumerate(leaves_of(value)):
            key = f"n:{name}:{j}"
            if start and _kept_constant(spec, key, leaf) and not tile_axes:
                spec.consts[key] = leaf
            if key in spec.consts:
                continue
            out[key] = _full(lw, leaf, key in spec.promote, tile_axes)
    for s in sorted(spec.slots):
        for p, plane in enumerate(lw.ctx.slots[s].planes):
            out[f"s:{s}:{p}"] = plane
    for key in sorted(spec.accs):
        out[f"a:{key}"] = to_device_leaf(lw.ctx.accumulators.get(key, spec.accs[key]))
    if spec.active:
        out["active"] = _full(lw, jnp.asarray(True) if lw.active is None else lw.active, True)
    if spec.returned:
        r = lw.frame.returned
        out["returned"] = _full(lw, jnp.asarray(False) if r is None else r, "returned" in spec.promote)
    if spec.ret is not None:
        ret = lw.frame.ret if lw.frame.ret is not None else zeros_value(spec.ret)
        for j, leaf in enumerate(leaves_of(ret)):
            key = f"r:{j}"
            out[key] = _full(lw, leaf, key in spec.promote)
    return out


def unpack(lw: FunctionLowerer, spec: CarrySpec, carry: dict, types: dict) -> None:
    for name in sorted(spec.names):
        t = types[name]
        n = len(leaves_of(zeros_value(t))) if not isinstance(t, ArrayType) else 0
        keys = [f"n:{name}:{j}" for j in range(n)]
        lw.env[name] = value_from_leaves(t, [spec.consts[k] if k in spec.consts else carry[k] for k in keys])
    for s in sorted(spec.slots):
        slot = lw.ctx.slots[s]
        slot.planes = [carry[f"s:{s}:{p}"] for p in range(len(slot.planes))]
        slot.written = True
    for key in sorted(spec.accs):
        lw.ctx.accumulators[key] = carry[f"a:{key}"]
    if spec.active:
        lw.active = carry["active"]
    if spec.returned:
        lw.frame.returned = carry["returned"]
    if spec.ret is not None:
        n = len(leaves_of(zeros_value(spec.ret)))
        lw.frame.ret = value_from_leaves(spec.ret, [carry[f"r:{j}"] for j in range(n)])


def _name_types(lw: FunctionLowerer, spec: CarrySpec) -> dict:
    return {name: lw.env[name].type for name in spec.names}


def check_body(lw: FunctionLowerer, spec: CarrySpec, snap: Snapshot, before: dict, after: dict, types: dict):
    """Compare a body's output carry with its input; raise LoopRetry if the carry must change."""
    retry = LoopRetry()
    for name, value in snap.env.items():
        if name in spec.names or name in spec.ignore or value.type is STATIC:
            continue
        now = lw.env.get(name)
        if now is not value and now is not None:
            if isinstance(value.type, ArrayType):
                if now.data != value.data:
                    raise WarpCodegenTypeError(f"Array variable '{name}' cannot be reassigned inside a loop")
                continue
            retry.names.add(name)
    for name, value in lw.env.items():
        if name not in snap.env and name not in spec.ignore and _carriable(value.type):
            retry.new[name] = value.type
    for name in spec.names:
        now = lw.env.get(name)
        if now is not None and now.type != types[name]:
            raise WarpCodegenTypeError(
                f"Loop-carried variable '{name}' changes type from {type_name(types[name])} to {type_name(now.type)} "
                "inside the loop; give it its final type before the loop (e.g. x = float(0))"
            )
    for s, slot in enumerate(lw.ctx.slots[: len(snap.planes)]):
        if s not in spec.slots and not slot.in_place and slot.planes is not snap.planes[s]:
            retry.slots.add(s)
    for key, leaf in lw.ctx.accumulators.items():
        if key not in spec.accs and key not in snap.accs:
            retry.accs[key] = initial_accumulator(key, leaf)
        elif key not in spec.accs:
            retry.accs[key] = snap.accs[key]
    if spec.ret is None and lw.frame.ret is not snap.ret and lw.frame.ret is not None:
        retry.ret = lw.frame.ret.type
    if not spec.returned and lw.frame.returned is not snap.returned:
        retry.returned = True
    for key, leaf in spec.consts.items():
        name, j = key[2:].rsplit(":", 1)
        now = lw.env.get(name)
        if now is None or name not in spec.names:
            continue
        out = leaves_of(now)[int(j)]
        if not (is_const(out) and out.dtype == leaf.dtype and bool(out == leaf)):
            retry.varying.add(key)
    for key, out_leaf in after.items():
        in_leaf = before[key]
        if jnp.ndim(out_leaf) > jnp.ndim(in_leaf) or (jnp.ndim(out_leaf) and out_leaf.shape != in_leaf.shape):
            retry.promote.add(key)
        elif jnp.result_type(out_leaf) != jnp.result_type(in_leaf):
            raise WarpCodegenTypeError(f"Loop-carried value '{key}' changes dtype inside the loop")
    if (retry.names or retry.slots or retry.accs or retry.ret is not None or retry.returned or retry.promote
            or retry.new or retry.varying):
        raise retry
    return {k: jnp.broadcast_to(v, before[k].shape) for k, v in after.items()}


def _carriable(t: Any) -> bool:
    """Whether a local of type ``t`` first assigned in a loop body can live on after the loop."""
    if t is STATIC or isinstance(t, ArrayType):
        return False
    try:
        zeros_value(t)
    except TypeError:
        return False
    return True


def _declare_new_locals(lw: FunctionLowerer, snap: Snapshot, spec: CarrySpec, new: dict) -> None:
    """Python scoping: a local first assigned inside a loop body is visible after the loop.

    It is declared before the loop with its type's zero (the value where the body never
    assigned it; Warp leaves it uninitialized there) and carried like any other local.
    """
    for name, t in new.items():
        zero = zeros_value(t)
        lw.env[name] = zero
        snap.env[name] = zero
        spec.names.add(name)


def _grow(spec: CarrySpec, retry: LoopRetry) -> None:
    spec.names |= retry.names
    spec.slots |= retry.slots
    spec.accs.update(retry.accs)
    spec.promote |= retry.promote
    spec.varying |= retry.varying
    spec.consts.clear()  # recorded again at the next attempt's start
    if retry.ret is not None:
        spec.ret = retry.ret
    if retry.returned:
        spec.returned = True


def assigned_names(nodes: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for stmt in nodes:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                names.add(n.id)
            elif isinstance(n, (ast.AugAssign,)) and isinstance(n.target, ast.Name):
                names.add(n.target.id)
    return names


def run_lax_loop(lw: FunctionLowerer, node: ast.stmt, spec: CarrySpec, emit) -> None:
    """Lower one lax loop with carry discovery. ``emit(lw, spec, snap, step)`` builds the
    loop from ``step(carry) -> carry`` and returns the final carry."""
    snap = Snapshot(lw)
    spec.names = {n for n in spec.names if n in lw.env and lw.env[n].type is not STATIC
                  and not isinstance(lw.env[n].type, ArrayType)}
    for attempt in range(16):
        types = _name_types(lw, spec)
        try:
            init = pack(lw, spec, snap, start=True)

            def step(carry: dict, body) -> dict:
                inner = Snapshot(lw)
                unpack(lw, spec, carry, types)
                body()
                out = pack(lw, spec, snap)
                result = check_body(lw, spec, snap, carry, out, types)
                inner.restore(lw)
                return result

            final = emit(init, step)
        except LoopRetry as retry:
            snap.restore(lw)
            _grow(spec, retry)
            _declare_new_locals(lw, snap, spec, retry.new)
            spec.names = {n for n in spec.names if n in lw.env}
            continue
        except ControlSignal:
            snap.restore(lw)
            raise
        snap.restore(lw)
        unpack(lw, spec, final, types)
        return
    raise WarpCodegenError("Could not determine the values carried by this loop")
