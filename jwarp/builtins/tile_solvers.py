"""Tile dense solvers: ``tile_cholesky``, ``tile_cholesky_solve``, ``tile_lower_solve``,
``tile_upper_solve`` (each with its ``_inplace`` form) and ``tile_diag_add``.

Each lowers to the dense JAX operation batched over the blocks of the launch (the leading grid
axes of a tile's data). The Cholesky factorization is an unblocked column loop, not LAPACK's
``potrf``, so that a matrix that is not positive definite gives Warp's partial result (NaN from
the first bad pivot on) instead of an all-NaN tile.

Gradients follow Warp 1.19: ``tile_cholesky`` (lower triangle of ``A``) and ``tile_lower_solve``
differentiate; ``tile_upper_solve``, ``tile_cholesky_solve`` and ``tile_diag_add`` have no adjoint
(no gradient reaches their inputs); the ``_inplace`` forms pass the gradient through unchanged.

Example (kernel code):
    a = wp.tile_load(A, shape=(N, N))
    l = wp.tile_cholesky(a)                # a == l @ l^T
    x = wp.tile_cholesky_solve(l, b_tile)  # a @ x == b
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.scipy.linalg import solve_triangular

from jwarp.builtins.common import Call, Value
from jwarp.builtins.tile_core import require_tile
from jwarp.compiler import tiles
from jwarp.compiler.registry import builtin
from jwarp.errors import WarpCodegenError
from jwarp.lang import scalars
from jwarp.lang.arrays import type_name
from jwarp.compiler.selects import where

FILL_MODES = ("lower", "upper")


def _without_adjoint(result: Value) -> Value:
    """``result`` as a constant for the backward pass: Warp 1.19 has no adjoint for
    ``tile_upper_solve``, ``tile_cholesky_solve`` and ``tile_diag_add``, so no gradient reaches
    their inputs."""
    return Value(result.type, jax.lax.stop_gradient(result.data))


def _assign_in_place(call: Call, index: int, name: str, before: Value, result: Value) -> None:
    """Overwrite argument ``index`` with ``result``. Warp's in-place solvers have no adjoint and
    the tile keeps one adjoint buffer, so the gradient passes through them unchanged: forward the
    new value, differentiate as the identity."""
    data = jax.lax.stop_gradient(result.data) + (before.data - jax.lax.stop_gradient(before.data))
    call.assign_back(index, Value(result.type, data), name)


def _fill_mode(call: Call, v: Value | None) -> str:
    mode = "lower" if v is None else v.data
    if mode not in FILL_MODES:
        raise WarpCodegenError(f"wp.{call.name}(): fill_mode must be 'lower' or 'upper', got {mode!r}")
    return mode


def _require_square(call: Call, a: Value, what: str) -> int:
    require_tile(call, a, what)
    t = a.type
    if t.ndim != 2 or t.shape[0] != t.shape[1]:
        raise WarpCodegenError(f"wp.{call.name}(): '{what}' must be a square 2-D tile, got shape {t.shape}")
    if not scalars.is_float(t.dtype):
        raise WarpCodegenError(f"wp.{call.name}(): '{what}' must have a float32 or float64 dtype, "
                               f"got {type_name(t.dtype)}")
    return t.shape[0]


def _require_rhs(call: Call, m: Value, y: Value, what: str) -> None:
    require_tile(call, y, what)
    t = y.type
    if t.ndim not in (1, 2) or t.shape[0] != m.type.shape[0]:
        raise WarpCodegenError(f"wp.{call.name}(): '{what}' must have shape ({m.type.shape[0]},) or "
                               f"({m.type.shape[0]}, NRHS), got {t.shape}")
    if t.dtype != m.type.dtype:
        raise WarpCodegenError(f"wp.{call.name}(): the matrix and '{what}' must have the same dtype, got "
                               f"{type_name(m.type.dtype)} and {type_name(t.dtype)}")


def _batch(call: Call) -> int:
    return len(call.ctx.grid)


def _as_columns(call: Call, m: Value, y: Value) -> tuple[jnp.ndarray, jnp.ndarray]:
    """The matrix and right-hand side with common block axes, the right-hand side as ``(..., M, K)``."""
    n = _batch(call)
    a, b = m.data, y.data
    if y.type.ndim == 1:
        b = b[..., None]
    lead = jnp.broadcast_shapes(a.shape[:n], b.shape[:n])
    return jnp.broadcast_to(a, lead + a.shape[n:]), jnp.broadcast_to(b, lead + b.shape[n:])


def _solve(call: Call, m: Value, y: Value, steps: tuple[tuple[bool, int], ...]) -> Value:
    """Apply triangular solves ``(lower, trans)`` in order to the right-hand side ``y``."""
    a, b = _as_columns(call, m, y)
    for lower, trans in steps:
        b = solve_triangular(a, b, trans=trans, lower=lower)
    if y.type.ndim == 1:
        b = b[..., 0]
    return tiles.make_tile(call.ctx, y.type.dtype, y.type.shape, b, y.type.storage)


def _triangular(call: Call, m: Value, y: Value, lower: bool) -> Value:
    _require_square(call, m, "L" if lower else "U")
    _require_rhs(call, m, y, "y" if lower else "z")
    return _solve(call, m, y, ((lower, 0),))


def _cholesky_solve(call: Call, factor: Value, y: Value, fill_mode: Value | None) -> Value:
    _require_square(call, factor, "L")
    _require_rhs(call, factor, y, "y")
    if _fill_mode(call, fill_mode) == "lower":  # L L^T x = y
        return _solve(call, factor, y, ((True, 0), (True, 1)))
    return _solve(call, factor, y, ((False, 1), (False, 0)))  # U^T U x = y


def cholesky_lower(a: jnp.ndarray) -> jnp.ndarray:
    """The lower Cholesky factor of the last two axes of ``a``, reading only its lower triangle.

    Column by column (``L[j, j] = sqrt(a[j, j] - sum L[j, :j]^2)``, then the column below it), so
    a non-positive pivot yields NaN there and in what depends on it, as Warp's fallback does.
    """
    size = a.shape[-1]
    rows = jnp.arange(size)

    def column(j, factor):
        col = a[..., :, j] - jnp.einsum("...ik,...k->...i", factor, factor[..., j, :], precision="highest")
        pivot = jnp.sqrt(jnp.take(col, j, axis=-1))[..., None]
        new = where(rows > j, col / pivot, where(rows == j, pivot, jnp.zeros_like(col)))
        return factor.at[..., :, j].set(new)

    return jax.lax.fori_loop(0, size, column, jnp.zeros_like(a))


def _cholesky(call: Call, a: Value, fill_mode: Value | None) -> Value:
    _require_square(call, a, "A")
    data = a.data
    if _fill_mode(call, fill_mode) == "lower":
        factor = cholesky_lower(data)
    else:  # U = chol(A^T)^T reads the upper triangle
        factor = jnp.swapaxes(cholesky_lower(jnp.swapaxes(data, -1, -2)), -1, -2)
    return tiles.make_tile(call.ctx, a.type.dtype, a.type.shape, factor, a.type.storage)


@builtin("tile_cholesky", group="Tile Primitives", kernel_only=True)
def tile_cholesky(call: Call, A: Value, fill_mode: Value | None = None) -> Value:
    """The Cholesky factor of a symmetric positive-definite tile: ``L`` (``L @ L^T == A``) or with
    ``fill_mode="upper"`` ``U`` (``U^T @ U == A``); the opposite triangle is zero."""
    call.require_kernel()
    return _cholesky(call, A, fill_mode)


@builtin("tile_cholesky_inplace", group="Tile Primitives", kernel_only=True)
def tile_cholesky_inplace(call: Call, A: Value, fill_mode: Value | None = None) -> None:
    """``A`` overwritten by its Cholesky factor (see ``tile_cholesky``)."""
    call.require_kernel()
    _assign_in_place(call, 0, "A", A, _cholesky(call, A, fill_mode))


@builtin("tile_cholesky_solve", group="Tile Primitives", kernel_only=True)
def tile_cholesky_solve(call: Call, L: Value, y: Value, fill_mode: Value | None = None) -> Value:
    """``x`` with ``A @ x == y`` given ``A``'s Cholesky factor ``L`` (``U`` with ``fill_mode="upper"``)."""
    call.require_kernel()
    return _without_adjoint(_cholesky_solve(call, L, y, fill_mode))


@builtin("tile_cholesky_solve_inplace", group="Tile Primitives", kernel_only=True)
def tile_cholesky_solve_inplace(call: Call, L: Value, y: Value, fill_mode: Value | None = None) -> None:
    """``y`` overwritten by ``tile_cholesky_solve(L, y, fill_mode)``."""
    call.require_kernel()
    _assign_in_place(call, 1, "y", y, _cholesky_solve(call, L, y, fill_mode))


@builtin("tile_lower_solve", group="Tile Primitives", kernel_only=True)
def tile_lower_solve(call: Call, L: Value, y: Value) -> Value:
    """``z`` with ``L @ z == y``, reading only the lower triangle of ``L``."""
    call.require_kernel()
    return _triangular(call, L, y, lower=True)


@builtin("tile_lower_solve_inplace", group="Tile Primitives", kernel_only=True)
def tile_lower_solve_inplace(call: Call, L: Value, y: Value) -> None:
    """``y`` overwritten by ``tile_lower_solve(L, y)``."""
    call.require_kernel()
    _assign_in_place(call, 1, "y", y, _triangular(call, L, y, lower=True))


@builtin("tile_upper_solve", group="Tile Primitives", kernel_only=True)
def tile_upper_solve(call: Call, U: Value, z: Value) -> Value:
    """``x`` with ``U @ x == z``, reading only the upper triangle of ``U``."""
    call.require_kernel()
    return _without_adjoint(_triangular(call, U, z, lower=False))


@builtin("tile_upper_solve_inplace", group="Tile Primitives", kernel_only=True)
def tile_upper_solve_inplace(call: Call, U: Value, z: Value) -> None:
    """``z`` overwritten by ``tile_upper_solve(U, z)``."""
    call.require_kernel()
    _assign_in_place(call, 1, "z", z, _triangular(call, U, z, lower=False))


@builtin("tile_diag_add", group="Tile Primitives", kernel_only=True)
def tile_diag_add(call: Call, a: Value, d: Value) -> Value:
    """A new tile: ``a`` with the 1-D tile ``d`` added to its diagonal (no adjoint, as Warp 1.19)."""
    call.require_kernel()
    require_tile(call, a, "a")
    require_tile(call, d, "d")
    size = a.type.shape[0]
    if a.type.ndim != 2 or a.type.shape[1] != size or d.type.shape != (size,):
        raise WarpCodegenError(f"wp.tile_diag_add(): expected a square tile (N, N) and a tile (N,), got "
                               f"{a.type.shape} and {d.type.shape}")
    if a.type.dtype != d.type.dtype:
        raise WarpCodegenError(f"wp.tile_diag_add(): 'a' and 'd' must have the same dtype, got "
                               f"{type_name(a.type.dtype)} and {type_name(d.type.dtype)}")
    n = _batch(call)
    eye = jnp.eye(size, dtype=bool).reshape((1,) * n + (size, size) + (1,) * (a.data.ndim - n - 2))
    row_values = jnp.expand_dims(d.data, n + 1)  # (..., N, 1, *dtype): element [i, j] reads d[i]
    new = where(eye, a.data + row_values, a.data)
    return _without_adjoint(tiles.make_tile(call.ctx, a.type.dtype, a.type.shape, new, a.type.storage))
