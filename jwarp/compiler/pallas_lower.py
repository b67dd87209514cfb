"""The Pallas target of a launch: one ``pallas_call`` over blocks of ``block_dim`` threads.

The statement lowering is the XLA path's (:class:`~jwarp.compiler.lower.FunctionLowerer`); what
changes is the loop driver and the memory:

- every array's scalar planes become flat Pallas refs (:class:`~jwarp.compiler.pallas_memory.RefPlane`);
  the planes the kernel writes are outputs aliased to their inputs (``input_output_aliases``), so
  they are updated in place; scalar arguments enter as one-element inputs;
- one program runs ``lanes`` (a power of two >= ``block_dim``) lanes; ``wp.tid()`` is computed
  from ``program_id`` and the lane iota (``tid = block * block_dim + lane``), and a grid-stride loop
  walks blocks ``pid, pid + programs, ...`` when ``max_blocks`` limits the programs;
- loads, stores and atomics are ref operations (:mod:`jwarp.compiler.pallas_memory`); the
  whole-array fast paths (shifted planes, packed complex pairs) do not apply.

Eligibility is decided at trace time (:func:`check_backend`): constructs the target cannot express
raise :class:`PallasIneligible` while the kernel body is traced (indexed arrays, geometry ids,
debug mode, loop-trip recording, ...), and for the Triton backend every primitive of the traced
kernel must have a Triton lowering rule and every non-scalar value a power-of-two shape.

Gradients: the Pallas forward is wrapped in ``jax.custom_jvp`` whose rule is the XLA lowering's JVP
(reverse mode transposes it), so ``wp.Tape``, adjoint launches (which also use ``jax.jvp``) and
``jax.grad`` work unchanged.

Example (a signature asks for the target through its ``extra`` options)::

    plan = PallasPlan(backend="interpret", mode="always", block_dim=64, lanes=64, programs=4)
    sig = dataclasses.replace(sig, extra=sig.extra + ((PALLAS_KEY, plan),))
    new_bases, diagnostics, sites = build_pure_fn(source, arg_names, sig)(*bases, *values)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

import jax
import jax.numpy as jnp
from jax import lax

from jwarp.compiler import pallas_check
from jwarp.compiler.chunking import thread_coords
from jwarp.compiler.context import KernelContext, SlotState, join_planes, split_planes
from jwarp.compiler.lower import Frame, FunctionLowerer
from jwarp.compiler.pallas_memory import InterpretRefMemory, PallasIneligible, RefPlane, TritonRefMemory
from jwarp.compiler.signature import ArraySpec, NoneArraySpec, Signature, StructSpec, ValueSpec
from jwarp.compiler.source import FunctionSource
from jwarp.compiler.values import ArrayRef, Value, launch_mask, value_from_leaves
from jwarp.compiler.views import apply_chain, write_back
from jwarp.errors import _Located
from jwarp.lang.arrays import ArrayType

PALLAS_KEY = "pallas"
"""``Signature.extra`` key whose value is the launch's :class:`PallasPlan`."""


@dataclass(frozen=True)
class PallasPlan:
    """How a launch runs as a ``pallas_call``.

    ``backend``: ``"triton"`` (CUDA) or ``"interpret"`` (CPU); ``mode``: ``"auto"`` (fall back to the
    XLA path when ineligible) or ``"always"`` (raise); ``block_dim``: Warp's threads per block;
    ``lanes``: lanes per program (the power of two >= block_dim); ``programs``: the ``pallas_call``
    grid (``max_blocks``), 0 for one program per block; ``verbose``: say why a launch fell back."""

    backend: str
    mode: str
    block_dim: int
    lanes: int
    programs: int = 0
    verbose: bool = dataclasses.field(default=False, compare=False)  # not part of the compile-cache key
    check_lowering: bool = dataclasses.field(default=True, compare=False)  # run the Triton lowering when tracing


def plan_of(sig: Signature) -> PallasPlan | None:
    return dict(sig.extra).get(PALLAS_KEY)


def without_plan(sig: Signature) -> Signature:
    """The same signature on the XLA path."""
    return dataclasses.replace(sig, extra=tuple((k, v) for k, v in sig.extra if k != PALLAS_KEY))


class PallasFallback(Exception):
    """Raised under ``mode="always"`` for an ineligible kernel: names the kernel and the construct."""


@dataclass
class _Layout:
    """The kernel's operands as the ``pallas_call`` sees them: flat planes, then scalar leaves."""

    slot_specs: list  # ArraySpec per slot (shape of the viewed data)
    slot_planes: list  # per slot: indices into ``planes``
    planes: list  # flat jax arrays
    leaves: list  # one-element jax arrays (scalar leaves of value arguments)
    param_slots: list  # per parameter: its slot or None


def _layout(sig: Signature, bases: tuple, values: tuple) -> _Layout:
    if sig.debug:
        raise PallasIneligible("debug mode (wp.config.mode = 'debug': out-of-bounds checks)")
    if sig.record_trips or sig.loop_bounds is not None:
        raise PallasIneligible("loops measured for reverse mode (run-time loop bounds)")
    if sig.handles:
        raise PallasIneligible("geometry objects (Mesh, HashGrid, Bvh, Volume ids)")
    layout = _Layout([], [], [], [], [])
    slot_index: dict[tuple, int] = {}

    def visit(spec: Any) -> None:
        if isinstance(spec, ArraySpec):
            if spec.indices:
                raise PallasIneligible("indexed arrays (wp.indexedarray)")
            key = (spec.base, spec.chain)
            if key in slot_index:
                return
            size = 1
            for n in spec.shape:
                size *= n
            if size == 0:
                raise PallasIneligible("an empty array")
            buf = apply_chain(bases[spec.base], spec.chain)
            planes = split_planes(buf, spec.dtype, spec.shape)
            first = len(layout.planes)
            layout.planes.extend(p.reshape(-1) for p in planes)
            layout.slot_planes.append(list(range(first, len(layout.planes))))
            layout.slot_specs.append(spec)
            slot_index[key] = len(layout.slot_specs) - 1
        elif isinstance(spec, ValueSpec):
            x = values[spec.index]
            layout.leaves.extend(jnp.reshape(leaf, (1,)) for leaf in _leaves_of_value(spec.type, x))
        elif isinstance(spec, StructSpec):
            for f in spec.fields:
                visit(f)
        elif isinstance(spec, NoneArraySpec):
            raise PallasIneligible("a None array argument")
        else:
            raise PallasIneligible(f"argument kind {type(spec).__name__}")

    for spec in sig.params:
        visit(spec)
        layout.param_slots.append(slot_index[(spec.base, spec.chain)] if isinstance(spec, ArraySpec) else None)
    return layout


def _leaves_of_value(t: Any, x: Any) -> list:
    from jwarp.lang import scalars

    if scalars.is_scalar_type(t):
        return [x]
    flat = x.reshape(-1)
    return [flat[k] for k in range(t._length_)]


def _n_leaves(t: Any) -> int:
    from jwarp.lang import scalars

    return 1 if scalars.is_scalar_type(t) else t._length_


class _Kernel:
    """The ``pallas_call`` body for one layout; records which slots the body reads and writes."""

    def __init__(self, source: FunctionSource, arg_names: list, sig: Signature, plan: PallasPlan, layout: _Layout,
                 written: set[int]):
        self.source, self.arg_names, self.sig, self.plan, self.layout = source, arg_names, sig, plan, layout
        self.written_planes = sorted(p for s in written for p in layout.slot_planes[s])
        self.slots_read: list[bool] = []
        self.slots_written: list[bool] = []
        self.sites: list = []
        self._pallas_call: Callable | None = None  # built once: its jit caches the traced kernel body

    def __call__(self, *refs: Any) -> None:
        from jax.experimental import pallas as pl

        layout, sig, plan = self.layout, self.sig, self.plan
        n_in = len(layout.planes) + len(layout.leaves)
        ins, outs = refs[:n_in], refs[n_in:]
        out_of = {p: k for k, p in enumerate(self.written_planes)}
        plane_refs = [outs[out_of[p]] if p in out_of else ins[p] for p in range(len(layout.planes))]
        slots = []
        for spec, ids in zip(layout.slot_specs, layout.slot_planes):
            planes = [RefPlane(plane_refs[p], layout.planes[p].shape[0]) for p in ids]
            slots.append(SlotState(spec.dtype, spec.shape, planes, in_place=True))
        leaf_refs = iter(ins[len(layout.planes):])
        env = self._environment(slots, leaf_refs)
        total = 1
        for n in sig.grid:
            total *= n
        programs, strides = _grid(plan, total)
        pid = pl.program_id(0)
        exact = plan.lanes == plan.block_dim and strides * programs * plan.block_dim == total

        def one_block(block: Any) -> None:
            ctx = self._context(list(slots))
            lane = lax.broadcasted_iota(jnp.int32, (plan.lanes,), 0)
            flat = block * plan.block_dim + lane
            active = None
            if not exact:
                active = flat < total
                if plan.lanes != plan.block_dim:
                    active = active & (lane < plan.block_dim)
            ctx.thread_coords = thread_coords(flat, sig.grid, sig.kernel_dim)
            with launch_mask(active):
                FunctionLowerer(ctx, self.source, dict(env), active, Frame(self.source.name, is_kernel=True)).run()
            for hook in ctx.finish_hooks.values():
                hook()
            if ctx.accumulators:
                raise PallasIneligible(f"kernel accumulators ({', '.join(sorted(ctx.accumulators))})")
            self.slots_read = [s.read for s in slots]
            self.slots_written = [s.written for s in slots]

        if strides == 1:
            one_block(pid)
        else:
            def stride(k: Any, carry: Any) -> Any:
                one_block(k * programs + pid)
                return carry

            lax.fori_loop(0, strides, stride, jnp.int32(0))

    def _environment(self, slots: list, leaf_refs: Any) -> dict:
        slot_of = {(s.base, s.chain): k for k, s in enumerate(self.layout.slot_specs)}

        def build(spec: Any) -> Value:
            if isinstance(spec, ArraySpec):
                return Value(ArrayType(spec.dtype, len(spec.shape)), ArrayRef(slot_of[(spec.base, spec.chain)]))
            if isinstance(spec, ValueSpec):
                leaves = [next(leaf_refs)[0] for _ in range(_n_leaves(spec.type))]
                return value_from_leaves(spec.type, leaves)
            fields = [build(f) for f in spec.fields]
            return Value(spec.type, tuple(f.data for f in fields))

        return {name: build(spec) for name, spec in zip(self.arg_names, self.sig.params, strict=True)}

    def _context(self, slots: list) -> KernelContext:
        sig, plan = self.sig, self.plan
        return KernelContext(
            kernel_name=self.source.name,
            grid=(plan.lanes,),
            slots=slots,
            block_dim=sig.block_dim,
            kernel_dim=sig.kernel_dim,
            max_unroll=sig.max_unroll,
            enable_backward=dict(sig.extra).get("backward", True),
            watch_loops=False,
            sites=self.sites,
            ref_memory=TritonRefMemory() if plan.backend == "triton" else InterpretRefMemory(),
        )

    def call(self, operands: list) -> list:
        if self._pallas_call is None:
            self._pallas_call = self._build_call()
        return list(self._pallas_call(*operands))

    def _build_call(self) -> Callable:
        from jax.experimental import pallas as pl

        layout, plan = self.layout, self.plan
        total = 1
        for n in self.sig.grid:
            total *= n
        programs, _ = _grid(plan, total)
        out_shape = tuple(jax.ShapeDtypeStruct(layout.planes[p].shape, layout.planes[p].dtype)
                          for p in self.written_planes)
        options: dict[str, Any] = {}
        if plan.backend == "triton":
            from jax.experimental.pallas import triton as plt

            options["compiler_params"] = plt.CompilerParams(num_warps=max(1, min(8, plan.lanes // 32)))
        else:
            options["interpret"] = True
        return pl.pallas_call(self, out_shape=out_shape, grid=(programs,), name=f"jwarp_{self.source.name}",
                              input_output_aliases={p: k for k, p in enumerate(self.written_planes)}, **options)


def _grid(plan: PallasPlan, total: int) -> tuple[int, int]:
    """(programs, blocks each program walks in its grid-stride loop).

    Interpret mode runs one program per block: programs run one after another in block order, so
    atomics return values in thread order there, as on the XLA path. On a GPU at most ``max_blocks``
    programs run and each strides over the blocks ``pid, pid + programs, ...``."""
    n_blocks = -(-total // plan.block_dim)
    if plan.backend == "interpret" or plan.programs <= 0:
        return n_blocks, 1
    programs = min(plan.programs, n_blocks)
    return programs, -(-n_blocks // programs)


def _discover(source, arg_names, sig, plan, layout) -> _Kernel:
    """Trace the kernel once with every plane aliased: which slots it writes, and whether the
    backend can lower it (raises :class:`PallasIneligible`)."""
    probe = _Kernel(source, arg_names, sig, plan, layout, set(range(len(layout.slot_specs))))
    operands = [jax.ShapeDtypeStruct(x.shape, x.dtype) for x in layout.planes + layout.leaves]
    closed = jax.make_jaxpr(lambda *ops: probe.call(list(ops)))(*operands)
    pallas_check.check_no_host_callbacks(closed.jaxpr)
    if plan.backend == "triton":
        pallas_check.check_triton(closed.jaxpr)
        if plan.check_lowering:
            pallas_check.check_triton_lowering(closed, operands)
    written = {s for s, w in enumerate(probe.slots_written) if w}
    kernel = _Kernel(source, arg_names, sig, plan, layout, written)
    kernel.slots_read, kernel.slots_written = probe.slots_read, probe.slots_written
    return kernel


def build_pallas_pure_fn(source: FunctionSource, arg_names: list[str], sig: Signature, xla_pure_fn: Callable,
                         report: dict | None = None) -> Callable:
    """``pure_fn`` of :func:`~jwarp.compiler.kernel_compile.build_pure_fn` on the Pallas target, with
    ``xla_pure_fn`` (the same kernel on the XLA path) as its fallback and its backward pass."""
    plan = plan_of(sig)

    def pure_fn(*args: Any):
        bases, values = args[: sig.n_bases], args[sig.n_bases:]
        try:
            layout = _layout(sig, bases, values)
            kernel = _discover(source, arg_names, sig, plan, layout)
        except Exception as exc:  # noqa: BLE001 - any construct the target cannot trace is a fallback reason
            return _fall_back(source, plan, exc, xla_pure_fn, args)
        forward = _differentiable(kernel, sig, xla_pure_fn)
        new_bases = forward(*args)
        if report is not None:
            report["param_access"] = tuple(
                None if s is None else (kernel.slots_read[s], kernel.slots_written[s]) for s in layout.param_slots)
        return new_bases, {}, tuple(kernel.sites)

    return pure_fn


def _reason(exc: BaseException) -> str:
    """What made a kernel ineligible, in one line (the kernel location kept when there is one)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    if isinstance(exc, _Located) and len(lines) > 1:
        location = getattr(exc, "location", None)
        head = location.format() if location is not None else ""
        text = str(exc)
        body = text[len(head):] if head and text.startswith(head) else "\n".join(lines[1:])
        message = next((line.strip() for line in body.splitlines()
                        if line.strip() and not line.strip().startswith("Called from")), lines[-1])
        return f"{message} ({lines[0]})"
    text = lines[0] if isinstance(exc, PallasIneligible) else f"{type(exc).__name__}: {lines[0]}"
    return text


def _fall_back(source: FunctionSource, plan: PallasPlan, exc: BaseException, xla_pure_fn: Callable,
               args: tuple) -> tuple:
    """The XLA path's result for an ineligible kernel (``mode="auto"``), or :class:`PallasFallback`."""
    result = xla_pure_fn(*args)  # a kernel-code error (not a Pallas limitation) is raised from here
    reason = _reason(exc)
    if plan.mode == "always":  # the XLA trace above raised any error of the kernel code itself first
        raise PallasFallback(
            f"Kernel '{source.name}' cannot run on the Pallas path ({plan.backend} backend): {reason}. "
            "With pallas='auto' (wp.config.pallas or the kernel's option) it runs on the XLA path instead.") from None
    if plan.verbose:
        print(f"Kernel '{source.name}': Pallas path not used ({plan.backend} backend), falling back to XLA: {reason}")
    return result


def _differentiable(kernel: _Kernel, sig: Signature, xla_pure_fn: Callable) -> Callable:
    """``(*bases, *values) -> new_bases`` running the ``pallas_call``, its derivative the XLA path's
    (a ``jax.custom_jvp``: ``jax.jvp`` works too, and reverse mode transposes the XLA path's JVP)."""
    written_slots = [s for s, w in enumerate(kernel.slots_written) if w]

    def run(*args: Any) -> dict:
        lay = _layout(sig, args[: sig.n_bases], args[sig.n_bases:])
        outs = kernel.call(lay.planes + lay.leaves)
        by_plane = dict(zip(kernel.written_planes, outs))
        new_bases: dict[int, Any] = {}
        for s in written_slots:
            spec = lay.slot_specs[s]
            planes = [by_plane[p].reshape(spec.shape) for p in lay.slot_planes[s]]
            current = new_bases.get(spec.base, args[spec.base])
            new_bases[spec.base] = write_back(current, spec.chain, join_planes(planes, spec.dtype, spec.shape))
        return new_bases

    @jax.custom_jvp
    def forward(*args: Any) -> dict:
        return run(*args)

    @forward.defjvp
    def forward_jvp(primals: tuple, tangents: tuple):
        # the XLA lowering's derivative (forward and, by transposition, reverse mode): pallas_call has
        # no transpose rule, and its JVP fails with aliased outputs
        primal_out = run(*primals)
        _, tangent_out = jax.jvp(lambda *a: xla_pure_fn(*a)[0], primals, tangents)
        return primal_out, {k: tangent_out[k] if k in tangent_out else jnp.zeros_like(v)
                            for k, v in primal_out.items()}

    return forward


def lower_for_cuda_platform(source: FunctionSource, arg_names: list[str], sig: Signature, plan: PallasPlan,
                            operands: list) -> str:
    """StableHLO text of the launch ``sig`` lowered for the CUDA platform with ``plan`` (on any machine:
    the Pallas → Triton lowering needs no GPU). ``operands``: the launch's buffers and values, or
    ShapeDtypeStructs. A Triton kernel appears as a ``__gpu$xla.gpu.triton`` custom call."""
    from jwarp.compiler.kernel_compile import build_pure_fn

    if plan.mode == "always":  # the lowering below is the check (done once): its failure is the reason
        plan = dataclasses.replace(plan, check_lowering=False)
    sig = dataclasses.replace(without_plan(sig), extra=without_plan(sig).extra + ((PALLAS_KEY, plan),))
    pure_fn = build_pure_fn(source, arg_names, sig)
    avals = [jax.tree_util.tree_map(lambda x: jax.ShapeDtypeStruct(jnp.shape(x), jnp.result_type(x)), op)
             for op in operands]
    with jax.enable_x64(True), pallas_check.cuda_target():
        traced = jax.jit(lambda *a: pure_fn(*a)[:2]).trace(*avals)
        try:
            lowered = traced.lower(lowering_platforms=("cuda",))
        except Exception as exc:  # noqa: BLE001 - only reached with plan.check_lowering off
            lines = [line for line in str(exc).splitlines() if line.strip()]
            raise PallasFallback(
                f"Kernel '{source.name}' cannot run on the Pallas path (triton backend): the Triton lowering "
                f"failed: {type(exc).__name__}: {lines[0] if lines else ''}") from None
    return lowered.as_text()


__all__ = ["PALLAS_KEY", "PallasPlan", "PallasFallback", "build_pallas_pure_fn", "plan_of", "without_plan",
           "lower_for_cuda_platform"]
