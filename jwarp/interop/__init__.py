"""JAX-facing API: kernels and kernel-launching functions as JAX functions (``jax_kernel``,
``jax_callable``), ``wp.launch`` on traced arrays, and zero-copy exchange (``from_jax``,
``to_jax``, DLPack).

The public names are exported at the top level (``wp.jax_kernel``, ``wp.from_jax``…) by
``jwarp/_extensions.py``; see ``docs/jax_interop.md``.
"""

from jwarp.interop import traced_launch as traced_launch  # registers the execution core's traced-launch hook
