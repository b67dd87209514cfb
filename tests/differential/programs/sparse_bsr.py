"""warp.sparse BSR matrices: triplets (duplicates summed, zeros pruned), mv, mm, transpose,
axpy, scale, diag, identity, get_diag, operators — scalar and 2x2 blocks. Only the first
nnz_sync() entries of the storage arrays are compared (Warp's arrays may be longer)."""

import importlib

sp = importlib.import_module(wp.__name__ + ".sparse")


def structure(name, A, out):
    n = A.nnz_sync()
    out[name + "_offsets"] = A.offsets.numpy()[: A.nrow + 1].copy()
    out[name + "_columns"] = A.columns.numpy()[:n].copy()
    out[name + "_values"] = A.values.numpy()[:n].copy()
    out[name + "_shape"] = np.array([A.nrow, A.ncol, *A.shape, *A.block_shape])


def run():
    out = {}
    rng = np.random.default_rng(3)
    rows = wp.array(rng.integers(0, 5, 20), dtype=int)
    cols = wp.array(rng.integers(0, 4, 20), dtype=int)
    vals = rng.standard_normal(20).astype(np.float32)
    vals[[2, 7]] = 0.0
    A = sp.bsr_from_triplets(5, 4, rows, cols, wp.array(vals, dtype=float))
    structure("A", A, out)
    x = wp.array(rng.standard_normal(4).astype(np.float32), dtype=float)
    out["Ax"] = sp.bsr_mv(A, x).numpy().copy()
    y = wp.array(np.ones(5, np.float32), dtype=float)
    sp.bsr_mv(A, x, y, alpha=2.0, beta=0.5)
    out["Ax_axpby"] = y.numpy().copy()
    out["ATy"] = sp.bsr_mv(A, wp.array(np.arange(5, dtype=np.float32), dtype=float), transpose=True).numpy().copy()
    structure("AT", sp.bsr_transposed(A), out)
    structure("ATA", sp.bsr_mm(sp.bsr_transposed(A), A), out)
    structure("sum", sp.bsr_axpy(A, sp.bsr_copy(A), alpha=2.0, beta=-1.0), out)
    structure("scaled", sp.bsr_scale(sp.bsr_copy(A), 3.0), out)
    structure("ops", (A + A) @ sp.bsr_transposed(A), out)
    out["diag"] = sp.bsr_get_diag(A).numpy().copy()

    mrows = wp.array([0, 1, 0, 2, 1], dtype=int)
    mcols = wp.array([0, 1, 2, 2, 1], dtype=int)
    mvals = wp.array(rng.standard_normal((5, 2, 2)).astype(np.float32), dtype=wp.mat22)
    M = sp.bsr_from_triplets(3, 3, mrows, mcols, mvals)
    structure("M", M, out)
    v = wp.array(rng.standard_normal((3, 2)).astype(np.float32), dtype=wp.vec2)
    out["Mv"] = sp.bsr_mv(M, v).numpy().copy()
    structure("MMT", sp.bsr_mm(M, sp.bsr_transposed(M)), out)
    structure("MplusI", sp.bsr_axpy(sp.bsr_identity(3, wp.mat22), sp.bsr_copy(M)), out)
    structure("D", sp.bsr_diag(wp.array(np.arange(1, 4, dtype=np.float32), dtype=float)), out)
    out["Mdiag"] = sp.bsr_get_diag(M).numpy().copy()
    return out
