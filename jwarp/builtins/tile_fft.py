"""Tile FFT builtins: ``tile_fft`` and ``tile_ifft``, in place along a tile's last axis.

Warp's convention: each ``vec2`` element is a complex number (component 0 real, 1 imaginary) and
both transforms are unnormalized (``ifft(fft(x)) == N * x``). Lowered to ``jnp.fft`` batched over
the blocks of the launch and the tile's leading axes; the adjoint follows from JAX (the forward
transform's gradient is the unnormalized inverse transform of the incoming gradient and vice versa).

Example (kernel code):
    x = wp.tile_load(signal, shape=(2, 64))   # a tile of vec2f
    wp.tile_fft(x)                             # x[b, k] = sum_n x[b, n] exp(-2 pi i k n / 64)
    wp.tile_store(spectrum, x)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jwarp.builtins.common import Call, Value
from jwarp.builtins.tile_core import require_tile
from jwarp.compiler import tiles
from jwarp.compiler.registry import builtin
from jwarp.errors import WarpCodegenError
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import type_name


def _require_complex_tile(call: Call, inout: Value) -> None:
    require_tile(call, inout, "inout")
    t = inout.type
    if t.storage != "register":
        raise WarpCodegenError(f"wp.{call.name}(): argument must have 'register' storage, got {t.storage}")
    dtype = t.dtype
    if not (composites.is_composite(dtype) and tuple(dtype._shape_) == (2,) and dtype._wp_scalar_type_ in
            (scalars.float32, scalars.float64)):
        raise WarpCodegenError(f"wp.{call.name}(): argument must be a tile of vec2f or vec2d (interpreted as "
                               f"complex) entries, got {type_name(dtype)}")
    if t.ndim < 2:
        raise WarpCodegenError(f"wp.{call.name}(): argument must be a tile with at least 2 dimensions, "
                               f"got {t.ndim}D")


def _transform(call: Call, inout: Value, inverse: bool) -> None:
    call.require_kernel()
    _require_complex_tile(call, inout)
    data = inout.data  # (*grid, *tile_shape, 2)
    z = jax.lax.complex(data[..., 0], data[..., 1])
    if inverse:
        z = jnp.fft.ifft(z, axis=-1, norm="forward")  # unnormalized: no 1/N
    else:
        z = jnp.fft.fft(z, axis=-1)
    out = jnp.stack([jnp.real(z), jnp.imag(z)], axis=-1).astype(data.dtype)
    result = tiles.make_tile(call.ctx, inout.type.dtype, inout.type.shape, out, inout.type.storage)
    call.assign_back(0, result, "inout")


@builtin("tile_fft", group="Tile Primitives", kernel_only=True)
def tile_fft(call: Call, inout: Value) -> None:
    """The forward unnormalized DFT along the last axis of a ``vec2`` tile, in place."""
    _transform(call, inout, inverse=False)


@builtin("tile_ifft", group="Tile Primitives", kernel_only=True)
def tile_ifft(call: Call, inout: Value) -> None:
    """The inverse unnormalized DFT (no ``1/N``) along the last axis of a ``vec2`` tile, in place."""
    _transform(call, inout, inverse=True)
