"""Small Python-scope helpers of Warp's top-level namespace.

Example:
    >>> import jwarp as wp
    >>> wp.dtype_to_numpy(wp.float16)
    <class 'numpy.float16'>
    >>> [float(x) for x in wp.transform_expand([1, 2, 3, 0, 0, 0, 1])]
    [1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0]
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jwarp.lang import composites, scalars
from jwarp.lang.introspection import dtype_to_numpy  # noqa: F401  (public as wp.dtype_to_numpy)


def transform_expand(t: Sequence[float]) -> Any:
    """A ``wp.transformf`` from a flat 7-element sequence ``(px, py, pz, qx, qy, qz, qw)``."""
    transform = composites.transformation(scalars.float32)
    return transform(np.asarray(t[0:3]), np.asarray(t[3:7]))


__all__ = ["transform_expand", "dtype_to_numpy"]
