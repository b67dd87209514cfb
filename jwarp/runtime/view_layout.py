"""The memory layout of an array view: its strides and offset within the root array.

A view is a chain of operations (``index``, ``transpose``, ``reshape``) over its root. Applying the
chain to a numpy probe with the root's row-major strides lets numpy compute the view's strides and
offset; the probe's memory is never read.

Example:
    >>> view_probe((4, 4), (("index", ((0, 4, 1), 1)),)).strides  # column 1 of a 4x4 array
    (4,)
"""

from __future__ import annotations

import numpy as np


def view_probe(shape: tuple, chain: tuple, origin: np.ndarray | None = None) -> np.ndarray | None:
    """The view's layout: ``chain`` applied to a probe with row-major strides in elements (numpy
    computes the view's strides and offset from ``origin``; the probe's memory is never read).
    None when a reshape follows a non-contiguous step (that view is a copy)."""
    strides, step = [], 1
    for d in reversed(shape):
        strides.insert(0, step)
        step *= max(int(d), 1)
    origin = np.zeros(1, np.int8) if origin is None else origin
    probe = np.lib.stride_tricks.as_strided(origin, shape=shape, strides=strides, writeable=False)
    for kind, arg in chain:
        if kind == "index":
            probe = probe[tuple(slice(*k) if isinstance(k, tuple) else k for k in arg)]
        elif kind == "transpose":
            probe = probe.transpose(arg + tuple(range(len(arg), probe.ndim)))
        elif kind == "reshape":
            if not probe.flags.c_contiguous:
                return None  # (never copy the probe: its memory is not real)
            new_shape, old_ndim = arg
            try:
                probe = probe.reshape(tuple(new_shape) + probe.shape[old_ndim:])
            except ValueError:  # a reshape of the components (a dtype reinterpretation): dense
                return None
    return probe


def chain_is_contiguous(shape: tuple, chain: tuple) -> bool:
    """Warp's strict check: every stride equals the row-major stride of the view's shape."""
    probe = view_probe(shape, chain)
    if probe is None:
        return False
    expected = 1
    for d, stride in zip(reversed(probe.shape), reversed(probe.strides)):
        if stride != expected:
            return False
        expected *= d
    return True
