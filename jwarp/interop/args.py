"""Parameters of functions handed to JAX (``jax_kernel``, ``jax_callable``): which are inputs,
in-out arrays and outputs, how JAX values are checked against them, and output shapes.

Follows Warp's rules: the last ``num_outputs`` parameters are outputs (arrays); names in
``in_out_argnames`` are arrays both read and written, placed before the output-only ones and
counted in ``num_outputs``. An array of a vector/matrix dtype is a JAX array with the dtype's
shape as trailing axes.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from jwarp.lang import composites, scalars
from jwarp.lang.arrays import ArrayType, _Generic, type_name
from jwarp.lang.struct import StructType


class InteropArg:
    """One parameter: its name, jwarp type, and its layout as a JAX value."""

    def __init__(self, name: str, t: Any, in_out: bool = False):
        self.name = name
        self.type = t
        self.in_out = in_out
        self.is_array = isinstance(t, ArrayType)
        if self.is_array:
            dtype = t.dtype
            if isinstance(dtype, StructType):
                raise TypeError(f"Invalid data type for array argument '{name}', expected scalar, vector, or matrix")
            self.generic = isinstance(dtype, _Generic)
            self.dtype_shape = dtype._shape_ if composites.is_composite(dtype) else ()
            self.warp_ndim = t.ndim
        elif scalars.is_scalar_type(t) or composites.is_composite(t) or isinstance(t, _Generic):
            self.generic = isinstance(t, _Generic)
            self.dtype_shape = t._shape_ if composites.is_composite(t) else ()
            self.warp_ndim = 0
        else:
            raise TypeError(f"Invalid type for argument '{name}', expected array or scalar, got {type_name(t)}")
        self.dtype_ndim = len(self.dtype_shape)
        self.jax_ndim = self.warp_ndim + self.dtype_ndim

    @property
    def scalar_type(self) -> Any:
        t = self.type.dtype if self.is_array else self.type
        return t._wp_scalar_type_ if composites.is_composite(t) else t

    def jax_dtype(self, value: Any = None) -> np.dtype:
        """The JAX dtype this parameter takes (generic ones take ``value``'s)."""
        if self.generic:
            return np.dtype(value.dtype)
        return np.dtype(self.scalar_type._np_dtype)

    def element_type(self, value: Any = None) -> Any:
        """The array dtype (resolving a generic one from ``value``)."""
        if not self.generic:
            return self.type.dtype if self.is_array else self.type
        scalar = scalars.canonical_scalar(np.dtype(value.dtype))
        if scalar is None:
            raise TypeError(f"Invalid data type for argument '{self.name}': {value.dtype}")
        return scalar

    def check_array(self, value: Any) -> None:
        """Warp's checks on an array input: dtype, dimensionality, inner dims."""
        expected = self.jax_dtype(value)
        if np.dtype(value.dtype) != expected:
            hint = ""
            if expected.itemsize == 8 and not jax.config.jax_enable_x64:
                hint = " (64-bit JAX arrays need jax.config.update('jax_enable_x64', True) or jax.enable_x64())"
            raise TypeError(
                f"Invalid data type for array argument '{self.name}', expected {expected}, got {value.dtype}{hint}"
            )
        if value.ndim != self.jax_ndim:
            raise TypeError(
                f"Invalid dimensionality for array argument '{self.name}', expected {self.jax_ndim} dimensions, "
                f"got {value.ndim}"
            )
        if self.dtype_ndim and tuple(value.shape[self.warp_ndim:]) != self.dtype_shape:
            raise TypeError(
                f"Invalid inner dimensions for array argument '{self.name}', expected {self.dtype_shape}, "
                f"got {tuple(value.shape[self.warp_ndim:])}"
            )

    def warp_shape(self, jax_shape: tuple) -> tuple:
        return tuple(jax_shape[: self.warp_ndim])

    def output_shape(self, dims: Any) -> tuple:
        """Storage shape (with trailing component axes) of an output of Warp shape ``dims``."""
        dims = (int(dims),) if isinstance(dims, (int, np.integer)) else tuple(int(d) for d in dims)
        if self.dtype_ndim and len(dims) == self.jax_ndim:
            if dims[self.warp_ndim:] != self.dtype_shape:
                raise ValueError(f"Invalid output dimensions for argument '{self.name}': {dims}")
            return dims
        if len(dims) != self.warp_ndim:
            raise ValueError(f"Invalid output dimensions for argument '{self.name}': {dims}")
        return dims + self.dtype_shape


def split_params(what: str, names: list[str], types: list[Any], num_outputs: int,
                 in_out_argnames: Any) -> tuple[list[InteropArg], list[InteropArg]]:
    """(inputs including in-out arrays, output-only arrays), validated as Warp does."""
    listed = list(in_out_argnames or [])
    in_out = set(listed)
    if len(listed) != len(in_out):
        raise ValueError("in_out_argnames must not contain duplicate names")
    num_args = len(names)
    if num_outputs < 1:
        raise ValueError("At least one output is required")
    if num_outputs > num_args:
        raise ValueError(f"Number of outputs cannot be greater than the number of {what} arguments")
    if num_outputs < len(in_out):
        raise ValueError("Number of outputs cannot be smaller than the number of in_out_argnames")
    num_inputs = num_args - num_outputs + len(in_out)
    inputs, outputs = [], []
    for i, (name, t) in enumerate(zip(names, types, strict=True)):
        if i < num_inputs:
            arg = InteropArg(name, t, name in in_out)
            if arg.in_out and not arg.is_array:
                raise TypeError(f"In-out argument '{name}' must be an array")
            in_out.discard(name)
            inputs.append(arg)
            continue
        if name in in_out:
            raise ValueError(
                f"Expected an output-only argument for argument {name}. in_out arguments should be placed before "
                "output-only arguments."
            )
        arg = InteropArg(name, t)
        if not arg.is_array:
            raise TypeError(
                f"All output arguments must be arrays: the last {num_outputs} parameter(s) of {what} are outputs, "
                f"but '{name}' is {type_name(t)} (inputs must come before outputs)"
            )
        if arg.generic:
            raise TypeError(f"Output argument '{name}' needs a concrete dtype (it cannot be generic)")
        outputs.append(arg)
    if in_out:
        raise ValueError(f"in_out_argnames: '{in_out}' did not match any function argument names.")
    return inputs, outputs


def output_shapes(outputs: list[InteropArg], output_dims: Any, default: tuple | None) -> list[tuple]:
    """Storage shapes of the output-only arrays: ``output_dims`` (a dict by name, or one shape for
    all), else ``default`` (the launch dimensions)."""
    if isinstance(output_dims, dict):
        shapes = []
        for arg in outputs:
            dims = output_dims.get(arg.name)
            if dims is None:
                raise ValueError(f"Missing output dimensions for argument '{arg.name}'")
            shapes.append(arg.output_shape(dims))
        return shapes
    dims = output_dims if output_dims is not None else default
    if dims is None and outputs:
        raise ValueError("Unable to determine output dimensions")
    return [arg.output_shape(dims) for arg in outputs]


def to_jax_value(value: Any) -> Any:
    """A JAX/numpy array for an array argument (``wp.array`` → its buffer)."""
    if getattr(value, "_jwarp_array", False):
        return value.buffer
    if isinstance(value, jax.Array) or hasattr(value, "__jax_array__"):
        return value
    return np.asarray(value)


__all__ = ["InteropArg", "output_shapes", "split_params", "to_jax_value"]
