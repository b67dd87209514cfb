"""``wp.jax_kernel``: a Warp kernel as a JAX function (Warp's signature and calling convention).

In Warp the returned callable goes through an XLA FFI call. In jwarp a kernel *is* a JAX
function (its lowering, see ``jwarp/compiler/kernel_compile.py``), so the callable composes
with every JAX transformation: ``jax.jit``, ``jax.grad``/``vjp``/``jvp``, ``jax.vmap``,
``jax.checkpoint``, ``jax.shard_map``, on CPU and CUDA devices.

Calling convention (Warp's): the kernel's last ``num_outputs`` parameters are outputs; the
callable takes the other parameters (in-out arrays included) and returns a list with the
in-out arrays' new contents followed by the outputs. Outputs are allocated from
``output_dims``, else ``launch_dims``, else the first input array's shape, and are
zero-filled (Warp leaves them uninitialised).

Example:
    >>> import jax, jax.numpy as jnp, jwarp as wp
    >>> @wp.kernel
    ... def scale(x: wp.array(dtype=float), s: float, y: wp.array(dtype=float)):
    ...     i = wp.tid()
    ...     y[i] = s * x[i]
    >>> f = wp.jax_kernel(scale)
    >>> jax.grad(lambda x: f(x, 3.0)[0].sum())(jnp.ones(2))
    Array([3., 3.], dtype=float32)
"""

from __future__ import annotations

import enum
from typing import Any

import jax
import numpy as np

from jwarp import config
from jwarp.compiler.signature import ArraySpec, Signature, ValueSpec
from jwarp.interop.args import InteropArg, output_shapes, split_params, to_jax_value
from jwarp.interop.batching import VMAP_METHODS, with_vmap_method
from jwarp.interop.traced_launch import traced_kernel
from jwarp.interop.tracing import is_tracer
from jwarp.runtime.binding import _infer_type, convert_value, traced_value
from jwarp.runtime.kernel import Kernel
from jwarp.runtime.launch_config import launch_grid, normalize_dim


_PLAIN_SCALARS = {float, int, bool, np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
                  np.uint8, np.uint16, np.uint32, np.uint64, np.bool_}


class JaxModulePreloadMode(enum.IntEnum):
    """Warp's module preload modes; jwarp compiles at trace time, so they have no effect."""

    NONE = 0
    CURRENT_DEVICE = 1
    ALL_DEVICES = 2


def _default_block_dim(block_dim: int | None) -> int:
    if block_dim is not None:
        return int(block_dim)
    return 1 if jax.default_backend() == "cpu" else 256


_MISSING = object()
_REGISTRY: dict = {}  # jax_kernel(...) with equal arguments returns the same wrapper (as Warp)


def _refuse_per_call_overrides(fixed_launch_dims: Any, launch_dims: Any, output_dims: Any, vmap_method: Any) -> None:
    if launch_dims is not _MISSING:
        raise TypeError(
            "jax_kernel(): launch_dims cannot be overridden per-call when enable_backward=True "
            f"(this wrapper was created with launch_dims={fixed_launch_dims!r}). "
            "Call jax_kernel() again with a different launch_dims to create a new wrapper."
        )
    if output_dims is not _MISSING:
        raise TypeError("jax_kernel(): output_dims is not supported when enable_backward=True.")
    if vmap_method is not _MISSING:
        raise TypeError(
            "jax_kernel(): vmap_method cannot be overridden per-call when enable_backward=True; it is fixed at "
            "construction time. Call jax_kernel() again with a different vmap_method to create a new wrapper."
        )


def _hashable(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    return value


class JaxKernel:
    """The callable returned by :func:`jax_kernel`."""

    def __init__(self, kernel: Kernel, num_outputs: int, vmap_method: Any, launch_dims: Any, output_dims: Any,
                 in_out_argnames: Any, enable_backward: bool, has_side_effect: bool, block_dim: int | None,
                 max_loop_trips: Any):
        if not isinstance(kernel, Kernel):
            raise TypeError(f"jax_kernel() expects a @wp.kernel, got {type(kernel).__name__}")
        if vmap_method not in VMAP_METHODS:
            raise ValueError(f"Unsupported vmap_method {vmap_method!r}; expected one of {sorted(map(str, VMAP_METHODS))}")
        self.kernel = kernel
        self.num_outputs = num_outputs
        self.vmap_method = vmap_method
        self.launch_dims = launch_dims
        self.output_dims = output_dims
        self.enable_backward = enable_backward
        self.has_side_effect = has_side_effect
        self.block_dim = block_dim
        self.max_loop_trips = max_loop_trips
        self.input_args, self.output_args = split_params(
            f"kernel '{kernel.key}'", kernel.arg_names, kernel.arg_types, num_outputs, in_out_argnames)
        self.num_inputs = len(self.input_args)
        self.first_array_arg = next((i for i, a in enumerate(self.input_args) if a.is_array), None)
        self._traced: dict = {}
        self._memo: dict = {}
        self.__name__ = kernel.key
        self.__doc__ = kernel.__doc__

    @property
    def trace_count(self) -> int:
        """How many times the kernel was traced for this callable (a retrace counter for tests)."""
        return sum(tk.trace_count for tk in self._traced.values())

    def __call__(self, *args: Any, launch_dims: Any = _MISSING, output_dims: Any = _MISSING,
                 vmap_method: Any = _MISSING) -> list:
        if self.enable_backward:  # Warp's differentiable wrappers fix these at construction
            _refuse_per_call_overrides(self.launch_dims, launch_dims, output_dims, vmap_method)
        launch_dims = None if launch_dims is _MISSING else launch_dims
        output_dims = None if output_dims is _MISSING else output_dims
        vmap_method = None if vmap_method is _MISSING else vmap_method
        if output_dims is None and self.output_dims is None and self.enable_backward and self.first_array_arg is not None:
            # as Warp's differentiable wrapper: outputs take the shape of the first input array
            first = self.input_args[self.first_array_arg]
            output_dims = first.warp_shape(to_jax_value(args[self.first_array_arg]).shape) if len(args) > \
                self.first_array_arg else None
        if len(args) != self.num_inputs:
            names = ", ".join(a.name for a in self.input_args)
            raise ValueError(
                f"jax_kernel('{self.kernel.key}'): expected {self.num_inputs} inputs ({names}), but got {len(args)}"
            )
        vmap_method = self.vmap_method if vmap_method is None else vmap_method
        key = self._memo_key(args, launch_dims, output_dims, vmap_method)
        memo = self._memo.get(key) if key is not None else None
        if memo is not None:  # same shapes, dtypes and static scalars as an earlier call
            call, positions = memo
            return list(call(*[args[i] for i in positions]))
        arrays, values, params = [], [], []
        elem_types = []
        for arg, value in zip(self.input_args, args):
            if arg.is_array:
                value = to_jax_value(value)
                arg.check_array(value)
                elem_types.append(arg.element_type(value))
                arrays.append(value)
            else:
                elem_types.append(None)
                values.append(self._value(arg, value))
        launch = self._launch_dims(args, launch_dims)
        out_shapes = output_shapes(self.output_args, output_dims if output_dims is not None else self.output_dims,
                                   launch)
        # bases: input arrays (in-out included) in order, then outputs (allocated inside)
        n_in = len(arrays)
        array_i = value_i = 0
        for arg, elem in zip(self.input_args, elem_types):
            if arg.is_array:
                params.append(ArraySpec(elem, arg.warp_shape(arrays[array_i].shape), array_i))
                array_i += 1
            else:
                t = arg.element_type(values[value_i]) if arg.generic else arg.type
                params.append(ValueSpec(t, value_i))
                value_i += 1
        alloc = {}
        for k, (arg, shape) in enumerate(zip(self.output_args, out_shapes)):
            params.append(ArraySpec(arg.type.dtype, shape[: arg.warp_ndim], n_in + k))
            alloc[n_in + k] = (shape, np.dtype(arg.scalar_type._np_dtype))
        in_out = tuple(i for i, a in enumerate([a for a in self.input_args if a.is_array]) if a.in_out)
        returns = in_out + tuple(range(n_in, n_in + len(self.output_args)))
        sig = self._signature(launch, tuple(params), n_in + len(self.output_args), len(values))
        tk, dynamic = traced_kernel(self.kernel, sig, values, self.max_loop_trips, hint=None, alloc=alloc,
                                    returns=returns)
        self._traced[id(tk)] = tk
        call = with_vmap_method(tk, vmap_method)
        if key is not None and not dynamic:
            if len(self._memo) > 256:
                self._memo.clear()
            self._memo[key] = (call, tuple(i for i, a in enumerate(self.input_args) if a.is_array))
        return list(call(*arrays, *dynamic))

    def _memo_key(self, args: tuple, launch_dims: Any, output_dims: Any, vmap_method: Any) -> tuple | None:
        """A cheap key for calls that repeat an earlier one (None: take the full path)."""
        parts: list = [config.mode, vmap_method]
        try:
            parts.append(hash((launch_dims, output_dims if not isinstance(output_dims, dict)
                               else tuple(sorted(output_dims.items())))))
        except TypeError:
            return None
        parts.append(launch_dims)
        parts.append(output_dims if not isinstance(output_dims, dict) else tuple(sorted(output_dims.items())))
        for arg, value in zip(self.input_args, args):
            if arg.is_array:
                if not isinstance(value, jax.Array):
                    return None
                parts.append((value.shape, value.dtype))
            elif type(value) in _PLAIN_SCALARS:
                parts.append((type(value), repr(value)))
            else:
                return None
        return tuple(parts)

    def _value(self, arg: InteropArg, value: Any) -> Any:
        """A scalar argument: concrete values become compile-time constants (Warp's static
        scalars); traced ones stay traced (a jwarp extension: differentiable with respect to them)."""
        if is_tracer(value):
            t = arg.element_type(value) if arg.generic else arg.type
            return traced_value(self.kernel.key, arg.name, t, value)
        if arg.generic:
            t = _infer_type(value, arg.name, _Failer(self.kernel.key))
        else:
            t = arg.type
        leaf = convert_value(self.kernel.key, arg.name, t, value)
        return leaf[()] if leaf.ndim == 0 else leaf

    def _launch_dims(self, args: tuple, launch_dims: Any) -> tuple:
        dims = launch_dims if launch_dims is not None else self.launch_dims
        if dims is None:
            if self.first_array_arg is None:
                raise RuntimeError(
                    f"jax_kernel('{self.kernel.key}'): failed to determine launch dimensions (no input array); "
                    "pass launch_dims"
                )
            arg = self.input_args[self.first_array_arg]
            return arg.warp_shape(to_jax_value(args[self.first_array_arg]).shape)
        if isinstance(dims, (int, np.integer)):
            return (int(dims),)
        return tuple(int(d) for d in dims)

    def _signature(self, launch: tuple, params: tuple, n_bases: int, n_values: int) -> Signature:
        dim, _ = normalize_dim(launch)
        return Signature(
            grid=launch_grid(dim, self.kernel.kernel_dim),
            params=params,
            n_bases=n_bases,
            n_values=n_values,
            debug=config.mode == "debug",
            block_dim=_default_block_dim(self.block_dim),
            kernel_dim=self.kernel.kernel_dim,
        )


class _Failer:
    """The error factory ``binding._infer_type`` expects (it names the kernel and argument)."""

    def __init__(self, key: str):
        self.key = key

    def fail(self, name: str, message: str) -> RuntimeError:
        return RuntimeError(f"jax_kernel('{self.key}'): argument '{name}' {message}")


def jax_kernel(
    kernel: Kernel,
    num_outputs: int = 1,
    vmap_method: str | None = "broadcast_all",
    launch_dims: Any = None,
    output_dims: Any = None,
    in_out_argnames: Any = None,
    module_preload_mode: JaxModulePreloadMode = JaxModulePreloadMode.CURRENT_DEVICE,
    enable_backward: bool = False,
    has_side_effect: bool = False,
    block_dim: int | None = None,
    max_loop_trips: int | dict | None = None,
) -> JaxKernel:
    """Make a JAX function from a Warp kernel (Warp's ``jax_kernel``).

    Args:
        kernel: the ``@wp.kernel`` to call.
        num_outputs: how many of the kernel's last parameters are outputs (in-out ones included).
        vmap_method: how ``jax.vmap`` batches the call: ``"broadcast_all"`` (default),
            ``"expand_dims"`` and ``"legacy_vectorized"`` vectorize the kernel over the batch (one
            XLA program); ``"sequential"`` / ``"sequential_unrolled"`` run batch members one after
            another. All satisfy ``vmap(f)(x)[i] == f(x[i])``. Per call as well.
        launch_dims: launch grid (int or tuple); default: the first input array's shape. Per call
            as well.
        output_dims: output shapes: one shape for all outputs, or ``{name: shape}``; default: the
            launch dimensions. Per call as well.
        in_out_argnames: array parameters both read and written: passed in, and returned (first)
            with their new contents.
        module_preload_mode: accepted for compatibility (jwarp compiles when traced).
        enable_backward: accepted for compatibility: jwarp kernels are always differentiable
            (JAX autodiff of the lowered kernel), in reverse and forward mode.
        has_side_effect: accepted for compatibility (a jwarp kernel has no side effects).
        block_dim: threads per block for tile kernels (default 1 on CPU, 256 on CUDA).
        max_loop_trips: bounds for loops whose trip counts are known only at run time, so that
            reverse-mode AD can differentiate them: one int for every such loop, or
            ``{line: bound}`` by the loop's line in its file. Without it, ``jax.grad`` through such
            a kernel raises an error naming the loop.

    Returns:
        A callable ``f(*inputs, launch_dims=None, output_dims=None, vmap_method=None) -> list``.
    """
    del module_preload_mode
    if block_dim is not None:
        if isinstance(block_dim, bool) or not isinstance(block_dim, (int, np.integer)):
            raise TypeError("jax_kernel(): block_dim must be an integer or None.")
        if block_dim <= 0:
            raise ValueError("jax_kernel(): block_dim must be positive.")
    if enable_backward and in_out_argnames:
        raise NotImplementedError(
            "jax_kernel(): Input-output arguments (in_out_argnames) are not supported when enable_backward=True."
        )
    if enable_backward and output_dims is not None:
        raise NotImplementedError("jax_kernel(): output_dims is not yet supported when enable_backward=True.")
    if isinstance(launch_dims, (int, np.integer)):
        launch_dims = (int(launch_dims),)
    key = (kernel, num_outputs, vmap_method, _hashable(launch_dims), _hashable(output_dims),
           tuple(in_out_argnames) if in_out_argnames else None, bool(enable_backward), bool(has_side_effect),
           block_dim, _hashable(max_loop_trips))
    try:
        cached = _REGISTRY.get(key)
    except TypeError:  # unhashable settings: a wrapper of its own
        key, cached = None, None
    if cached is not None:
        return cached
    wrapper = JaxKernel(kernel, num_outputs, vmap_method, launch_dims, output_dims, in_out_argnames, enable_backward,
                        has_side_effect, block_dim, max_loop_trips)
    if key is not None:
        _REGISTRY[key] = wrapper
    return wrapper


__all__ = ["JaxKernel", "JaxModulePreloadMode", "jax_kernel"]
