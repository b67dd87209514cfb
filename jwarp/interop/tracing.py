"""Kernels as traceable JAX functions: one kernel, one signature, concrete scalars baked in.

Both ``wp.jax_kernel`` and ``wp.launch`` on traced arrays (inside ``jax.jit``/``grad``/
``vmap``/``shard_map``) run a kernel through a :class:`TracedKernel`:

- the kernel is lowered with :func:`build_pure_fn` for one :class:`Signature`; scalar arguments
  that are concrete (Python numbers, numpy scalars, concrete jax scalars) are compile-time
  constants, so ``range(n)`` with a concrete ``n`` is a static loop that reverse-mode AD can
  differentiate; traced scalars stay runtime values;
- the function is wrapped in ``jax.jit`` and always called with 64-bit types enabled, so
  kernels with int64/float64 values work inside a user's trace without ``jax_enable_x64``;
- kernels whose loops have run-time trip counts get a *reverse guard* on their outputs: forward
  mode and plain evaluation pass through, but reverse-mode AD stops with an error that names
  the loop's file and line (XLA cannot reverse a loop of unknown length). With loop bounds
  (``max_loop_trips``) such loops become ``fori_loop``s over a static bound instead, and a
  run-time check reports a loop that needed more trips than its bound;
- in debug mode an out-of-bounds access is reported by a ``jax.debug.callback`` naming the line.
"""

from __future__ import annotations

import linecache
import re
from dataclasses import dataclass, replace
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import ad, batching, mlir

from jwarp.compiler.context import REPORTED_FLAGS
from jwarp.compiler.kernel_compile import build_pure_fn
from jwarp.compiler.signature import Signature
from jwarp.errors import _Located, clean_error
from jwarp.runtime.execution import check_sites


def is_tracer(x: Any) -> bool:
    """True for an abstract value of a JAX trace (inside jit/grad/vmap/shard_map)."""
    return isinstance(x, jax.core.Tracer)


def x64():
    return jax.enable_x64(True)


# ------------------------------------------------------------------------------------------------
# loops with run-time trip counts

_FRAME = re.compile(r"(.+?):(\d+):(\d+):(\d+)(?:/|$)")


@dataclass(frozen=True)
class LoopSite:
    """A kernel loop whose trip count is known only at run time."""

    key: str  # the compiler's loop key (``loop_bounds`` key); its trip count is diagnostics["trip:" + key]
    file: str
    line: int  # absolute line in ``file``

    @property
    def text(self) -> str:
        return linecache.getline(self.file, self.line).strip()

    def describe(self) -> str:
        text = self.text
        return f"{self.file}:{self.line}" + (f" (`{text}`)" if text else "")


def loop_site(diagnostic_key: str) -> LoopSite:
    """The loop behind a trip-count diagnostic ("trip:" + loop key; loop keys are "/"-joined frames)."""
    key = diagnostic_key[len("trip:"):]
    frames = _FRAME.findall(key)
    file, first, line, _col = frames[-1]
    return LoopSite(key, file, int(first) + int(line) - 1)


def resolve_loop_bounds(kernel_key: str, sites: list[LoopSite], max_loop_trips: Any) -> tuple:
    """``max_loop_trips`` (an int for every loop, or {line: bound}) → the compiler's loop_bounds."""
    bounds = {}
    for site in sites:
        if isinstance(max_loop_trips, dict):
            bound = max_loop_trips.get(site.line)
            if bound is None:
                lines = ", ".join(str(s.line) for s in sites)
                raise ValueError(
                    f"jax_kernel('{kernel_key}'): max_loop_trips has no bound for the loop at {site.describe()}; "
                    f"give one for every loop with a run-time trip count (lines {lines}), or a single int"
                )
        else:
            bound = max_loop_trips
        bounds[site.key] = int(bound)
    return tuple(sorted(bounds.items()))


def _reverse_message(kernel_key: str, sites: list[LoopSite], hint: str) -> str:
    where = "; ".join(s.describe() for s in sites)
    plural = "s" if len(sites) > 1 else ""
    return (
        f"Kernel '{kernel_key}' cannot be differentiated in reverse mode (jax.grad / jax.vjp): the loop{plural} at "
        f"{where} run{'' if plural else 's'} a number of iterations known only at run time, and XLA cannot "
        f"reverse a loop of unknown length. {hint} Forward mode (jax.jvp) works as is."
    )


LAUNCH_HINT = (
    "Make the bound a compile-time constant (pass it as a Python int, not a traced value, or use "
    "wp.constant / wp.static), or wrap the kernel with wp.jax_kernel(..., max_loop_trips=N)."
)


def jax_kernel_hint(sites: list[LoopSite]) -> str:
    example = ", ".join(f"{s.line}: N" for s in sites)
    return (
        f"Pass max_loop_trips={{{example}}} (or one int for every loop) to wp.jax_kernel, or make the bound a "
        "compile-time constant (a Python int argument, wp.constant or wp.static)."
    )


# The reverse guard: an identity that is linear (so jvp passes tangents through it) and whose
# transpose raises. Reverse-mode AD reaches it before the loop it protects.
_guard_p = Primitive("jwarp_reverse_guard")
_guard_p.def_impl(lambda x, *, message: x)
_guard_p.def_abstract_eval(lambda x, *, message: x)


def _guard_transpose(ct: Any, x: Any, *, message: str) -> Any:
    if type(ct) is ad.Zero:
        return [ct]
    raise ValueError(message)


ad.deflinear2(_guard_p, lambda ct, x, *, message: [_guard_transpose(ct, x, message=message)])
batching.primitive_batchers[_guard_p] = lambda args, dims, *, message: (_guard_p.bind(args[0], message=message),
                                                                         dims[0])
mlir.register_lowering(_guard_p, lambda ctx, x, *, message: [x])


def guard_reverse(x: Any, message: str) -> Any:
    """``x``, unless reverse-mode AD reaches it: then ``ValueError(message)``."""
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        return x
    return _guard_p.bind(x, message=message)


# ------------------------------------------------------------------------------------------------
# run-time checks (inside traces: debug callbacks)


def _raise_sites(kernel_key: str, sites: tuple) -> Callable:
    """A debug callback raising for the site flags a kernel reported (out of bounds, a loop that hangs)."""
    def check(flags: dict) -> None:
        check_sites(kernel_key, sites, {k: int(np.asarray(v).max()) for k, v in flags.items()})

    return check


def _raise_trips(kernel_key: str, checks: list[tuple[LoopSite, int]]) -> Callable:
    def check(*trips: Any) -> None:
        for (site, bound), trip in zip(checks, trips):
            trip = int(np.asarray(trip).max())
            if trip > bound:
                raise RuntimeError(
                    f"Kernel '{kernel_key}': the loop at {site.describe()} needed {trip} iterations, more than its "
                    f"max_loop_trips bound {bound}; raise the bound"
                )

    return check


# ------------------------------------------------------------------------------------------------
# one kernel specialised on one signature


class TracedKernel:
    """A kernel lowered for one signature with some scalar values baked in, as a jitted function.

    ``__call__(*bases, *dynamic_values) -> new_bases`` (a dict: base index → new buffer) works
    eagerly and inside any JAX transformation. Bases listed in ``alloc`` are zero-filled inside the
    function instead of passed (outputs of ``jax_kernel``); with ``returns`` the call returns those
    bases' final contents as a tuple.
    """

    def __init__(self, kernel: Any, sig: Signature, static_values: dict, max_loop_trips: Any = None,
                 hint: str | None = LAUNCH_HINT, alloc: dict | None = None, returns: tuple | None = None):
        self.kernel = kernel
        self.alloc = dict(alloc or {})  # base index -> (storage shape, numpy dtype): zeros made inside
        self.returns = returns  # base indices to return (a tuple), or None for {written index: buffer}
        self.sig = replace(sig, record_trips=True)
        self.static_values = dict(static_values)
        self.hint = hint
        self.trace_count = 0
        self.sites: tuple = ()
        self.loops: list[LoopSite] = []
        self.trip_checks: list[tuple[LoopSite, int]] = []
        self._pure = build_pure_fn(kernel.source, kernel.arg_names, self.sig)
        self._jitted = self._make_jitted()
        self._max_loop_trips = max_loop_trips
        self._discovered = max_loop_trips is None  # without bounds, the first trace finds the loops
        self._discovering = False

    def _make_jitted(self) -> Callable:
        # a fresh function object per lowering: JAX caches traces by function identity
        return jax.jit(lambda *args: self._run(*args))

    def _merge(self, dynamic: tuple) -> list:
        values, it = [], iter(dynamic)
        for i in range(self.sig.n_values):
            values.append(self.static_values[i] if i in self.static_values else next(it))
        return values

    def _run(self, *args: Any) -> dict:
        if not self._discovering:
            self.trace_count += 1
        n = self.sig.n_bases - len(self.alloc)
        given, values = iter(args[:n]), self._merge(args[n:])
        bases = [jnp.zeros(*self.alloc[i]) if i in self.alloc else next(given) for i in range(self.sig.n_bases)]
        try:
            new_bases, diagnostics, sites = self._pure(*bases, *values)
        except _Located as exc:
            raise clean_error(exc) from None
        self.sites = tuple(sites)
        self.loops = [loop_site(k) for k in sorted(diagnostics) if k.startswith("trip:")]
        flags = {k: diagnostics[k] for k in REPORTED_FLAGS if k in diagnostics}
        if flags:
            jax.debug.callback(_raise_sites(self.kernel.key, self.sites), flags)
        if self.trip_checks:
            jax.debug.callback(_raise_trips(self.kernel.key, self.trip_checks),
                               *[diagnostics["trip:" + s.key] for s, _ in self.trip_checks])
        if self.loops and self.sig.loop_bounds is None:
            hint = self.hint if self.hint is not None else jax_kernel_hint(self.loops)
            message = _reverse_message(self.kernel.key, self.loops, hint)
            new_bases = {i: jax.tree_util.tree_map(lambda b: guard_reverse(b, message), buf)
                         for i, buf in new_bases.items()}
        if self.returns is not None:
            return tuple(new_bases.get(i, bases[i]) for i in self.returns)
        return new_bases

    def _discover(self, args: tuple) -> None:
        """Find the loops with run-time trip counts (one abstract trace) and apply loop bounds."""
        self._discovering = True
        try:
            jax.eval_shape(lambda *a: self._run(*a), *args)
        finally:
            self._discovering = False
        self._discovered = True
        if self.loops and self._max_loop_trips is not None:
            bounds = resolve_loop_bounds(self.kernel.key, self.loops, self._max_loop_trips)
            self.sig = replace(self.sig, loop_bounds=bounds)
            bound_of = dict(bounds)
            self.trip_checks = [(site, bound_of[site.key]) for site in self.loops]
            self._pure = build_pure_fn(self.kernel.source, self.kernel.arg_names, self.sig)
            self._jitted = self._make_jitted()

    def __call__(self, *args: Any) -> dict:
        with x64():
            if not self._discovered:
                self._discover(args)
            return self._jitted(*args)


def static_key(values: dict) -> tuple:
    """Hashable key of baked scalar values (by dtype and bytes)."""
    out = []
    for i, v in sorted(values.items()):
        arr = np.asarray(v)
        out.append((i, arr.dtype.str, arr.shape, arr.tobytes()))
    return tuple(out)


def as_static(value: Any) -> Any:
    """A concrete scalar/composite value as the compile-time constant form the compiler folds."""
    arr = np.asarray(value)
    return arr[()] if arr.ndim == 0 else arr


__all__ = ["TracedKernel", "as_static", "guard_reverse", "is_tracer", "static_key", "x64",
           "LoopSite", "jax_kernel_hint", "LAUNCH_HINT"]
