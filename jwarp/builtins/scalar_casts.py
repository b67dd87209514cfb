"""Kernel-only scalar cast aliases of Warp's builtin table: ``wp.float(x)`` is ``wp.float32(x)``
and ``wp.int(x)`` is ``wp.int32(x)``.

Warp resolves ``wp.float``/``wp.int`` inside kernels only (the Python module has no such
attribute), so these are kept off ``jwarp``'s namespace (see ``_PYTHON_SIDE`` there).

Example:
    >>> import jwarp as wp
    >>> @wp.kernel
    ... def half_to_float(a: wp.array(dtype=wp.float16), out: wp.array(dtype=float)):
    ...     i = wp.tid()
    ...     out[i] = wp.float(a[i]) * 2.0
"""

from __future__ import annotations

from jwarp.builtins.common import Call, Value
from jwarp.builtins.construct import cast_scalar
from jwarp.compiler.registry import builtin
from jwarp.lang import scalars


@builtin("float", group="Scalar Math")
def float_(call: Call, x: Value) -> Value:
    """``x`` converted to ``float32`` (C conversion rules)."""
    return cast_scalar(call, scalars.float32, x)


@builtin("int", group="Scalar Math")
def int_(call: Call, x: Value) -> Value:
    """``x`` converted to ``int32`` (floats truncate toward zero)."""
    return cast_scalar(call, scalars.int32, x)
