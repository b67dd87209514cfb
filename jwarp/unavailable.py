"""Stand-ins for parts of Warp's API that jwarp does not implement.

A program written for Warp may import ``warp.fem``, ``warp.render`` or ``warp.optim.linear``
only to use them on some paths (Warp's examples import ``warp.render`` and run headless).
Importing such a module, decorating with its decorators or annotating with its names must
therefore work; *using* a missing feature (calling it, instantiating it, reading its
attributes) raises :class:`NotImplementedError` naming it.

Example:
    >>> from jwarp.unavailable import missing
    >>> OpenGLRenderer = missing("warp.render.OpenGLRenderer")
    >>> OpenGLRenderer(title="demo")
    Traceback (most recent call last):
    ...
    NotImplementedError: warp.render.OpenGLRenderer is not implemented in jwarp
"""

from __future__ import annotations

import functools
from typing import Any, Callable


class MissingFeature:
    """A name from Warp's API that jwarp lacks: any use raises :class:`NotImplementedError`."""

    def __init__(self, qualname: str, hint: str = ""):
        object.__setattr__(self, "_qualname", qualname)
        object.__setattr__(self, "_hint", hint)
        object.__setattr__(self, "__name__", qualname.rsplit(".", 1)[-1])
        object.__setattr__(self, "__qualname__", qualname.rsplit(".", 1)[-1])

    def _fail(self, *_: Any, **__: Any) -> Any:
        hint = f" ({self._hint})" if self._hint else ""
        raise NotImplementedError(f"{self._qualname} is not implemented in jwarp{hint}")

    __call__ = _fail
    __getitem__ = _fail
    __iter__ = _fail

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # private and duck-typing probes (``_jwarp_array``…) are plain misses
            raise AttributeError(name)
        self._fail()

    def __setattr__(self, name: str, value: Any) -> None:
        self._fail()

    def __mro_entries__(self, bases: tuple) -> tuple:
        self._fail()

    def __repr__(self) -> str:
        return f"<{self._qualname}: not implemented in jwarp>"


def missing(qualname: str, hint: str = "") -> MissingFeature:
    """A stand-in for the Warp API object ``qualname`` (see module docstring)."""
    return MissingFeature(qualname, hint)


def missing_decorator(qualname: str, hint: str = "") -> Callable:
    """A stand-in decorator (``@name`` or ``@name(...)``): decorating works, and the decorated
    object raises :class:`NotImplementedError` when used."""

    def decorate(fn: Callable) -> MissingFeature:
        stand_in = MissingFeature(f"{qualname} (decorating {getattr(fn, '__qualname__', fn)!s})", hint)
        object.__setattr__(stand_in, "__wrapped__", fn)
        object.__setattr__(stand_in, "__doc__", getattr(fn, "__doc__", None))
        return stand_in

    @functools.wraps(decorate)
    def decorator(fn: Callable | None = None, *args: Any, **kwargs: Any) -> Any:
        if callable(fn) and not args and not kwargs:
            return decorate(fn)
        return decorate

    return decorator


def module_getattr(module_name: str, names: str, hint: str = "") -> Callable[[str], Any]:
    """A module ``__getattr__``: each of Warp's public ``names`` (space-separated) that the module
    does not define is a stand-in; any other name is a plain ``AttributeError`` (tools probe
    modules for hooks such as ``pytest_plugins``)."""
    known = frozenset(names.split())

    def __getattr__(name: str) -> Any:
        if name not in known:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        return MissingFeature(f"{module_name}.{name}", hint)

    return __getattr__


__all__ = ["MissingFeature", "missing", "missing_decorator", "module_getattr"]
