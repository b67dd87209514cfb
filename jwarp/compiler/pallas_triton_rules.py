"""Triton lowering rules jwarp adds for primitives its builtins emit (registered once, on first use).

- ``reduce_precision``: jwarp's builtins use it for XLA's CPU code generation only — a no-op rounding
  that keeps ``a / sqrt(x)`` from becoming a slow rsqrt (``linalg.div_sqrt``), and float64 products
  rounded to float32 before a cast (``random.fmul``). On Triton the first is the identity and the
  second a float32 round trip (same value; subnormals kept rather than flushed).

Example::

    register_rules()   # before lowering or checking a kernel for the Triton backend
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

_registered = False


def _reduce_precision(x: Any, *, exponent_bits: int, mantissa_bits: int) -> Any:
    info = jnp.finfo(x.dtype)
    if (exponent_bits, mantissa_bits) == (info.nexp, info.nmant):
        return x
    if (exponent_bits, mantissa_bits) == (8, 23):
        return x.astype(jnp.float32).astype(x.dtype)
    if (exponent_bits, mantissa_bits) == (5, 10):
        return x.astype(jnp.float16).astype(x.dtype)
    raise NotImplementedError(f"reduce_precision to e{exponent_bits}m{mantissa_bits} on the Triton backend")


def register_rules() -> None:
    """Add jwarp's rules to the Triton lowering table (where JAX has none)."""
    global _registered
    if _registered:
        return
    from jax._src.pallas.triton import lowering

    if lax.reduce_precision_p not in lowering.triton_lowering_rules:
        lowering.triton_lowering_rules[lax.reduce_precision_p] = lowering.lower_fun(
            _reduce_precision, multiple_results=False)
    _registered = True


__all__ = ["register_rules"]
