"""Exceptions named as Warp names them, and source locations for kernel-code errors.

Errors raised while compiling kernel code keep their original type (so ``except TypeError``
in user code still works) and gain a prefix that names the kernel, the file and line, and
shows the offending source line with a caret:

    Error while parsing function "saxpy" at /path/to/file.py:12:
        out[i] = a * x[i] + 2
                 ^^^^^^^^^^^^
    Input types must be the same, got ['float32', 'int32']
"""

from __future__ import annotations

from dataclasses import dataclass


class WarpCodegenError(RuntimeError):
    """Kernel code that jwarp cannot compile."""


class WarpCodegenTypeError(TypeError):
    pass


class WarpCodegenAttributeError(AttributeError):
    pass


class WarpCodegenIndexError(IndexError):
    pass


class WarpCodegenKeyError(KeyError):
    pass


class WarpCodegenValueError(ValueError):
    pass


@dataclass(frozen=True)
class SourceLocation:
    """Where a node of kernel code sits in its file (lines are 1-based, columns 0-based)."""

    function: str
    file: str
    line: int
    col: int = 0
    end_col: int | None = None
    text: str = ""

    def format(self) -> str:
        head = f'Error while parsing function "{self.function}" at {self.file}:{self.line}:'
        if not self.text:
            return head
        stripped = self.text.rstrip()
        indent = len(stripped) - len(stripped.lstrip())
        caret_start = max(self.col, indent)
        caret_end = self.end_col if self.end_col and self.end_col > caret_start else len(stripped)
        caret = " " * caret_start + "^" * max(1, caret_end - caret_start)
        return f"{head}\n    {stripped}\n    {caret}"


class _Located(Exception):
    """Mixin marker: this exception already carries a kernel source location."""


LocatedError = _Located  # the marker's public name, for the layers that catch kernel-code errors


class ControlSignal(Exception):
    """Internal control-flow exceptions of the compiler (never shown to users)."""


def with_location(exc: BaseException, location: SourceLocation) -> BaseException:
    """Return an exception of the same type as ``exc`` whose message starts with ``location``.

    The original exception type is kept where it can be rebuilt from a message; otherwise a
    ``WarpCodegenError`` carries the text.
    """
    if isinstance(exc, _Located):
        return exc
    message = f"{location.format()}\n{_message(exc)}"
    cls = type(exc)
    located_cls = _located_class(cls)
    try:
        new = located_cls(message)
    except Exception:
        new = _located_class(WarpCodegenError)(message)
    new.location = location
    return new


def is_located(exc: BaseException) -> bool:
    """Whether ``exc`` already carries a kernel source location (see :func:`with_location`)."""
    return isinstance(exc, _Located)


def mark_failed_node(exc: BaseException, node: object) -> None:
    """Remember on ``exc`` the innermost kernel-code node whose lowering raised it (the first call
    wins, as the exception travels outwards), so its location shows the node that failed rather than
    the last sub-expression that succeeded."""
    if getattr(exc, "_jwarp_failed_node", None) is None:
        try:
            exc._jwarp_failed_node = node
        except AttributeError:  # exceptions without a __dict__
            pass


def failed_node(exc: BaseException) -> object | None:
    """The node :func:`mark_failed_node` recorded on ``exc`` (None if none)."""
    return getattr(exc, "_jwarp_failed_node", None)


def with_call_site(exc: BaseException, caller: SourceLocation, caller_kind: str = "function") -> BaseException:
    """A located error raised inside an inlined ``@wp.func``, with the line that called it appended
    (``Called from kernel "k" at file:line:`` and that line with a caret), one line per call level.

    Example:
        >>> loc = SourceLocation("k", "f.py", 3, 8, 17, "    b = helper(x)")
        >>> err = with_call_site(with_location(TypeError("bad"), SourceLocation("helper", "f.py", 9)), loc, "kernel")
        >>> str(err).splitlines()[2]
        'Called from kernel "k" at f.py:3:'
    """
    if not isinstance(exc, _Located):
        return exc
    site = caller.format().replace("Error while parsing function", f"Called from {caller_kind}", 1)
    try:
        new = type(exc)(f"{_located_str(exc)}\n{site}")
    except Exception:
        return exc
    new.location = getattr(exc, "location", None)
    return new


def _message(exc: BaseException) -> str:
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    return str(exc)


_LOCATED_CLASSES: dict[type, type] = {}


def _located_class(cls: type) -> type:
    located = _LOCATED_CLASSES.get(cls)
    if located is None:
        located = type(cls.__name__, (cls, _Located), {"__module__": cls.__module__, "__str__": _located_str})
        located.__qualname__ = cls.__qualname__
        _LOCATED_CLASSES[cls] = located
    return located


def _located_str(self) -> str:
    return str(self.args[0]) if self.args else ""


def clean_error(exc: BaseException) -> BaseException:
    """Drop jwarp's and JAX's internal frames and notes from a kernel-code error, so the
    user sees their own launch call and the kernel location in the message."""
    notes = getattr(exc, "__notes__", None)
    if notes:
        exc.__notes__ = [n for n in notes if "For simplicity, JAX has removed" not in n]
    exc.__cause__ = None
    exc.__suppress_context__ = True
    return exc.with_traceback(None)
