"""``wp.jax_callable``: a Python function that launches jwarp kernels, as a JAX function.

The function is annotated like a kernel (``wp.array`` / scalar parameters, the last
``num_outputs`` are outputs) and may launch any number of kernels on its arrays. Called from
JAX, it runs under ``jax.jit``: its arrays wrap traced values, each ``wp.launch`` runs
functionally (see ``traced_launch.py``), and the outputs' final contents are returned. The
result is an ordinary JAX function, differentiable end to end and batchable with ``vmap``.

Example:
    >>> import jax, jax.numpy as jnp, jwarp as wp
    >>> @wp.kernel
    ... def double(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    ...     i = wp.tid()
    ...     y[i] = 2.0 * x[i]
    >>> def twice(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    ...     tmp = wp.zeros_like(x)
    ...     wp.launch(double, dim=x.shape, inputs=[x], outputs=[tmp])
    ...     wp.launch(double, dim=x.shape, inputs=[tmp], outputs=[y])
    >>> f = wp.jax_callable(twice)
    >>> jax.grad(lambda x: f(x)[0].sum())(jnp.ones(3))
    Array([4., 4., 4.], dtype=float32)
"""

from __future__ import annotations

import enum
import inspect
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from jwarp.interop.args import InteropArg, output_shapes, split_params, to_jax_value
from jwarp.interop.batching import VMAP_METHODS, with_vmap_method
from jwarp.interop.tracing import is_tracer, x64
from jwarp.lang.arrays import resolve_annotation
from jwarp.runtime.array import array
from jwarp.runtime.binding import convert_value, traced_value


class JaxCallableGraphMode(enum.IntEnum):
    """Warp's CUDA-graph capture modes; XLA compiles the whole call, so they have no effect."""

    NONE = 0
    JAX = 1
    WARP = 2
    WARP_STAGED = 3
    WARP_STAGED_EX = 4


def _params(func: Callable) -> tuple[list[str], list[Any]]:
    name = getattr(func, "__qualname__", repr(func))
    sig = inspect.signature(func)
    try:
        hints = inspect.get_annotations(func, eval_str=True)
    except Exception:
        hints = dict(getattr(func, "__annotations__", {}))
    if hints.get("return", None) is not None:
        raise TypeError(f"Function '{name}' must not return a value (outputs are its last parameters)")
    names, types = [], []
    for pname in sig.parameters:
        if pname not in hints:
            raise RuntimeError(f"Incomplete argument annotations on function {name}: '{pname}' has none")
        t = resolve_annotation(hints[pname])
        if t is None:
            raise TypeError(f"Function '{name}' argument '{pname}' has an unsupported annotation {hints[pname]!r}")
        names.append(pname)
        types.append(t)
    return names, types


class JaxCallable:
    """The callable returned by :func:`jax_callable`."""

    def __init__(self, func: Callable, num_outputs: int, vmap_method: Any, output_dims: Any, in_out_argnames: Any):
        if vmap_method not in VMAP_METHODS:
            raise ValueError(f"Unsupported vmap_method {vmap_method!r}")
        self.func = func
        self.name = getattr(func, "__qualname__", repr(func))
        self.num_outputs = num_outputs
        self.vmap_method = vmap_method
        self.output_dims = output_dims
        names, types = _params(func)
        self.input_args, self.output_args = split_params(f"function '{self.name}'", names, types, num_outputs,
                                                         in_out_argnames)
        self.num_inputs = len(self.input_args)
        self.first_array_arg = next((i for i, a in enumerate(self.input_args) if a.is_array), None)
        self.trace_count = 0
        self._jitted = jax.jit(self._run, static_argnums=0)
        self._calls: dict = {}
        self.__name__ = getattr(func, "__name__", "jax_callable")
        self.__doc__ = func.__doc__

    def __call__(self, *args: Any, output_dims: Any = None, vmap_method: Any = None) -> list:
        if len(args) != self.num_inputs:
            names = ", ".join(a.name for a in self.input_args)
            s = "" if self.num_inputs == 1 else "s"
            raise ValueError(f"Expected {self.num_inputs} input{s} ({names}), but got {len(args)}")
        vmap_method = self.vmap_method if vmap_method is None else vmap_method
        dynamic, statics = [], []
        first_shape = None
        for i, (arg, value) in enumerate(zip(self.input_args, args)):
            if arg.is_array:
                value = to_jax_value(value)
                arg.check_array(value)
                if i == self.first_array_arg:
                    first_shape = arg.warp_shape(value.shape)
                dynamic.append(value)
                statics.append(("array", str(arg.jax_dtype(value))))
            elif is_tracer(value):
                t = arg.element_type(value) if arg.generic else arg.type
                dynamic.append(traced_value(self.name, arg.name, t, value))
                statics.append(("traced", None))
            else:
                t = arg.type if not arg.generic else None
                leaf = convert_value(self.name, arg.name, t, value) if t is not None else np.asarray(value)
                statics.append(("static", (leaf.dtype.str, leaf.shape, leaf.tobytes())))
        dims = output_dims if output_dims is not None else self.output_dims
        shapes = tuple(output_shapes(self.output_args, dims, first_shape))
        spec = (tuple(statics), shapes)
        call = with_vmap_method(self._call_for(spec), vmap_method)
        return list(call(*dynamic))

    def _call_for(self, spec: tuple) -> Callable:
        fn = self._calls.get(spec)
        if fn is None:
            def fn(*dynamic: Any, _spec: tuple = spec) -> tuple:
                with x64():
                    return self._jitted(_spec, *dynamic)

            self._calls[spec] = fn
        return fn

    def _run(self, spec: tuple, *dynamic: Any) -> tuple:
        """Traced once per spec: wrap inputs as arrays, allocate outputs, call the function."""
        self.trace_count += 1
        statics, shapes = spec
        it = iter(dynamic)
        call_args, returned = [], []
        for arg, (kind, data) in zip(self.input_args, statics):
            if kind == "array":
                a = array(next(it), dtype=arg.element_type(np.empty(0, data)), copy=False)
                call_args.append(a)
                if arg.in_out:
                    returned.append(a)
            elif kind == "traced":
                call_args.append(next(it))
            else:
                dtype, shape, raw = data
                leaf = np.frombuffer(raw, dtype=np.dtype(dtype)).reshape(shape)
                call_args.append(_python_value(arg, leaf))
        for arg, shape in zip(self.output_args, shapes):
            out = array(jnp.zeros(shape, arg.scalar_type._np_dtype), dtype=arg.type.dtype, copy=False)
            call_args.append(out)
            returned.append(out)
        self.func(*call_args)
        return tuple(a.buffer for a in returned)


def _python_value(arg: InteropArg, leaf: np.ndarray) -> Any:
    """A static scalar as the function sees it (a Python number or a composite instance)."""
    t = arg.type
    if arg.generic:
        return leaf[()].item() if leaf.ndim == 0 else leaf
    if arg.dtype_shape:
        return t(leaf.reshape(-1).tolist())
    return leaf[()].item()


def jax_callable(
    func: Callable,
    num_outputs: int = 1,
    graph_mode: JaxCallableGraphMode = JaxCallableGraphMode.JAX,
    vmap_method: str | None = "broadcast_all",
    output_dims: Any = None,
    in_out_argnames: Any = None,
    stage_in_argnames: Any = None,
    stage_out_argnames: Any = None,
    graph_cache_max: int | None = None,
    module_preload_mode: Any = None,
    has_side_effect: bool = False,
) -> JaxCallable:
    """Make a JAX function from an annotated Python function that launches kernels (Warp's
    ``jax_callable``).

    Args:
        func: function annotated like a kernel; its last ``num_outputs`` parameters are output
            arrays (zero-filled on entry) that it fills by launching kernels.
        num_outputs: number of output parameters, in-out ones included.
        graph_mode, stage_in_argnames, stage_out_argnames, graph_cache_max, module_preload_mode,
            has_side_effect: accepted for compatibility; XLA compiles the whole call.
        vmap_method: see :func:`jax_kernel`.
        output_dims: output shapes (one for all or ``{name: shape}``); default: the first input
            array's shape. Per call as well.
        in_out_argnames: array parameters both read and written (returned first).

    Returns:
        A callable ``f(*inputs, output_dims=None, vmap_method=None) -> list`` of outputs.
    """
    graph_mode = JaxCallableGraphMode(graph_mode)  # validates the mode (integers accepted, as in Warp)
    key = (func, num_outputs, graph_mode, vmap_method, _hashable(output_dims),
           tuple(in_out_argnames) if in_out_argnames else None,
           tuple(stage_in_argnames) if stage_in_argnames else None,
           tuple(stage_out_argnames) if stage_out_argnames else None, graph_cache_max, has_side_effect)
    staged = (set(stage_in_argnames or ()), set(stage_out_argnames or ()))  # kept for introspection (no staging here)
    del stage_in_argnames, stage_out_argnames, graph_cache_max, module_preload_mode, has_side_effect
    try:
        cached = _REGISTRY.get(key)
    except TypeError:  # unhashable settings: a wrapper of its own
        key, cached = None, None
    if cached is not None:
        return cached
    wrapper = JaxCallable(func, num_outputs, vmap_method, output_dims, in_out_argnames)
    wrapper.graph_mode = graph_mode
    wrapper.stage_in_argnames, wrapper.stage_out_argnames = staged
    if key is not None:
        _REGISTRY[key] = wrapper
    return wrapper


_REGISTRY: dict = {}  # jax_callable(...) with equal arguments returns the same wrapper (as Warp)


def _hashable(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    return value


__all__ = ["JaxCallable", "JaxCallableGraphMode", "jax_callable"]
