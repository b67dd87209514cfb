"""Builtins called from Python: one compiled program per argument signature.

``wp.length(wp.vec3(3.0, 4.0, 0.0))`` outside a kernel runs the builtin's implementation on constant
values. Run operation by operation, every JAX operation it reaches is dispatched on its own, and
compiled on its own the first time: ``wp.curlnoise`` in Python scope reached about fifty of them
(2.4 s at its first call, 13.5 ms at every later one; as one program 0.38 s and 0.08 ms,
``benchmarks/bench_python_scope.py``). So a Python-scope call is traced once per *signature* (the builtin, the types of its
arguments, the values of the arguments that are not numbers) into one jitted program; a later call
with the same signature is one dispatch of that program.

The traced program sees the numbers as traced values where the operation-by-operation run saw
constants, so it is used only where that cannot change the result:

- an implementation that needs a concrete value (a length, a dtype, a side effect such as
  ``wp.print`` or an in-place ``wp.transform_set_*``) fails to trace, or returns nothing; that
  signature then runs operation by operation from then on;
- a Python float is a literal that converts to ``float64`` at full precision (``wp.float64(0.1)``
  is not ``float64(float32(0.1))``): a signature with a literal that ``float32`` does not hold
  exactly, whose trace converts a ``float32`` value to another type, runs operation by operation.

Example:
    >>> import jwarp as wp
    >>> wp.exp(1.0)                           # traced and compiled once for (float32,)
    2.7182817459106445
    >>> wp.exp(2.0)                           # the same program, one dispatch
    7.389056205749512
    >>> wp.length(wp.vec3(3.0, 4.0, 0.0))     # numpy folds it: op by op
    5.0
"""

from __future__ import annotations

import threading
import types
from typing import Any, Callable, Hashable

import jax
import jax.numpy as jnp
import numpy as np

from jwarp.compiler import values as _values
from jwarp.compiler.values import STATIC, FloatLiteral, TupleType, Value, leaves_of, value_from_leaves

MAX_PROGRAMS = 1024  # signatures kept; past this many the cache starts again
# the fewest JAX operations an op-by-op run must dispatch for the traced program to be used: where it
# dispatches none (it folds every constant with numpy: ``wp.length``, ``wp.inverse``) that run is the
# faster; with one (``wp.exp``) the program is as fast, with more (``wp.noise``: 241) far faster
MIN_OPS = 1

_EAGER = object()  # the signature runs operation by operation
_TRACING = threading.Lock()
_PROGRAMS: dict[Hashable, Any] = {}


class _Program:
    """A builtin's implementation traced for one signature: ``run(leaves)`` gives the result Value."""

    def __init__(self, impl: Callable, call: Any, kinds: tuple, kw_names: tuple):
        self.impl, self.kinds, self.kw_names = impl, kinds, kw_names
        self.result: tuple | None = None  # (result structure) once traced
        self.casts = 0  # float32 values converted to another type while tracing
        self.stacked = False  # the result's scalars come back as one array
        self.call = call
        self.jitted = jax.jit(self._traced)

    def _traced(self, *leaves: Any) -> list:
        from jwarp.builtins import trig  # (the builtins package imports the registry, which imports this module)

        lifted = _rebuild(self.kinds, list(leaves))
        split = len(lifted) - len(self.kw_names)
        args, kwargs = lifted[:split], dict(zip(self.kw_names, lifted[split:]))
        _values.CAST_PROBE.append(self)
        try:
            with trig.vector_code(False):  # XLA's functions, as the op-by-op run (and a shorter compile)
                result = self.impl(self.call, *args, **kwargs)
        finally:
            _values.CAST_PROBE.pop()
        if not isinstance(result, Value):
            raise _NotTraceable("no result")
        structure, out = _flatten(result)
        self.result = structure
        dtypes = {jnp.result_type(leaf) for leaf in out}
        self.stacked = len(out) > 1 and len(dtypes) == 1 and all(jnp.ndim(leaf) == 0 for leaf in out)
        return jnp.stack(out) if self.stacked else out  # stacked: one transfer to the host

    def run(self, leaves: list) -> Value:
        out = self.jitted(*leaves)
        out = list(np.asarray(out)) if self.stacked else list(out)
        return _unflatten(self.result, out)


class _NotTraceable(Exception):
    """The implementation cannot be run as one traced program for this signature."""


def call(builtin: Any, call_obj: Any, lifted: list[Value], lifted_kw: dict[str, Value]) -> Value | None:
    """Run ``builtin`` on lifted Python-scope arguments: through its traced program for this
    signature where it has one (see the module docstring), else operation by operation."""
    signature, leaves = _signature(builtin.name, list(lifted) + list(lifted_kw.values()), tuple(lifted_kw))
    program = _PROGRAMS.get(signature, None) if signature is not None else _EAGER
    if program is None:
        program = _remember(signature, _plan(builtin, call_obj, signature, lifted, lifted_kw, leaves))
    if program is _EAGER:
        return builtin.impl(call_obj, *lifted, **lifted_kw)
    return program.run(leaves)


def _plan(builtin: Any, call_obj: Any, signature: tuple, lifted: list[Value], lifted_kw: dict[str, Value],
          leaves: list) -> Any:
    """The signature's traced program, or ``_EAGER`` where it cannot be traced or would not pay: an
    implementation that folds its constants with numpy dispatches (almost) nothing op by op."""
    program = _Program(builtin.impl, call_obj, signature[1], signature[2])
    try:
        with _TRACING:  # one trace at a time counts casts (a kernel's trace elsewhere only adds to them)
            program.jitted.trace(*leaves)
    except Exception:  # noqa: BLE001 - traced values where it needs constants (or a real error, raised op by op)
        return _EAGER
    if program.casts and signature[3]:  # an inexact float literal may have been converted
        return _EAGER
    try:  # the JAX operations an op-by-op run would dispatch (those it does not fold with numpy)
        ops = _op_count(jax.make_jaxpr(lambda: _flatten(builtin.impl(call_obj, *lifted, **lifted_kw))[1])().jaxpr)
    except Exception:  # noqa: BLE001
        return _EAGER
    return program if ops >= MIN_OPS else _EAGER


def _op_count(jaxpr: Any) -> int:
    """The equations of ``jaxpr``, those of the jaxprs nested in them included."""
    count = 0
    for eqn in jaxpr.eqns:
        count += 1
        for param in eqn.params.values():
            for sub in param if isinstance(param, (tuple, list)) else (param,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    count += _op_count(inner)
    return count


def forget() -> None:
    """Drop every traced program (their executables go with them)."""
    _PROGRAMS.clear()


def _remember(signature: Hashable, program: Any) -> Any:
    if len(_PROGRAMS) >= MAX_PROGRAMS:
        _PROGRAMS.clear()
    _PROGRAMS[signature] = program
    return program


def _signature(name: str, values: list[Value], kw_names: tuple) -> tuple[tuple | None, list]:
    """``((name, kinds, keyword names, inexact literal), the numbers as arrays)``; the signature is None
    when an argument cannot be part of one (see :func:`_plain`)."""
    kinds, numbers = [], []
    inexact = False
    for v in values:
        if v.type is STATIC:
            if not _plain(v.data):  # an array, a user object: not kept alive by the cache
                return None, []
            kinds.append((STATIC, type(v.data), v.data))
            continue
        leaves = leaves_of(v)
        if not all(isinstance(leaf, np.generic) for leaf in leaves):
            return None, []
        for leaf in leaves:
            if isinstance(leaf, FloatLiteral) and float(np.float32(leaf.literal)) != leaf.literal:
                inexact = True
        kinds.append((v.type, len(leaves)))
        numbers.extend(np.asarray(leaf) for leaf in leaves)
    return (name, tuple(kinds), kw_names, inexact), numbers


def _plain(obj: Any) -> bool:
    """Whether a non-numeric argument can be part of a signature: a type, a function, a string, a number,
    None, or a tuple of those (hashable, and nothing the cache would keep alive: not a bound method)."""
    if isinstance(obj, tuple):
        return all(_plain(x) for x in obj)
    return obj is None or isinstance(obj, (type, str, int, float, bool, types.FunctionType, types.BuiltinFunctionType))


def _rebuild(kinds: tuple, leaves: list) -> list[Value]:
    out, k = [], 0
    for kind in kinds:
        if kind[0] is STATIC:
            out.append(Value(STATIC, kind[2]))
            continue
        t, n = kind
        out.append(value_from_leaves(t, leaves[k:k + n]))
        k += n
    return out


def _flatten(value: Value) -> tuple[Any, list]:
    if isinstance(value.type, TupleType):
        parts = [_flatten(v) for v in value.data]
        return (value.type, tuple(p[0] for p in parts)), [leaf for p in parts for leaf in p[1]]
    if value.type is STATIC:
        raise _NotTraceable("a non-numeric result")
    leaves = leaves_of(value)
    return (value.type, len(leaves)), leaves


def _unflatten(structure: Any, leaves: list) -> Value:
    t, rest = structure
    if isinstance(t, TupleType):
        return Value(t, tuple(_unflatten(s, leaves) for s in rest))
    taken = [leaves.pop(0) for _ in range(rest)]
    return value_from_leaves(t, taken)


__all__ = ["call", "forget", "MAX_PROGRAMS"]
