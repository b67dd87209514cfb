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


def transform_expand(t: Sequence[float]) -> Any:
    """A ``wp.transformf`` from a flat 7-element sequence ``(px, py, pz, qx, qy, qz, qw)``."""
    transform = composites.transformation(scalars.float32)
    return transform(np.asarray(t[0:3]), np.asarray(t[3:7]))


def dtype_to_numpy(warp_dtype: Any) -> type:
    """The numpy scalar type of a Warp scalar type (``TypeError`` for anything else, as Warp)."""
    if warp_dtype in (bool, scalars.bool_):
        return np.bool_
    if scalars.is_scalar_type(warp_dtype):
        return warp_dtype._np_dtype.type
    raise TypeError(f"Cannot convert {warp_dtype} to a NumPy type")


__all__ = ["transform_expand", "dtype_to_numpy"]
