"""Warp-style warnings: ``Warp UserWarning: <message>`` on stderr, honouring ``wp.config``.

``wp.config.log_level`` above ``wp.LOG_WARNING`` silences them; ``wp.config.verbose_warnings``
appends the source location. They go through :func:`warnings.warn`, so warning filters apply.

Example:
    >>> from jwarp.logger import log_warning
    >>> log_warning("something odd")  # doctest: +SKIP
    Warp UserWarning: something odd
"""

from __future__ import annotations

import linecache
import sys
import warnings

from jwarp import config
from jwarp.constants import LOG_WARNING

_seen: set = set()


def _format(message, category, filename, lineno, line=None) -> str:
    text = f"Warp {category.__name__}: {message}"
    if config.verbose_warnings:
        text += f" ({filename}:{lineno})"
        line = line or linecache.getline(filename, lineno)
        if line:
            text += f"\n  {line.strip()}"
    return text + "\n"


def _show(message, category, filename, lineno, file=None, line=None) -> None:
    sys.stderr.write(_format(message, category, filename, lineno, line))


def _recording() -> bool:
    """True inside ``warnings.catch_warnings(record=True)`` (or with a custom handler): then the
    warning goes to that handler unchanged."""
    impl = getattr(warnings, "_showwarnmsg_impl", None)
    return getattr(impl, "__name__", "_showwarnmsg_impl") != "_showwarnmsg_impl" or \
        warnings.showwarning is not getattr(warnings, "_showwarning_orig", warnings.showwarning)


def log_warning(message: str, category: type[Warning] = UserWarning, stacklevel: int = 1, once: bool = False) -> None:
    """Emit ``message`` as Warp does (see the module docstring); ``once`` drops repeats."""
    if config.log_level > LOG_WARNING:
        return
    if (once or category is DeprecationWarning) and (category, message) in _seen:
        return
    with warnings.catch_warnings():
        if not _recording():
            warnings.showwarning = _show
        warnings.warn(message, category, stacklevel=stacklevel + 2)
    if once or category is DeprecationWarning:
        _seen.add((category, message))
