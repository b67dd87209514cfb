"""Compile a kernel for one launch signature into a pure JAX function and its executables.

``pure_fn(*bases, *values) -> (new_bases, diagnostics)`` runs the kernel over the launch
grid. ``new_bases`` maps the index of every base buffer the kernel wrote to its new
contents; ``diagnostics`` holds the debug out-of-bounds flag and loop trip counts.

:func:`compile_kernel` traces ``pure_fn`` once into a jaxpr (under 64-bit mode, so int64
and float64 kernels work without touching the user's JAX settings), then jits the jaxpr:
once plainly and, on request, with the written buffers donated.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import jax
import jax.extend.core as jax_core
import jax.numpy as jnp
from jax import lax

from jwarp.compiler import array_views
from jwarp.compiler.chunking import lower_chunked, run_chunk
from jwarp.compiler.lane_vjp import lower_with_chunked_vjp
from jwarp.compiler.context import (REPORTED_FLAGS, KernelContext, SlotState, first_site, initial_accumulator,
                                     join_planes, split_planes)
from jwarp.compiler.emitters import OLDER_EMITTERS, compile_options, level_options
from jwarp.compiler.ahead_programs import COPY_LIMIT, Tiered, compiled_first, copies_a_parameter
from jwarp.compiler.handles import bind_handle
from jwarp.compiler.output_interleave import INTERLEAVE_LANES, interleaved_program
from jwarp.compiler.lower import Frame, FunctionLowerer
from jwarp.compiler.pallas_lower import PallasFallback, build_pallas_pure_fn, plan_of, without_plan
from jwarp.compiler.signature import ArraySpec, NoneArraySpec, Signature, StructSpec, ValueSpec, runtime_lanes
from jwarp.compiler.source import FunctionSource
from jwarp.compiler.values import ArrayRef, Value, launch_mask, value_from_leaves
from jwarp.compiler.vector_code import with_vector_code
from jwarp.compiler.views import apply_chain, write_back
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import ArrayType, dtype_leaf_shapes


def dtype_leaf_planes(dtype: Any) -> list:
    """(component index, scalar type) for every scalar plane of an element dtype."""
    out = []
    for comp_shape, scalar in dtype_leaf_shapes(dtype):
        n = 1
        for d in comp_shape:
            n *= d
        out.extend((k, scalar) for k in range(n))
    return out


def _value_leaves(t: Any, x: Any) -> list:
    if scalars.is_scalar_type(t):
        return [x]
    flat = x.reshape(-1)
    return [flat[k] for k in range(t._length_)]


def build_pure_fn(source: FunctionSource, arg_names: list[str], sig: Signature, report: dict | None = None) -> Callable:
    """The kernel as a pure function of its buffers, for one signature.

    When tracing it, ``report["param_access"]`` receives, per parameter, ``(read, written)`` for an
    array parameter (whether the kernel loads from it / stores or applies atomics to it, through
    views and ``@wp.func`` calls included) and ``None`` for any other parameter."""

    if plan_of(sig) is not None and not sig.record_trips and sig.loop_bounds is None:  # the Pallas target (pallas_lower.py), the XLA path its fallback and backward
        xla = build_pure_fn(source, arg_names, without_plan(sig), report)
        return build_pallas_pure_fn(source, arg_names, sig, xla, report)

    def setup(args: tuple) -> tuple:
        """The kernel's slots (one per array, with its planes), their specs, the slots of the
        parameters and of geometry objects, and ``make_context``/``run_body`` for the traced body."""
        bases, values = args[: sig.n_bases], args[sig.n_bases :]
        lanes = values[sig.n_values - 1] if runtime_lanes(sig) else None
        slots: list[SlotState] = []
        slot_specs: list[ArraySpec] = []
        slot_index: dict[tuple, int] = {}

        def array_value(spec: ArraySpec) -> Value:
            """The array's slot: one per (base, view chain), shared by every argument over that
            data. An indexed array is a view of its data array's slot (see array_views.indexed_ref),
            so accesses through it and through the data array meet in one memory."""
            key = (spec.base, spec.chain)
            if key not in slot_index:
                buf = apply_chain(bases[spec.base], spec.chain)
                shape = spec.shape
                if spec.indices:  # the slot holds the viewed data, not the indexed elements
                    shape = tuple(jax.tree_util.tree_leaves(buf)[0].shape[: len(spec.shape)])
                slots.append(SlotState(spec.dtype, shape, split_planes(buf, spec.dtype, shape)))
                slot_specs.append(ArraySpec(spec.dtype, shape, spec.base, spec.chain))
                slot_index[key] = len(slots) - 1
            t = ArrayType(spec.dtype, len(spec.shape))
            if spec.indices:  # index buffers as the launch passed them in
                entries = tuple(None if i is None else apply_chain(bases[i.base], i.chain) for i in spec.indices)
                return Value(t, array_views.indexed_ref(slot_index[key], entries))
            return Value(t, ArrayRef(slot_index[key]))

        def build(spec: Any) -> Value:
            if isinstance(spec, ArraySpec):
                return array_value(spec)
            if isinstance(spec, ValueSpec):
                return value_from_leaves(spec.type, _value_leaves(spec.type, values[spec.index]))
            if isinstance(spec, StructSpec):
                fields = [build(f) for f in spec.fields]
                return Value(spec.type, tuple(f.data for f in fields))
            if isinstance(spec, NoneArraySpec):
                # a null array: accesses are undefined in Warp; here they touch a scratch element
                shape = (1,) * spec.ndim
                zero = jnp.zeros(shape, jnp.float32)
                planes = [zero.astype(s._np_dtype) for _, s in dtype_leaf_planes(spec.dtype)]
                slots.append(SlotState(spec.dtype, shape, planes))
                slot_specs.append(None)
                return Value(ArrayType(spec.dtype, spec.ndim), ArrayRef(len(slots) - 1, null=True))
            raise TypeError(f"unknown spec {spec!r}")

        env = {name: build(spec) for name, spec in zip(arg_names, sig.params, strict=True)}
        param_slots = [env[name].data.slot if isinstance(spec, ArraySpec) else None
                       for name, spec in zip(arg_names, sig.params)]
        sites: list = []  # shared by every context of this trace: site indices stay unique
        bound_handles = [bind_handle(h, build, values) for h in sig.handles]
        handle_slots = set(range(len(slots))) - set(param_slots)  # geometry objects' arrays
        manual = any(_varies_over_a_mesh_axis(p) for s in slots for p in s.planes)  # inside shard_map

        def make_context(grid: tuple, kernel_slots: list, serial: bool = False) -> KernelContext:
            return KernelContext(
                kernel_name=source.name,
                grid=grid,
                slots=kernel_slots,
                debug=sig.debug,
                loop_bounds=dict(sig.loop_bounds) if sig.loop_bounds is not None else None,
                record_trips=sig.record_trips,
                block_dim=sig.block_dim,
                kernel_dim=sig.kernel_dim,
                max_unroll=sig.max_unroll,
                enable_backward=dict(sig.extra).get("backward", True),
                # the threads of a tile block run together: a loop that stalls with them is a hang
                serial=serial or bool(dict(sig.extra).get("tile_lanes")),
                watch_loops=not manual,
                sites=sites,
                handles=bound_handles,
            )

        def run_body(ctx: KernelContext, active: Any) -> None:
            if lanes is not None:  # a bucketed launch: the lanes past its run-time size are no threads
                thread = ctx.thread_coords[0] if ctx.thread_coords is not None else ctx.tid[0]
                inside = thread < lanes
                active = inside if active is None else active & inside
            with launch_mask(active) if lanes is not None else contextlib.nullcontext():
                FunctionLowerer(ctx, source, dict(env), active, Frame(source.name, is_kernel=True)).run()
            for hook in ctx.finish_hooks.values():
                hook()

        return slots, slot_specs, param_slots, handle_slots, make_context, run_body

    lane_chunk = dict(sig.extra).get("lane_chunk")
    chunk = dict(sig.extra).get("chunk", 0)

    def run_on_planes(args: tuple, planes: list, index: Any) -> KernelContext:
        """The body on the slots' ``planes`` (not those of ``args``' bases): over the whole grid
        (``index`` None) or over chunk ``index`` of the lane-chunked vjp (see lane_vjp.py)."""
        slots, _, _, _, make_context, run_body = setup(args)
        for slot, p in zip(slots, planes):
            slot.planes = list(p)
        if index is None and chunk:  # the forward in chunks of the memory budget (or max_blocks)
            return lower_chunked(slots, sig.grid, sig.kernel_dim, chunk, sig.debug, make_context, run_body)
        if index is None:
            ctx = make_context(sig.grid, slots)
            run_body(ctx, None)
            return ctx
        # (two threads storing to one element race: the lane-chunked backward assumes none)
        return run_chunk(slots, sig.grid, sig.kernel_dim, lane_chunk[0], index, make_context, run_body,
                         distinct_stores=True)

    def pure_fn(*args: Any):
        bases = args[: sig.n_bases]
        slots, slot_specs, param_slots, handle_slots, make_context, run_body = setup(args)
        entry_planes = [list(s.planes) for s in slots]
        if lane_chunk:  # differentiated chunk by chunk (the tape, see lane_vjp.py)
            diff_slots = [spec is not None and lane_chunk[1][spec.base] for spec in slot_specs]
            known = dict(zip(lane_chunk[2], args[sig.n_bases + sig.n_values:]))  # what the launch wrote
            final = [None if spec is None or spec.base not in known else
                     split_planes(apply_chain(known[spec.base], spec.chain), spec.dtype, slot.shape)
                     for spec, slot in zip(slot_specs, slots)]
            ctx = lower_with_chunked_vjp(slots, diff_slots, args[: sig.n_bases + sig.n_values], run_on_planes,
                                         math.prod(sig.grid), lane_chunk[0], final if known else None)
        elif chunk:  # max_blocks: a loop over chunks of the grid (see chunking.py)
            ctx = lower_chunked(slots, sig.grid, sig.kernel_dim, chunk, sig.debug, make_context, run_body)
        else:
            ctx = make_context(sig.grid, slots)
            run_body(ctx, _tile_block_lanes(ctx, dict(sig.extra).get("tile_blocks"), sig.kernel_dim))
        if "stall" in ctx.accumulators:
            if may_communicate(ctx, handle_slots):
                serialise_on_stall(ctx, entry_planes, sig, make_context, run_body)
            else:  # a thread run alone would stall the same way: the stall is a hang
                stall = ctx.accumulators.pop("stall")
                hang = ctx.accumulators.get("hang")
                ctx.accumulators["hang"] = stall if hang is None else first_site(hang, stall)
        new_bases: dict[int, Any] = {}
        for spec, slot in zip(slot_specs, slots):
            if slot.written and spec is not None:
                current = new_bases.get(spec.base, bases[spec.base])
                contents = join_planes(slot.planes, spec.dtype, spec.shape)
                new_bases[spec.base] = write_back(current, spec.chain, contents)
        diagnostics = {k: v for k, v in ctx.accumulators.items() if k in REPORTED_FLAGS or k.startswith("trip:")}
        if report is not None:
            report["param_access"] = tuple(None if s is None else (slots[s].read, slots[s].written)
                                           for s in param_slots)
            report["lane_order"] = ctx.lane_order
        return new_bases, diagnostics, tuple(ctx.sites)

    return with_vector_code(sig, pure_fn)


def _tile_block_lanes(ctx: KernelContext, launch_grid: tuple | None, kernel_dim: int) -> Any:
    """A tile launch whose blocks span rows of the launch grid (``wp.launch(k, dim=96, block_dim=64)``)
    runs over lanes ``(blocks, block_dim)``: thread ``b * block_dim + l`` of the row-major launch
    grid, as Warp numbers them, with ``wp.tid()`` computed from it and the lanes past the end of
    the grid (a partial last block) inactive. Returns the active mask (None when all are)."""
    if launch_grid is None:
        return None
    from jwarp.compiler.chunking import thread_coords

    flat = jnp.arange(ctx.grid[0] * ctx.grid[1], dtype=jnp.int32).reshape(ctx.grid)
    ctx.thread_coords = thread_coords(flat, tuple(launch_grid), kernel_dim)
    total = 1
    for extent in launch_grid:
        total *= extent
    if total % ctx.grid[1] == 0:
        return None
    ctx.partial_lanes = flat < total
    return ctx.partial_lanes


def _varies_over_a_mesh_axis(x: Any) -> bool:
    """Whether ``x`` is a value varying over a manual mesh axis (inside ``shard_map``)."""
    aval = jax.typeof(x)
    axes = getattr(aval, "vma", None) or getattr(getattr(aval, "manual_axis_type", None), "varying", None)
    return bool(axes)


def may_communicate(ctx: KernelContext, handle_slots: set[int]) -> bool:
    """Whether a thread of the launch may observe memory that other threads of the launch update:
    through an atomic (its old value), or by loading from an array that some thread writes (a
    geometry object's arrays count as loaded: queries read them). Threads of a launch that cannot
    communicate behave the same run in lockstep or one at a time, so a ``while`` loop that stalls
    in lockstep would stall run alone too.

    Example:
        >>> may_communicate(ctx, handle_slots)  # doctest: +SKIP
        False
    """
    if ctx.shared_memory:
        return True
    return any(slot.written and not slot.local and (slot.read or index in handle_slots)
               for index, slot in enumerate(ctx.slots))


def serialise_on_stall(ctx: KernelContext, entry_planes: list, sig: Signature, make_context: Callable,
                       run_body: Callable) -> None:
    """Progress guarantee: where a ``while`` loop stalled with threads in lockstep (``stall`` flag, see
    ``control._watched_while``), run the launch again from the kernel's entry memory with one thread
    at a time in thread order (as Warp's CPU backend does), so threads that wait on each other (spin
    locks, CAS retry loops) complete. Updates ``ctx``'s slots and accumulators with the result of the
    run that counts; a loop that stalls with threads serialised sets the ``hang`` flag instead.

    The serial run sits in the taken branch of a ``lax.cond``: launches that never stall do not pay for it.
    Inside ``shard_map`` (buffers varying over a manual mesh axis) loops are not watched: the loop
    carries' axis types could not be matched, so such kernels keep running in lockstep there.
    """
    stalled = ctx.accumulators.pop("stall") >= 0
    written = [s for s, slot in enumerate(ctx.slots[: len(entry_planes)]) if slot.written]
    keys = sorted(set(ctx.accumulators) | {"hang"})
    # the serial run records what the lockstep run did, its stalls as hangs: one trace of the body
    expected = {k: ctx.accumulators.get(k, jnp.int32(0)) for k in keys if k != "oob"}
    lockstep = ([ctx.slots[s].planes for s in written],
                {k: ctx.accumulators.get(k, initial_accumulator(k, jnp.int32(0))) for k in keys})

    def serial(_: Any) -> tuple:
        slots = [SlotState(slot.dtype, slot.shape, list(planes)) for slot, planes in zip(ctx.slots, entry_planes)]
        # one thread at a time; a thread block (tile kernels) stays whole, its threads together
        blocks = sig.block_dim > 1 and bool(sig.grid) and sig.grid[-1] == sig.block_dim
        serial_ctx = lower_chunked(slots, sig.grid, sig.kernel_dim, sig.block_dim if blocks else 1, sig.debug,
                                   lambda grid, s: make_context(grid, s, serial=True), run_body, expected)
        accs = serial_ctx.accumulators
        out = {k: jnp.asarray(accs[k], lockstep[1][k].dtype) if k in accs else lockstep[1][k] for k in keys}
        if "hang" in accs:
            out["hang"] = accs["hang"]
        return [slots[s].planes for s in written], out

    planes, accs = lax.cond(stalled, serial, lambda _: lockstep, None)
    for s, final in zip(written, planes):
        ctx.slots[s].planes = list(final)
    ctx.accumulators = dict(accs)


def compile_program(jitted: Any, *args: Any, jaxpr: Any = None, level: dict | None = None) -> Any:
    """``jitted`` lowered for ``args`` and compiled ahead of time (the compile step of every executable
    of a :class:`CompiledKernel`; for a Pallas launch on a GPU this is where Triton compiles the kernel).
    ``jaxpr``: the kernel's, to choose XLA:CPU's code emitters; ``level``: the options of the kernel's
    optimisation level (both in :mod:`jwarp.compiler.emitters`)."""
    options = compile_options(jaxpr, args, level)
    with jax.enable_x64(True):  # the cached traces are made with 64-bit types on
        lowered = jitted.lower(*args)
        return lowered.compile(compiler_options=options) if options else lowered.compile()


class _CompileOnFirstCall:
    """Calls ``jitted``'s ahead-of-time compiled program, lowered from its cached trace at the first
    call (with that call's operands, so they fix devices and layouts); operands of other types go
    to ``fallback()``'s executable. ``guard(compile, args)`` runs the compile (see
    :meth:`CompiledKernel._guarded_compile`); when it returns None the kernel fell back to the XLA
    path and ``replacement()`` is the executable that runs from then on."""

    def __init__(self, jitted: Callable | None, fallback: Callable, guard: Callable | None = None,
                 replacement: Callable | None = None, jaxpr: Any = None, level: dict | None = None) -> None:
        self._jitted = jitted
        self._jaxpr = jaxpr
        self._level = level
        self._fallback = fallback
        self._guard = guard
        self._replacement = replacement
        self._call: Callable | None = None

    def __call__(self, *args: Any) -> Any:
        call = self._call
        if call is None:
            if self._jitted is None:
                call = self._fallback()
            else:
                jitted = self._jitted
                compile_ = lambda: compile_program(jitted, *args, jaxpr=self._jaxpr, level=self._level)  # noqa: E731
                ahead = self._guard(compile_, args) if self._guard is not None else compile_()
                call = self._replacement() if ahead is None else compiled_first(ahead, self._fallback)
            self._call = call
        return call(*args)

    def _cache_size(self) -> int:
        """How many programs this executable compiled (as ``jax.jit``'s private counter)."""
        if self._call is None:
            return 0
        fallback = self._fallback(build=False)
        return (self._jitted is not None) + (fallback._cache_size() if fallback is not None else 0)


@dataclass
class CompiledKernel:
    """A kernel compiled for one signature: its jaxpr and executables."""

    signature: Signature
    pure_fn: Callable  # (*bases, *values) -> (new_bases, diagnostics)
    closed_jaxpr: Any
    out_tree: Any
    written: tuple[int, ...]
    sites: tuple
    diagnostic_keys: tuple[str, ...]
    uses_x64: bool
    # per parameter: (read, written) for arrays, None otherwise (see build_pure_fn)
    param_access: tuple = ()
    lane_order: bool = False  # see KernelContext.lane_order
    _executables: dict = field(default_factory=dict)
    _memory: dict = field(default_factory=dict)  # donate -> XLA memory_analysis of the ahead-compiled program
    # the jitted flat function compile_kernel traced (its trace is cached: calls inside a 64-bit
    # trace reuse it); None for kernels built without one
    _traced_fn: Callable | None = None
    name: str = ""  # the kernel's name (in errors)
    # a launch on the Pallas target: (operands) -> the same launch compiled for the XLA path, which
    # this kernel becomes when the Pallas program fails to compile under pallas="auto" (None elsewhere)
    _xla_path: Callable[[list], CompiledKernel] | None = None

    def executable(self, donate: bool = False, operands: list | None = None) -> Callable:
        """A callable ``(*bases, *values) -> flat outputs`` (written bases first, then diagnostics).

        ``donate=True`` asks for the executable that writes the written bases in place. Given the
        launch's ``operands``, it is checked once: where XLA cannot update a donated buffer in place
        (a fusion reads other elements of the buffer it writes, e.g. interleaving vector components),
        it copies the parameter first, which costs more than the fresh output buffer donation saves,
        so the plain executable is returned instead.

        Both are compiled from the trace :func:`compile_kernel` made (the kernel body is not traced
        again): the plain one at its first call, the donating one as a jit whose body is a call of
        the traced function.
        """
        fn = self._executables.get(donate)
        if fn is None:
            if donate:
                fn = self._donating(operands)
            else:
                jitted, jaxpr = self._plain_program()
                fn = _CompileOnFirstCall(jitted, self._jaxpr_executable, self._guarded_compile,
                                         lambda: self.executable(), jaxpr, level_options(self.signature))
            self._executables[donate] = fn
        return fn

    def _guarded_compile(self, compile_: Callable[[], Any], operands: list | tuple) -> Any:
        """``compile_()``; for a Pallas launch whose program fails to compile (e.g. Triton cannot compile
        the kernel for the GPU although it lowered), under ``pallas="auto"`` this kernel becomes the same
        launch on the XLA path (remembered: its signature never tries Pallas again) and None is returned;
        under ``"always"`` :class:`PallasFallback` names the kernel. Nothing has run yet either way.

        Example:
            >>> compiled._guarded_compile(lambda: compile_program(jitted, *operands), operands)  # doctest: +SKIP
        """
        if self._xla_path is None:
            return compile_()
        try:
            return compile_()
        except Exception as exc:  # noqa: BLE001 - any compile failure of the Pallas program is a fallback reason
            plan = plan_of(self.signature)
            lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
            reason = f"{type(exc).__name__}: {lines[0] if lines else ''}"
            backend = plan.backend if plan is not None else "pallas"
            if plan is None or plan.mode != "auto":
                raise PallasFallback(
                    f"Kernel '{self.name}' cannot run on the Pallas path ({backend} backend): its program failed "
                    f"to compile: {reason}. With pallas='auto' (wp.config.pallas or the kernel's option) it runs "
                    "on the XLA path instead.") from exc
            xla = self._xla_path(list(operands))
            if xla.written != self.written:
                raise RuntimeError(f"Kernel '{self.name}': the XLA path writes other arrays than the Pallas "
                                   "path (internal error)") from exc
            if plan.verbose:
                print(f"Kernel '{self.name}': the Pallas kernel failed to compile ({backend} backend), falling "
                      f"back to XLA: {reason}")
            self.__dict__.update(vars(xla))  # every holder of this kernel (caches, programs) now runs XLA's
            return None

    def temp_bytes(self, operands: list, donate: bool = False) -> int:
        """Bytes of temporaries XLA allocates to run this program on ``operands`` (its compiled
        ``memory_analysis``; arguments and outputs excluded). Compiles the executable (the donating
        one with ``donate=True``) ahead of time; :meth:`executable` then reuses that compilation.

        Example:
            >>> compiled.temp_bytes([*buffers, *values])  # doctest: +SKIP
            2147483648
        """
        donate = donate and bool(self.written)
        if donate:
            self.executable(donate=True, operands=operands)
        if donate not in self._memory:  # the plain program (or a donating one built without a trace)
            ahead = self._guarded_compile(lambda: self._ahead_compile(operands), operands)
            if ahead is None:  # fell back to the XLA path: its program's temporaries
                return self.temp_bytes(operands, donate)
            if not donate:
                self._executables[False] = compiled_first(ahead, self._jaxpr_executable)
            self._memory[donate] = ahead.memory_analysis()
        stats = self._memory[donate]
        return int(getattr(stats, "temp_size_in_bytes", 0) or 0) if stats is not None else 0

    def _interleaved(self) -> Callable | None:
        """The program of one launch with its stored vector/matrix components interleaved in one fused
        pass (:mod:`jwarp.compiler.output_interleave`), as a function of the operands; None for launches
        of fewer than :data:`INTERLEAVE_LANES` threads (there the stack's own program compiles faster,
        with XLA:CPU's older emitters), Pallas launches, kernels built without a trace, and kernels that
        stack no components."""
        if "interleaved" not in self._executables:
            program = None
            if (self._traced_fn is not None and plan_of(self.signature) is None
                    and math.prod(self.signature.grid) >= INTERLEAVE_LANES):
                program = interleaved_program(self.closed_jaxpr)
            self._executables["interleaved"] = program and (
                lambda *args: program(*jax.tree_util.tree_leaves(args)))
        return self._executables["interleaved"]

    def _emitter_jaxpr(self, interleaved: Callable | None) -> Any:
        """The jaxpr that chooses the XLA:CPU emitters of the program (None, XLA's default fusion
        emitters, for an interleaved program: the older emitters compute its sum of pads 2.5x slower)."""
        return self.closed_jaxpr.jaxpr if interleaved is None else None

    def _plain_program(self) -> tuple[Callable, Any]:
        """The jitted plain (non-donating) program of a launch, and the jaxpr choosing its emitters."""
        if "plain" not in self._executables:
            interleaved = self._interleaved()
            jitted = self._traced_fn if interleaved is None else jax.jit(interleaved)
            self._executables["plain"] = (jitted, self._emitter_jaxpr(interleaved))
        return self._executables["plain"]

    def _ahead_compile(self, operands: list) -> Any:
        """The plain (non-donating) program compiled ahead of time for ``operands``."""
        if self._traced_fn is not None:
            jitted, jaxpr = self._plain_program()
            return compile_program(jitted, *operands, jaxpr=jaxpr, level=level_options(self.signature))
        with jax.enable_x64(True) if self.uses_x64 else contextlib.nullcontext():
            return self._jaxpr_executable().lower(*operands).compile()

    def _jaxpr_executable(self, donate: bool = False, build: bool = True) -> Callable | None:
        """A jit that evaluates the jaxpr (traced anew): for operands the first compile does not fit
        (None when not built yet and ``build`` is False)."""
        key = ("jaxpr", donate)
        fn = self._executables.get(key)
        if fn is None and build:
            evaluate = jax_core.jaxpr_as_fun(self.closed_jaxpr)
            donate_argnums = tuple(self.written) if donate else ()
            fn = jax.jit(lambda *args: evaluate(*jax.tree_util.tree_leaves(args)), donate_argnums=donate_argnums,
                         keep_unused=donate, compiler_options=level_options(self.signature) or None)
            self._executables[key] = fn
        return fn

    def _donating(self, operands: list | None) -> Callable:
        if self._traced_fn is None or operands is None:
            return self._jaxpr_executable(donate=True)
        interleaved = self._interleaved()
        inner = self._traced_fn if interleaved is None else interleaved
        # keep_unused: a kernel that only writes an array does not read its buffer, and XLA would drop
        # the unused parameter, so the donated buffer could not be written in place (a fresh output
        # buffer per run: page faults that cost more than the kernel on large arrays)
        fn = jax.jit(lambda *args: inner(*args), donate_argnums=tuple(self.written), keep_unused=True)
        jaxpr = self._emitter_jaxpr(interleaved)
        level = level_options(self.signature)
        ahead = self._guarded_compile(lambda: compile_program(fn, *operands, jaxpr=jaxpr, level=level), operands)
        if ahead is None:  # fell back to the XLA path: its donating program
            return self.executable(donate=True, operands=operands)
        self._memory[True] = ahead.memory_analysis()
        if copies_a_parameter(ahead, COPY_LIMIT):
            return self.executable()
        first = compiled_first(ahead, lambda: self._jaxpr_executable(donate=True))
        if jaxpr is None or OLDER_EMITTERS.keys() & (level or {}).keys() or not compile_options(jaxpr, operands):
            return first  # XLA's default emitters already (or level 0's older ones, chosen)

        def upgrade(args: tuple) -> Callable | None:
            better = compile_program(fn, *args, level=level)
            return None if copies_a_parameter(better, COPY_LIMIT) else compiled_first(
                better, lambda: self._jaxpr_executable(donate=True))

        return Tiered(first, upgrade)

    def split_outputs(self, flat: list) -> tuple[dict, dict]:
        new_bases, diagnostics = jax.tree_util.tree_unflatten(self.out_tree, flat)
        return new_bases, diagnostics


def compile_kernel(source: FunctionSource, arg_names: list[str], sig: Signature, example_args: list) -> CompiledKernel:
    """Trace the kernel for ``sig`` (``example_args``: buffers/values or ShapeDtypeStructs).

    The kernel is traced once, as a jitted function with flat outputs: its jaxpr serves autodiff
    and tapes, and the executables compile from the same trace (see ``CompiledKernel.executable``).
    """
    holder: dict[str, Any] = {}
    pure_fn = build_pure_fn(source, arg_names, sig, report=holder)

    def traced_flat(*args):
        new_bases, diagnostics, sites = pure_fn(*args)
        holder["sites"] = sites
        flat, holder["out_tree"] = jax.tree_util.tree_flatten((new_bases, diagnostics))
        holder["written"], holder["diagnostic_keys"] = tuple(sorted(new_bases)), tuple(sorted(diagnostics))
        return flat

    jitted = jax.jit(traced_flat)
    with jax.enable_x64(True):
        traced = jitted.trace(*example_args)
    closed_jaxpr = traced.jaxpr
    out_tree = holder["out_tree"]
    out_avals = [v.aval for v in closed_jaxpr.jaxpr.outvars]
    uses_x64 = any(
        jnp.dtype(v.dtype).itemsize == 8 for v in [*jax.tree_util.tree_leaves(example_args), *out_avals]
    )
    xla_path = None
    if plan_of(sig) is not None and not sig.record_trips and sig.loop_bounds is None:
        def xla_path(operands: list) -> CompiledKernel:
            return compile_kernel(source, arg_names, without_plan(sig), operands)
    return CompiledKernel(
        signature=sig,
        pure_fn=lambda *a: pure_fn(*a)[:2],
        closed_jaxpr=closed_jaxpr,
        out_tree=out_tree,
        written=holder["written"],
        sites=holder.get("sites", ()),
        diagnostic_keys=holder["diagnostic_keys"],
        uses_x64=uses_x64,
        param_access=holder.get("param_access", ()),
        lane_order=holder.get("lane_order", False),
        _traced_fn=jitted,
        name=source.name,
        _xla_path=xla_path,
    )


__all__ = ["CompiledKernel", "compile_kernel", "compile_program", "build_pure_fn", "composites"]
