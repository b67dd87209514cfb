"""Tiled-GEMM k loops as one contraction.

The inner loop of a tiled matrix product loads a slice of ``A`` and of ``B`` per step and
accumulates their product::

    for k in range(count):
        a = wp.tile_load(A, shape=(TM, TK), offset=(i * TM, k * TK))
        b = wp.tile_load(B, shape=(TK, TN), offset=(k * TK, j * TN))
        wp.tile_matmul(a, b, acc)              # acc += a @ b

Run step by step, that is ``count`` batched small products (one per block) and a loop carrying the
accumulator. Since the steps' tiles lie side by side along the contracted axis, the sum of their
products is the product of the stacked tiles: ``acc += A[i-rows, all k] @ B[all k, j-cols]``, one
``tile_matmul`` of ``(TM, count * TK)`` by ``(count * TK, TN)`` tiles — a single large product for
XLA (and the block-aligned loads make the stacked tiles reshapes of ``A`` and ``B``).

:func:`lower_contracted_loop` recognises the loop from its statements and leaves anything else to
the ordinary loop lowering: a constant ``range`` whose body only assigns ``wp.tile_load`` results
(arguments that do not change in the loop except offsets moving by one tile extent per step along
the contracted axis) and accumulates their products into tiles made before the loop with
``wp.tile_matmul(a, b, acc)`` or ``acc += wp.tile_matmul(a, b)``. After the loop the loop variable
and the loaded tiles hold their last step's values, as in Python. The sum is taken in another order
than step by step (float rounding differs in the last bits).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jwarp.compiler import tile_memory, tiles
from jwarp.compiler.values import Value, is_const, scalar_value
from jwarp.lang import scalars
from jwarp.lang.tile_types import is_tile_type

if TYPE_CHECKING:
    from jwarp.compiler.lower import FunctionLowerer

MAX_STACKED_ELEMENTS = 1 << 24
"""A stacked tile larger than this (all blocks together) stays a loop: memory over speed."""

_LOAD_PARAMS = ("a", "shape", "offset", "storage", "bounds_check")


@dataclass
class _Load:
    stmt: ast.Assign
    args: dict  # parameter name -> ast node
    stacked: int | None = None  # the tile axis the steps move along
    value: Value | None = None  # the stacked tile


def lower_contracted_loop(lw: FunctionLowerer, node: ast.For, t: Any, values: range) -> bool:
    """Lower ``node`` (a ``for`` over the constant ``values``) as one contraction when it is a
    tiled-GEMM accumulation loop; False (nothing lowered, nothing changed) otherwise."""
    if len(values) < 2 or not (lw.active is None or (is_const(lw.active) and bool(lw.active))):
        return False
    k = node.target.id
    parsed = _parse_body(lw, node.body, k)
    if parsed is None:
        return False
    loads, products = parsed
    if not all(isinstance(lw.env.get(acc), Value) and is_tile_type(lw.env[acc].type) for _, _, _, acc in products):
        return False
    if not _plan(lw, loads, products, k, t, values):
        return False
    before = {name: lw.env.get(name) for name in loads}
    for name, load in loads.items():
        lw.env[name] = load.value
    for stmt, _, _, _ in products:
        lw.exec(stmt)
    lw.env[k] = scalar_value(t, values[-1])
    for name, load in loads.items():  # the names keep their last step's tiles after the loop
        if before[name] is None:
            del lw.env[name]
        else:
            lw.env[name] = before[name]
        lw.exec(load.stmt)
    return True


def _parse_body(lw: FunctionLowerer, body: list[ast.stmt], k: str) -> tuple[dict, list] | None:
    """The loop's loads (name -> _Load) and products ``(stmt, a, b, acc)``, or None."""
    loads: dict[str, _Load] = {}
    products = []
    for stmt in body:
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.Call) and _builtin_name(lw, stmt.value) == "tile_load"):
            name = stmt.targets[0].id
            args = _bind(stmt.value)
            if name == k or name in loads or args is None or "a" not in args or "shape" not in args:
                return None
            loads[name] = _Load(stmt, args)
        elif (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
              and _builtin_name(lw, stmt.value) == "tile_matmul"):
            call = stmt.value
            if call.keywords or len(call.args) != 3 or not all(isinstance(x, ast.Name) for x in call.args):
                return None
            a, b, acc = (x.id for x in call.args)
            if a not in loads or b not in loads or acc in loads or acc == k:
                return None
            products.append((stmt, a, b, acc))
        elif (isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Name)
              and isinstance(stmt.value, ast.Call) and _builtin_name(lw, stmt.value) == "tile_matmul"):
            call = stmt.value  # acc += wp.tile_matmul(a, b)
            if call.keywords or len(call.args) != 2 or not all(isinstance(x, ast.Name) for x in call.args):
                return None
            (a, b), acc = (x.id for x in call.args), stmt.target.id
            if a not in loads or b not in loads or acc in loads or acc == k:
                return None
            products.append((stmt, a, b, acc))
        else:
            return None
    if not products:
        return None
    changing = set(loads) | {p[3] for p in products}
    for load in loads.values():
        for param, arg in load.args.items():
            names = _names(arg)
            if names & changing or (param != "offset" and k in names):
                return None
    return loads, products


def _plan(lw: FunctionLowerer, loads: dict, products: list, k: str, t: Any, values: range) -> bool:
    """Plan every load and check each product multiplies tiles stacked along its contracted axis.
    The loop variable is restored; an error here leaves the loop to the ordinary lowering (which
    reports it where it happens)."""
    had, saved = k in lw.env, lw.env.get(k)
    try:
        if not all(_plan_load(lw, load, k, t, values) for load in loads.values()):
            return False
    except Exception:
        return False
    finally:
        if had:
            lw.env[k] = saved
        else:
            lw.env.pop(k, None)
    for _, a, b, _ in products:
        la, lb = loads[a], loads[b]
        if la.stacked != 1 or lb.stacked != 0 or la.value.type.shape[1] != lb.value.type.shape[0]:
            return False
    return True


def _plan_load(lw: FunctionLowerer, load: _Load, k: str, t: Any, values: range) -> bool:
    """Find the axis the load's offset moves along (one tile extent per step) and load the
    stacked tile; False when the offsets do not move that way."""
    if "offset" not in load.args:
        return False
    array = lw.eval_call_argument(load.args["a"])
    shape = tiles.static_shape(lw.eval_call_argument(load.args["shape"]))
    offset_node = load.args["offset"]
    steps = []
    for v in values:
        lw.env[k] = scalar_value(t, v)
        steps.append(tiles.static_int_tuple_or_values(lw.eval_call_argument(offset_node)))
    if any(len(s) != len(shape) for s in steps):
        return False
    stacked = None
    for d in range(len(shape)):
        datas = [s[d].data for s in steps]
        if all(is_const(x) for x in datas):
            diffs = {int(b) - int(a) for a, b in zip(datas, datas[1:])}
            if diffs == {0}:
                continue
            if diffs == {shape[d]} and stacked is None:
                stacked = d
                continue
            return False
        part = offset_node.elts[d] if isinstance(offset_node, ast.Tuple) and len(offset_node.elts) == len(shape) \
            else offset_node
        if k in _names(part):  # varies with the step in a way not known at compile time
            return False
    if stacked is None:
        return False
    ext = list(shape)
    ext[stacked] *= len(values)
    value = tile_memory.load(lw.ctx, array, tuple(ext), steps[0], "register")
    if not scalars.is_float(value.type.dtype) or value.data.size > MAX_STACKED_ELEMENTS:
        return False
    load.stacked, load.value = stacked, value
    return True


def _bind(call: ast.Call) -> dict | None:
    """``tile_load``'s arguments by parameter name (None for starred or unknown arguments)."""
    if len(call.args) > len(_LOAD_PARAMS) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    args = dict(zip(_LOAD_PARAMS, call.args))
    for kw in call.keywords:
        if kw.arg not in _LOAD_PARAMS or kw.arg in args:
            return None
        args[kw.arg] = kw.value
    return args


def _builtin_name(lw: FunctionLowerer, call: ast.Call) -> str | None:
    """The name of the builtin ``call`` calls, or None (a @wp.func, anything else)."""
    from jwarp.compiler.registry import Builtin

    func = call.func
    if not isinstance(func, (ast.Name, ast.Attribute)):
        return None
    try:
        fn = lw.lookup_in_call(func.id) if isinstance(func, ast.Name) else lw.eval(func)
    except Exception:
        return None
    return fn.data.name if isinstance(fn.data, Builtin) else None


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


__all__ = ["lower_contracted_loop"]
