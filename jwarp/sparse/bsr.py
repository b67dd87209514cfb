"""Block sparse row (BSR) matrices of ``warp.sparse``, on JAX.

A :class:`BsrMatrix` of ``nrow`` x ``ncol`` blocks stores row ``r``'s blocks at
``offsets[r]:offsets[r+1]`` of ``columns`` (sorted within each row) and ``values`` (one
block each: a scalar, or a ``wp.mat`` of ``block_shape``). The structure (which blocks
exist) is built on the host; block values are combined with JAX segment sums, so sums of
duplicate triplets, products and matrix-vector products run as XLA programs on the
matrix's device. Only Warp's compact topology is provided: ``nnz`` is exact and the arrays
hold exactly ``nnz`` blocks.

Example:
    >>> import jwarp as wp
    >>> from jwarp.sparse import bsr_from_triplets, bsr_mv
    >>> A = bsr_from_triplets(2, 2, wp.array([0, 1, 1], dtype=int), wp.array([1, 0, 0], dtype=int),
    ...                       wp.array([1.0, 2.0, 3.0], dtype=float))
    >>> A.offsets.numpy().tolist(), A.columns.numpy().tolist(), A.values.numpy().tolist()
    ([0, 1, 2], [1, 0], [1.0, 5.0])
    >>> bsr_mv(A, wp.array([1.0, 2.0], dtype=float)).numpy().tolist()
    [2.0, 5.0]
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import jwarp as wp
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import type_name
from jwarp.runtime import storage


def _block_shape(block_type: Any) -> tuple[int, int]:
    if composites.is_composite(block_type):
        if len(block_type._shape_) != 2:
            raise TypeError(f"BSR blocks must be scalars or matrices, got {type_name(block_type)}")
        return tuple(block_type._shape_)
    return (1, 1)


def _block_type(scalar_type: Any, block_shape: tuple[int, int]) -> Any:
    return scalar_type if block_shape == (1, 1) else wp.types.matrix(shape=block_shape, dtype=scalar_type)


class BsrMatrix:
    """A block sparse row matrix (see module docstring)."""

    def __init__(self, nrow: int, ncol: int, block_type: Any, device: Any = None):
        self.nrow, self.ncol = int(nrow), int(ncol)
        self.values_type = block_type
        self.device = wp.get_device(device)
        self.offsets = wp.zeros(self.nrow + 1, dtype=int, device=self.device)
        self.columns = wp.zeros(0, dtype=int, device=self.device)
        self.values = wp.zeros(0, dtype=block_type, device=self.device)

    # -- Warp's attributes -----------------------------------------------------------------------
    @property
    def nnz(self) -> int:
        return self.columns.shape[0]

    def nnz_sync(self) -> int:
        """The number of blocks (exact here: no device-side count to wait for)."""
        return self.nnz

    def notify_nnz_changed(self, nnz: int | None = None) -> None:
        """Accepted for Warp compatibility (jwarp's ``nnz`` is always exact)."""

    @property
    def block_shape(self) -> tuple[int, int]:
        return _block_shape(self.values_type)

    @property
    def block_size(self) -> int:
        return self.block_shape[0] * self.block_shape[1]

    @property
    def scalar_type(self) -> Any:
        return storage.scalar_of(self.values_type)

    @property
    def dtype(self) -> Any:
        return self.scalar_type

    @property
    def shape(self) -> tuple[int, int]:
        return (self.nrow * self.block_shape[0], self.ncol * self.block_shape[1])

    @property
    def requires_grad(self) -> bool:
        return self.values.requires_grad

    def scalar_values(self) -> Any:
        """The values as an array of scalars of shape ``(nnz, *block_shape)``."""
        return wp.array(self._blocks(), dtype=self.scalar_type, device=self.device)

    def uncompress_rows(self, out: Any = None) -> Any:
        """The block row of every block."""
        rows = wp.array(self._rows(), dtype=int, device=self.device)
        if out is not None:
            out.assign(rows)
            return out
        return rows

    def transpose(self) -> BsrMatrix:
        return bsr_transposed(self)

    @property
    def T(self) -> BsrMatrix:  # noqa: N802 (Warp's name)
        return bsr_transposed(self)

    # -- internal COO view -----------------------------------------------------------------------
    def _rows(self) -> np.ndarray:
        offsets = self.offsets.numpy()
        return np.repeat(np.arange(self.nrow, dtype=np.int32), np.diff(offsets))

    def _blocks(self) -> jax.Array:
        """Values as a jax array of shape (nnz, bh, bw)."""
        return wp.to_jax(self.values).reshape((self.nnz, *self.block_shape))

    def _set(self, rows: np.ndarray, cols: np.ndarray, blocks: jax.Array) -> None:
        """Replace the contents by COO triplets with unique (row, col) keys sorted row-major."""
        self.offsets = wp.array(np.searchsorted(rows, np.arange(self.nrow + 1)).astype(np.int32), dtype=int,
                                device=self.device)
        self.columns = wp.array(cols.astype(np.int32), dtype=int, device=self.device) if len(cols) else \
            wp.zeros(0, dtype=int, device=self.device)
        shape = (len(cols),) if self.block_shape == (1, 1) else (len(cols), *self.block_shape)
        with storage.x64():
            data = jnp.asarray(blocks).astype(self.scalar_type._np_dtype).reshape(shape)
        self.values = wp.from_jax(data, dtype=self.values_type) if len(cols) else \
            wp.zeros(0, dtype=self.values_type, device=self.device)

    # -- operators -------------------------------------------------------------------------------
    def __add__(self, other: BsrMatrix) -> BsrMatrix:
        return bsr_axpy(other, bsr_copy(self))

    def __sub__(self, other: BsrMatrix) -> BsrMatrix:
        return bsr_axpy(other, bsr_copy(self), alpha=-1.0)

    def __neg__(self) -> BsrMatrix:
        return bsr_scale(bsr_copy(self), -1.0)

    def __mul__(self, alpha: Any) -> BsrMatrix:
        return bsr_scale(bsr_copy(self), alpha)

    __rmul__ = __mul__

    def __matmul__(self, other: Any) -> Any:
        return bsr_mm(self, other) if isinstance(other, BsrMatrix) else bsr_mv(self, other)

    def __repr__(self) -> str:
        return (f"BsrMatrix(shape={self.shape}, block_shape={self.block_shape}, nnz={self.nnz}, "
                f"dtype={type_name(self.scalar_type)})")


def _compact_only(function: str, options: dict) -> None:
    """Warp's padded/masked topologies and reusable work arrays are not provided."""
    topology = options.get("topology")
    if topology not in (None, "compact"):
        raise NotImplementedError(f"{function}(topology={topology!r}) is not implemented in jwarp (compact only)")


def _combine(nrow: int, ncol: int, rows: np.ndarray, cols: np.ndarray, blocks: Any) -> tuple:
    """Sum blocks with equal (row, col) and sort row-major: (rows, cols, summed blocks)."""
    if len(rows) == 0:
        return rows, cols, blocks
    keys = rows.astype(np.int64) * max(ncol, 1) + cols.astype(np.int64)
    unique, inverse = np.unique(keys, return_inverse=True)
    with storage.x64():
        summed = jax.ops.segment_sum(blocks, jnp.asarray(inverse.reshape(-1)), num_segments=len(unique))
    return (unique // max(ncol, 1)).astype(np.int32), (unique % max(ncol, 1)).astype(np.int32), summed


def bsr_zeros(rows_of_blocks: int, cols_of_blocks: int, block_type: Any, device: Any = None, **_: Any) -> BsrMatrix:
    """An empty ``rows_of_blocks`` x ``cols_of_blocks`` matrix of ``block_type`` blocks."""
    _compact_only("bsr_zeros", _)
    return BsrMatrix(rows_of_blocks, cols_of_blocks, block_type, device)


def bsr_set_zero(bsr: BsrMatrix, rows_of_blocks: int | None = None, cols_of_blocks: int | None = None,
                 **_: Any) -> None:
    """Remove every block (and optionally resize)."""
    _compact_only("bsr_set_zero", _)
    bsr.nrow = bsr.nrow if rows_of_blocks is None else int(rows_of_blocks)
    bsr.ncol = bsr.ncol if cols_of_blocks is None else int(cols_of_blocks)
    empty = np.zeros(0, np.int32)
    bsr._set(empty, empty, jnp.zeros((0, *bsr.block_shape)))


def bsr_set_from_triplets(dest: BsrMatrix, rows: Any, columns: Any, values: Any = None, count: Any = None,
                          prune_numerical_zeros: bool = True, **_: Any) -> None:
    """Fill ``dest`` from (row, column, block) triplets: duplicates are summed; triplets whose
    block is all zeros are dropped when ``prune_numerical_zeros``; out-of-range ones are ignored."""
    _compact_only("bsr_set_from_triplets", _)
    r = np.asarray(rows.numpy() if hasattr(rows, "numpy") else rows).astype(np.int64).reshape(-1)
    c = np.asarray(columns.numpy() if hasattr(columns, "numpy") else columns).astype(np.int64).reshape(-1)
    n = len(r) if count is None else int(np.asarray(count.numpy() if hasattr(count, "numpy") else count).reshape(-1)[0])
    r, c = r[:n], c[:n]
    if values is None:
        blocks = jnp.zeros((n, *dest.block_shape), dest.scalar_type._np_dtype)
    else:
        with storage.x64():
            blocks = jnp.asarray(wp.to_jax(values) if isinstance(values, wp.array) else values)
            blocks = blocks.reshape((-1, *dest.block_shape))[:n].astype(dest.scalar_type._np_dtype)
    keep = (r >= 0) & (r < dest.nrow) & (c >= 0) & (c < dest.ncol)
    if prune_numerical_zeros and values is not None:
        keep &= np.asarray(jnp.any(blocks.reshape(n, -1) != 0, axis=1))
    index = np.nonzero(keep)[0]
    rows_out, cols_out, summed = _combine(dest.nrow, dest.ncol, r[index], c[index], blocks[index])
    dest._set(rows_out, cols_out, summed)


def bsr_from_triplets(rows_of_blocks: int, cols_of_blocks: int, rows: Any, columns: Any, values: Any,
                      prune_numerical_zeros: bool = True) -> BsrMatrix:
    """A new matrix from (row, column, block) triplets (see :func:`bsr_set_from_triplets`)."""
    block_type = values.dtype
    out = BsrMatrix(rows_of_blocks, cols_of_blocks, block_type, values.device)
    bsr_set_from_triplets(out, rows, columns, values, prune_numerical_zeros=prune_numerical_zeros)
    return out


def bsr_copy(A: BsrMatrix, scalar_type: Any = None, block_shape: tuple | None = None, structure_only: bool = False,
             **_: Any) -> BsrMatrix:
    """A copy of ``A`` (optionally with another scalar type; zero blocks if ``structure_only``)."""
    _compact_only("bsr_copy", _)
    if block_shape is not None and tuple(block_shape) != A.block_shape:
        raise NotImplementedError("bsr_copy() to another block shape is not implemented in jwarp")
    scalar = A.scalar_type if scalar_type is None else (scalars.canonical_scalar(scalar_type) or scalar_type)
    out = BsrMatrix(A.nrow, A.ncol, _block_type(scalar, A.block_shape), A.device)
    blocks = jnp.zeros_like(A._blocks()) if structure_only else A._blocks()
    out._set(A._rows(), A.columns.numpy(), blocks)
    return out


def bsr_assign(dest: BsrMatrix, src: BsrMatrix, structure_only: bool = False, **_: Any) -> None:
    """Make ``dest`` a copy of ``src`` (converted to ``dest``'s scalar type)."""
    _compact_only("bsr_assign", _)
    dest.nrow, dest.ncol = src.nrow, src.ncol
    blocks = jnp.zeros_like(src._blocks()) if structure_only else src._blocks()
    dest._set(src._rows(), src.columns.numpy(), blocks)


def bsr_transposed(A: BsrMatrix) -> BsrMatrix:
    """The transpose (blocks transposed too)."""
    bh, bw = A.block_shape
    out = BsrMatrix(A.ncol, A.nrow, _block_type(A.scalar_type, (bw, bh)), A.device)
    rows, cols, blocks = _combine(A.ncol, A.nrow, A.columns.numpy(), A._rows(), jnp.swapaxes(A._blocks(), 1, 2))
    out._set(rows, cols, blocks)
    return out


def bsr_scale(x: BsrMatrix, alpha: Any) -> BsrMatrix:
    """Multiply every block of ``x`` by ``alpha`` in place; returns ``x``."""
    x._set(x._rows(), x.columns.numpy(), x._blocks() * float(alpha))
    return x


def bsr_axpy(x: BsrMatrix, y: BsrMatrix | None = None, alpha: Any = 1.0, beta: Any = 1.0, **_: Any) -> BsrMatrix:
    """``y = alpha * x + beta * y`` (``y`` gains ``x``'s blocks); a new ``y`` when None."""
    _compact_only("bsr_axpy", _)
    if y is None:
        y = bsr_zeros(x.nrow, x.ncol, x.values_type, x.device)
    if (x.nrow, x.ncol, x.block_shape) != (y.nrow, y.ncol, y.block_shape):
        raise ValueError(f"bsr_axpy: matrices of different shapes {x.shape} and {y.shape}")
    rows = np.concatenate([x._rows(), y._rows()])
    cols = np.concatenate([x.columns.numpy(), y.columns.numpy()])
    with storage.x64():
        blocks = jnp.concatenate([x._blocks() * float(alpha), y._blocks().astype(x._blocks().dtype) * float(beta)])
    y._set(*_combine(y.nrow, y.ncol, rows, cols, blocks))
    return y


def bsr_mv(A: BsrMatrix, x: Any, y: Any = None, alpha: Any = 1.0, beta: Any = 0.0, transpose: bool = False,
           **_: Any) -> Any:
    """``y = alpha * A @ x + beta * y`` (``A.T`` with ``transpose``); a new ``y`` when None."""
    M = bsr_transposed(A) if transpose else A
    bh, bw = M.block_shape
    with storage.x64():
        xs = wp.to_jax(x).reshape((M.ncol, bw)).astype(M.scalar_type._np_dtype)
        products = jnp.einsum("kij,kj->ki", M._blocks(), xs[jnp.asarray(M.columns.numpy())])
        result = jax.ops.segment_sum(products, jnp.asarray(M._rows()), num_segments=M.nrow) * float(alpha)
    if y is None:
        y = wp.zeros(M.nrow, dtype=x.dtype, device=x.device)
    elif float(beta) != 0.0:
        with storage.x64():
            result = result + float(beta) * wp.to_jax(y).reshape((M.nrow, bh)).astype(result.dtype)
    with storage.x64():
        y.assign(np.asarray(result).reshape(y.numpy().shape))
    return y


def bsr_mm(x: BsrMatrix, y: BsrMatrix, z: BsrMatrix | None = None, alpha: Any = 1.0, beta: Any = 0.0,
           **_: Any) -> BsrMatrix:
    """``z = alpha * x @ y + beta * z``; a new ``z`` when None."""
    _compact_only("bsr_mm", _)
    if x.ncol != y.nrow or x.block_shape[1] != y.block_shape[0]:
        raise ValueError(f"bsr_mm: incompatible shapes {x.shape} and {y.shape}")
    block_type = _block_type(x.scalar_type, (x.block_shape[0], y.block_shape[1]))
    if z is None:
        z = bsr_zeros(x.nrow, y.ncol, block_type, x.device)
    x_rows, x_cols = x._rows(), x.columns.numpy()
    y_offsets, y_cols = y.offsets.numpy(), y.columns.numpy()
    counts = y_offsets[x_cols + 1] - y_offsets[x_cols]  # partners of each block of x in y's row
    x_index = np.repeat(np.arange(len(x_cols)), counts)
    starts = np.repeat(y_offsets[x_cols], counts)
    y_index = starts + (np.arange(len(x_index)) - np.repeat(np.cumsum(counts) - counts, counts))
    with storage.x64():
        blocks = jnp.einsum("kij,kjl->kil", x._blocks()[jnp.asarray(x_index)], y._blocks()[jnp.asarray(y_index)])
    product = bsr_zeros(x.nrow, y.ncol, block_type, x.device)
    product._set(*_combine(x.nrow, y.ncol, x_rows[x_index], y_cols[y_index], blocks))
    return bsr_axpy(product, z, alpha=alpha, beta=beta)


def bsr_diag(diag: Any = None, rows_of_blocks: int | None = None, cols_of_blocks: int | None = None,
             block_type: Any = None, device: Any = None) -> BsrMatrix:
    """A block-diagonal matrix: ``diag`` is an array of blocks, or one block repeated on
    ``rows_of_blocks`` rows (``cols_of_blocks`` defaults to the row count)."""
    if isinstance(diag, wp.array):
        block_type, device = diag.dtype, diag.device
        nrow = diag.shape[0] if rows_of_blocks is None else int(rows_of_blocks)
        blocks = wp.to_jax(diag)
    else:
        block_type = block_type if block_type is not None else type(diag) if diag is not None else wp.float32
        nrow = int(rows_of_blocks)
        one = np.asarray(0.0 if diag is None else (diag.value if hasattr(diag, "value") else diag))
        blocks = jnp.broadcast_to(jnp.asarray(one).reshape(_block_shape(block_type)), (nrow, *_block_shape(block_type)))
    out = BsrMatrix(nrow, nrow if cols_of_blocks is None else int(cols_of_blocks), block_type, device)
    k = min(out.nrow, out.ncol, blocks.shape[0])
    index = np.arange(k, dtype=np.int32)
    out._set(index, index, jnp.asarray(blocks).reshape((-1, *out.block_shape))[:k])
    return out


def bsr_identity(rows_of_blocks: int, block_type: Any, device: Any = None) -> BsrMatrix:
    """The identity, as ``rows_of_blocks`` identity blocks of ``block_type``."""
    eye = np.eye(_block_shape(block_type)[0], dtype=storage.scalar_of(block_type)._np_dtype)
    out = BsrMatrix(rows_of_blocks, rows_of_blocks, block_type, device)
    index = np.arange(rows_of_blocks, dtype=np.int32)
    out._set(index, index, jnp.broadcast_to(jnp.asarray(eye), (rows_of_blocks, *eye.shape)))
    return out


def bsr_get_diag(A: BsrMatrix, out: Any = None) -> Any:
    """The diagonal blocks (zero where a row has none)."""
    n = min(A.nrow, A.ncol)
    rows, cols = A._rows(), A.columns.numpy()
    on_diag = np.nonzero(rows == cols)[0]
    with storage.x64():
        diag = jnp.zeros((n, *A.block_shape), A.scalar_type._np_dtype).at[jnp.asarray(rows[on_diag])].add(
            A._blocks()[jnp.asarray(on_diag)])
    shape = (n,) if A.block_shape == (1, 1) else (n, *A.block_shape)
    result = wp.array(np.asarray(diag).reshape(shape), dtype=A.values_type, device=A.device)
    if out is not None:
        out.assign(result)
        return out
    return result


__all__ = ["BsrMatrix", "bsr_assign", "bsr_axpy", "bsr_copy", "bsr_diag", "bsr_from_triplets", "bsr_get_diag",
           "bsr_identity", "bsr_mm", "bsr_mv", "bsr_scale", "bsr_set_from_triplets", "bsr_set_zero",
           "bsr_transposed", "bsr_zeros"]
