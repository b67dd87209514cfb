"""Launch arguments → (static signature specs, base buffers, value buffers).

Validation follows Warp's launch: wrong counts, array dtypes/ndims, struct types and
non-convertible scalars raise with Warp's messages (naming the kernel and parameter).
Python scalars are converted once per distinct value and cached on the device, since
passing a Python number to a jitted call costs a host-to-device transfer each time.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from jwarp.compiler.signature import ArraySpec, HandleSpec, NoneArraySpec, StructSpec, ValueSpec
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import ANY, INDEXED, ArrayType, GenericType, type_name
from jwarp.lang.struct import StructInstance, StructType
from jwarp.runtime import handles, storage
from jwarp.runtime.access import check_array_access
from jwarp.runtime.array import array
from jwarp.runtime.device import Device
from jwarp.runtime.indexed import indexedarray


@dataclass
class Binding:
    params: tuple
    bases: list  # root arrays, in order of first use
    values: list  # jax arrays on the launch device
    arrays: list = field(default_factory=list)  # (param path, array) for every array argument
    traced: bool = False  # a buffer or value is a JAX tracer (the launch is inside jax.jit/grad/vmap)
    handles: tuple = ()  # HandleSpec of every geometry object id among the arguments
    geometry: tuple = ()  # the geometry objects of ``handles``, in the same order


class ArgumentPacker:
    """Validates launch arguments against a kernel's parameters and collects their specs, base arrays
    and value constants (``Launch`` setters pack one parameter at a time with it)."""

    def __init__(self, kernel: Any, device: Device, adjoint: bool = False):
        self.kernel = kernel
        self.device = device
        self.adjoint = adjoint
        self.bases: list[array] = []
        self.base_index: dict[int, int] = {}
        self.values: list = []
        self.arrays: list = []
        self.traced = False
        self.handles: list[HandleSpec] = []
        self.handle_ids: set[int] = set()
        self.geometry: list = []

    def fail(self, name: str, message: str) -> RuntimeError:
        adj = "adjoint " if self.adjoint else ""
        return RuntimeError(f"Error launching kernel '{self.kernel.key}', {adj}argument '{name}' {message}")

    def pack(self, name: str, t: Any, value: Any) -> Any:
        if isinstance(t, ArrayType):
            return self.pack_array(name, t, value)
        if isinstance(t, StructType):
            return self.pack_struct(name, t, value)
        if isinstance(t, GenericType):
            inferred = _infer_type(value, name, self)
            if t.template is not None and not t.accepts(inferred):
                raise TypeError(
                    f"Kernel {self.kernel.key} argument '{name}' type mismatch: expected {t.name}, "
                    f"got {type_name(inferred)}"
                )
            return self.pack(name, inferred, value)
        return self.pack_value(name, t, value)

    def pack_array(self, name: str, t: ArrayType, value: Any) -> Any:
        if value is None:
            return NoneArraySpec(t.dtype, t.ndim)
        if getattr(value, "_jwarp_fixed", False) and t.is_generic:
            raise TypeError(
                f"Error launching kernel '{self.kernel.key}': Unable to infer the type of argument '{name}', "
                "got a wp.fixedarray, a compiler-only type for stack arrays inside kernels"
            )
        if t.kind == "array" and _external_host_array(value, self.device):
            value = np.asarray(value)  # an __array_interface__ provider (even one posing as wp.array)
        if isinstance(value, jax.Array) and t.kind == "array":
            value = array(value)
        elif isinstance(value, np.ndarray) and t.kind == "array" and value.dtype.names is None:
            value = self.wrap_numpy(t, value)
        kind = array_kind(value)
        if kind != t.kind:
            raise self.fail(
                name,
                f"expects an array of type {type_name(t)}, but passed value has type {type(value).__name__}.",
            )
        if kind == INDEXED:
            return self.pack_indexed(name, t, value)
        if kind is not None and kind != "array":  # Fabric arrays: an indexed view of the array they are over
            return self.pack_indexed(name, t, value._view())
        if value._buffer is None and value._base is None:
            raise self.fail(name, "was passed an array that has no data (freed, or an annotation)")
        dtype = composites.canonical(value.dtype)  # wp.types.vector(3, float) arrays fit wp.vec3 parameters
        if not (t.dtype.accepts(dtype) if isinstance(t.dtype, GenericType) else dtype == t.dtype):
            raise self.fail(
                name,
                f"expects an array with dtype={type_name(t.dtype)} but passed array has dtype={type_name(value.dtype)}.",
            )
        if value.ndim != t.ndim:
            raise self.fail(
                name,
                f"expects an array with {t.ndim} dimension(s) but the passed array has {value.ndim} dimension(s).",
            )
        if value.device is not self.device and "." not in name:  # arguments, not struct fields (as Warp)
            check_array_access(self.kernel, name, value, self.device)
        root = value.root
        index = self.base_index.get(id(root))
        if index is None:
            index = len(self.bases)
            self.base_index[id(root)] = index
            self.bases.append(root)
            buf = root._buffer
            self.traced = self.traced or isinstance(buf[0] if isinstance(buf, tuple) else buf, jax.core.Tracer)
        self.arrays.append((name, value))
        if value.dtype is scalars.uint64:
            self.pack_array_handles(name, value)
        return ArraySpec(dtype, value.shape, index, value._chain)

    def pack_array_handles(self, name: str, value: array) -> None:
        """Geometry ids stored in a ``uint64`` array (read when the launch is bound; at most
        ``MAX_ID_ARRAY`` elements): each live object's buffers join the launch, its id a launch value."""
        buf = value.root._buffer
        if value.size > MAX_ID_ARRAY or not handles.any_live() or isinstance(buf[0] if isinstance(buf, tuple) else buf, jax.core.Tracer):
            return
        for handle in handles.live_ids(np.asarray(value.numpy())):
            if handle not in self.handle_ids:
                self.values.append(device_constant(np.uint64(handle), self.device))
                self.pack_handle(f"{name}[...]", handle, len(self.values) - 1)

    def wrap_numpy(self, t: ArrayType, value: np.ndarray) -> array:
        """A numpy argument, as Warp takes it on the CPU: an array over its contents (same scalar
        type required) whose writes land back in the numpy array."""
        dtype = storage.infer_dtype(value) if isinstance(t.dtype, GenericType) else t.dtype
        if value.dtype != np.dtype(storage.scalar_of(dtype)._np_dtype):
            raise RuntimeError(
                f"Could not convert array interface with typestr='{value.dtype.str}' to Warp array with "
                f"dtype={type_name(dtype)}"
            )
        wrapped = array(value, dtype=dtype, device="cpu")
        if value.flags.writeable:
            wrapped._host_mirror = value
        return wrapped

    def pack_indexed(self, name: str, t: ArrayType, value: indexedarray) -> ArraySpec:
        """An indexed array: its data array's spec with one index-array spec per indexed axis."""
        if value.data is None:
            raise self.fail(name, "was passed an indexed array that has no data (an annotation)")
        n_arrays = len(self.arrays)
        data = self.pack_array(name, ArrayType(t.dtype, t.ndim), value.data)
        index_type = ArrayType(scalars.int32, 1)
        indices = tuple(None if idx is None else self.pack_array(f"{name}.indices[{axis}]", index_type, idx)
                        for axis, idx in enumerate(value.indices[: value.ndim]))
        del self.arrays[n_arrays + 1 :]  # the argument's array is its data (index arrays are read-only)
        return ArraySpec(data.dtype, value.shape, data.base, data.chain, indices)

    def pack_struct(self, name: str, t: StructType, value: Any) -> Any:
        if value is None:
            raise self.fail(name, f"expects {t.key} but got None")
        if not isinstance(value, StructInstance) or value._cls is not t:
            got = value._cls.key if isinstance(value, StructInstance) else type(value).__name__
            raise self.fail(name, f"expects a struct of type {t.key} but got {got}")
        fields = tuple(self.pack(f"{name}.{n}", var.type, getattr(value, n)) for n, var in t.vars.items())
        return StructSpec(t, fields)

    def pack_value(self, name: str, t: Any, value: Any) -> ValueSpec:
        if isinstance(value, jax.core.Tracer):  # a traced scalar (inside jax.jit/grad): stays traced
            self.traced = True
            self.values.append(traced_value(self.kernel.key, name, t, value))
            return ValueSpec(t, len(self.values) - 1)
        leaf = convert_value(self.kernel.key, name, t, value)
        self.values.append(device_constant(leaf, self.device))
        spec = ValueSpec(t, len(self.values) - 1)
        if names_objects(t):
            self.pack_handle(name, int(leaf), spec.index)
        return spec

    def pack_handle(self, name: str, handle: int, id_index: int) -> None:
        """A uint64 argument that is a live geometry object's id: the object's buffers join the launch."""
        obj = handles.lookup(handle)
        if obj is None or handle in self.handle_ids:
            return
        self.handle_ids.add(handle)
        operands = obj._launch_operands()
        if getattr(obj, "device", self.device) is not self.device:
            raise self.fail(name, f"is the id of a {type(obj).__name__} on device '{obj.device}', "
                                  f"but the kernel is launched on '{self.device}'")
        n_arrays = len(self.arrays)
        arrays = tuple((key, self.pack_array(f"{name}.{key}", ArrayType(a.dtype, a.ndim), a))
                       for key, a in operands.arrays.items())
        del self.arrays[n_arrays:]  # read-only operands: not the kernel's array arguments
        values = []
        for key, (t, v) in operands.values.items():
            self.values.append(device_constant(convert_value(self.kernel.key, f"{name}.{key}", t, v), self.device))
            values.append((key, ValueSpec(t, len(self.values) - 1)))
        self.handles.append(HandleSpec(operands.kind, id_index, tuple(operands.static), arrays, tuple(values)))
        self.geometry.append(obj)


def names_objects(t: Any) -> bool:
    """Whether a scalar parameter of type ``t`` may hold a geometry object's id (``uint64``)."""
    return t is scalars.uint64 or (scalars.is_scalar_type(t) and issubclass(t, scalars.uint64))


MAX_ID_ARRAY = 1 << 16  # uint64 arrays scanned for geometry ids at bind time


def _external_host_array(value: Any, device: Device) -> bool:
    """Whether ``value`` is a foreign object exposing NumPy's ``__array_interface__`` that a CPU
    launch takes as an array (as Warp does); its true class is checked, not ``__class__``."""
    if not device.is_cpu or isinstance(value, (np.ndarray, jax.Array)):
        return False
    if getattr(type(value), "_jwarp_array", False):
        return False
    return hasattr(value, "__array_interface__")


def array_kind(value: Any) -> str | None:
    """The array family of a value: ``"array"`` (``wp.array`` and its subclasses),
    ``"indexedarray"``, ``"fabricarray"``, ``"indexedfabricarray"``; None for anything else
    (annotation-only arrays included: they hold no data)."""
    if getattr(value, "device", None) is None:
        return None
    if isinstance(value, array):
        return "array"
    return getattr(type(value), "_array_kind", None)


def _infer_type(value: Any, name: str, packer: ArgumentPacker) -> Any:
    kind = array_kind(value)
    if kind is not None:
        return ArrayType(composites.canonical(value.dtype), value.ndim, kind)
    if isinstance(value, bool):
        return scalars.bool_
    if isinstance(value, int):
        return scalars.int32
    if isinstance(value, float):
        return scalars.float32
    if isinstance(value, (scalars.scalar_base, composites.composite_base)):
        return composites.canonical(type(value))
    if isinstance(value, (np.generic, jax.core.Tracer)) and value.ndim == 0:
        return scalars.canonical_scalar(value.dtype)
    if isinstance(value, StructInstance):
        return value._cls
    raise packer.fail(name, f"has a generic type and cannot accept a value of type {type(value).__name__}")


def convert_value(kernel_key: str, name: str, t: Any, value: Any) -> np.ndarray:
    """Validate and convert a scalar/composite argument to numpy (Warp's packing rules)."""
    if composites.is_composite(t):
        if isinstance(value, composites.composite_base) and type(value)._shape_ == t._shape_:
            return np.asarray(value._v, dtype=t._wp_scalar_type_._np_dtype)
        if value is not None and not hasattr(value, "__len__") and not isinstance(value, np.ndarray):
            raise RuntimeError(
                f"Error launching kernel '{kernel_key}', argument '{name}' expects {type_name(t)} but got a single "
                f"value of type {type(value).__name__}. Construct the value explicitly, e.g.: {type_name(t)}(...)."
            )
        try:
            if value is None:
                raise TypeError("None")
            return np.asarray(t(value)._v)
        except Exception as exc:
            raise ValueError(f"Failed to convert argument for param {name} to {type_name(t)}") from exc
    if isinstance(value, scalars.scalar_base):
        value = value.value
    try:
        return pack_scalar(t, value)
    except Exception:
        raise RuntimeError(
            "Error launching kernel, unable to pack kernel parameter type "
            f"{type(value)} for param {name}, expected {type_name(t)}"
        ) from None


def pack_scalar(t: Any, value: Any) -> np.ndarray:
    """``value`` as a 0-d numpy value of scalar type ``t``, by Warp's (C types') packing rules: an
    integer parameter takes what has ``__index__`` (ints, numpy integers, 0-d integer arrays; wrapped
    to the type's width) and refuses floats, float arrays and numpy bools; a float parameter takes a
    real number (``__float__``: no strings, Python complex, or arrays with dimensions); a bool
    parameter takes any value's truth. Raises ``TypeError`` otherwise.

    Example:
        >>> pack_scalar(scalars.int32, np.array(3)), pack_scalar(scalars.float32, 2)
        (array(3, dtype=int32), array(2., dtype=float32))
    """
    if scalars.is_bool(t):
        return np.asarray(bool(value), dtype=np.bool_)
    if scalars.is_int(t):
        bits = np.dtype(t._np_dtype).itemsize * 8
        wrapped = operator.index(value) & ((1 << bits) - 1)
        return np.asarray(wrapped, dtype=f"u{bits // 8}").view(t._np_dtype).reshape(())
    if isinstance(value, (str, bytes, complex)) or (isinstance(value, np.ndarray) and value.ndim):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    with np.errstate(all="ignore"):
        return np.asarray(float(value)).astype(t._np_dtype).reshape(())


def traced_value(kernel_key: str, name: str, t: Any, value: Any) -> Any:
    """A traced scalar/composite argument, checked for shape and cast to the parameter's type."""
    shape = t._shape_ if composites.is_composite(t) else ()
    if tuple(value.shape) != tuple(shape) and not (shape and value.size == int(np.prod(shape))):
        raise RuntimeError(
            f"Error launching kernel '{kernel_key}', argument '{name}' expects {type_name(t)} but got a traced "
            f"value of shape {tuple(value.shape)}"
        )
    scalar = t._wp_scalar_type_ if composites.is_composite(t) else t
    with storage.x64():
        return value.astype(scalar._np_dtype).reshape(shape)


_constants: dict = {}


def device_constant(leaf: np.ndarray, device: Device, staged: bool = False) -> Any:
    """The value as a jax array on ``device``, cached by (dtype, bytes, device). ``staged``: a 32-bit
    (or narrower) value seen for the first time comes back as the numpy value itself, which an
    executable call moves to the device (~3 µs, where a ``jax.device_put`` costs ~27 µs: values that
    change at every launch never pay for one); seen again, it is a device array."""
    key = (leaf.dtype.str, leaf.shape, leaf.tobytes(), device.alias)
    cached = _constants.get(key)
    if cached is not None and type(cached) is not np.ndarray:
        return cached
    if cached is None and staged and leaf.dtype.itemsize <= 4:
        cached = leaf
    else:
        with storage.x64(), jax.ensure_compile_time_eval():  # concrete even inside a jax.jit trace
            cached = jax.device_put(leaf, device.jax_device)
    if len(_constants) > 4096:
        _constants.clear()
    _constants[key] = cached
    return cached


def check_adjoint_shapes(kernel: Any, args: list, adj_args: list) -> None:
    """An adjoint launch's adjoint arrays must have their forward arrays' shapes (struct fields
    included): ``RuntimeError`` naming the kernel and the parameter otherwise. (Warp does not check
    and reads or writes out of bounds.)"""

    def check(name: str, fwd: Any, adj: Any) -> None:
        if adj is None:
            return
        if isinstance(fwd, StructInstance):
            for field_name in fwd._cls.vars:
                check(f"{name}.{field_name}", getattr(fwd, field_name), getattr(adj, field_name, None))
            return
        if array_kind(fwd) is None or array_kind(adj) is None:
            return
        if tuple(adj.shape) != tuple(fwd.shape):
            raise RuntimeError(
                f"Error launching kernel '{kernel.key}', adjoint argument '{name}' expects an array of shape "
                f"{tuple(fwd.shape)} (the shape of argument '{name}') but the passed array has shape {tuple(adj.shape)}."
            )

    for name, fwd, adj in zip(kernel.arg_names, args, adj_args):
        check(name, fwd, adj)


def bind_arguments(kernel: Any, args: list, device: Device, adjoint: bool = False) -> Binding:
    """Validate and pack ``args`` (inputs followed by outputs) for ``kernel``."""
    if len(args) != len(kernel.arg_types):
        raise RuntimeError(
            f"Error launching kernel '{kernel.key}', passed {len(args)} arguments but kernel requires "
            f"{len(kernel.arg_types)}."
        )
    packer = ArgumentPacker(kernel, device, adjoint)
    params = tuple(packer.pack(n, t, v) for n, t, v in zip(kernel.arg_names, kernel.arg_types, args))
    return Binding(params, packer.bases, packer.values, packer.arrays, packer.traced, tuple(packer.handles),
                   tuple(packer.geometry))


__all__ = ["ArgumentPacker", "Binding", "bind_arguments", "check_adjoint_shapes", "convert_value", "pack_scalar", "device_constant", "ANY"]
