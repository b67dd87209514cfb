"""``Launch`` objects (``wp.launch(..., record_cmd=True)``): a launch bound to its arguments,
ready to be dispatched again with the lowest overhead jwarp offers.

A Launch holds the resolved executable, the arrays whose buffers it reads (re-read at every
``launch()``: launches rebind arrays to new buffers) and the scalar arguments already converted
to device constants. ``launch()`` is then one jitted call plus the rebinding of the written
arrays — or, for a kernel whose only effect is rewriting arrays, a deferred launch: back-to-back
replays of one Launch run together, as one call of a loop program, when anything could observe
their results (:mod:`jwarp.runtime.deferred`; ``wp.config.defer_launch_replays``). Setters validate the new value at once, with Warp's errors; a value of the same kind
(a scalar of the same type, an array of the same dtype, shape and device) is swapped in place,
anything else makes the next ``launch()`` re-bind and look the executable up again.

As in Warp, Launch objects are not recorded on a Tape, and ``launch(stream=s)`` needs a stream
of the Launch's device.

Example:
    >>> import numpy as np, jwarp as wp
    >>> @wp.kernel
    ... def scale(a: wp.array(dtype=float), s: float):
    ...     i = wp.tid()
    ...     a[i] = a[i] * s
    >>> a = wp.ones(3)
    >>> cmd = wp.launch(scale, dim=3, inputs=[a, 2.0], record_cmd=True)
    >>> cmd.launch(); cmd.set_param_by_name("s", 5.0); cmd.launch()
    >>> a.numpy()
    array([10., 10., 10.], dtype=float32)
"""

from __future__ import annotations

import ctypes
from typing import Any, Sequence

from jwarp import config
from jwarp.builtins.utility import TID_EXTENT_LIMIT
from jwarp.compiler.signature import ArraySpec, ValueSpec
from jwarp.lang import composites
from jwarp.lang.arrays import ArrayType
from jwarp.lang.struct import StructInstance, StructType
from jwarp.runtime import capture, deferred, fastpath, handles
from jwarp.runtime.chain import has_callbacks
from jwarp.runtime.adjoint import adjoint_launch
from jwarp.runtime.binding import ArgumentPacker
from jwarp.runtime.device import Device, get_device
from jwarp.runtime.execution import rebind
from jwarp.runtime.launch_bounds import LaunchBounds
from jwarp.runtime.launch_config import check_launch_config, normalize_dim, resolve_block_dim
from jwarp.runtime.locking import state_lock
from jwarp.runtime.preparation import prepare, record_in_capture


class Launch:
    """A recorded kernel launch (Warp's ``wp.Launch``).

    Made by ``wp.launch(..., record_cmd=True)``. Constructed directly (``wp.Launch(kernel, device)``)
    its parameters default to zeros and null arrays and its dimensions to zero, as in Warp.
    ``hooks``, ``params`` and ``params_addr`` are accepted for signature compatibility and ignored.
    """

    def __init__(self, kernel: Any, device: Any, hooks: Any = None, params: Any = None, params_addr: Any = None,
                 bounds: Any = None, max_blocks: int = 0, block_dim: int | None = None, adjoint: bool = False,
                 fwd_args: Sequence | None = None, adj_args: Sequence | None = None, prepared: Any = None):
        self.kernel = kernel
        self.device: Device = get_device(device)
        self.block_dim: int = resolve_block_dim(self.device, block_dim)
        self.max_blocks: int = max_blocks
        self.adjoint: bool = adjoint
        self.grid_stride: bool = kernel.grid_stride
        if isinstance(bounds, LaunchBounds):
            bounds = bounds.dim
        dim = normalize_dim(bounds)[0] if bounds is not None else (0,) * kernel.kernel_dim
        self._dim: tuple = dim
        self.bounds: LaunchBounds = LaunchBounds.for_kernel(dim, kernel.kernel_dim)
        check_launch_config(kernel, self.device, self.block_dim, max_blocks)
        self.fwd_args: list = list(fwd_args) if fwd_args is not None else [_default(t) for t in kernel.arg_types]
        self.adj_args: list = list(adj_args) if adj_args is not None else ([None] * len(self.fwd_args) if adjoint
                                                                            else [])
        self._prepared = prepared
        self._program = None  # fast state, built from _prepared by _build()
        self._deferrable = False  # whether launch() may defer (see _can_defer)
        self._geometry: tuple = ()  # geometry objects whose ids the launch passes, and their state when bound
        self._geometry_state: tuple = ()
        if prepared is not None:
            self._bind_geometry()
            self._build()

    @property
    def dim(self) -> tuple:
        """The launch dimensions, as given to ``wp.launch`` (``bounds`` holds them as Warp's ``launch_bounds_t``)."""
        return self._dim

    @property
    def params(self) -> list:
        """The launch parameters as Warp lists them: the bounds, then the kernel's arguments."""
        return [self.bounds, *self.fwd_args]

    # -- running ----------------------------------------------------------------------------------
    def launch(self, stream: Any = None) -> None:
        """Run the kernel with the current parameters (on ``stream``'s device, which must be the Launch's).

        A Launch whose kernel only rewrites arrays (no host callbacks, no numpy-backed outputs) is
        *deferred*: it runs when anything could observe its results — a read of any array, another
        launch, ``wp.synchronize()`` — and back-to-back replays of one Launch run as one executable
        call (``jwarp/runtime/deferred.py``). Results are those of running each launch at once."""
        if stream is not None and getattr(stream, "device", None) is not self.device:
            raise RuntimeError(
                f"Stream from device {getattr(stream, 'device', stream)} cannot be used on device {self.device}"
            )
        with state_lock:
            batch = deferred.pending
            if batch is not None and batch[0] is self:
                batch[1] += 1
                return
            if capture.recording(self.device):
                self._record_in_capture()
                return
            if self._geometry and handles.launch_state(self._geometry) != self._geometry_state:
                self._invalidate()  # a geometry object it names was rebuilt, refit or given new arrays
            program = self._program
            if program is not None and self._holds_struct:
                # struct arguments are held by reference (as Warp's Launch holds their ctypes object): fields
                # changed since the last launch are read again
                self._invalidate()
                program = None
            if program is None:
                self._slow_launch()
                return
            if self._deferrable and config.defer_launch_replays and self._buffers_alive():
                deferred.defer(self)
                return
            self._fast_launch(program)

    def _fast_launch(self, program: Any) -> None:
        """One launch from the fast state (the caller holds ``state_lock``)."""
        roots = self._roots
        bufs = [r._buffer for r in roots]
        try:
            out = program.run(bufs, self._values, True)
        except Exception:
            self._invalidate()
            self._slow_launch()  # a freed or traced buffer: the full path reports it
            return
        rebind(roots, self._written, out)

    def _buffers_alive(self) -> bool:
        """Whether every root still has storage (else the launch runs now, to raise the full path's error)."""
        for root in self._roots:
            buf = root._buf
            if buf is None or (type(buf) is not tuple and buf.is_deleted()):
                return False
        return True

    def run_deferred(self, count: int) -> None:
        """Run ``count`` deferred launches (called by :func:`jwarp.runtime.deferred.flush`, holding
        ``state_lock``): as one loop program where the program has one, else one by one."""
        program = self._program
        if program is not None and count > 1:
            roots = self._roots
            bases = None
            try:
                bases = program.run_repeated([r._buffer for r in roots], self._values, count)
            except Exception:  # a freed buffer: the launches below report it
                bases = None
            if bases is not None:
                for _, b in self._written:
                    roots[b]._store(bases[b])
                return
        for _ in range(count):
            program = self._program
            if program is None:
                self._slow_launch()
            else:
                self._fast_launch(program)

    def _record_in_capture(self) -> None:
        """Record this launch, with its current parameters, into the open graph capture."""
        if self.adjoint:
            capture.refuse(f"The adjoint launch of kernel '{self.kernel.key}'")
        record_in_capture(self.kernel, self._dim, list(self.fwd_args), self.device, self.block_dim, self.max_blocks)

    def _slow_launch(self) -> None:
        if self.bounds.size == 0:
            return
        if self.adjoint:
            adjoint_launch(self.kernel, self._dim, self.fwd_args, self.adj_args, self.device, self.block_dim)
            return
        prepared = self._prepare()
        prepared.run(record_tape=False)  # (a traced launch inside jax.jit has run() only)
        self._build()

    def _prepare(self) -> Any:
        if self._prepared is None:
            self._prepared = prepare(self.kernel, self._dim, self.fwd_args, self.device, self.block_dim,
                                     self.max_blocks)
            self._bind_geometry()
        return self._prepared

    def _bind_geometry(self) -> None:
        binding = getattr(self._prepared, "binding", None)
        self._geometry = getattr(binding, "geometry", ())
        self._geometry_state = handles.launch_state(self._geometry)

    def _build(self) -> None:
        """Derive the fast state (program, base arrays, value constants) from the prepared launch."""
        prepared = self._prepared
        self._program = None
        if self.adjoint or not fastpath.plannable(prepared) or _verify_fp():
            return
        binding = prepared.binding
        self._roots = list(binding.bases)
        self._values = list(binding.values)
        self._specs = binding.params
        self._program = prepared.program
        self._written = prepared.program.written
        self._holds_struct = any(isinstance(a, StructInstance) for a in self.fwd_args)
        self._deferrable = self._can_defer(prepared)

    def _can_defer(self, prepared: Any) -> bool:
        """Whether replays of this launch may be deferred: its only effect is rewriting device
        arrays (no host callbacks such as ``print``, no numpy array that mirrors an output)."""
        if self._holds_struct or not self._written:
            return False
        if any(self._roots[b]._host_mirror is not None for _, b in self._written):
            return False
        return not has_callbacks(prepared.compiled.closed_jaxpr.jaxpr)

    def _invalidate(self) -> None:
        self._prepared = None
        self._program = None
        self._deferrable = False

    # -- parameters ---------------------------------------------------------------------------------
    def set_dim(self, dim: int | Sequence[int]) -> None:
        """Set the launch dimensions (Warp's rules; ``ValueError`` for bad dimensions)."""
        deferred.flush()  # launches deferred so far run with the old parameters
        new, total = normalize_dim(dim)
        if new == self._dim:
            return
        if total and any(extent > TID_EXTENT_LIMIT for extent in new[: self.kernel.kernel_dim]):
            # only a kernel whose wp.tid() is reached refuses such extents: tracing it tells (and raises)
            prepare(self.kernel, new, self.fwd_args, self.device, self.block_dim, self.max_blocks)
        self._dim = new
        self.bounds = LaunchBounds.for_kernel(new, self.kernel.kernel_dim)
        self._invalidate()

    def set_param_at_index(self, index: int, value: Any, adjoint: bool = False) -> None:
        """Set parameter ``index`` (validated now, with the errors ``wp.launch`` would raise)."""
        deferred.flush()  # launches deferred so far run with the old parameters
        n = len(self.kernel.arg_names)
        if not 0 <= index < n:
            raise IndexError(f"Parameter index {index} is out of range for kernel '{self.kernel.key}' ({n} parameters)")
        if adjoint and not self.adjoint:
            raise IndexError(
                f"Launch of kernel '{self.kernel.key}' was recorded without adjoint=True and has no adjoint parameters"
            )
        name, t = self.kernel.arg_names[index], self.kernel.arg_types[index]
        if adjoint:
            if value is not None or isinstance(t, ArrayType):
                ArgumentPacker(self.kernel, self.device, adjoint=True).pack(name, t, value)
            self.adj_args[index] = value
            return
        packer = ArgumentPacker(self.kernel, self.device)
        spec = packer.pack(name, t, value)
        self.fwd_args[index] = value
        if self._program is None or not self._swap(index, spec, packer, value):
            self._invalidate()

    def _swap(self, index: int, spec: Any, packer: ArgumentPacker, value: Any) -> bool:
        """Update the fast state in place when the new value keeps the launch signature."""
        old = self._specs[index]
        if isinstance(old, ValueSpec) and isinstance(spec, ValueSpec) and old.type == spec.type:
            self._values[old.index] = packer.values[0]
            self._prepared = None
            return True
        if not (isinstance(old, ArraySpec) and isinstance(spec, ArraySpec)):
            return False
        if old.indices or spec.indices or (old.dtype, old.shape, old.chain) != (spec.dtype, spec.shape, spec.chain):
            return False
        root, current = packer.bases[0], self._roots[old.base]
        if root.device is not self.device or root.shape != current.shape or root.dtype != current.dtype:
            return False
        shared = sum(1 for s in self._specs if isinstance(s, ArraySpec) and s.base == old.base)
        if shared != 1 or any(r is root for i, r in enumerate(self._roots) if i != old.base):
            return False  # the aliasing between arguments changes: re-bind
        self._roots[old.base] = root
        self._deferrable = self._deferrable and root._host_mirror is None
        self._prepared = None  # re-bound from fwd_args if the full path is ever needed
        return True

    def set_param_by_name(self, name: str, value: Any, adjoint: bool = False) -> None:
        """Set the parameter called ``name``; ``ValueError`` if the kernel has none."""
        self.set_param_at_index(self._index(name), value, adjoint)

    def set_params(self, values: Sequence[Any]) -> None:
        """Set the first ``len(values)`` parameters (a too-long list raises before setting any)."""
        self._check_count(values)
        for i, v in enumerate(values):
            self.set_param_at_index(i, v)

    def _check_count(self, values: Sequence[Any]) -> None:
        n = len(self.kernel.arg_names)
        if len(values) > n:
            raise IndexError(
                f"{len(values)} parameters are out of range for kernel '{self.kernel.key}' ({n} parameters)"
            )

    def set_param_at_index_from_ctype(self, index: int, value: Any, adjoint: bool = False) -> None:
        """Set a parameter from a ctypes value (converted like any other value: jwarp has no ctypes params)."""
        if isinstance(value, ctypes._SimpleCData):
            value = value.value
        self.set_param_at_index(index, value, adjoint)

    def set_param_by_name_from_ctype(self, name: str, value: Any) -> None:
        self.set_param_at_index_from_ctype(self._index(name), value)

    def set_params_from_ctypes(self, values: Sequence[Any]) -> None:
        self._check_count(values)
        for i, v in enumerate(values):
            self.set_param_at_index_from_ctype(i, v)

    def _index(self, name: str) -> int:
        try:
            return self.kernel.arg_names.index(name)
        except ValueError:
            raise ValueError(f"Argument '{name}' not found in kernel '{self.kernel.key}'") from None

    def __repr__(self) -> str:
        return f"<Launch of kernel '{self.kernel.key}' dim={self._dim} on {self.device}>"


def _default(t: Any) -> Any:
    """Warp's default parameter of a directly constructed Launch: null arrays, zero values."""
    if isinstance(t, ArrayType):
        return None
    if isinstance(t, StructType):
        return t()
    if composites.is_composite(t):
        return t(0)  # zeros (a transform's no-argument constructor is the identity)
    return 0


def _verify_fp() -> bool:
    return bool(config.verify_fp)


__all__ = ["Launch"]
