"""``wp.Tape``: record kernel launches, then back-propagate through them.

Every launch made while a tape is active (``with wp.Tape() as tape:``) whose arrays carry
gradients is recorded with the buffers it read and wrote (arrays are immutable buffers
underneath, so keeping them costs no copies). ``tape.backward(loss)`` seeds ``loss.grad``
with 1 and differentiates the recorded chain with one ``jax.vjp`` per *segment* of launches
(see :mod:`jwarp.runtime.tape_chain`), accumulating into the arrays' ``.grad``.

Semantics follow Warp 1.19 on programs that do not overwrite arrays: gradients of inputs
accumulate across ``backward`` calls until :meth:`Tape.zero`; the gradient of an output
written by a plain store is consumed by the backward of that store; ``+=``/atomic outputs
keep theirs; kernels with ``enable_backward=False`` are skipped with a warning. Where a
program overwrites an array inside the tape, jwarp differentiates each version of it, so
the gradient is the true one (Warp's is not).

Example:
    >>> import numpy as np, jwarp as wp
    >>> @wp.kernel
    ... def square_sum(x: wp.array(dtype=float), loss: wp.array(dtype=float)):
    ...     i = wp.tid()
    ...     wp.atomic_add(loss, 0, x[i] * x[i])
    >>> x = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
    >>> loss = wp.zeros(1, requires_grad=True)
    >>> with wp.Tape() as tape:
    ...     wp.launch(square_sum, dim=3, inputs=[x, loss])
    >>> tape.backward(loss=loss)
    >>> x.grad.numpy()
    array([2., 4., 6.], dtype=float32)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from jwarp import config
from jwarp.lang.struct import StructInstance
from jwarp.logger import log_warning
from jwarp.runtime import capture, execution, storage, tape_state
from jwarp.runtime.array import array
from jwarp.runtime.device import get_device
from jwarp.runtime.launch_config import resolve_block_dim
from jwarp.runtime.locking import exclusive
from jwarp.runtime.read_flags import clear_read_flags
from jwarp.runtime.tape_chain import CopyRecord, DeferredLaunch, LaunchRecord, run_backward
from jwarp.runtime.tape_view import tape_to_dot
from jwarp.runtime.zero_buffers import shared_zeros


class Tape:
    """Records launches inside ``with tape:``; :meth:`backward` computes gradients.

    Attributes:
        gradients: ``{array: gradient array}`` of every array the tape has touched (filled
            by :meth:`backward`, :meth:`get_adjoint` and :meth:`record_func`).
        launches: recorded launches (and functions from :meth:`record_func`), in order.
    """

    def __init__(self) -> None:
        self.gradients: dict = {}
        self.launches: list = []
        self.scopes: list = []
        self.loss = None
        self._access_arrays: list = []  # arrays whose read marks backward()/reset() clear (read_flags.py)

    # -- recording -------------------------------------------------------------------------------
    def __enter__(self) -> Tape:
        capture.refuse("wp.Tape")
        if tape_state.active_tape() is not None:
            raise RuntimeError("Warp: Error, entering a tape while one is already active")
        tape_state.push(self)
        return self

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        if tape_state.active_tape() is None:
            raise RuntimeError("Warp: Error, ended tape capture, but tape not present")
        tape_state.pop(self)

    def _record_launch(self, prepared: Any, buffers: list, new_bases: dict, diagnostics: dict | None = None) -> None:
        if not any(b._grad is not None for b in prepared.binding.bases):
            return  # nothing to differentiate: keep no buffers alive
        self.launches.append(LaunchRecord.from_launch(prepared, buffers, new_bases, diagnostics))

    def _record_copy(self, dest: array, src: array, dest_offset: int, src_offset: int, count: int,
                     before: tuple) -> None:
        self.launches.append(CopyRecord.from_copy(dest, src, dest_offset, src_offset, count, before))

    def _record_empty_launch(self, kernel: Any, dim: tuple, args: list, device: Any) -> None:
        """A launch with no threads has no adjoint; nothing to record."""

    def record_launch(self, kernel: Any, dim: Any, max_blocks: int, inputs: list, outputs: list, device: Any,
                      block_dim: int = 0, metadata: dict | None = None) -> None:
        """Record a launch without running it; the backward pass differentiates it at the arrays'
        contents at that time (Warp's ``Tape.record_launch``)."""
        device = get_device(device)
        self.launches.append(DeferredLaunch(kernel, dim, max_blocks, list(inputs), list(outputs), device,
                                            resolve_block_dim(device, block_dim), metadata or {}))

    def record_func(self, backward: Callable, arrays: list) -> None:
        """Record a Python function to run (with no arguments) during the backward pass.

        Args:
            backward: called in reverse order with the recorded launches.
            arrays: arrays whose gradients ``backward`` uses; they are zeroed by :meth:`zero`.
        """
        self.launches.append(backward)
        for a in arrays:
            if isinstance(a, array) and a.grad is not None:
                self.gradients[a] = a.grad
            else:
                raise RuntimeError(
                    f"Array {a} is not of type wp.array or is missing a gradient array. Set array parameter "
                    "requires_grad=True during instantiation."
                )

    def record_scope_begin(self, scope_name: str, metadata: dict | None = None) -> None:
        """Begin a named group of launches (used by :meth:`visualize`)."""
        self.scopes.append((len(self.launches), scope_name, metadata or {}))

    def record_scope_end(self, remove_scope_if_empty: bool = True) -> None:
        """End the innermost scope opened by :meth:`record_scope_begin`."""
        depth = sum(-1 if name is None else 1 for _, name, _ in self.scopes)
        if depth == 0:
            raise RuntimeError("Warp: Error, ended tape scope, but scope not present")
        if remove_scope_if_empty and self.scopes[-1][1] is not None and self.scopes[-1][0] == len(self.launches):
            self.scopes = self.scopes[:-1]
        else:
            self.scopes.append((len(self.launches), None, None))

    # -- backward --------------------------------------------------------------------------------
    @exclusive
    def backward(self, loss: array | None = None, grads: dict | None = None) -> None:
        """Back-propagate through the recorded launches.

        Args:
            loss: a single-element array with ``requires_grad=True``; its gradient is set to 1.
            grads: ``{array: incoming gradient}``; installed as ``array.grad`` when it has
                none, copied into the existing gradient otherwise.
        """
        if loss is not None:
            if loss.size > 1 or int(np.prod(_element_shape(loss.dtype))) > 1:
                raise RuntimeError("Can only return gradients for scalar loss functions.")
            if not loss.requires_grad or loss.grad is None:
                raise RuntimeError(
                    "Scalar loss arrays should have requires_grad=True set before calling Tape.backward()"
                )
            loss.grad.fill_(1.0)
            self.loss = loss
        if grads:
            for a, g in grads.items():
                if a.grad is None:
                    a.grad = g
                else:
                    a.grad.assign(g)
        for entry in self.launches:
            if isinstance(entry, (LaunchRecord, CopyRecord)):
                for a in entry.arguments:
                    self.get_adjoint(a)
                for a in (*getattr(entry, "inputs", ()), *getattr(entry, "outputs", ())):
                    if isinstance(a, StructInstance):  # struct arguments get a struct of field adjoints
                        self.get_adjoint(a)
            elif isinstance(entry, DeferredLaunch):
                for a in (*entry.inputs, *entry.outputs):
                    self.get_adjoint(a)
        run_backward(self.launches, _warn_skipped)
        self._clear_read_flags()

    def _clear_read_flags(self) -> None:
        """With ``wp.config.verify_autograd_array_access``: the recorded reads are consumed (backward,
        reset), so the arrays the tape's launches and copies used lose their read marks."""
        if not config.verify_autograd_array_access:
            return
        for a in self._access_arrays:
            clear_read_flags(a)
        for a in self.gradients:
            if isinstance(a, array):
                clear_read_flags(a)
        self._access_arrays = []

    def get_adjoint(self, a: Any) -> Any:
        """The adjoint of a kernel argument: ``a.grad`` for arrays (tracked for :meth:`zero`),
        a struct of field adjoints for structs, None otherwise."""
        if isinstance(a, array):
            if a.grad is not None:
                self.gradients[a] = a.grad
                return a.grad
            return None
        if isinstance(a, StructInstance):
            # a struct of the fields' adjoints (array gradients, nested structs), tracked for zero()
            adj = a._cls()
            for name in a._cls.vars:
                value = getattr(a, name)
                if isinstance(value, (array, StructInstance)):
                    field_adj = self.get_adjoint(value)
                    if field_adj is not None:
                        setattr(adj, name, field_adj)
            self.gradients[a] = adj
            return adj
        return None

    def zero(self) -> None:
        """Zero every gradient the tape has touched.

        Buffers are immutable, so gradients of one shape, dtype and device share one zero buffer
        (one allocation instead of one per array; a time-stepping tape has hundreds), kept for the
        next call (:func:`~jwarp.runtime.zero_buffers.shared_zeros`)."""
        for g in self.gradients.values():
            if g is None or isinstance(g, StructInstance):  # its array fields are tracked themselves
                continue
            if g._base is not None:  # a view writes through to its base
                g.zero_()
                continue
            g._set_buffer(shared_zeros(g.shape, g.dtype, g.device))

    def reset(self) -> None:
        """Forget the recorded launches and zero the gradients."""
        self._clear_read_flags()
        self.launches = []
        self.scopes = []
        self.zero()

    def visualize(self, filename: str | None = None, **kwargs: Any) -> str:
        """GraphViz ``dot`` text of the recorded launches and the arrays they use."""
        dot = tape_to_dot(self, **kwargs)
        if filename is not None:
            with open(filename, "w") as f:
                f.write(dot)
        return dot


def _element_shape(dtype: Any) -> tuple:
    try:
        return storage.element_shape(dtype)
    except Exception:
        return ()


def _warn_skipped(kernel: Any) -> None:
    if kernel.options.get("enable_backward") is False:
        where = "is configured with the option 'enable_backward=False'."
    else:
        where = "is defined in a module with the option 'enable_backward=False' set."
    log_warning(f"Running the tape backwards may produce incorrect gradients because recorded kernel {kernel.key} {where}")


class _TapeObserver:
    """The execution core's view of the active tape: it keeps the buffers launches read (so they
    are not donated) and records each launch."""

    def holds_buffers(self) -> bool:
        return tape_state.active_tape() is not None

    def launched(self, prepared: Any, buffers: list, new_bases: dict, diagnostics: dict) -> None:
        tape = tape_state.active_tape()
        if tape is not None:
            tape._record_launch(prepared, buffers, new_bases, diagnostics)


execution.add_observer(_TapeObserver())

__all__ = ["Tape"]
