"""``@wp.func_native``: functions written as C++/CUDA snippets.

jwarp lowers kernels to XLA and cannot compile C++ or CUDA source, so a native function can
be declared (programs that define one still import) but calling it from a kernel raises an
error naming the function and the call's line; rewrite its body as a ``@wp.func``.

Example::

    @wp.func_native("out = a + b;")
    def add(a: float, b: float, out: wp.ref[float]): ...
"""

from __future__ import annotations

from typing import Any, Callable


class NativeFunction:
    """A ``@wp.func_native`` declaration: its Python signature and C++ snippets."""

    _jwarp_native = True

    def __init__(self, func: Callable, snippet: str, adj_snippet: str | None, replay_snippet: str | None):
        self.func = func
        self.key = func.__qualname__
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self.snippet = snippet
        self.adj_snippet = adj_snippet
        self.replay_snippet = replay_snippet

    def unsupported_message(self) -> str:
        return (
            f"'{self.key}' is a @wp.func_native C++/CUDA snippet; jwarp lowers kernels to XLA and cannot run "
            "native code. Write the function as a @wp.func instead."
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(self.unsupported_message())

    def __repr__(self) -> str:
        return f"<jwarp func_native {self.key}>"


def func_native(snippet: str, adj_snippet: str | None = None, replay_snippet: str | None = None):
    """Decorator declaring a native (C++/CUDA snippet) function; see the module docstring."""

    def wrap(func: Callable) -> NativeFunction:
        return NativeFunction(func, snippet, adj_snippet, replay_snippet)

    return wrap
