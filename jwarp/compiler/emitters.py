"""Which XLA:CPU code emitters compile a kernel's program.

XLA:CPU's default *fusion emitters* compile every fusion as its own LLVM module; for kernels that are
straight-line elementwise code (vector and matrix arithmetic, noise, decompositions, stencils) the
older *elemental emitters* (``xla_cpu_use_fusion_emitters=False``, a per-compile option) compile them
in about half the time and run them as fast or faster. For loops, reductions, gathers and scatters the
older emitters are much slower at run time (measured: an n-body kernel's pair reduction 12.6 → 21.3 ms,
a 2048-iteration loop 5.7x), so those kernels keep the default.

Measured on the 2-core CPU (docs/performance.md, "Cold compile"): the first launch of a fresh
particle kernel 91 → 57 ms; ``vecmath_decomp``'s kernel compiles 13.1 → 7.0 s of CPU.

At optimisation level 0 (``wp.config.optimization_level = 0`` or the module option, Warp's "compile
fast, run slower") every CPU kernel takes the older emitters. Against the default level
(``benchmarks/bench_opt_level.py``): a first launch of a loop or scatter kernel takes 0.68-0.89x (level 0
with XLA's default emitters: 0.82-1.15x), and a 2048-iteration loop runs 2.0-3.0x as long (1.8-1.9x).

Example:
    >>> import jax, jax.numpy as jnp
    >>> straight_line(jax.make_jaxpr(lambda x: jnp.sin(x) * x + 1.0)(1.0).jaxpr)
    True
    >>> straight_line(jax.make_jaxpr(lambda x: jnp.sum(x))(jnp.ones(3)).jaxpr)
    False
"""

from __future__ import annotations

from typing import Any

import jax

# primitives whose code the older emitters make slower (loops, reductions, data-dependent indexing,
# library calls), or that are not plain elementwise work
_KEEP_DEFAULT = (
    "while", "scan", "scatter", "gather", "reduce", "argmax", "argmin", "dot_general", "sort", "cum",
    "custom_call", "fft", "conv_general", "pallas", "rng", "random", "top_k", "select_and",
    "dynamic_slice", "dynamic_update_slice", "all_", "psum", "ppermute", "linear_solve", "triangular_solve",
    "cholesky", "eig", "svd", "qr", "lu",
)

# elementwise primitives whose names start like one of those
_ELEMENTWISE = ("reduce_precision",)

OLDER_EMITTERS = {"xla_cpu_use_fusion_emitters": False}

# level 0 also skips LLVM's expensive passes (measured: five compile-heavy differential programs, four
# compiles each with the on-disk cache off, 24.3/24.7 -> 23.9/23.2 s)
CHEAP_PASSES = {"xla_llvm_disable_expensive_passes": True}


def straight_line(jaxpr: Any) -> bool:
    """Whether ``jaxpr`` (and every jaxpr nested in it) uses no primitive of :data:`_KEEP_DEFAULT`."""
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if "callback" in name or (name not in _ELEMENTWISE and any(name.startswith(p) for p in _KEEP_DEFAULT)):
            return False  # (host callbacks: pure_callback, io_callback, debug_callback)
        for param in eqn.params.values():
            for sub in param if isinstance(param, (tuple, list)) else (param,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns") and not straight_line(inner):
                    return False
    return True


def level_options(*signatures: Any) -> dict:
    """XLA's compile options for the optimisation level the kernels' signatures carry (Warp's
    ``optimization_level`` module option or ``wp.config.optimization_level``, 0-3; the signature's
    ``extra`` entry ``"opt_level"``): ``xla_backend_optimization_level``, which sets the LLVM passes
    XLA runs on the program's code, when every signature names the same level; else ``{}`` (XLA's
    default). Level 0 compiles about a fifth faster (measured: the differential program
    ``geometry_bvh_groups``, 21.2 → 16.2 s of CPU cold) and runs slower code; it also takes XLA:CPU's
    older emitters (:data:`OLDER_EMITTERS`, see the module docstring) and skips LLVM's expensive passes
    (:data:`CHEAP_PASSES`) where the CPU is JAX's backend.

    Example:
        >>> from jwarp.compiler.signature import Signature
        >>> level_options(Signature(grid=(4,), params=(), n_bases=0, n_values=0, extra=(("opt_level", 1),)))
        {'xla_backend_optimization_level': 1}
    """
    levels = {dict(getattr(s, "extra", ())).get("opt_level") for s in signatures}
    if len(levels) != 1 or None in levels:
        return {}
    level = int(levels.pop())
    older = level == 0 and jax.default_backend() == "cpu"  # (a GPU's compiles keep their options as they are)
    return {"xla_backend_optimization_level": level, **({**OLDER_EMITTERS, **CHEAP_PASSES} if older else {})}


def compile_options(jaxpr: Any, operands: Any, level: dict | None = None) -> dict | None:
    """The compile options of a kernel program for ``operands``: the older emitters for a
    straight-line kernel whose operands all live on the CPU, and ``level`` (see
    :func:`level_options`); None for XLA's defaults."""
    emitters = _emitter_options(jaxpr, operands) if jaxpr is not None else None
    merged = {**(emitters or {}), **(level or {})}
    return merged or None


def _emitter_options(jaxpr: Any, operands: Any) -> dict | None:
    platforms = {d.platform for leaf in jax.tree_util.tree_leaves(operands) for d in _devices(leaf)}
    if (platforms or {jax.default_backend()}) != {"cpu"}:
        return None
    return OLDER_EMITTERS if straight_line(jaxpr) else None


def _devices(leaf: Any) -> Any:
    devices = getattr(leaf, "devices", None)
    return devices() if callable(devices) else ()


__all__ = ["OLDER_EMITTERS", "compile_options", "level_options", "straight_line"]
