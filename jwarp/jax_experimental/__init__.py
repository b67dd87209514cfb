"""Warp's import path for the JAX bridge (``warp.jax_experimental``): the same objects as
``wp.jax_kernel`` / ``wp.jax_callable``, for programs written against it.

Example:
    >>> from jwarp.jax_experimental import jax_kernel
    >>> import jwarp as wp
    >>> jax_kernel is wp.jax_kernel
    True
"""

from jwarp.interop.callable import JaxCallableGraphMode as GraphMode
from jwarp.interop.callable import JaxCallableGraphMode as JaxCallableGraphMode
from jwarp.interop.callable import jax_callable as jax_callable
from jwarp.interop.jax_kernel import JaxModulePreloadMode as JaxModulePreloadMode
from jwarp.interop.jax_kernel import JaxModulePreloadMode as ModulePreloadMode
from jwarp.interop.jax_kernel import jax_kernel as jax_kernel

__all__ = ["GraphMode", "JaxCallableGraphMode", "JaxModulePreloadMode", "ModulePreloadMode", "jax_callable",
           "jax_kernel"]
