"""Launch signatures: everything about a launch that a compiled kernel is specialised on.

The runtime turns launch arguments into a :class:`Signature` (static: types, shapes, view
chains, grid) plus a flat list of buffers (``bases``, the arrays' storage) and ``values``
(scalar/composite arguments as jax arrays). The compiler never sees an array handle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ArraySpec:
    """A kernel-visible array: element dtype, view shape, which base buffer, and the view chain.

    For an indexed array (``wp.indexedarray``), ``indices`` holds one entry per dimension of the
    viewed data: None, or the ArraySpec of the 1-d int32 index array that selects along it."""

    dtype: Any
    shape: tuple[int, ...]
    base: int
    chain: tuple = ()
    indices: tuple = ()


@dataclass(frozen=True)
class ValueSpec:
    """A scalar or composite argument, passed as ``values[index]`` (a jax array)."""

    type: Any
    index: int


@dataclass(frozen=True)
class NoneArraySpec:
    """An array argument (or struct field) that is None: any access is an error."""

    dtype: Any
    ndim: int


@dataclass(frozen=True)
class StructSpec:
    """A struct argument: one spec per field."""

    type: Any
    fields: tuple


@dataclass(frozen=True)
class HandleSpec:
    """A geometry object (HashGrid, Mesh, Bvh, Volume) whose id a launch received.

    ``id_index`` is the ``values`` slot holding the id; ``static`` the object's compile-time facts;
    ``arrays`` and ``values`` its named buffers as ``(name, ArraySpec)`` / ``(name, ValueSpec)``
    pairs. Query builtins find the object by comparing an id with the bound objects' ids."""

    kind: str
    id_index: int
    static: tuple = ()
    arrays: tuple = ()
    values: tuple = ()


@dataclass(frozen=True)
class Signature:
    grid: tuple[int, ...]
    params: tuple
    n_bases: int
    n_values: int
    debug: bool = False
    record_trips: bool = False
    loop_bounds: tuple | None = None  # sorted (key, bound) pairs for bounded-mode loops
    block_dim: int = 1
    kernel_dim: int = 1  # components returned by wp.tid() (leading grid axes)
    max_unroll: int | None = None  # the kernel's effective max_unroll option (None: wp.config.max_unroll)
    extra: tuple = field(default=())  # options that change code generation (hashable)
    handles: tuple = ()  # HandleSpec of every geometry object whose id the launch received


def runtime_lanes(sig: Signature) -> bool:
    """Whether the launch runs over a bucket of lanes (``sig.grid``) whose first ``n`` are its
    threads, ``n`` being its last value operand (see :mod:`jwarp.runtime.launch_buckets`)."""
    return bool(dict(sig.extra).get("runtime_lanes"))
