"""Atomics: ``atomic_add sub min max and or xor cas exch``.

Every lane's contribution is combined; the value each call returns is the element's
value as if threads ran one after another in increasing thread order (deterministic).
``a[i] += v`` and ``a[i] -= v`` on arrays are ``atomic_add``/``atomic_sub``.
"""

from __future__ import annotations

from jwarp.builtins.common import Call, Value
from jwarp.compiler import memory
from jwarp.compiler import array_views
from jwarp.compiler.lvalues import atomic_update
from jwarp.compiler.values import leaves_of, value_from_leaves
from jwarp.lang import scalars
from jwarp.lang.arrays import ArrayType, type_name
from jwarp.lang.introspection import type_repr

_ATOMIC_SCALARS = (scalars.int32, scalars.int64, scalars.uint32, scalars.uint64, scalars.float32, scalars.float64)

# op -> (scalar types Warp's atomics support, how its error message lists them)
_SUPPORTED = {
    "add": (
        _ATOMIC_SCALARS + (scalars.float16, scalars.bfloat16),
        "[u]int32, [u]int64, float16, bfloat16, float32, or float64",
    ),
    "min": (_ATOMIC_SCALARS + (scalars.bfloat16,), "[u]int32, [u]int64, bfloat16, float32, or float64"),
    "cas": (_ATOMIC_SCALARS, "[u]int32, [u]int64, float32, or float64"),
    "and": (_ATOMIC_SCALARS[:4], "[u]int32 or [u]int64"),
}
_SUPPORTED.update(sub=_SUPPORTED["add"], max=_SUPPORTED["min"], exch=_SUPPORTED["cas"])
_SUPPORTED.update({"or": _SUPPORTED["and"], "xor": _SUPPORTED["and"]})


def _check_dtype(op: str, dtype: object) -> None:
    """Warp's rule: atomics work only on arrays of some scalar types (``wp.int8`` has none)."""
    scalar = getattr(dtype, "_wp_scalar_type_", dtype)
    allowed, listed = _SUPPORTED[op]
    if scalar not in allowed:
        raise RuntimeError(
            f"atomic_{op}() operations only work on arrays with {listed} as the underlying scalar types, "
            f"but got {type_repr(dtype)} (with scalar type {type_repr(scalar)})"
        )


def _split(call: Call, args: tuple, n_values: int, op: str):
    if len(args) < 1 + n_values or not isinstance(args[0].type, ArrayType):
        raise call.no_overload(*args)
    arr, indices, values = args[0], list(args[1 : len(args) - n_values]), list(args[len(args) - n_values :])
    slot = call.ctx.slots[arr.data.slot]
    if len(indices) != arr.type.ndim or not all(scalars.is_int(i.type) for i in indices):
        raise call.no_overload(*args)
    full, _ = array_views.index(arr.data, slot.shape, indices)
    for v in values:
        if v.type != slot.dtype:
            raise RuntimeError(
                f"wp.{call.name}(): value of type {type_name(v.type)} does not match the array dtype "
                f"{type_name(slot.dtype)}"
            )
    _check_dtype(op, slot.dtype)
    return arr, full, values


def _atomic(op: str):
    def impl(call: Call, *args: Value) -> Value | None:
        call.require_kernel()
        arr, indices, (value,) = _split(call, args, 1, op)
        want_old = not call.discard
        leaves = leaves_of(value)
        whole = [(None, tuple(range(len(leaves))))]
        old = atomic_update(call.lowerer, arr.data.slot, indices, whole, op, leaves, want_old)
        return value_from_leaves(value.type, old) if want_old else None

    impl.__doc__ = f"Atomically combine ``value`` into ``arr[indices]`` with '{op}'; returns the old value."
    return impl


def _register(name: str, op: str):
    from jwarp.compiler.registry import builtin

    return builtin(name, group="Utility", kernel_only=True)(_atomic(op))


atomic_add = _register("atomic_add", "add")
atomic_sub = _register("atomic_sub", "sub")
atomic_min = _register("atomic_min", "min")
atomic_max = _register("atomic_max", "max")
atomic_and = _register("atomic_and", "and")
atomic_or = _register("atomic_or", "or")
atomic_xor = _register("atomic_xor", "xor")


def _exchange(call: Call, args: tuple, n_values: int) -> Value:
    call.require_kernel()
    arr, indices, values = _split(call, args, n_values, "cas" if n_values == 2 else "exch")
    lw = call.lowerer
    slot = call.ctx.slots[arr.data.slot]
    site = call.ctx.add_site(lw.location()) if call.ctx.debug else 0
    compare = leaves_of(values[0]) if n_values == 2 else None
    new, old = memory.exchange(
        call.ctx, list(slot.planes), slot.shape, indices, leaves_of(values[-1]), call.mask, site, compare
    )
    slot.planes = new
    slot.written = True
    return value_from_leaves(values[-1].type, old)


def _register_exchange():
    from jwarp.compiler.registry import builtin

    @builtin("atomic_cas", group="Utility", kernel_only=True)
    def atomic_cas(call: Call, *args: Value) -> Value:
        """``arr[i] = value if arr[i] == compare``, in thread order; returns the old value."""
        return _exchange(call, args, 2)

    @builtin("atomic_exch", group="Utility", kernel_only=True)
    def atomic_exch(call: Call, *args: Value) -> Value:
        """``arr[i] = value``, in thread order; returns the old value."""
        return _exchange(call, args, 1)

    return atomic_cas, atomic_exch


atomic_cas, atomic_exch = _register_exchange()
