"""``wp.map``: apply a function element by element over arrays, through a generated kernel.

The function may be a ``@wp.func``, a kernel builtin (``wp.clamp``), a Python function or a
lambda (made into a generic ``@wp.func``). Array inputs are read at each thread's element (with
numpy broadcasting: a dimension of size 1 is read at index 0, missing leading dimensions are
shared); other inputs are passed to every thread as they are. The output dtype(s) are the
function's return type(s), found by lowering the call for the inputs' types.

Kernels are cached per function and input layout (array family, dtype, rank, broadcast
dimensions), so subclasses of one array family share a kernel, as in Warp.

Example:
    >>> import jwarp as wp
    >>> a = wp.array([1.0, 2.0, 3.0], dtype=wp.float32)
    >>> b = wp.array([4.0, 5.0, 6.0], dtype=wp.float32)
    >>> wp.map(lambda x, y: x + 2.0 * y, a, b).numpy().tolist()
    [9.0, 12.0, 15.0]
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

from jwarp.compiler.generated import call_result_type, define_function, lambda_as_function
from jwarp.compiler.registry import Builtin
from jwarp.compiler.values import python_to_value
from jwarp.lang import scalars
from jwarp.lang.arrays import TupleType, type_name
from jwarp.lang.introspection import type_scalar_type, types_equal
from jwarp.lang.struct import StructInstance, StructType
from jwarp.runtime.array import array
from jwarp.runtime.array_families import array_family, is_array
from jwarp.runtime.creation import empty
from jwarp.runtime.functions import Function, FunctionOverload, qualified_key
from jwarp.runtime.kernel import Kernel
from jwarp.runtime.launch import launch
from jwarp.runtime.modules import get_module


# function -> {layout key: (output dtypes, kernel)}; weak so a discarded lambda frees its kernels
_KERNELS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_FUNCTIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Python callable -> its wp.func


def broadcast_shapes(shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    """Numpy's broadcasting of ``shapes`` (trailing dimensions equal or 1)."""
    out: list[int] = []
    for j in range(1, max(len(s) for s in shapes) + 1):
        dims = {s[-j] for s in shapes if j <= len(s)}
        big = dims - {1}
        if len(big) > 1:
            listed = " and ".join(str(tuple(s)) for s in shapes)
            raise ValueError(f"Shapes {listed} are not broadcastable")
        out.append(big.pop() if big else 1)
    return tuple(reversed(out))


def _as_function(func: Any) -> Any:
    """What the generated kernel calls: a ``@wp.func`` or builtin as is, a Python callable as a
    generic ``@wp.func`` (a lambda through its source)."""
    if isinstance(func, (Function, Builtin)):
        return func
    if not callable(func):
        raise TypeError("func must be a callable function or a warp.Function")
    cached = _FUNCTIONS.get(func)
    if cached is not None:
        return cached
    python = lambda_as_function(func) if getattr(func, "__name__", None) == "<lambda>" else func

    key = python.__name__ if python is not func else qualified_key(func)
    wrapped = Function(key, get_module(f"map_{key}"), python)
    wrapped.overloads.append(FunctionOverload(python))
    _FUNCTIONS[func] = wrapped
    return wrapped


def _value_type(x: Any) -> Any:
    if isinstance(x, StructInstance):
        return x._cls
    value = python_to_value(x)
    if value is None:
        raise TypeError(f"wp.map cannot pass a value of type {type(x).__name__} to a kernel")
    return value.type


def _parameter_count(fn: Any) -> int | None:
    if isinstance(fn, Function):
        return len(fn.overloads[-1].params) if len(fn.overloads) == 1 else None
    return None


def _is_differentiable(dtype: Any) -> bool:
    if isinstance(dtype, StructType):
        return True
    scalar = type_scalar_type(dtype)
    return scalar is not None and scalars.is_float(scalar)


def _generate_kernel(fn: Any, inputs: list, out_shape: tuple, outputs: list) -> Any:

    ndim = len(out_shape)
    tids = [f"__tid_{i}" for i in range(max(ndim, 1))]
    params, loads, args, annotations = [], [], [], {}
    for i, x in enumerate(inputs):
        if is_array(x):
            params.append(f"__in_{i}")
            annotations[f"__in_{i}"] = array_family(x)(dtype=x.dtype, ndim=x.ndim)
            index = ["0" if d == 1 else tids[ndim - x.ndim + k] for k, d in enumerate(x.shape)]
            loads.append(f"    __v_{i} = __in_{i}[{', '.join(index)}]\n")
            args.append(f"__v_{i}")
        else:
            params.append(f"__in_{i}")
            annotations[f"__in_{i}"] = _value_type(x)
            args.append(f"__in_{i}")
    for k, o in enumerate(outputs):
        params.append(f"__out_{k}")
        annotations[f"__out_{k}"] = array_family(o)(dtype=o.dtype, ndim=o.ndim)
    target = ", ".join(tids[:ndim]) if ndim else "0"
    call = f"__fn({', '.join(args)})"
    source = f"def map_kernel({', '.join(params)}):\n"
    source += f"    {', '.join(tids[:max(ndim, 1)])} = wp.tid()\n" + "".join(loads)
    if len(outputs) == 1:
        source += f"    __out_0[{target}] = {call}\n"
    else:
        results = [f"__r_{k}" for k in range(len(outputs))]
        source += f"    {', '.join(results)} = {call}\n"
        source += "".join(f"    __out_{k}[{target}] = __r_{k}\n" for k in range(len(outputs)))
    import jwarp

    key = getattr(fn, "key", getattr(fn, "__name__", "map"))
    python = define_function(source, "map_kernel", {"wp": jwarp, "__fn": fn}, annotations)
    return Kernel(python, key="map_kernel", module=get_module(f"map_{key}"))


def _check_outputs(out: Any, out_dtypes: tuple, out_shape: tuple) -> list:
    if len(out_dtypes) == 1 and is_array(out):
        out = [out]
    elif not isinstance(out, (list, tuple)) or len(out_dtypes) == 1:
        listed = ", ".join(type_name(t) for t in out_dtypes)
        raise TypeError(f"Invalid output provided, expected {len(out_dtypes)} Warp arrays with shape {out_shape} "
                        f"and dtypes ({listed})")
    if len(out) != len(out_dtypes):
        raise TypeError(f"Number of provided output arrays ({len(out)}) does not match expected number of "
                        f"function outputs ({len(out_dtypes)})")
    for k, (o, dtype) in enumerate(zip(out, out_dtypes)):
        which = "Output array" if len(out_dtypes) == 1 else f"Output array {k}"
        if not types_equal(o.dtype, dtype):
            raise TypeError(f"{which} dtype {type_name(o.dtype)} does not match expected dtype {type_name(dtype)}")
        if tuple(o.shape) != tuple(out_shape):
            raise TypeError(f"{which} shape {tuple(o.shape)} does not match expected shape {tuple(out_shape)}")
    return list(out)


def map(
    func: Callable | Function,
    *inputs: Any,
    out: Any = None,
    return_kernel: bool = False,
    block_dim: int | None = None,
    device: Any = None,
) -> Any:
    """Apply ``func`` to the elements of the array inputs (Warp's ``wp.map``).

    Returns the new output array (a list of arrays for a function returning several values),
    writes into ``out`` when given, or returns the generated kernel with ``return_kernel=True``.

    Example:
        >>> import jwarp as wp
        >>> xs = wp.array([-1.0, 0.0, 1.0], dtype=wp.float32)
        >>> wp.map(wp.clamp, xs, -0.5, 0.5, out=xs).numpy().tolist()
        [-0.5, 0.0, 0.5]
    """
    fn = _as_function(func)
    count = _parameter_count(fn)
    if count is not None and count != len(inputs):
        raise TypeError(f"Number of input arguments ({len(inputs)}) does not match expected number of function "
                        f"arguments ({count})")
    arrays = [x for x in inputs if is_array(x)]
    if not arrays:
        raise ValueError("map requires at least one warp.array input")
    if device is None:
        device = arrays[0].device
    out_shape = broadcast_shapes([tuple(a.shape) for a in arrays])

    layout = tuple((array_family(x), x.dtype, x.ndim, tuple(d == 1 for d in x.shape)) if is_array(x)
                   else (None, _value_type(x)) for x in inputs)
    out_list = out if isinstance(out, (list, tuple)) else [out] if out is not None else []
    out_families = tuple(array_family(o) for o in out_list if is_array(o))
    key = (layout, len(out_shape), None if all(f is array for f in out_families) else out_families)
    per_function = _KERNELS.setdefault(fn, {})
    cached = per_function.get(key)
    if cached is None:
        arg_types = [x.dtype if is_array(x) else _value_type(x) for x in inputs]
        result = call_result_type(fn, arg_types)
        if result is None:
            raise TypeError("The provided function must return a value")
        out_dtypes = tuple(result.types) if isinstance(result, TupleType) else (result,)
        kernel = None
    else:
        out_dtypes, kernel = cached

    if out is None:
        wants_grad = any(getattr(a, "requires_grad", False) for a in arrays)
        outputs = [empty(out_shape, dtype=t, device=device, requires_grad=wants_grad and _is_differentiable(t))
                   for t in out_dtypes]
    else:
        outputs = _check_outputs(out, out_dtypes, out_shape)

    if kernel is None:
        kernel = _generate_kernel(fn, list(inputs), out_shape, outputs)
        per_function[key] = (out_dtypes, kernel)
    if return_kernel:
        return kernel

    launch(kernel, dim=out_shape, inputs=list(inputs), outputs=outputs, block_dim=block_dim, device=device)
    return outputs[0] if len(outputs) == 1 else outputs


__all__ = ["broadcast_shapes", "map"]
