"""Timing, correctness checks and the report table of the benchmark suite (``benchmarks/run.py``).

A workload module builds :class:`Case` objects. A case holds one :class:`Program` per
implementation (``jwarp``, ``jnp``, ``warp``) plus optional *reference* programs that are timed
alongside and reported in the notes, not as columns (e.g. a device copy for bandwidth). Every program follows the same
protocol:

- ``reset()`` puts it back to its initial state;
- ``step()`` dispatches one timed unit of work (``Case.per_step`` operations);
- ``sync()`` blocks until that work has finished (``wp.synchronize()``, ``block_until_ready``);
- ``output()`` returns the results as a dict of numpy arrays.

:func:`measure` first checks correctness (reset, one step, compare the outputs of all
implementations with ``np.allclose``), then warms up and times ``step(); sync()`` with the
implementations interleaved (A B C A B C ...), so load changes on a shared machine hit all alike.
Each sample also records the process CPU time (all threads) it took, reported in the JSON as
``cpu_stats``: on a machine shared with other work, wall time depends on how many cores a
multi-threaded implementation (XLA) finds free, CPU time much less.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

IMPLEMENTATIONS = ("jwarp", "jnp", "warp")  # table columns, in this order


@dataclass
class Context:
    """What a workload needs to build its programs."""

    device: str  # "cpu" or "cuda"
    quick: bool
    libs: dict[str, Any]  # Warp-API modules by implementation name: {"jwarp": jwarp, "warp": warp}
    jax_device: Any  # the jax.Device the jnp programs run on

    def wp_device(self, impl: str) -> str:
        """Device name for a Warp-API implementation (real Warp always runs on the CPU here)."""
        if impl == "warp" or self.device == "cpu":
            return "cpu"
        return "cuda:0"

    def sync(self, impl: str) -> Callable[[], None]:
        """Blocking synchronize for a Warp-API implementation."""
        return self.libs[impl].synchronize


class Program:
    """One implementation of a case, assembled from callables (see module docstring)."""

    def __init__(
        self,
        step: Callable[[], None],
        sync: Callable[[], None],
        output: Callable[[], dict],
        reset: Callable[[], None] | None = None,
    ):
        self.step = step
        self.sync = sync
        self.output = output
        self.reset = reset or (lambda: None)


@dataclass
class Case:
    """One row of the report."""

    name: str
    programs: dict[str, Program]  # implementation name -> program (interleave order)
    unit: str = "ms"  # "ms" or "us"; figures are per operation
    per_step: int = 1  # operations per step
    repeats: int = 10
    warmup: int = 2
    rtol: float = 1e-5
    atol: float = 1e-6
    tolerance: dict[str, tuple[float, float]] = field(default_factory=dict)  # per output key
    references: dict[str, Program] = field(default_factory=dict)  # timed and checked, not columns
    notes: Callable[[dict], str] | None = None  # stats by name -> extra text (e.g. GB/s)


@dataclass
class Stats:
    median: float
    min: float
    max: float
    samples: list[float]

    def as_dict(self) -> dict:
        return {"median": self.median, "min": self.min, "max": self.max, "samples": self.samples}


@dataclass
class Result:
    """Measured figures of one case."""

    case: str
    unit: str
    stats: dict[str, Stats]
    check: str  # "PASS", "FAIL: ..." or "n/a"
    notes: str = ""
    cpu_stats: dict[str, Stats] = field(default_factory=dict)  # process CPU time per operation

    def ratio(self, a: str, b: str) -> float | None:
        if a in self.stats and b in self.stats and self.stats[b].median > 0:
            return self.stats[a].median / self.stats[b].median
        return None

    def as_dict(self) -> dict:
        return {
            "case": self.case,
            "unit": self.unit,
            "stats": {k: s.as_dict() for k, s in self.stats.items()},
            "ratio_jwarp_jnp": self.ratio("jwarp", "jnp"),
            "ratio_jwarp_warp": self.ratio("jwarp", "warp"),
            "check": self.check,
            "notes": self.notes,
            "cpu_stats": {k: s.as_dict() for k, s in self.cpu_stats.items()},
        }


_SCALE = {"ms": 1e3, "us": 1e6, "s": 1.0}


def check_outputs(case: Case) -> str:
    """Reset every program, run one step, compare each program's outputs with jnp's (references
    with an empty output, e.g. a plain copy, are only run)."""
    outputs = {}
    for name, program in {**case.programs, **case.references}.items():
        program.reset()
        program.step()
        program.sync()
        result = {k: np.asarray(v) for k, v in program.output().items()}
        if result:
            outputs[name] = result
    if len(outputs) < 2:
        return "n/a"
    reference_name = "jnp" if "jnp" in outputs else next(iter(outputs))
    expected = outputs[reference_name]
    problems = []
    for name, got in outputs.items():
        if name == reference_name:
            continue
        for key, want in expected.items():
            rtol, atol = case.tolerance.get(key, (case.rtol, case.atol))
            have = got.get(key)
            if have is None or np.shape(have) != np.shape(want):
                problems.append(f"{name}.{key} shape {np.shape(have)} != {np.shape(want)}")
            elif not np.allclose(have, want, rtol=rtol, atol=atol):
                err = float(np.max(np.abs(have.astype(np.float64) - want.astype(np.float64))))
                problems.append(f"{name}.{key} vs {reference_name}: max abs err {err:.3g}")
    return "PASS" if not problems else "FAIL: " + "; ".join(problems)


def _time_step(program: Program) -> tuple[float, float]:
    """Wall-clock and process CPU seconds of one ``step(); sync()``."""
    cpu = time.process_time()
    start = time.perf_counter()
    program.step()
    program.sync()
    return time.perf_counter() - start, time.process_time() - cpu


def _stats(values: list[float]) -> Stats:
    return Stats(statistics.median(values), min(values), max(values), values)


def measure(case: Case) -> Result:
    """Correctness check, warm-up, then interleaved timed repeats of every program."""
    check = check_outputs(case)
    everyone = {**case.programs, **case.references}
    for program in everyone.values():
        program.reset()
    for _ in range(case.warmup):
        for program in everyone.values():
            program.step()
            program.sync()
    samples: dict[str, list[float]] = {name: [] for name in everyone}
    cpu_samples: dict[str, list[float]] = {name: [] for name in everyone}
    scale = _SCALE[case.unit] / case.per_step
    for _ in range(case.repeats):
        for name, program in everyone.items():
            wall, cpu = _time_step(program)
            samples[name].append(wall * scale)
            cpu_samples[name].append(cpu * scale)
    stats = {name: _stats(values) for name, values in samples.items()}
    notes = case.notes(stats) if case.notes else ""
    cpu_stats = {name: _stats(values) for name, values in cpu_samples.items()}
    return Result(case.name, case.unit, stats, check, notes, cpu_stats)


# ------------------------------------------------------------------------------------------------
# report


def _cell(stats: Stats | None) -> str:
    if stats is None:
        return "-"
    return f"{_num(stats.median)} [{_num(stats.min)}-{_num(stats.max)}]"


def _num(x: float) -> str:
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}" if x >= 1 else f"{x:.3f}"


def _ratio(r: float | None) -> str:
    return "-" if r is None else f"{r:.2f}x"


def format_table(results: list[Result], columns: tuple[str, ...]) -> str:
    """One table: per case the median [min-max] of every implementation, the ratios and the check."""
    head = ["case", "unit", *[f"{c} median [min-max]" for c in columns], "jwarp/jnp"]
    if "warp" in columns:
        head.append("jwarp/warp")
    head += ["check", "notes"]
    rows = []
    for r in results:
        row = [r.case, r.unit, *[_cell(r.stats.get(c)) for c in columns], _ratio(r.ratio("jwarp", "jnp"))]
        if "warp" in columns:
            row.append(_ratio(r.ratio("jwarp", "warp")))
        row += [r.check if r.check == "PASS" or r.check == "n/a" else "FAIL", r.notes]
        rows.append(row)
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(head, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip() for row in rows]
    failures = [f"  {r.case}: {r.check}" for r in results if r.check.startswith("FAIL")]
    if failures:
        lines += ["", "failed checks:", *failures]
    return "\n".join(lines)


def interleaved_ms(steps: dict[str, Callable[[], None]], repeats: int,
                   clock: Callable[[], float] = time.perf_counter) -> dict[str, float]:
    """Median milliseconds of each of ``steps`` (``{name: step}``, each step ending when its work has),
    timed ``repeats`` times in rounds of one call each (A B C A B C ...), so that a shared machine's load
    changes hit them alike; ``clock``: ``time.process_time`` for CPU time.

    Example:
        >>> sorted(interleaved_ms({"a": lambda: None, "b": lambda: None}, 3))
        ['a', 'b']
    """
    times: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(repeats):
        for name, step in steps.items():
            start = clock()
            step()
            times[name].append(clock() - start)
    return {name: statistics.median(t) * 1e3 for name, t in times.items()}


def gb_per_s(nbytes: float, stats: Stats, unit: str = "ms") -> float:
    """Bandwidth in GB/s for ``nbytes`` moved per operation taking ``stats.median`` ``unit``."""
    seconds = stats.median / _SCALE[unit]
    return nbytes / seconds / 1e9


__all__ = ["Case", "Context", "Program", "Result", "Stats", "measure", "format_table", "gb_per_s", "interleaved_ms",
           "IMPLEMENTATIONS"]
