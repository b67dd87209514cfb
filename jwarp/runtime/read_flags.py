"""Write-after-read detection for the backward pass (``wp.config.verify_autograd_array_access``).

The backward pass of a recorded launch differentiates it at the contents its arrays had when it
ran. An array that a later launch (or ``wp.copy``) overwrites after a recorded launch read it makes
that gradient wrong, so, as in Warp, with ``wp.config.verify_autograd_array_access = True`` each
launch recorded on a Tape marks the arrays its kernel reads (``array._is_read``, also set on the
arrays a view was taken from) and warns when it writes one already marked. ``zero_``/``fill_``
clear the mark; so do ``Tape.backward`` and ``Tape.reset`` for the arrays they recorded.

Which parameters a kernel reads and writes comes from the compiler (loads, stores and atomics,
through views and ``@wp.func`` calls): ``CompiledKernel.param_access``.

Example:
    >>> wp.config.verify_autograd_array_access = True  # doctest: +SKIP
    >>> with tape:                                      # doctest: +SKIP
    ...     wp.launch(square, n, inputs=[a], outputs=[b])
    ...     wp.launch(overwrite, n, inputs=[c], outputs=[a])   # warns: a was read by square
"""

from __future__ import annotations

import sys
from typing import Any

from jwarp.logger import log_warning

_ADVICE = "This may corrupt gradient computation in the backward pass."


class ReadFlags:
    """The read mark of a ``wp.array`` (a mixin: ``_ref`` is the array a view was taken from)."""

    _is_read: bool = False
    _ref: Any = None

    def mark_init(self) -> None:
        """Clear this array's read mark (its contents were just initialised)."""
        self._is_read = False

    def mark_read(self) -> None:
        """Mark this array, and every array it is a view of, as read by a recorded operation."""
        node: Any = self
        while node is not None:
            node._is_read = True
            node = node._ref

    def mark_write(self, **where: Any) -> None:
        """Warn if this array was read by a recorded operation before this write.

        ``where``: ``arg_name``, ``kernel_name``, ``filename``, ``lineno`` for a launch, or
        ``operation``, ``filename``, ``lineno`` for another write (``wp.copy``)."""
        if not self._is_read:
            return
        if all(k in where for k in ("arg_name", "kernel_name", "filename", "lineno")):
            message = (f"Array {self} passed to argument {where['arg_name']} in kernel {where['kernel_name']} at "
                       f"{where['filename']}:{where['lineno']} is being written to but has already been read from "
                       f"in a previous launch. {_ADVICE}")
        elif all(k in where for k in ("operation", "filename", "lineno")):
            message = (f"Array {self} is being written to by {where['operation']} at {where['filename']}:"
                       f"{where['lineno']} but has already been read from in a previous launch. {_ADVICE}")
        else:
            message = f"Array {self} is being written to but has already been read from in a previous launch. {_ADVICE}"
        log_warning(message)


def clear_read_flags(a: Any) -> None:
    """Clear the read mark of ``a`` and of the arrays it is a view of."""
    node = a
    while node is not None:
        node._is_read = False
        node = getattr(node, "_ref", None)


def check_launch_access(kernel: Any, compiled: Any, args: list) -> None:
    """After a launch recorded on a Tape: warn for written arrays already read, then mark the read ones
    (a kernel may write an array and then read it; the reverse is what breaks gradients)."""
    access = getattr(compiled, "param_access", ())
    filename, lineno = kernel_location(kernel)
    for name, arg, rw in zip(kernel.arg_names, args, access):
        if rw is None or not isinstance(arg, ReadFlags):  # jwarp arrays (ReadFlags is their mixin)
            continue
        read, written = rw
        if written:
            arg.mark_write(arg_name=name, kernel_name=kernel.key, filename=filename, lineno=lineno)
        if read:
            arg.mark_read()


def kernel_location(kernel: Any) -> tuple[str, int]:
    """(file, line of the ``def``) of a kernel's Python function."""
    code = getattr(kernel.func, "__code__", None)
    if code is None:
        return "<unknown>", 0
    return code.co_filename, code.co_firstlineno


def caller_location(skip_prefix: str) -> tuple[str | None, int | None]:
    """File and line of the first stack frame outside the files under ``skip_prefix``."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(skip_prefix):
        frame = frame.f_back
    if frame is None:
        return None, None
    return frame.f_code.co_filename, frame.f_lineno
