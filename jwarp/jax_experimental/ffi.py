"""Warp's ``warp.jax_experimental.ffi`` path: the same JAX bridge as ``wp.jax_kernel``."""

from jwarp.jax_experimental import (  # noqa: F401
    GraphMode as GraphMode,
    JaxCallableGraphMode as JaxCallableGraphMode,
    JaxModulePreloadMode as JaxModulePreloadMode,
    ModulePreloadMode as ModulePreloadMode,
    jax_callable as jax_callable,
    jax_kernel as jax_kernel,
)
