"""Benchmark workloads. Each module has ``NAME`` and ``cases(ctx) -> list[Case]``; its Warp-API
version is a function taking the ``wp`` module (``jwarp`` or real ``warp``) as a parameter, so the
same kernel source runs under both, and its JAX version is hand-written jitted jnp code."""

from benchmarks.workloads import (cloth, first_launch, geometry, launch, matrix_store, nbody, saxpy, stencil, tape,
                                  tile_gemm, trig)

WORKLOADS = {m.NAME: m for m in (saxpy, launch, stencil, matrix_store, nbody, cloth, tape, first_launch, tile_gemm,
                                 trig, geometry)}

__all__ = ["WORKLOADS"]
