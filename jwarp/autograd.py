"""``wp.autograd``: Jacobians and gradient checks for kernels and Warp-API functions.

Mirrors ``warp.autograd``: :func:`jacobian` (reverse mode, one ``Tape.backward`` per output
component), :func:`jacobian_fd` (central differences), :func:`gradcheck` (both, compared with
``|ad - fd| <= atol + rtol * |fd|`` and no NaNs), :func:`gradcheck_tape` (every kernel
recorded on a tape) and :func:`jacobian_plot` (matplotlib). Jacobians are
``{(input index, output index): wp.array}`` of shape ``(output scalars, input elements)``
with the input's dtype, as in Warp. Only arrays with ``requires_grad=True`` are considered.

Example:
    >>> import numpy as np, jwarp as wp
    >>> @wp.kernel
    ... def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    ...     i = wp.tid()
    ...     y[i] = x[i] * x[i]
    >>> x = wp.array(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    >>> y = wp.zeros(2, requires_grad=True)
    >>> wp.autograd.gradcheck(square, dim=2, inputs=[x], outputs=[y], show_summary=False)
    True
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from jwarp.autograd_plot import error_jacobians, jacobian_plot
from jwarp.lang.arrays import ArrayType
from jwarp.runtime.array import array
from jwarp.runtime.creation import clone
from jwarp.runtime.device import get_device
from jwarp.runtime.kernel import Kernel
from jwarp.runtime.launch import launch
from jwarp.runtime.read_flags import clear_read_flags
from jwarp.runtime.tape import Tape


class FunctionMetadata:
    """Labels and dtypes of a kernel's or function's inputs and outputs (for reports)."""

    def __init__(self, key: str | None = None, input_labels: list | None = None, output_labels: list | None = None,
                 input_strides: list | None = None, output_strides: list | None = None,
                 input_dtypes: list | None = None, output_dtypes: list | None = None):
        self.key = key
        self.input_labels = input_labels
        self.output_labels = output_labels
        self.input_strides = input_strides
        self.output_strides = output_strides
        self.input_dtypes = input_dtypes
        self.output_dtypes = output_dtypes

    @property
    def is_empty(self) -> bool:
        return self.key is None

    def input_is_array(self, i: int) -> bool:
        return self.input_dtypes[i] is not None

    def output_is_array(self, i: int) -> bool:
        return self.output_dtypes[i] is not None

    def update_from_kernel(self, kernel: Kernel, inputs: Sequence) -> None:
        """Labels from the kernel's parameter names; dtypes and strides of its array parameters (an input's
        from the array passed, an output's from its annotation; None for non-array parameters)."""
        self.key = kernel.key
        self.input_labels = list(kernel.arg_names[: len(inputs)])
        self.output_labels = list(kernel.arg_names[len(inputs):])
        types = kernel.arg_types
        self.input_dtypes = [getattr(v, "dtype", t.dtype) if isinstance(t, ArrayType) else None
                             for t, v in zip(types, inputs)]
        self.input_strides = [getattr(v, "strides", None) if isinstance(t, ArrayType) else None
                              for t, v in zip(types, inputs)]
        self.output_dtypes = [t.dtype if isinstance(t, ArrayType) else None for t in types[len(inputs):]]
        self.output_strides = [None] * len(self.output_dtypes)

    def update_from_function(self, function: Callable, inputs: Sequence, outputs: Sequence | None = None) -> None:
        """Labels from the function's parameter names (outputs: ``output_<k>``); the arrays' dtypes and strides."""
        self.key = function.__name__
        self.input_labels = list(inspect.signature(function).parameters.keys())
        if outputs is None:
            outputs = function(*inputs)
        if isinstance(outputs, array):
            outputs = [outputs]
        self.output_labels = [f"output_{i}" for i in range(len(outputs))]
        self.input_dtypes = [x.dtype if isinstance(x, array) else None for x in inputs]
        self.input_strides = [x.strides if isinstance(x, array) else None for x in inputs]
        self.output_dtypes = [y.dtype if isinstance(y, array) else None for y in outputs]
        self.output_strides = [y.strides if isinstance(y, array) else None for y in outputs]


def _is_diff(a: Any) -> bool:
    return isinstance(a, array) and a.requires_grad


def _scalars(a: array) -> int:
    return a.numpy().size


def _zero_grads(arrays: Sequence) -> None:
    for a in arrays:
        if isinstance(a, array) and a.grad is not None:
            a.grad.zero_()


def _resolve_mask(mask: Sequence | None, names: list, n_inputs: int) -> set:
    if not mask:
        return set()

    def index(name: Any, offset: int) -> int:
        return name if isinstance(name, int) else names.index(name) + offset

    return {(index(i, 0), index(o, -n_inputs)) for i, o in mask}


def _record(function: Any, dim: Any, inputs: Sequence, outputs: Sequence | None, device: Any, max_blocks: int,
            block_dim: int | None, metadata: FunctionMetadata) -> tuple[Tape, list]:
    tape = Tape()
    if isinstance(function, Kernel):
        if not function.enable_backward:
            raise ValueError("Kernel must have backward pass enabled to compute Jacobians")
        if not outputs:
            raise ValueError("A list of output arguments must be provided to compute kernel Jacobians")
        if metadata.is_empty:
            metadata.update_from_kernel(function, inputs)
        device = device if device is not None else _infer_device([*inputs, *outputs])
        tape.record_launch(function, dim, max_blocks, list(inputs), list(outputs), device, block_dim or 0)
        return tape, list(outputs)
    with tape:
        result = function(*inputs)
    for entry in tape.launches:
        kernel = entry if isinstance(entry, Kernel) else getattr(entry, "kernel", None)
        if kernel is None and isinstance(entry, (tuple, list)) and entry and isinstance(entry[0], Kernel):
            kernel = entry[0]
        if isinstance(kernel, Kernel) and not kernel.enable_backward:
            raise ValueError("Kernel must have backward pass enabled to compute Jacobians")
    result = [result] if isinstance(result, array) else list(result)
    if metadata.is_empty:
        metadata.update_from_function(function, inputs, result)
    return tape, result


def _infer_device(xs: Sequence) -> Any:
    for x in xs:
        if isinstance(x, array):
            return x.device
    return get_device(None)


def jacobian(function: Kernel | Callable, dim: Any = None, inputs: Sequence | None = None,
             outputs: Sequence | None = None, input_output_mask: list | None = None, device: Any = None,
             max_blocks: int = 0, block_dim: int | None = None, max_outputs_per_var: int = -1,
             plot_jacobians: bool = False, metadata: FunctionMetadata | None = None,
             restore_inputs: bool = True) -> dict[tuple[int, int], array]:
    """Jacobians by reverse mode: one backward pass per output component (see module docstring)."""
    inputs = list(inputs or [])
    metadata = metadata if metadata is not None else FunctionMetadata()
    snapshot = _snapshot(inputs) if restore_inputs and not isinstance(function, Kernel) else None
    read_flags = _take_read_flags(inputs)
    try:
        tape, outputs = _record(function, dim, inputs, outputs, device, max_blocks, block_dim, metadata)
        mask = _resolve_mask(input_output_mask, metadata.input_labels + metadata.output_labels, len(inputs))
        _zero_grads(inputs)
        _zero_grads(outputs)
        jacobians = {}
        for i, o in itertools.product(range(len(inputs)), range(len(outputs))):
            if (mask and (i, o) not in mask) or not (_is_diff(inputs[i]) and _is_diff(outputs[o])):
                continue
            x, y = inputs[i], outputs[o]
            rows = _scalars(y)
            jac = np.full((rows, x.size) + x.numpy().shape[x.ndim:], np.nan, dtype=x.numpy().dtype)
            count = rows if max_outputs_per_var <= 0 else min(rows, max_outputs_per_var)
            for r in range(count):
                seed = np.zeros(rows, dtype=y.grad.numpy().dtype)
                seed[r] = 1.0
                y.grad.assign(seed.reshape(y.grad.numpy().shape))
                tape.backward()
                jac[r] = x.grad.numpy().reshape(jac.shape[1:])
                _zero_grads(inputs)
                _zero_grads(outputs)
            jacobians[i, o] = array(jac, dtype=x.dtype, device=x.device)
    finally:
        if snapshot is not None:
            _restore(inputs, snapshot)
        _give_back_read_flags(inputs, read_flags)
    if plot_jacobians:
        jacobian_plot(jacobians, metadata)
    return jacobians


def jacobian_fd(function: Kernel | Callable, dim: Any = None, inputs: Sequence | None = None,
                outputs: Sequence | None = None, input_output_mask: list | None = None, device: Any = None,
                max_blocks: int = 0, block_dim: int | None = None, max_inputs_per_var: int = -1, eps: float = 1e-4,
                plot_jacobians: bool = False, metadata: FunctionMetadata | None = None,
                restore_inputs: bool = True) -> dict[tuple[int, int], array]:
    """Jacobians by central differences, one input component at a time (see module docstring)."""
    inputs = list(inputs or [])
    metadata = metadata if metadata is not None else FunctionMetadata()
    snapshot = _snapshot(inputs)
    is_kernel = isinstance(function, Kernel)
    if is_kernel:
        if not outputs:
            raise ValueError("A list of output arguments must be provided to compute kernel Jacobians")
        if metadata.is_empty:
            metadata.update_from_kernel(function, inputs)
        initial = [clone(o, requires_grad=False) if isinstance(o, array) else o for o in outputs]
        outputs = list(outputs)

    def evaluate() -> list:
        if is_kernel:
            fresh = [clone(o, requires_grad=False) if isinstance(o, array) else o for o in initial]
            launch(function, dim, inputs=inputs, outputs=fresh, device=device, max_blocks=max_blocks,
                   block_dim=block_dim, record_tape=False)
            return [o.numpy().reshape(-1) if isinstance(o, array) else None for o in fresh]
        result = function(*inputs)
        result = [result] if isinstance(result, array) else list(result)
        return [o.numpy().reshape(-1).copy() if isinstance(o, array) else None for o in result]

    jacobians = {}
    read_flags = _take_read_flags(inputs)
    try:  # inputs are restored however this ends (the function or the checks may raise)
        if not is_kernel:
            outputs = function(*inputs)
            outputs = [outputs] if isinstance(outputs, array) else list(outputs)
            if metadata.is_empty:
                metadata.update_from_function(function, inputs, outputs)
            _restore(inputs, snapshot)
        mask = _resolve_mask(input_output_mask, metadata.input_labels + metadata.output_labels, len(inputs))
        for i, o in itertools.product(range(len(inputs)), range(len(outputs))):
            if (mask and (i, o) not in mask) or not (_is_diff(inputs[i]) and _is_diff(outputs[o])):
                continue
            x = inputs[i]
            base = snapshot[i].copy()
            flat = base.reshape(-1)
            n = flat.size if max_inputs_per_var <= 0 else min(flat.size, max_inputs_per_var)
            columns = np.full((_scalars(outputs[o]), flat.size), np.nan, dtype=flat.dtype)
            for k in range(n):
                values = []
                for step in (-eps, eps):
                    probe = flat.copy()
                    probe[k] += step
                    x.assign(probe.reshape(base.shape))
                    values.append(evaluate()[o])
                    if not is_kernel and restore_inputs:
                        _restore(inputs, snapshot)
                x.assign(base)
                columns[:, k] = (values[1] - values[0]) / (2.0 * eps)
            comp = base.shape[x.ndim:]
            jac = columns.reshape((columns.shape[0], x.size) + comp)
            jacobians[i, o] = array(jac, dtype=x.dtype, device=x.device)
    finally:
        _restore(inputs, snapshot)
        _give_back_read_flags(inputs, read_flags)
    if plot_jacobians:
        jacobian_plot(jacobians, metadata)
    return jacobians


def _take_read_flags(inputs: Sequence) -> list:
    """The inputs' read marks (owned by a caller's pending Tape), cleared for the check's own passes."""
    flags = [a._is_read if isinstance(a, array) else None for a in inputs]
    for a in inputs:
        if isinstance(a, array):
            clear_read_flags(a)
    return flags


def _give_back_read_flags(inputs: Sequence, flags: list) -> None:
    for a, flag in zip(inputs, flags):
        if isinstance(a, array):
            a._is_read = flag


def _snapshot(inputs: Sequence) -> list:
    return [a.numpy().copy() if isinstance(a, array) else None for a in inputs]


def _restore(inputs: Sequence, snapshot: list) -> None:
    for a, saved in zip(inputs, snapshot):
        if saved is not None:
            a.assign(saved)


def gradcheck(function: Kernel | Callable, dim: Any = None, inputs: Sequence | None = None,
              outputs: Sequence | None = None, *, eps: float = 1e-4, atol: float = 1e-3, rtol: float = 1e-2,
              raise_exception: bool = True, input_output_mask: list | None = None, device: Any = None,
              max_blocks: int = 0, block_dim: int | None = None, max_inputs_per_var: int = -1,
              max_outputs_per_var: int = -1, plot_relative_error: bool = False, plot_absolute_error: bool = False,
              show_summary: bool = True, restore_inputs: bool = True) -> bool:
    """Whether autodiff Jacobians match finite differences: ``|ad - fd| <= atol + rtol * |fd|``."""
    if inputs is None:
        raise ValueError("The inputs argument must be provided")
    metadata = FunctionMetadata()
    common = {"dim": dim, "inputs": inputs, "outputs": outputs, "input_output_mask": input_output_mask,
              "device": device, "max_blocks": max_blocks, "block_dim": block_dim, "metadata": metadata,
              "restore_inputs": restore_inputs}
    jacs_ad = jacobian(function, max_outputs_per_var=max_outputs_per_var, **common)
    jacs_fd = jacobian_fd(function, max_inputs_per_var=max_inputs_per_var, eps=eps, **common)
    success, mismatch, nan, rows = True, None, None, []
    for (i, o), jac_fd in jacs_fd.items():
        fd = jac_fd.numpy().reshape(jac_fd.shape[0], -1)
        ad = jacs_ad[i, o].numpy().reshape(fd.shape)
        if max_outputs_per_var > 0:
            fd, ad = fd[:max_outputs_per_var], ad[:max_outputs_per_var]
        if max_inputs_per_var > 0:
            fd, ad = fd[:, :max_inputs_per_var], ad[:, :max_inputs_per_var]
        ok = bool(np.allclose(ad, fd, atol=atol, rtol=rtol))
        has_nan = bool(np.any(np.isnan(ad)))
        success = success and ok and not has_nan
        mismatch = mismatch or (None if ok else (i, o))
        nan = nan or ((i, o) if has_nan else None)
        err = np.abs(ad - fd)
        worst = np.unravel_index(np.argmax(err), err.shape) if err.size else (0, 0)
        rows.append([metadata.input_labels[i], metadata.output_labels[o],
                     f"{err.max() if err.size else 0.0:.3e} at {tuple(int(k) for k in worst)}",
                     f"{ad[worst] if err.size else 0.0:.3e}", f"{fd[worst] if err.size else 0.0:.3e}",
                     f"{(err / (np.abs(fd) + 1e-8)).max() if err.size else 0.0:.3e}",
                     "NaN" if has_nan else ("PASS" if ok else "FAIL")])
    if show_summary:
        _print_table(["Input", "Output", "Max Abs Error", "AD at MAE", "FD at MAE", "Max Rel Error", "Pass"], rows)
        print(f"Gradient check for kernel {metadata.key} {'passed' if success else 'failed'}")
    if plot_relative_error or plot_absolute_error:
        relative, absolute = error_jacobians(jacs_ad, jacs_fd)
        if plot_relative_error:
            jacobian_plot(relative, metadata, title=f"{metadata.key} kernel Jacobian relative error")
        if plot_absolute_error:
            jacobian_plot(absolute, metadata, title=f"{metadata.key} kernel Jacobian absolute error")
    if raise_exception and mismatch is not None:
        raise ValueError(f"Gradient check failed for kernel {metadata.key}, input {mismatch[0]}, output "
                         f"{mismatch[1]}: finite difference and autodiff gradients do not match")
    if raise_exception and nan is not None:
        raise ValueError(f"Gradient check failed for kernel {metadata.key}, input {nan[0]}, output {nan[1]}: "
                         "gradient contains NaN values")
    return success


def gradcheck_tape(tape: Tape, *, eps: float = 1e-4, atol: float = 1e-3, rtol: float = 1e-2,
                   raise_exception: bool = True, input_output_masks: dict | None = None,
                   blacklist_kernels: list | None = None, whitelist_kernels: list | None = None,
                   max_inputs_per_var: int = -1, max_outputs_per_var: int = -1, plot_relative_error: bool = False,
                   plot_absolute_error: bool = False, show_summary: bool = True, reverse_launches: bool = False,
                   skip_to_launch_index: int = 0) -> bool:
    """:func:`gradcheck` for every kernel launch recorded on ``tape`` (functions are skipped)."""
    masks = input_output_masks or {}
    black, white = set(blacklist_kernels or ()), set(whitelist_kernels or ())
    entries = list(reversed(tape.launches)) if reverse_launches else list(tape.launches)
    overall = True
    for index, entry in enumerate(entries):
        if index < skip_to_launch_index or callable(entry) or not isinstance(entry[0], Kernel):
            continue
        kernel, dim, max_blocks, inputs, outputs, device, block_dim = (entry[k] for k in range(7))
        if (white and kernel.key not in white) or kernel.key in black or not kernel.enable_backward:
            continue
        overall = gradcheck(kernel, dim, inputs, outputs, eps=eps, atol=atol, rtol=rtol,
                            raise_exception=raise_exception, input_output_mask=masks.get(kernel.key), device=device,
                            max_blocks=max_blocks, block_dim=block_dim, max_inputs_per_var=max_inputs_per_var,
                            max_outputs_per_var=max_outputs_per_var, show_summary=show_summary) and overall
    return overall


def _print_table(headers: list, cells: list) -> None:
    widths = [max(len(str(x)) for x in column) for column in zip(headers, *cells)]
    print(" | ".join(str(h).ljust(w) for h, w in zip(headers, widths)))
    print("-+-".join("-" * w for w in widths))
    for row in cells:
        print(" | ".join(str(c).ljust(w) for c, w in zip(row, widths)))


__all__ = ["FunctionMetadata", "gradcheck", "gradcheck_tape", "jacobian", "jacobian_fd", "jacobian_plot"]
