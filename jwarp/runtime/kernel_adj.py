"""``kernel.adj``: the public face of a kernel's parsed function, as Warp's programs reach it.

Warp exposes its code generator's per-kernel object as ``kernel.adj``; programs and tools read
its name and location and its ``args`` (each with ``label``, ``type`` and, once the kernel has
been compiled, ``is_read``/``is_write``: whether the kernel loads from / stores or applies
atomics to that array parameter, through views and ``@wp.func`` calls). jwarp derives the same
facts from its own parse and from the kernel's compiled signatures.

Example:
    >>> wp.launch(k, dim=3, inputs=[a, b])         # doctest: +SKIP
    >>> [(v.label, v.is_read, v.is_write) for v in k.adj.args]  # doctest: +SKIP
    [('a', True, False), ('b', False, True)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class KernelArg:
    """One kernel parameter (Warp's ``Var``: ``label``, ``type``, ``is_read``, ``is_write``)."""

    label: str
    type: Any
    is_read: bool = False
    is_write: bool = False

    def __str__(self) -> str:
        return self.label


class KernelAdjoint:
    """Name, location, source and parameters of a kernel's function (module docstring)."""

    def __init__(self, kernel: Any) -> None:
        self._kernel = kernel

    @property
    def fun_name(self) -> str:
        return self._kernel.func.__name__

    @property
    def filename(self) -> str:
        return self._kernel.source.file

    @property
    def fun_lineno(self) -> int:
        return self._kernel.source.first_line

    @property
    def source(self) -> str:
        return "".join(line if line.endswith("\n") else line + "\n" for line in self._kernel.source.lines)

    @property
    def resolved_static_expressions(self) -> dict[str, Any]:
        """The ``wp.static()`` expressions evaluated when the kernel was declared, by their text."""
        src = self._kernel.source
        return {src.static_sources[k]: v for k, v in src.static_values.items()}

    @property
    def has_unresolved_static_expressions(self) -> bool:
        """Whether some ``wp.static()`` is evaluated only when the kernel compiles (it names kernel locals)."""
        return self._kernel.source.static_deferred

    @property
    def tree(self) -> Any:
        return self._kernel.source.tree

    @property
    def kernel_dim(self) -> int:
        return self._kernel.kernel_dim

    @property
    def args(self) -> list[KernelArg]:
        """The parameters, with read/write facts merged over the signatures compiled so far."""
        kernel = self._kernel
        out = [KernelArg(name, t) for name, t in zip(kernel.arg_names, kernel.arg_types)]
        for compiled in list(kernel._cache.values()):
            for arg, access in zip(out, getattr(compiled, "param_access", ())):
                if access is not None:
                    arg.is_read = arg.is_read or bool(access[0])
                    arg.is_write = arg.is_write or bool(access[1])
        return out
