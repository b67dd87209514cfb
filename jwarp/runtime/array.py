"""``wp.array``: a mutable handle over an immutable jax buffer.

A launch that writes an array replaces its buffer; old buffers stay valid for whoever
holds them (the Tape), so keeping history costs no copies. A *view* (``a[2:8]``,
``a.reshape(...)``…) holds its base array and a chain of view operations: reading it
applies the chain, writing it writes through to the base, so kernels and Python code see
views and parents alias exactly as in Warp.

Called with only ``dtype`` (and ``ndim``), ``wp.array`` makes an annotation for kernel
parameters, as in Warp.

Example:
    >>> import numpy as np, jwarp as wp
    >>> a = wp.array(np.arange(6, dtype=np.float32))
    >>> b = a[1:4]
    >>> b.fill_(7.0)
    >>> a.numpy()
    array([0., 7., 7., 7., 4., 5.], dtype=float32)
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from jwarp.compiler.views import apply_chain, write_back
from jwarp.lang import composites, scalars
from jwarp.lang import array_annotations
from jwarp.lang.arrays import ANY, ArrayType, _Generic, parse_subscript, resolve_dtype, type_name
from jwarp.lang.struct import StructType
from jwarp.runtime import addresses, capture, deferred, storage
from jwarp.runtime.array_ops import ArrayArithmetic
from jwarp.runtime.view_layout import chain_is_contiguous, view_probe
from jwarp.runtime.device import Device, get_device
from jwarp.runtime.locking import state_lock
from jwarp.runtime.read_flags import ReadFlags
from jwarp.runtime.pointer_views import view_from_pointer
from jwarp.runtime.dtype_views import view_shape_and_ops
from jwarp.runtime.zero_buffers import shared_zeros

_ids = itertools.count()



# Functions of modules that build on this one (creation: copy_into, clone; indexed: index_with_arrays,
# struct_from_record), registered by them when jwarp is imported: no import back from here.
_SERVICES: dict[str, Callable] = {}


def register_array_services(**services: Callable) -> None:
    """Called by :mod:`jwarp.runtime.creation` and :mod:`jwarp.runtime.indexed` at import."""
    _SERVICES.update(services)


class array(ArrayArithmetic, ReadFlags):
    """An n-dimensional array of a Warp dtype on one device (see module docstring)."""

    _jwarp_array = True
    _jwarp_array_class = True
    _default_ndim = 1
    _host_mirror: np.ndarray | None = None  # a numpy array passed to a launch: writes land in it
    _buf: Any = None

    @property
    def _buffer(self) -> Any:
        """The root array's storage (None for a view); runs deferred Launch replays first (deferred.py)."""
        if deferred.pending is not None:
            deferred.flush()
        return self._buf

    @_buffer.setter
    def _buffer(self, value: Any) -> None:
        if deferred.pending is not None:
            deferred.flush()
        self._buf = value

    def __init__(
        self,
        data: Any = None,
        dtype: Any = Any,
        shape: Any = None,
        strides: Any = None,
        ptr: Any = None,
        capacity: Any = None,
        device: Any = None,
        pinned: bool = False,
        copy: bool = True,
        deleter: Any = None,
        ndim: int | None = None,
        grad: array | None = None,
        requires_grad: bool = False,
        retain_grad: bool = False,
    ):
        self._id = next(_ids)
        self._base: array | None = None
        self._chain: tuple = ()
        self._buffer: Any = None
        self._grad: array | None = None
        self._requires_grad = False
        self._retain_grad = False
        self._version = 0
        self.pinned = bool(pinned)
        self.deleter = deleter
        if data is None and shape is None and ptr is None:
            # annotation-only array (kernel parameter type); a generic one keeps typing.Any, as in Warp
            self.dtype = Any if dtype is Any else resolve_dtype(dtype)
            self.ndim = ndim or self._default_ndim
            self.shape = (0,) * self.ndim
            self.device = None
            return
        self.device = get_device(device)
        self.pinned = self.pinned and self.device.is_cpu  # as in Warp: only host memory is pinned
        dtype = resolve_dtype(dtype) if dtype is not Any else ANY
        if isinstance(data, array):
            self._init_from_array(data, dtype, shape, copy)
        elif isinstance(data, jax.Array):
            self._init_from_jax(data, dtype, shape, device, copy)
        elif data is None and ptr is not None:
            self._init_from_pointer(ptr, dtype, shape, strides)
        elif data is None:
            shape = tuple(int(s) for s in ((shape,) if np.isscalar(shape) else shape))
            for axis, extent in enumerate(shape):
                if extent < 0:
                    raise ValueError(f"Array shapes must be non-negative, got {extent} in dimension {axis}")
            if isinstance(dtype, _Generic):
                dtype = scalars.float32
            self.dtype, self.shape = dtype, shape
            self._buffer = storage.device_zeros(shape, dtype, self.device)
        else:
            if isinstance(data, (int, float, complex, np.generic, scalars.scalar_base)):
                raise RuntimeError(f"Data must be a sequence or array, got scalar {data}")
            np_storage, shape, dtype = storage.to_numpy_storage(data, dtype, shape)
            self.dtype, self.shape = dtype, shape
            self._buffer = storage.put(np_storage, self.device)
        self.ndim = len(self.shape)
        if ndim is not None and ndim != self.ndim:
            raise RuntimeError(f"Array ndim={ndim} does not match the data's {self.ndim} dimensions")
        if grad is not None:
            self._grad = grad
            self._requires_grad = True
        elif requires_grad:
            self.requires_grad = True
        if retain_grad:
            self.retain_grad = True

    def _init_from_array(self, other: array, dtype: Any, shape: Any, copy: bool) -> None:
        if not isinstance(dtype, _Generic) and dtype != other.dtype:
            np_storage, shape, dtype = storage.to_numpy_storage(other.numpy(), dtype, shape)
            self.dtype, self.shape = dtype, shape
            self._buffer = storage.put(np_storage, self.device)
            return
        self.dtype, self.shape = other.dtype, other.shape
        buf = other.buffer
        if shape is not None:  # wp.array(other, shape=...): the same elements in another shape
            shape = (int(shape),) if np.isscalar(shape) else tuple(int(s) for s in shape)
            if int(np.prod(shape)) != other.size:
                raise RuntimeError(f"cannot reshape array of shape {other.shape} (size {other.size}) into shape "
                                   f"{shape} (size {int(np.prod(shape))})")
            comp = storage.element_shape(other.dtype)
            with storage.x64():
                buf = tuple(b.reshape(shape + b.shape[other.ndim:]) for b in buf) if isinstance(buf, tuple) \
                    else buf.reshape(shape + comp)
            self.shape = shape
        self._buffer = _device_put(buf, self.device) if copy or other.device is not self.device else buf

    def _init_from_pointer(self, ptr: Any, dtype: Any, shape: Any, strides: Any) -> None:
        """An array over memory another jwarp array owns: a view of it (``pointer_views``)."""
        if isinstance(dtype, _Generic):
            dtype = scalars.float32
        shape = tuple(int(s) for s in ((shape,) if np.isscalar(shape) else shape))
        strides = None if strides is None else ((strides,) if np.isscalar(strides) else tuple(strides))
        view = view_from_pointer(int(ptr), dtype, shape, strides)
        self._base, self._chain = view._base if view._base is not None else view, view._chain
        self.dtype, self.shape = view.dtype, view.shape

    def _init_from_jax(self, x: jax.Array, dtype: Any, shape: Any, device: Any, copy: bool = True) -> None:
        if isinstance(dtype, _Generic):
            dtype = scalars.canonical_scalar(x.dtype)
        comp = storage.element_shape(dtype)
        if shape is None:
            shape = x.shape[: x.ndim - len(comp)] if comp else x.shape
        with storage.x64():
            x = x.astype(storage.scalar_of(dtype)._np_dtype).reshape(tuple(shape) + comp)
        traced = isinstance(x, jax.core.Tracer)  # inside jax.jit/grad: JAX places the value
        if device is None:
            self.device = get_device(None) if traced else get_device(next(iter(x.devices())))
        self.dtype, self.shape = dtype, tuple(shape)
        keep = traced or (not copy and x.devices() == {self.device.jax_device})
        self._buffer = x if keep else _device_put(x, self.device)  # copy=False wraps without copying

    @classmethod
    def __class_getitem__(cls, params: Any) -> Any:
        if getattr(cls, "_jwarp_fixed", False):  # wp.fixedarray[...]: an annotation-only instance
            dtype, ndim = parse_subscript(params)
            return cls(dtype=dtype, ndim=ndim)
        # wp.array[...] / wp.array2d[...]: a lightweight annotation (dtype checked when used)
        fixed_rank = cls._default_ndim if cls is not array else None
        return array_annotations.subscript(array, params, fixed_rank)

    # -- buffer access ---------------------------------------------------------------------------
    @property
    def is_view(self) -> bool:
        return self._base is not None

    @property
    def root(self) -> array:
        return self._base if self._base is not None else self

    @property
    def buffer(self) -> Any:
        """The array's current contents as jax storage (a view applies its chain)."""
        if self._base is None:
            with state_lock:  # never a buffer that a concurrent launch is donating (see locking.py)
                buf = self._buffer
            if buf is None:
                raise RuntimeError("This array has no data (it is an annotation or was freed)")
            return buf
        with storage.x64():
            return apply_chain(self._base.buffer, self._chain)

    def _set_buffer(self, new: Any) -> None:
        """Replace the contents (written through to the base for views)."""
        with state_lock:
            self._store(new)

    def _store(self, new: Any) -> None:
        """:meth:`_set_buffer` for a caller that already holds ``state_lock`` (the execution core,
        which takes it once per launch)."""
        if self._base is None:
            if deferred.pending is not None:
                deferred.flush()
            self._buf = new
            self._version += 1
            if self._host_mirror is not None and not isinstance(new, jax.core.Tracer):
                np.copyto(self._host_mirror, np.asarray(new).reshape(self._host_mirror.shape))
            return
        base = self._base
        with storage.x64():
            base._store(write_back(base.buffer, self._chain, new))

    @property
    def version(self) -> int:
        return self.root._version

    # -- properties ------------------------------------------------------------------------------
    @property
    def size(self) -> int:
        return math.prod(self.shape)  # (numpy's prod cost ~8 us a call on the launch path)

    @property
    def strides(self) -> tuple[int, ...]:
        item = self._itemsize()
        probe = view_probe(self.root.shape, self._chain) if self._chain else None
        if probe is not None:  # strides in elements of the root's dtype
            root_item, k = self.root._itemsize(), probe.ndim
            outer = tuple(int(st) * root_item for st in probe.strides)
            if probe.shape == self.shape:
                return outer
            if probe.shape[: self.ndim] == self.shape:  # trailing dims became components (view(vec))
                return outer[: self.ndim]
            if self.shape[:k] == probe.shape:  # components became trailing dims (view(float))
                inner, acc = [], item
                for d in reversed(self.shape[k:]):
                    inner.insert(0, acc)
                    acc *= d
                return outer + tuple(inner)
        out, acc = [], item
        for d in reversed(self.shape):
            out.append(acc)
            acc *= d
        return tuple(reversed(out))

    def _itemsize(self) -> int:
        if isinstance(self.dtype, StructType):
            return self.dtype.np_dtype().itemsize
        return storage.scalar_of(self.dtype)._np_dtype.itemsize * int(np.prod(storage.element_shape(self.dtype)))

    @property
    def capacity(self) -> int:
        return self.size * self._itemsize()

    @property
    def is_contiguous(self) -> bool:
        """Whether the elements are laid out densely in row-major order (as in Warp)."""
        return not self._chain or chain_is_contiguous(self.root.shape, self._chain)

    @property
    def ptr(self) -> int | None:
        """A stable address of the first element (see ``addresses``): views are offset from
        their root as in Warp, and ``addresses.resolve`` maps it back to this storage."""
        if (self._buffer is None and self._base is None) or self.size == 0:
            return None
        root = self.root
        start = addresses.address_of(root, root.capacity)
        if not self._chain:
            return start
        origin = np.zeros(1, np.int8)
        probe = view_probe(root.shape, self._chain, origin)
        offset = 0 if probe is None or probe.size == 0 else probe.ctypes.data - origin.ctypes.data
        return start + offset * root._itemsize()

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        """True allocates a zero ``grad`` if there is none; False removes it (Warp)."""
        if value and self._grad is None:
            self._grad = _zeros_like_storage(self)
        elif not value:
            self._grad = None
            self._retain_grad = False
        self._requires_grad = bool(value)

    @property
    def retain_grad(self) -> bool:
        """Whether the backward pass keeps this array's gradient where kernels store to it
        (instead of consuming it after propagating it through the store)."""
        return self.root._retain_grad if self._base is not None else self._retain_grad

    @retain_grad.setter
    def retain_grad(self, value: bool) -> None:
        if value and not self._requires_grad:
            raise ValueError("retain_grad=True requires requires_grad=True")
        self._retain_grad = bool(value)

    @property
    def grad(self) -> array | None:
        """The array that accumulates this array's gradient (a view's is the matching view of
        its base's gradient), or None."""
        if self._base is not None and self._grad is None and self._base._grad is not None:
            return self._base._grad._view(self._chain, self.shape, self.dtype)
        return self._grad

    @grad.setter
    def grad(self, value: array | None) -> None:
        if value is None:
            self._grad = None
            self._requires_grad = False
            return
        if value.dtype != self.dtype:
            raise ValueError(
                f"The given gradient array is incompatible: expected dtype {type_name(self.dtype)}, got "
                f"{type_name(value.dtype)}"
            )
        if value.shape != self.shape:
            raise ValueError(
                f"The given gradient array is incompatible: expected shape {self.shape}, got {value.shape}"
            )
        if value.device is not self.device:
            raise ValueError(
                f"The given gradient array is incompatible: expected device {self.device}, got {value.device}"
            )
        self._grad = value
        self._requires_grad = True

    # -- conversion ------------------------------------------------------------------------------
    def numpy(self) -> np.ndarray:
        """A numpy copy of the contents (structured for struct dtypes)."""
        buf = self.buffer
        if any(isinstance(p, jax.core.Tracer) for p in (buf if isinstance(buf, tuple) else (buf,))):
            raise RuntimeError(
                f"{self!r}.numpy() was called inside a JAX transformation (jax.jit/grad/vmap), where the array "
                "holds a traced value with no contents yet; return wp.to_jax(array) from the traced function "
                "and read it outside"
            )
        host = storage.fetch(buf)
        if isinstance(self.dtype, StructType):
            return storage.parts_to_structured(list(host), self.dtype, self.shape)
        if not host.flags.writeable:  # Warp's numpy() is writable (a view there; a copy here)
            host = host.copy()
        return host

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """numpy's conversion: the host contents without a copy where possible, ``copy=True`` copies."""
        out = self.numpy()
        if dtype is not None and np.dtype(dtype) != out.dtype:
            return out.astype(dtype)
        return out.copy() if copy else out

    def __jax_array__(self) -> jax.Array:
        return self.buffer

    def list(self) -> list:
        """Elements as Python values (composite instances for vector/matrix dtypes)."""
        host = self.numpy()
        if composites.is_composite(self.dtype):
            flat = host.reshape((-1,) + self.dtype._shape_)
            return [self.dtype(x) for x in flat]
        if isinstance(self.dtype, StructType):
            struct_from_record = _SERVICES["struct_from_record"]
            return [struct_from_record(self.dtype, x, self.device) for x in host.reshape(-1)]
        return host.reshape(-1).tolist()

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        return f"array(shape={self.shape}, dtype={type_name(self.dtype)})"

    def __str__(self) -> str:
        if self._buffer is None and self._base is None:
            return repr(self)
        return str(self.numpy())

    def _make_result(self, buf: Any, dtype: Any) -> array:
        """A new array holding an operator's result (``array_ops``), on this array's device."""
        return array(buf, dtype=dtype, device=self.device)

    # -- in-place ops ----------------------------------------------------------------------------
    def assign(self, src: Any) -> None:
        """Copy ``src`` (array, numpy, list) into this array; shapes must match."""
        copy_into = _SERVICES["copy_into"]
        others = [src] if isinstance(src, array) else []
        if capture.deferred(self.device, lambda: copy_into(self, src), [self, *others], key=("assign", self, src)):
            return
        copy_into(self, src)

    def fill_(self, value: Any) -> None:
        """Set every element to ``value``."""
        if isinstance(self.dtype, StructType):
            elements = storage.struct_fill_storage(value, self.dtype)
            if capture.deferred(self.device, lambda: self.fill_(value), [self], key=("fill", self, value)):
                return
            self._set_buffer(tuple(storage.device_full(self.shape, e, self.device) for e in elements))
            self.mark_init()
            return
        element = storage.fill_value_storage(value, self.dtype)
        if capture.deferred(self.device, lambda: self.fill_(value), [self], key=("fill", self, value)):
            return
        self._set_buffer(storage.device_full(self.shape, element, self.device))
        self.mark_init()

    def zero_(self) -> None:
        """Set every element to zero."""
        if capture.deferred(self.device, self.zero_, [self], key=("zero", id(self))):
            return
        self._set_buffer(storage.device_zeros(self.shape, self.dtype, self.device))
        self.mark_init()

    def to(self, device: Any, requires_grad: bool | None = None) -> array:
        """This array if already on ``device``, else a copy there."""
        device = get_device(device)
        if device is self.device:
            return self
        out = array(self, device=device)
        out.requires_grad = self.requires_grad if requires_grad is None else requires_grad
        return out

    def clone(self, device: Any = None, requires_grad: bool | None = None) -> array:
        return _SERVICES["clone"](self, device=device, requires_grad=requires_grad)

    # -- views -----------------------------------------------------------------------------------
    def _view(self, ops: tuple, shape: tuple, dtype: Any = None) -> array:
        v = array.__new__(type(self))
        v.__dict__.update(
            _id=next(_ids), _base=self.root, _chain=self._chain + tuple(ops), _buf=None, _grad=None,
            _requires_grad=self._requires_grad, _retain_grad=False, _version=0, pinned=self.pinned, deleter=None,
            dtype=dtype if dtype is not None else self.dtype, shape=tuple(shape), ndim=len(shape),
            device=self.device, _ref=self, _is_read=self._is_read,
        )
        return v

    def __getitem__(self, key: Any) -> array:
        key = key if isinstance(key, tuple) else (key,)
        if len(key) > self.ndim:
            raise RuntimeError(f"Too many indices for an array of {self.ndim} dimensions")
        if any(isinstance(k, array) for k in key):  # index arrays: a wp.indexedarray
            return _SERVICES["index_with_arrays"](self, key)
        if len(key) == self.ndim and all(isinstance(k, (int, np.integer)) for k in key):
            raise RuntimeError("Item indexing is not supported on wp.array objects")
        shape, norm = [], []
        for axis, k in enumerate(key):
            n = self.shape[axis]
            if isinstance(k, slice):
                start, stop, step = k.indices(n)
                if step <= 0:
                    raise RuntimeError("Array slices must have a positive step")
                norm.append((start, stop, step))
                shape.append(len(range(start, stop, step)))
            elif isinstance(k, (int, np.integer)):
                i = int(k) + n if k < 0 else int(k)
                if not 0 <= i < n:
                    raise RuntimeError(f"Index {k} is out of bounds for axis {axis} of size {n}")
                norm.append(i)
            else:
                raise RuntimeError(f"Unsupported index {k!r} on wp.array objects")
        shape.extend(self.shape[len(key):])
        return self._view((("index", tuple(norm)),), tuple(shape))

    def reshape(self, shape: Any) -> array:
        shape = (shape,) if np.isscalar(shape) else tuple(int(s) for s in shape)
        if shape.count(-1) > 1:
            raise RuntimeError("Cannot infer shape if more than one index is -1.")
        if -1 in shape:
            known = int(np.prod([s for s in shape if s != -1]))
            shape = tuple(self.size // known if s == -1 else s for s in shape)
        if int(np.prod(shape)) != self.size:
            raise RuntimeError(f"cannot reshape array of shape {self.shape} (size {self.size}) into shape {shape} "
                               f"(size {int(np.prod(shape))})")
        return self._view((("reshape", (shape, self.ndim)),), shape)

    def flatten(self) -> array:
        return self.reshape((self.size,))

    def transpose(self, axes: Any = None) -> array:
        axes = tuple(reversed(range(self.ndim))) if axes is None else tuple(axes)
        return self._view((("transpose", axes),), tuple(self.shape[a] for a in axes))

    def contiguous(self) -> array:
        return self if not self.is_view or self.is_contiguous else self.clone()

    def view(self, dtype: Any) -> array:
        """The same memory seen as ``dtype`` (rules in :mod:`jwarp.runtime.dtype_views`)."""
        dtype = resolve_dtype(dtype)
        shape, ops = view_shape_and_ops(self, dtype)
        return self._view(ops, shape, dtype)

    @property
    def vars(self) -> Any:
        return None

    def __dlpack__(self, stream: Any = None, **kwargs: Any):
        return self.buffer.__dlpack__(**({"stream": stream} if stream is not None else {}), **kwargs)

    def __dlpack_device__(self):
        return self.buffer.__dlpack_device__()

    @property
    def array_type(self) -> ArrayType:
        return ArrayType(self.dtype, self.ndim)


def _device_put(buf: Any, device: Device) -> Any:
    if isinstance(buf, jax.core.Tracer) or (isinstance(buf, tuple) and isinstance(buf[0], jax.core.Tracer)):
        return buf  # traced (inside jax.jit/grad): immutable, and JAX decides placement
    with storage.x64():
        if isinstance(buf, tuple):
            return tuple(jax.device_put(p, device.jax_device) for p in buf)
        return jax.device_put(jnp.array(buf, copy=True), device.jax_device)


def _zeros_like_storage(a: array) -> array:
    """A zero gradient for ``a``, on the shared zero buffer ``Tape.zero`` hands out (plain dtypes): the
    first backward pass then compiles the program later ones run (docs/performance.md, twelfth session)."""
    if isinstance(a.dtype, StructType):
        return array(shape=a.shape, dtype=a.dtype, device=a.device)
    return array(shared_zeros(a.shape, a.dtype, a.device), dtype=a.dtype, shape=a.shape, device=a.device, copy=False)


class array1d(array):
    _default_ndim = 1


class fixedarray(array):
    """Type of a fixed-size array that kernel code makes with ``wp.zeros(shape, dtype)``: used in
    annotations (``-> wp.fixedarray(shape=(2, 3), dtype=int)``), not to hold data in Python.

    Example::

        @wp.func
        def table() -> wp.fixedarray(shape=(2, 3), dtype=int):
            t = wp.zeros(shape=(2, 3), dtype=int)
            t[1, 2] = 5
            return t
    """

    _jwarp_fixed = True

    def __init__(self, dtype: Any = Any, shape: Any = None):
        shape = (0,) if shape is None else ((int(shape),) if np.isscalar(shape) else tuple(int(s) for s in shape))
        super().__init__(dtype=dtype, ndim=len(shape))
        self.shape = shape


class array2d(array):
    _default_ndim = 2


class array3d(array):
    _default_ndim = 3


class array4d(array):
    _default_ndim = 4


def is_array(x: Any) -> bool:
    """Whether ``x`` is a jwarp array of any kind (``wp.array``, ``wp.indexedarray``,
    ``wp.fabricarray``, ``wp.indexedfabricarray``)."""
    return isinstance(x, array) or getattr(type(x), "_array_kind", None) in _GATHERED_KINDS


_GATHERED_KINDS = ("indexedarray", "fabricarray", "indexedfabricarray")
