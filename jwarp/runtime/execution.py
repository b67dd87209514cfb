"""The execution core: the only code that calls a compiled kernel's executable.

Every way of running a kernel — ``wp.launch``, launch plans (:mod:`jwarp.runtime.fastpath`),
``wp.Launch`` objects, adjoint launches, tape replay and graph capture — ends in
:meth:`Program.run`, which enters 64-bit mode when the kernel needs it, decides whether the
written buffers are donated and calls the executable; :meth:`PreparedLaunch.execute` adds the
launch's checks and rebinds the written arrays. :data:`~jwarp.runtime.locking.state_lock` is held from
reading the buffers to rebinding them: the entry points (``wp.launch``, ``Launch.launch``) take it
once per launch; the fast paths (plans, Launch objects) rely on that, ``execute`` re-enters it.

**One program per signature.** A kernel compiled for a signature gets one XLA program, chosen at its
first run: the donating one when donation is enabled, the kernel writes arrays (each held in one
buffer: struct arrays, held as one buffer per field, are never donated), has no diagnostics, XLA can
update the written buffers in place and the run itself may donate (no tape recording it, no
``verify_fp``); else the plain one. A later run that may not donate (a tape keeps the inputs, a
buffer is referenced elsewhere) passes copies of the written buffers to the donating program instead
of compiling the plain one; only a program that keeps being run that way (:data:`PLAIN_AFTER` runs)
also gets the plain program.

**Hooks.** Layers above the core plug in without the core importing them: an *observer* (the tape)
is told about each launch and can forbid donation while it keeps buffers; the *traced launch* factory
(registered by :mod:`jwarp.interop`) runs launches whose arguments are JAX tracers.

Example:
    >>> from jwarp.runtime import execution
    >>> class Counter:
    ...     n = 0
    ...     def holds_buffers(self): return False
    ...     def launched(self, prepared, buffers, new_bases, diagnostics): Counter.n += 1
    >>> execution.add_observer(Counter())  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import sys
import time
from typing import Any, Callable, Protocol

import jax
import numpy as np

from jwarp.compiler.context import REPORTED_FLAGS
from jwarp.compiler.emitters import level_options
from jwarp import config
from jwarp.runtime import memory_budget, storage
from jwarp.runtime.interruptible import call_interruptibly, on_main_thread, worker_busy
from jwarp.runtime.binding import Binding
from jwarp.runtime.device import Device
from jwarp.runtime.locking import state_lock

# Runs of a donating program that had to copy their written buffers before the plain program is
# built too (a launch pattern that can rarely donate pays one compile instead of a copy per run).
PLAIN_AFTER = 16

# Deferred Launch replays (runtime/deferred.py): a program runs a batch of replays as one loop program
# once it has been replayed REPEAT_AFTER times (the loop program costs one more compile) and for
# batches of at least REPEAT_MIN replays; smaller batches run launch by launch.
REPEAT_AFTER = 1024
REPEAT_MIN = 8

# A written buffer referenced only by its array (root._buffer), the launch's buffer list and
# getrefcount's own argument can be donated: nothing else can observe the old contents.
_SOLE_OWNER_REFS = 3
_array_impl: type | None = None
_NO_SCOPE = contextlib.nullcontext()


# -- hooks -------------------------------------------------------------------------------------------
class LaunchObserver(Protocol):
    """What the core asks of a recorder (the tape): whether it keeps the buffers launches read (then
    nothing is donated), and to be told about each launch before its outputs are rebound."""

    def holds_buffers(self) -> bool: ...

    def launched(self, prepared: PreparedLaunch, buffers: list, new_bases: dict, diagnostics: dict) -> None: ...


_observers: list[LaunchObserver] = []
_traced_launch: list[Callable] = []


def add_observer(observer: LaunchObserver) -> None:
    """Register ``observer`` (idempotent)."""
    if observer not in _observers:
        _observers.append(observer)


def buffers_held() -> bool:
    """Whether an observer keeps the buffers launches read (donation must wait)."""
    return any(o.holds_buffers() for o in _observers)


def set_traced_launch(factory: Callable) -> None:
    """Register the factory of launches on traced arguments: ``factory(kernel, dim, device, binding,
    signature, block_dim, max_blocks)`` returns an object with ``run(record_tape)``."""
    _traced_launch[:] = [factory]


def traced_launch(*args: Any) -> Any:
    if not _traced_launch:
        raise RuntimeError("a launch on JAX tracers needs jwarp.interop (import jwarp.interop.traced_launch)")
    return _traced_launch[0](*args)


# -- programs ----------------------------------------------------------------------------------------
class Program:
    """The executable of one compiled kernel and the rules for calling it (see module docstring)."""

    __slots__ = ("compiled", "written", "x64", "exe", "donates", "copied_runs", "replays", "repeat", "seconds")

    def __init__(self, compiled: Any):
        self.compiled = compiled
        # (flat output index — a tuple of them for a struct array's per-field buffers —, base index)
        self.written = written_outputs(compiled)
        self.x64 = compiled.uses_x64
        self.exe: Callable | None = None
        self.donates = False
        self.copied_runs = 0
        self.replays = 0  # deferred replays seen (run_repeated)
        self.repeat: Any = None  # the loop program: None (not built yet), False (not available)
        self.seconds = 0.0  # how long the last run's executable call took

    def _choose(self, operands: list, may_donate: bool) -> Callable:
        compiled = self.compiled
        if (may_donate and config.donate_buffers and self.written and not compiled.diagnostic_keys
                and all(type(operands[b]) is concrete_array_type() for _, b in self.written)):
            exe = compiled.executable(donate=True, operands=operands)
            self.donates = exe is not compiled.executable()  # else XLA could not write in place
        else:
            exe = compiled.executable()
        self.exe = exe
        return exe

    def run(self, buffers: list, values: list, may_donate: bool) -> list:
        """The executable's flat outputs for ``buffers`` (base buffers, a list the caller built and
        holds no other reference to) and ``values``; donates the written buffers when ``may_donate``
        and nothing but their arrays holds them."""
        limit = config.interruptible_launch_seconds
        if limit is not None and (self.exe is None or self.seconds >= limit or worker_busy()) and on_main_thread():
            return call_interruptibly(self._run_cancellable, buffers, values, may_donate)
        exe = self.exe
        if exe is None:
            exe = self._choose([*buffers, *values], may_donate)
        if self.donates and not (may_donate and config.donate_buffers and sole_owners(buffers, self.written)):
            exe, buffers = self._without_donation(buffers)
        return self._call(exe, buffers, values)

    def _call(self, exe: Callable, buffers: list, values: list) -> list:
        start = time.perf_counter()
        if self.x64:
            with storage.x64():
                out = exe(*buffers, *values)
        else:
            out = exe(*buffers, *values)
        self.seconds = time.perf_counter() - start
        return out

    def _run_cancellable(self, buffers: list, values: list, may_donate: bool) -> list:
        """:meth:`run` on the launch worker thread (:mod:`jwarp.runtime.interruptible`): a donating
        program gets copies of the written buffers, so that a run the caller stops waiting for
        (Ctrl-C) leaves every array as it was."""
        exe = self.exe
        if exe is None:
            exe = self._choose([*buffers, *values], may_donate)
        if self.donates:
            buffers = self._copies(buffers)
        start = time.perf_counter()
        out = self._call(exe, buffers, values)
        jax.block_until_ready(out)  # (an input still being computed makes even synchronous dispatch return early)
        self.seconds = time.perf_counter() - start
        return out

    def _without_donation(self, buffers: list) -> tuple[Callable, list]:
        """(executable, operands) that keep the caller's written buffers intact: the donating program
        with copies of them (or, once this happened often, the plain program with the buffers)."""
        self.copied_runs += 1
        if self.copied_runs > PLAIN_AFTER:
            return self.compiled.executable(), buffers
        return self.exe, self._copies(buffers)

    def _copies(self, buffers: list) -> list:
        """``buffers`` with fresh copies of the written ones (which the donating program may consume)."""
        copies = list(buffers)
        with storage.x64() if self.x64 else _NO_SCOPE:
            for _, b in self.written:
                copies[b] = jax.device_put(buffers[b], may_alias=False)
        # ready before the call: an executable given an input still being copied returns before it has
        # run even under synchronous CPU dispatch, and ``wp.synchronize()`` would then not wait for it
        return jax.block_until_ready(copies)


    def run_repeated(self, buffers: list, values: list, count: int) -> tuple | None:
        """The base buffers after running the kernel ``count`` times in a row (each run reading the
        bases the previous one wrote), as one call of a loop program; None where that program is not
        used (small batches, until :data:`REPEAT_AFTER` replays, or a kernel it cannot run): the
        caller then runs the launches one by one. Never donates."""
        self.replays += count
        loop = self.repeat
        if count < REPEAT_MIN or loop is False or (loop is None and self.replays < REPEAT_AFTER):
            return None
        if loop is None:
            loop = self.repeat = self._build_repeat(buffers, values)
            if loop is False:
                return None
        try:
            return loop(np.int32(count), tuple(buffers), tuple(values))
        except TypeError:  # operands of other types than the loop was compiled for: nothing ran
            return None

    def _build_repeat(self, buffers: list, values: list) -> Any:
        """The loop program (ahead-of-time compiled), or False when the kernel has no cached trace
        or its outputs cannot be fed back as its inputs."""
        inner = self.compiled._traced_fn
        if inner is None:
            return False
        written = self.written

        def loop(count: Any, bases: tuple, vals: tuple) -> tuple:
            def step(_: Any, current: tuple) -> tuple:
                out = inner(*current, *vals)
                new = list(current)
                for i, b in written:
                    new[b] = out[i] if type(i) is int else tuple(out[j] for j in i)
                return tuple(new)

            return jax.lax.fori_loop(0, count, step, bases)

        try:
            with jax.enable_x64(True):  # the cached trace was made with 64-bit types on
                options = level_options(self.compiled.signature) or None
                return jax.jit(loop, compiler_options=options).lower(np.int32(0), tuple(buffers),
                                                                     tuple(values)).compile()
        except (TypeError, ValueError):  # e.g. an output whose type differs from its input's
            return False


def program_of(compiled: Any) -> Program:
    """The one :class:`Program` of ``compiled`` (made on first use)."""
    program = compiled.__dict__.get("program")
    if program is None:
        program = compiled.__dict__["program"] = Program(compiled)
    return program


def sole_owners(bufs: list, written: tuple) -> bool:
    """Whether every written buffer in ``bufs`` is a concrete jax array held by nothing but its array
    and ``bufs`` (then donating it cannot change what anyone else sees)."""
    for _, b in written:  # (no local name for the buffer: it would count as one more reference)
        if type(bufs[b]) is not concrete_array_type() or sys.getrefcount(bufs[b]) > _SOLE_OWNER_REFS:
            return False
    return True


def concrete_array_type() -> type:
    """The type of a concrete (non-traced) jax array."""
    global _array_impl
    if _array_impl is None:
        _array_impl = type(jax.numpy.zeros(()))
    return _array_impl


# -- prepared launches -------------------------------------------------------------------------------
class PreparedLaunch:
    """A launch with validated arguments and a compiled executable, ready to run (made by
    :func:`jwarp.runtime.preparation.prepare`)."""

    def __init__(self, kernel: Any, dim: tuple, device: Device, binding: Binding, compiled: Any, block_dim: int,
                 max_blocks: int, bucket: Any = None):
        self.kernel = kernel
        # a launch run in a bucket of sizes: the ticket its launch plan counts it with (launch_buckets.py)
        self.bucket = bucket
        self.dim = dim
        self.device = device
        self.binding = binding
        self.compiled = compiled
        self.program = program_of(compiled)
        self.block_dim = block_dim
        self.max_blocks = max_blocks

    def input_buffers(self) -> list:
        out = []
        for base in self.binding.bases:
            buf = base._buffer
            if buf is None:
                raise RuntimeError("This array has no data (it is an annotation or was freed)")
            if base.device is not self.device:
                buf = move_buffer(buf, self.device)  # RELAXED: foreign arrays travel to the launch device
            out.append(buf)
        return out

    def execute(self, record: bool = True) -> None:
        """Run the launch and rebind the written arrays (after its checks passed); ``record``: tell
        the observers (the tape). Holds ``state_lock`` (re-entered when the caller holds it)."""
        with state_lock:
            self._execute_locked(record)

    def _execute_locked(self, record: bool) -> None:
        """:meth:`execute`, for a caller that holds ``state_lock``."""
        buffers = self.input_buffers()
        may_donate = self._may_donate(record)
        try:
            flat = self.program.run(buffers, self.binding.values, may_donate)
        except Exception as exc:
            check_alive(self.kernel, self.binding, exc)
            memory_budget.raise_if_out_of_memory(self.kernel, self.dim, self.device, exc)
            raise
        new_bases, diagnostics = self.compiled.split_outputs(flat)
        check_sites(self.kernel.key, self.compiled.sites, diagnostics)
        if config.verify_fp:
            report_non_finite(self.kernel, self.binding, new_bases)
        if record:
            for observer in _observers:
                observer.launched(self, buffers, new_bases, diagnostics)
        self.commit(new_bases)

    def run(self, record_tape: bool = True) -> None:
        """:meth:`execute` (the name launch objects of every kind share)."""
        self.execute(record=record_tape)

    def evaluate(self) -> tuple[list, dict, dict]:
        """Run without changing any array: (buffers read, {base index: new buffer}, diagnostics)."""
        with state_lock:
            buffers = self.input_buffers()
            flat = self.program.run(list(buffers), self.binding.values, may_donate=False)
        new_bases, diagnostics = self.compiled.split_outputs(flat)
        return buffers, new_bases, diagnostics

    def _may_donate(self, record: bool) -> bool:
        """Whether this launch may donate the buffers it rewrites (when nothing else holds them): not
        while a tape records (it keeps the inputs), nor with ``verify_fp``, nor for foreign-device arrays."""
        if config.verify_fp or (record and buffers_held()):
            return False
        return all(base.device is self.device for base in self.binding.bases)

    def commit(self, new_bases: dict) -> None:
        for index, buf in new_bases.items():
            base = self.binding.bases[index]
            if base.device is not self.device:
                buf = move_buffer(buf, base.device)
            base._store(buf)


def written_outputs(compiled: Any) -> tuple:
    """``((flat output index, base index), ...)`` for the bases ``compiled`` writes; the index is a
    tuple of indices for a base held as several buffers (a struct array's fields)."""
    positions, _ = jax.tree_util.tree_unflatten(compiled.out_tree, list(range(compiled.out_tree.num_leaves)))
    return tuple((positions[b], b) for b in compiled.written)


def new_buffers(written: tuple, out: list) -> dict:
    """``{base index: new buffer}`` from an executable's flat outputs."""
    return {b: out[i] if type(i) is int else tuple(out[j] for j in i) for i, b in written}


def rebind(roots: list, written: tuple, out: list) -> None:
    """Give each written root array its new buffer (``written``: see :func:`written_outputs`).
    The caller holds ``state_lock``."""
    for i, b in written:
        roots[b]._store(out[i] if type(i) is int else tuple(out[j] for j in i))


def report_non_finite(kernel: Any, binding: Binding, new_bases: dict) -> None:
    """``wp.config.verify_fp``: print, as Warp does, each written array that holds NaN or Inf
    (the launch still completes and its results are kept)."""
    for index, buf in new_bases.items():
        nan = inf = 0
        for part in buf if isinstance(buf, tuple) else (buf,):
            if np.issubdtype(part.dtype, np.floating):
                values = np.asarray(part)
                nan += int(np.isnan(values).sum())
                inf += int(np.isinf(values).sum())
        if nan or inf:
            name = next((n for n, a in binding.arrays if a.root is binding.bases[index]), "?")
            found = ", ".join(f"{count} {what}" for what, count in (("nan", nan), ("inf", inf)) if count)
            print(f"Warp verify_fp: kernel '{kernel.key}' wrote non-finite values to array '{name}' ({found})",
                  flush=True)


def check_sites(kernel_key: str, sites: tuple, diagnostics: dict) -> None:
    """Raise for a site flag a launch reported: an out-of-bounds access (debug mode, ``IndexError``), a
    loop that never ends (``RuntimeError``) or a slice with a run-time step of 0 (``ValueError``); each
    names the kernel, file and line."""
    for flag in REPORTED_FLAGS:
        if flag not in diagnostics:
            continue
        site = int(diagnostics[flag])
        if site < 0:
            continue
        where = sites[site].format().replace("Error while parsing function", "in function") if sites[site] else ""
        if flag == "oob":
            raise IndexError(f"Out-of-bounds array access in kernel '{kernel_key}' {where}")
        if flag == "zero_step":
            raise ValueError(f"Kernel '{kernel_key}': slice step cannot be zero {where}")
        if flag == "tile_oob":
            raise IndexError(f"Warp tile index out of bounds in kernel '{kernel_key}' {where}")
        if flag == "tile_identity":
            raise RuntimeError(
                f"Kernel '{kernel_key}': Warp tile_reduce() axis slice has no active values and the reduction "
                f"operator has no declared identity (a partial block) {where}"
            )
        raise RuntimeError(
            f"Kernel '{kernel_key}' never finishes: a thread's while loop makes no progress (its state stops "
            f"changing while its condition still holds, even with threads run one at a time) {where}"
        )


def move_buffer(buf: Any, device: Device) -> Any:
    """``buf`` (or a tuple of component buffers) on ``device``."""
    with storage.x64():
        if isinstance(buf, tuple):
            return tuple(jax.device_put(b, device.jax_device) for b in buf)
        return jax.device_put(buf, device.jax_device)


def check_alive(kernel: Any, binding: Binding, exc: Exception) -> None:
    """After a failed dispatch: name the argument whose buffer was deleted, if that is the cause."""
    for base in binding.bases:
        buf = base._buffer
        parts = buf if isinstance(buf, tuple) else (buf,)
        if any(getattr(p, "is_deleted", lambda: False)() for p in parts):
            name = next((n for n, a in binding.arrays if a.root is base), "?")
            raise RuntimeError(
                f"Error launching kernel '{kernel.key}', argument '{name}' is an array whose storage has been "
                "deleted (freed or donated); it can no longer be used"
            ) from exc


__all__ = ["LaunchObserver", "PLAIN_AFTER", "PreparedLaunch", "Program", "add_observer", "buffers_held",
           "check_alive", "check_sites", "concrete_array_type", "move_buffer", "new_buffers", "program_of", "rebind",
           "report_non_finite", "set_traced_launch", "sole_owners", "traced_launch", "written_outputs"]
