"""Subscripts and assignment targets: array elements, components and struct fields.

A target such as ``a[i].vel[1]`` is split into a base (``a``), the array indices
(``[i]``) and a *component path* (``.vel``, ``[1]``). The path selects a run of scalar
planes of the element type — or, with a per-lane index (``v[k]`` with ``k`` varying),
several alternatives, each under its own condition.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

import numpy as np

from jwarp.compiler import array_views, components, memory, tile_views
from jwarp.compiler.masks import mask_and
from jwarp.compiler.operators import binary, call_builtin
from jwarp.compiler.values import (
    STATIC,
    ArrayRef,
    TupleType,
    Value,
    is_const,
    leaf_where,
    leaves_of,
    scalar_value,
    value_from_leaves,
    xp,
)
from jwarp.errors import WarpCodegenError, WarpCodegenIndexError, WarpCodegenTypeError
from jwarp.lang import composites, scalars
from jwarp.lang.tile_types import is_tile_type
from jwarp.lang.arrays import ArrayType, type_name
from jwarp.lang.struct import StructType

if TYPE_CHECKING:
    from jwarp.compiler.lower import FunctionLowerer


def leaf_count(t: Any, stored: bool = False) -> int:
    """Scalar leaves of a value of type ``t``; an array field of a struct is one opaque leaf (its
    reference) in a local value, its descriptor record's leaves in an array element (``stored``)."""
    if scalars.is_scalar_type(t):
        return 1
    if composites.is_composite(t):
        return t._length_
    if isinstance(t, StructType):
        return sum(leaf_count(v.type, stored) for v in t.vars.values())
    if isinstance(t, ArrayType) and stored:
        from jwarp.lang.array_descriptors import descriptor_leaf_shapes

        return sum(int(np.prod(comp)) if comp else 1 for comp, _ in descriptor_leaf_shapes(t))
    if isinstance(t, ArrayType):
        return 1
    raise WarpCodegenTypeError(f"Type {type_name(t)} has no components")


def _parts(node: ast.expr) -> list[ast.expr]:
    return list(node.elts) if isinstance(node, ast.Tuple) else [node]


def _indices(lw: FunctionLowerer, node: ast.expr) -> list[Value]:
    if isinstance(node, ast.Tuple):
        return [lw.eval(e) for e in node.elts]
    return [lw.eval(node)]


def _tile_items(lw: FunctionLowerer, node: ast.expr) -> list[Value]:
    """The entries of a tile subscript: index values, and slices as compile-time ``slice`` objects."""
    items = []
    for part in _parts(node):
        if isinstance(part, ast.Slice):
            bounds = [Value(STATIC, None) if b is None else lw.eval(b) for b in (part.lower, part.upper, part.step)]
            items.append(call_builtin(lw, "_slice", *bounds))
        else:
            items.append(lw.eval(part))
    return items


def _check_index(value: Value) -> Value:
    if not scalars.is_int(value.type):
        raise WarpCodegenIndexError(f"Array indices must be integers, got {type_name(value.type)}")
    return value


# ----------------------------------------------------------------------------------------------
# loads


def load_subscript(lw: FunctionLowerer, node: ast.Subscript) -> Value:
    base = lw.eval(node.value)
    if is_tile_type(base.type):  # builtins/tile_index.py; a view of a variable aliases it
        name = node.value.id if isinstance(node.value, ast.Name) else None
        return call_builtin(lw, "_tile_subscript", Value(STATIC, name), base, *_tile_items(lw, node.slice))
    if components.has_slice(node.slice) and isinstance(base.type, ArrayType):
        return array_views.slice_view(lw, base, _parts(node.slice))
    if components.has_slice(node.slice):
        if not composites.is_composite(base.type):
            raise WarpCodegenTypeError(f"Slicing is not supported on values of type {type_name(base.type)}")
        return components.load(lw, base, node.slice)
    idx = _indices(lw, node.slice)
    padded = _padded_shape_entry(node, base, idx)
    if padded is not None:
        return padded
    return subscript(lw, base, idx, node)


_MAX_ARRAY_DIMS = 4  # Warp's array shapes have 4 entries: those past the rank are 0


def _padded_shape_entry(node: ast.Subscript, base: Value, idx: list[Value]) -> Value | None:
    """``a.shape[k]`` with ``ndim <= k < 4``: 0, as Warp's shape (padded to 4 dimensions) reads."""
    if not (isinstance(node.value, ast.Attribute) and node.value.attr == "shape" and isinstance(base.type, TupleType)):
        return None
    if len(idx) != 1 or not is_const(idx[0].data) or not scalars.is_int(idx[0].type):
        return None
    k = int(idx[0].data)
    if len(base.data) <= k < _MAX_ARRAY_DIMS and all(t is scalars.int32 for t in base.type.types):
        return scalar_value(scalars.int32, 0)
    return None


def subscript(lw: FunctionLowerer, base: Value, idx: list[Value], node: ast.AST | None = None) -> Value:
    t = base.type
    if isinstance(t, ArrayType):
        return array_subscript(lw, base, idx, node)
    if composites.is_composite(t):
        return _component(t, base, idx)
    if is_tile_type(t):  # builtins/tile_index.py
        return call_builtin(lw, "_tile_subscript", Value(STATIC, None), base, *idx)
    if isinstance(t, TupleType):
        if len(idx) != 1 or not is_const(idx[0].data):
            raise WarpCodegenIndexError("Tuples can only be indexed with a constant integer")
        return base.data[int(idx[0].data)]
    if t is STATIC and isinstance(base.data, (tuple, list)):
        from jwarp.compiler.lower import lift_python

        if len(idx) != 1 or not is_const(idx[0].data):
            raise WarpCodegenIndexError("Python sequences can only be indexed with a constant integer in kernels")
        return lift_python(base.data[int(idx[0].data)])
    raise WarpCodegenTypeError(f"Values of type {type_name(t)} cannot be indexed")


def array_subscript(lw: FunctionLowerer, base: Value, idx: list[Value], node: ast.AST | None) -> Value:
    ref: ArrayRef = base.data
    slot = lw.ctx.slots[ref.slot]
    full, sub = array_views.index(ref, slot.shape, [_check_index(i) for i in idx])
    if full is None:
        return Value(ArrayType(base.type.dtype, base.type.ndim - len(idx)), sub)
    site = lw.ctx.add_site(lw.location(node)) if lw.ctx.debug else 0
    leaves = memory.load(lw.ctx, slot.planes, slot.shape, list(full), site, lw.active)
    slot.read = True
    return value_from_leaves(slot.dtype, leaves)


def _component(t: Any, base: Value, idx: list[Value]) -> Value:
    sub, options = components.select_parts(None, t, idx)
    leaves = components.pick(list(base.data), options)
    return Value(sub, leaves[0] if scalars.is_scalar_type(sub) else tuple(leaves))


# ----------------------------------------------------------------------------------------------
# assignment


def _split_target(target: ast.expr) -> tuple[ast.expr, list]:
    steps = []
    node = target
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if isinstance(node, ast.Subscript):
            steps.append(("index", node.slice))
        else:
            steps.append(("attr", node.attr))
        node = node.value
    steps.reverse()
    return node, steps


def _component_path(lw: FunctionLowerer, t: Any, steps: list,
                    stored: bool = False) -> tuple[Any, list[tuple[Any, tuple]]]:
    """Resolve component steps on type ``t`` → (sub-type, [(condition, leaf positions)]);
    ``stored``: positions in an array element's leaves (see :func:`leaf_count`)."""
    alternatives: list[tuple[Any, tuple]] = [(None, tuple(range(leaf_count(t, stored))))]
    for kind, arg in steps:
        if kind == "attr":
            t, offset = _attr_offset(t, arg, stored)
            n = leaf_count(t, stored)
            alternatives = [(c, pos[offset : offset + n]) for c, pos in alternatives]
            continue
        t, options = components.select(lw, t, arg)
        alternatives = [
            (mask_and(c, c2), tuple(pos[k] for k in rel)) for c, pos in alternatives for c2, rel in options
        ]
    return t, alternatives


def _attr_offset(t: Any, attr: str, stored: bool = False) -> tuple[Any, int]:
    if isinstance(t, StructType):
        offset = 0
        for name, var in t.vars.items():
            if name == attr:
                return var.type, offset
            offset += leaf_count(var.type, stored)
        raise WarpCodegenError(f"Struct '{t.key}' has no field '{attr}'")
    if composites.is_transformation(t) and attr in ("p", "q"):
        scalar = t._wp_scalar_type_
        return (composites.vector(3, scalar), 0) if attr == "p" else (composites.quaternion(scalar), 3)
    names = {"x": 0, "y": 1, "z": 2, "w": 3}
    if composites.is_vector_like(t) and attr in names and names[attr] < t._length_:
        return t._wp_scalar_type_, names[attr]
    raise WarpCodegenError(f"Cannot assign to attribute '{attr}' of a value of type {type_name(t)}")


def assign(lw: FunctionLowerer, target: ast.expr, value: Value) -> None:
    if isinstance(target, ast.Name):
        lw.bind(target.id, value)
        return
    if isinstance(target, (ast.Tuple, ast.List)):
        items = _unpack(value, len(target.elts))
        for t, v in zip(target.elts, items):
            assign(lw, t, v)
        return
    if not isinstance(target, (ast.Subscript, ast.Attribute)):
        raise WarpCodegenError(f"Cannot assign to `ast.{type(target).__name__}`")
    place = _resolve(lw, target)
    if place[0] == "memory":
        _store_path(lw, place, value)
    elif is_tile_type(lw.env[place[1]].type):
        _assign_tile_element(lw, place, value)
    else:
        _assign_local_path(lw, place, value)


def _assign_tile_element(lw: FunctionLowerer, place: tuple, value: Value) -> None:
    """``t[i, j] = v``, ``t[0:4, :] = u``, ``t[i][1] = x`` on a local tile, written in place (through
    to the tile it views, when ``t`` is a view: compiler/tile_views.py)."""
    _, name, steps = place
    tile_views.write(lw, name, _tile_updated(lw, lw.env[name], steps, value), masked=True)


def _tile_updated(lw: FunctionLowerer, current: Value, steps: list, value: Value) -> Value:
    """``current`` with the part reached by ``steps`` (subscripts, components) replaced by ``value``."""
    if is_tile_type(current.type):
        if steps[0][0] != "index":
            raise WarpCodegenError(f"Tiles have no assignable attribute '{steps[0][1]}'")
        items = _tile_items(lw, steps[0][1])
        if len(steps) > 1:
            inner = call_builtin(lw, "_tile_subscript", Value(STATIC, None), current, *items)
            value = _tile_updated(lw, inner, steps[1:], value)
        return call_builtin(lw, "_tile_set", current, value, *items)
    sub_type, alternatives = _component_path(lw, current.type, steps)  # a component of a tile element
    _check_store_type(sub_type, value, component=True)
    leaves, new_leaves = leaves_of(current), leaves_of(value)
    for cond, positions in alternatives:
        for p, leaf in zip(positions, new_leaves):
            leaves[p] = leaf_where(cond, leaf, leaves[p])
    return value_from_leaves(current.type, leaves)


def _reject_compound_tile_view(lw: FunctionLowerer, place: tuple) -> None:
    """Warp rejects ``t[0:4, :] += u`` and ``t[i] += row`` (compound assignment to a view)."""
    _, name, steps = place
    if steps and steps[0][0] == "index":
        parts = _parts(steps[0][1])
        if components.has_slice(steps[0][1]) or len(parts) < lw.env[name].type.ndim:
            raise WarpCodegenValueError(
                "Compound assignment to a tile view is not supported; assign the combined tile instead "
                "(t[a:b] = t[a:b] + u)"
            )


def _unpack(value: Value, n: int) -> list[Value]:
    if isinstance(value.type, TupleType):
        items = list(value.data)
    elif composites.is_vector_like(value.type):
        items = [Value(value.type._wp_scalar_type_, x) for x in value.data]
    else:
        raise WarpCodegenTypeError(f"Cannot unpack a value of type {type_name(value.type)}")
    if len(items) != n:
        raise WarpCodegenValueError(f"Cannot unpack {len(items)} values into {n} targets")
    return items


class WarpCodegenValueError(WarpCodegenError):
    pass


def _resolve(lw: FunctionLowerer, target: ast.expr) -> tuple:
    base_node, steps = _split_target(target)
    if isinstance(base_node, ast.Name) and base_node.id in lw.env:
        base = lw.env[base_node.id]
    else:
        base = lw.eval(base_node)
    from jwarp.compiler.operators import attribute

    probe, consumed = base, 0
    while consumed < len(steps) and steps[consumed][0] == "attr" and isinstance(probe.type, StructType):
        probe = attribute(lw, probe, steps[consumed][1])  # struct fields holding arrays (m.v[i] = ...)
        consumed += 1
    if isinstance(probe.type, ArrayType) and (consumed < len(steps) or not consumed):
        base, steps = probe, steps[consumed:]  # (a whole array field, s.arr = a, is a local's field)
    if isinstance(base.type, ArrayType):
        slot = lw.ctx.slots[base.data.slot]
        while steps and isinstance(base.type, ArrayType):
            kind, arg = steps.pop(0)
            if kind != "index":
                raise WarpCodegenError(f"Arrays have no assignable attribute '{arg}'")
            if components.has_slice(arg):
                base = array_views.slice_view(lw, base, _parts(arg))
                continue
            idx = [_check_index(i) for i in _indices(lw, arg)]
            full, sub = array_views.index(base.data, slot.shape, idx)
            if full is not None:
                return ("memory", base.data.slot, list(full), steps)
            base = Value(ArrayType(base.type.dtype, base.type.ndim - len(idx)), sub)
        raise WarpCodegenIndexError(
            f"Array stores need an index for each of the array's {base.type.ndim} remaining dimensions "
            "(sub-array assignment is not supported)"
        )
    if not isinstance(base_node, ast.Name) or base_node.id not in lw.env:
        raise WarpCodegenError("Only local variables and array elements can be assigned to")
    return ("local", base_node.id, steps)


def _slot_mismatch(expected: Any, actual: Any) -> str:
    """Warp's message for a vector/matrix slot (a slice, a matrix row) given a value of another type."""
    dtype = type_name(expected._wp_scalar_type_)
    kind = getattr(actual, "_wp_type_kind_", None) if composites.is_composite(actual) else None
    if expected._wp_type_kind_ == "vector":
        n = expected._length_
        if kind != "vector":
            return f"The provided value is expected to be a vector of length {n}, with dtype {dtype}."
        if actual._wp_scalar_type_ is not expected._wp_scalar_type_:
            return f"The provided vector is expected to be of length {n} with dtype {dtype}."
        return (f"The length of the provided vector ({actual._length_}) isn't compatible with the given slice "
                f"(expected {n}).")
    shape = tuple(expected._shape_)
    if kind != "matrix":
        return f"The provided value is expected to be a matrix of shape {shape}, with dtype {dtype}."
    if actual._wp_scalar_type_ is not expected._wp_scalar_type_:
        return f"The provided matrix is expected to be of shape {shape} with dtype {dtype}."
    return (f"The shape of the provided matrix ({tuple(actual._shape_)}) isn't compatible with the given slice "
            f"(expected {shape}).")


def _check_store_type(expected: Any, value: Value, component: bool = False) -> None:
    if value.type == expected:
        return
    if component and composites.is_composite(expected) and expected._wp_type_kind_ in ("vector", "matrix"):
        raise ValueError(_slot_mismatch(expected, value.type))
    if component:  # a component, field or slice of a composite (Warp's wording)
        raise WarpCodegenTypeError(
            f"Composite slot assignment expects value of type {type_name(expected)}, got {type_name(value.type)}"
        )
    raise WarpCodegenTypeError(
        f"Cannot store a value of type {type_name(value.type)} into a location of type {type_name(expected)}"
    )


def _store_path(lw: FunctionLowerer, place: tuple, value: Value) -> None:
    _, slot_id, indices, steps = place
    slot = lw.ctx.slots[slot_id]
    sub_type, alternatives = _component_path(lw, slot.dtype, steps, stored=True)
    _check_store_type(sub_type, value, component=bool(steps))
    leaves = leaves_of(value)
    if any(isinstance(leaf, ArrayRef) for leaf in leaves):
        raise NotImplementedError("A struct holding a kernel's array cannot be stored into an array of structs in "
                                  "jwarp kernels (the element would need the array's address)")
    site = lw.ctx.add_site(lw.location()) if lw.ctx.debug else 0
    planes = list(slot.planes)
    for cond, positions in alternatives:
        mask = mask_and(lw.active, cond)
        new = memory.store(lw.ctx, [planes[p] for p in positions], slot.shape, indices, leaves, mask, site)
        for p, plane in zip(positions, new):
            planes[p] = plane
    slot.planes = planes
    slot.written = True


def _assign_local_path(lw: FunctionLowerer, place: tuple, value: Value) -> None:
    _, name, steps = place
    old = lw.env[name]
    sub_type, alternatives = _component_path(lw, old.type, steps)
    _check_store_type(sub_type, value, component=bool(steps))
    new_leaves = leaves_of(value)
    leaves = leaves_of(old)
    for cond, positions in alternatives:
        mask = mask_and(lw.active, cond)
        for p, leaf in zip(positions, new_leaves):
            leaves[p] = leaf_where(mask, leaf, leaves[p])
    lw.env[name] = value_from_leaves(old.type, leaves)


# ``a[i] op= v`` on an array is an atomic, as in Warp (bitwise ones on integer elements only)
_ATOMIC_AUG = {ast.Add: "add", ast.Sub: "sub", ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor"}
_BITWISE_AUG = (ast.BitAnd, ast.BitOr, ast.BitXor)
_TILE_ATOMIC = {ast.Add: "add", ast.Sub: "sub", ast.BitAnd: "bit_and", ast.BitOr: "bit_or", ast.BitXor: "bit_xor"}


def aug_assign(lw: FunctionLowerer, node: ast.AugAssign) -> None:
    target = node.target
    if isinstance(target, ast.Name):  # Warp's order: the value, then the name; for slots the target first
        rhs = lw.eval(node.value)
        old = lw.lookup(target.id)
        if old.type is STATIC:  # a function-valued local: Warp's rebinding errors before any operator lookup
            lw.check_rebind(target.id, old, Value(STATIC, None))
        new = binary(lw, type(node.op), old, rhs)
        declared = getattr(lw, "ref_params", {}).get(target.id)
        if declared is not None and new.type != declared and new.type is not STATIC:
            raise WarpCodegenTypeError(
                f"Error, augmented assignment to ref parameter `{target.id}` ({type_name(declared)}) "
                f"produces different type ({type_name(new.type)})"
            )
        if is_tile_type(new.type) and target.id in lw.env:  # in place, as Warp's tile += (also through views)
            tile_views.write(lw, target.id, new)
        else:
            lw.bind(target.id, new)
        return
    place = _resolve(lw, target)
    rhs = lw.eval(node.value)
    if place[0] == "memory" and type(node.op) in _ATOMIC_AUG and _atomic_aug_applies(lw, place, node.op):
        _, slot_id, indices, steps = place
        slot = lw.ctx.slots[slot_id]
        sub_type, alternatives = _component_path(lw, slot.dtype, steps, stored=True)
        _check_store_type(sub_type, rhs, component=bool(steps))
        atomic_update(lw, slot_id, indices, alternatives, _ATOMIC_AUG[type(node.op)], leaves_of(rhs), False)
        return
    if place[0] == "local" and is_tile_type(lw.env[place[1]].type):
        _reject_compound_tile_view(lw, place)
        if len(place[2]) == 1 and _TILE_ATOMIC.get(type(node.op)):  # t[i, j] op= x: every thread's x counts
            _, name, steps = place
            new = call_builtin(lw, "_tile_element_update", Value(STATIC, _TILE_ATOMIC[type(node.op)]),
                               lw.env[name], rhs, *_tile_items(lw, steps[0][1]))
            tile_views.write(lw, name, new, masked=True)
            return
    current = lw.eval(target)
    new = binary(lw, type(node.op), current, rhs)
    if place[0] == "memory":
        _store_path(lw, place, new)
    elif is_tile_type(lw.env[place[1]].type):
        _assign_tile_element(lw, place, new)
    else:
        _assign_local_path(lw, place, new)


def _atomic_aug_applies(lw: FunctionLowerer, place: tuple, op: ast.operator) -> bool:
    """Bitwise augmented stores are atomics on integer arrays; elsewhere they load, combine, store
    (and the combination reports the type error)."""
    if not isinstance(op, _BITWISE_AUG):
        return True
    dtype = lw.ctx.slots[place[1]].dtype
    return scalars.is_int(getattr(dtype, "_wp_scalar_type_", dtype))


def atomic_update(
    lw: FunctionLowerer, slot_id: int, indices: list, alternatives: list, op: str, leaves: list, want_old: bool
) -> list | None:
    """Atomic ``op`` of ``leaves`` into an array element (or component run); returns old leaves."""
    slot = lw.ctx.slots[slot_id]
    site = lw.ctx.add_site(lw.location()) if lw.ctx.debug else 0
    planes = list(slot.planes)
    old_out = None
    for cond, positions in alternatives:
        mask = mask_and(lw.active, cond)
        new, old = memory.atomic(
            lw.ctx, op, [planes[p] for p in positions], slot.shape, indices, leaves, mask, want_old, site
        )
        for p, plane in zip(positions, new):
            planes[p] = plane
        if want_old:
            old_out = old if old_out is None else [leaf_where(cond, o, p) for o, p in zip(old, old_out)]
    slot.planes = planes
    slot.written = True
    return old_out


__all__ = ["assign", "aug_assign", "load_subscript", "subscript", "atomic_update", "call_builtin", "np"]
