"""Repeated operations in a captured graph, replayed as a loop.

Simulations capture their substeps: ``for _ in range(64): wp.launch(forces, ...); wp.launch(integrate,
...)``. Traced one after the other, the 128 launches make a program 64 times the size of one substep,
and XLA's compile time grows with it (Warp's DEM example: 43 s). Each recorded operation carries a
*key* (a launch's kernel, dimensions, launch options and arguments: arrays by identity, scalars by
value); where the keys repeat with a period, :func:`run_steps` traces the period once, inside a
``lax.fori_loop``. The first period runs before the loop (it creates the buffers of arrays that a
capture zero-fills or writes first), and a graph whose loop cannot be formed runs unrolled.

Example:
    >>> repeated_run(["setup", "f", "g", "f", "g", "f", "g", "out"])  # (start, period, count)
    (1, 2, 3)
    >>> repeated_run(["a", "b", "c"]) is None
    True
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import jax
import numpy as np
from jax.extend.core import jaxprs_in_params

MIN_SAVED = 4
"""Operations a loop must save (``(count - 1) * period``) to replace the unrolled steps: a short
repeat stays unrolled, where XLA may fuse across its operations."""
LOOP_EQUATIONS = 40_000
"""The size (jaxpr equations) of the repeats a loop replaces, above which a run of repeats is looped
over. Below, the steps stay unrolled: XLA compiles them in a few seconds (Warp's fluid example: 100
launches, 27,000 equations, 3 s), and the unrolled program runs faster (in a loop, XLA hoists the
stencils' neighbour indices out as arrays and gathers through them: 5-8% slower). Warp's DEM
example (64 substeps, 127,000 equations) compiled for 43 s unrolled, 3 s as a loop."""
MAX_PERIOD = 64
"""The longest period looked for (the search costs ``MAX_PERIOD`` passes over the keys)."""


def repeated_run(keys: Sequence[Any]) -> tuple[int, int, int] | None:
    """The run of repeated keys that saves the most operations: ``(start, period, count)`` with
    ``keys[start + k * period + j] == keys[start + j]`` for ``k < count``, ``j < period``; None when
    no run saves :data:`MIN_SAVED` operations."""
    n = len(keys)
    best, saved = None, MIN_SAVED - 1
    for period in range(1, min(MAX_PERIOD, n // 2) + 1):
        length = 0  # consecutive i with keys[i] == keys[i + period], ending at the current i
        for i in range(n - period - 1, -2, -1):  # backwards: a run's length is known at its start
            if i >= 0 and keys[i] == keys[i + period]:
                length += 1
                continue
            if length:
                start = i + 1
                count = (length + period) // period
                if (count - 1) * period > saved or ((count - 1) * period == saved and best and start < best[0]):
                    best, saved = (start, period, count), (count - 1) * period
            length = 0
    return best


def launch_key(kernel: Any, dim: Any, args: Sequence[Any], device: Any, options: tuple) -> tuple:
    """The key of a recorded launch (see the module docstring; ``Graph`` applies :func:`argument_key`)."""
    return "launch", kernel, tuple(dim) if isinstance(dim, (tuple, list)) else dim, device, options, tuple(args)


def argument_key(value: Any) -> Any:
    """A hashable key of an operation's operand: numbers and strings by value, tuples by their items'
    keys, anything else (arrays, structs, lists) by identity (the recorded step keeps it alive)."""
    if isinstance(value, (bool, int, float, complex, str)) or value is None:
        return type(value), value
    if isinstance(value, np.generic):
        return type(value), value.item()
    if type(value) is tuple:
        return tuple, tuple(argument_key(v) for v in value)
    return "object", id(value)  # arrays, structs, lists...: the same object (kept alive by the step; a
    # replay reads its contents then)


def run_steps(steps: Sequence[Callable[[], None]], keys: Sequence[Any], roots: list) -> None:
    """Run ``steps`` (the recorded operations, on ``roots``' current buffers, which they replace);
    a run of repeated keys runs as a ``lax.fori_loop`` over the roots' buffers."""
    run = repeated_run(keys) if len(steps) == len(keys) else None
    if run is None:
        for step in steps:
            step()
        return
    start, period, count = run
    for step in steps[:start + period]:
        step()
    body = steps[start:start + period]

    def one(_: Any, buffers: list) -> list:
        for root, buf in zip(roots, buffers):
            root._buffer = buf
        for step in body:
            step()
        return [r._buffer for r in roots]

    before = [r._buffer for r in roots]
    try:
        size = _equations(jax.make_jaxpr(one)(0, before).jaxpr) if count > 1 else 0
        for root, buf in zip(roots, before):
            root._buffer = buf
        if (count - 1) * size < LOOP_EQUATIONS:
            raise _Unrolled
        after = jax.lax.fori_loop(1, count, one, before)
    except (TypeError, _Unrolled):  # small, or a buffer changed its type or structure within a period
        for root, buf in zip(roots, before):
            root._buffer = buf
        for _ in range(count - 1):
            for step in body:
                step()
    else:
        for root, buf in zip(roots, after):
            root._buffer = buf
    for step in steps[start + period * count:]:
        step()


class _Unrolled(Exception):
    """The repeated run is too small to loop over."""


def _equations(jaxpr: Any) -> int:
    """Equations of ``jaxpr``, those of the jaxprs it calls included."""
    total = 0
    for eqn in jaxpr.eqns:
        total += 1
        for sub in jaxprs_in_params(eqn.params):
            total += _equations(sub)
    return total
