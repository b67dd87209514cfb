"""jwarp: NVIDIA Warp's kernel programming model, re-built on JAX.

Write kernels exactly as for Warp and run them on any JAX device::

    import jwarp as wp

    @wp.kernel
    def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = a * x[i] + y[i]

    wp.launch(saxpy, dim=n, inputs=[2.0, x, y])

This module only re-exports the public surface; each name is defined in its own module.
"""

from jwarp import _dispatch  # noqa: F401  (first: sets JAX's CPU dispatch mode before JAX starts)

from jwarp import config as config
from jwarp import errors as errors
from jwarp.constants import *  # noqa: F401,F403
from jwarp.context import __version__ as __version__
from jwarp.context import constant as constant
from jwarp.context import init as init
from jwarp.context import version as version
from jwarp.errors import (
    WarpCodegenAttributeError as WarpCodegenAttributeError,
    WarpCodegenError as WarpCodegenError,
    WarpCodegenIndexError as WarpCodegenIndexError,
    WarpCodegenKeyError as WarpCodegenKeyError,
    WarpCodegenTypeError as WarpCodegenTypeError,
    WarpCodegenValueError as WarpCodegenValueError,
)
from jwarp.lang.composites import ALIASES as _ALIASES
from jwarp.lang.scalars import (
    Float as Float,
    Int as Int,
    Scalar as Scalar,
    bfloat16 as bfloat16,
    bool_ as bool,
    dtype_from_numpy as dtype_from_numpy,
    float16 as float16,
    float32 as float32,
    float64 as float64,
    handle as handle,
    int8 as int8,
    int16 as int16,
    int32 as int32,
    int64 as int64,
    uint8 as uint8,
    uint16 as uint16,
    uint32 as uint32,
    uint64 as uint64,
    handle as handle,
)
from jwarp.lang.struct import struct as struct
from jwarp.lang.refs import address_of as address_of, ref as ref
from jwarp.runtime.native import func_native as func_native
from jwarp.compiler.calls import static as static
from jwarp.compiler.registry import BUILTINS as _BUILTINS
import jwarp.builtins as _builtins  # noqa: F401  (registers the builtins)
from jwarp.runtime.array import (
    array as array,
    array1d as array1d,
    fixedarray as fixedarray,
    array2d as array2d,
    array3d as array3d,
    array4d as array4d,
)
from jwarp.runtime.indexed import (
    indexedarray as indexedarray,
    indexedarray1d as indexedarray1d,
    indexedarray2d as indexedarray2d,
    indexedarray3d as indexedarray3d,
    indexedarray4d as indexedarray4d,
)
from jwarp.runtime.fabric import (
    fabricarray as fabricarray,
    fabricarrayarray as fabricarrayarray,
    indexedfabricarray as indexedfabricarray,
    indexedfabricarrayarray as indexedfabricarrayarray,
)
from jwarp.runtime.creation import (
    clone as clone,
    copy as copy,
    empty as empty,
    empty_like as empty_like,
    from_numpy as from_numpy,
    full as full,
    full_like as full_like,
    ones as ones,
    ones_like as ones_like,
    zeros as zeros,
    zeros_like as zeros_like,
)
from jwarp.runtime.device import (
    Device as Device,
    ScopedDevice as ScopedDevice,
    get_cuda_device as get_cuda_device,
    get_cuda_device_count as get_cuda_device_count,
    get_cuda_devices as get_cuda_devices,
    get_device as get_device,
    get_devices as get_devices,
    get_preferred_device as get_preferred_device,
    is_cpu_available as is_cpu_available,
    is_cuda_available as is_cuda_available,
    is_device_available as is_device_available,
    set_device as set_device,
)
from jwarp.runtime.streams import (
    Event as Event,
    ScopedStream as ScopedStream,
    Stream as Stream,
    get_stream as get_stream,
    record_event as record_event,
    set_stream as set_stream,
    synchronize as synchronize,
    synchronize_device as synchronize_device,
    synchronize_event as synchronize_event,
    synchronize_stream as synchronize_stream,
    wait_event as wait_event,
    wait_stream as wait_stream,
)
from jwarp.runtime.kernel import (
    Function as Function,
    Kernel as Kernel,
    func as func,
    func_grad as func_grad,
    func_native as func_native,
    func_replay as func_replay,
    kernel as kernel,
)
from jwarp.runtime.modules import (
    Module as Module,
    get_module as get_module,
    force_load as force_load,
    get_module_options as get_module_options,
    load_module as load_module,
    set_module_options as set_module_options,
)
from jwarp.runtime.launch import launch as launch
from jwarp.runtime.overloads import overload as overload
from jwarp.runtime.launch import launch_tiled as launch_tiled
from jwarp.runtime.commands import Launch as Launch
from jwarp import types as types
from jwarp import _extensions  # noqa: F401  (optional surface: tape, interop, utils…)

globals().update(_ALIASES)
_PYTHON_SIDE = ("vector", "matrix", "zeros", "tuple", "float", "int")  # names whose Python-scope meaning differs
globals().update({name: b for name, b in _BUILTINS.items() if not name.startswith("_") and name not in _PYTHON_SIDE})
_extensions.export(globals())


def __getattr__(name: str):
    # ``wp.MarchingCubes``: Warp's deprecated alias of ``wp.geometry.IsoSurfaceMarchingCubes``,
    # resolved lazily so that the warning is raised on access, as in Warp
    if name == "MarchingCubes":
        from jwarp.logger import log_warning
        from jwarp.runtime.geometry.iso_surface import IsoSurfaceMarchingCubes

        log_warning("wp.MarchingCubes is deprecated and will be removed in a future version of Warp. "
                    "Use wp.geometry.IsoSurfaceMarchingCubes instead.", category=DeprecationWarning, stacklevel=2)
        return IsoSurfaceMarchingCubes
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
