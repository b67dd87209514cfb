"""Global settings (``wp.config``), mirroring Warp's ``warp.config`` module.

Assign attributes directly, as in Warp: ``wp.config.mode = "debug"``. Invalid values for
validated settings raise ``ValueError`` at assignment, with Warp's wording.

Example:
    >>> import jwarp as wp
    >>> wp.config.launch_array_access_mode = wp.config.LaunchArrayAccessMode.STRICT
    >>> wp.config.launch_array_access_mode = wp.config.LaunchArrayAccessMode.RELAXED
"""

import os as _os
import sys as _sys
import types as _types
from enum import IntEnum as _IntEnum


class LaunchArrayAccessMode(_IntEnum):
    """Array-access verification modes for kernel launches (Warp 1.19)."""

    RELAXED = 0
    CHECKED = 1
    STRICT = 2


class DeterministicMode(_IntEnum):
    """Warp's deterministic-atomics modes; jwarp's atomics are always deterministic."""

    NOT_GUARANTEED = 0
    RUN_TO_RUN = 1
    GPU_TO_GPU = 2


_MODES = ("release", "debug")
PALLAS_MODES = ("auto", "always", "never")


class _ConfigModule(_types.ModuleType):
    def __setattr__(self, name, value):
        if name == "launch_array_access_mode" and not isinstance(value, LaunchArrayAccessMode):
            raise ValueError(
                "warp.config.launch_array_access_mode must be a warp.config.LaunchArrayAccessMode value, "
                f"got {value!r}"
            )
        if name == "deterministic" and not isinstance(value, DeterministicMode):
            raise ValueError(f"warp.config.deterministic must be a warp.DeterministicMode value, got {value!r}")
        if name == "launch_memory_budget" and value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value <= 0
        ):
            raise ValueError(f"wp.config.launch_memory_budget must be None or a positive int (bytes), got {value!r}")
        if name == "interruptible_launch_seconds" and value is not None and (
            isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0
        ):
            raise ValueError(f"wp.config.interruptible_launch_seconds must be None or a number >= 0, got {value!r}")
        if name == "mode" and value not in _MODES:
            raise ValueError(f"warp.config.mode must be one of {_MODES}, got {value!r}")
        if name == "pallas" and value not in PALLAS_MODES:
            raise ValueError(f"wp.config.pallas must be one of {PALLAS_MODES}, got {value!r}")
        super().__setattr__(name, value)


launch_array_access_mode: LaunchArrayAccessMode = LaunchArrayAccessMode.RELAXED
"""How launches treat array arguments allocated on another device than the launch device.

``RELAXED`` (default): run anyway; jwarp moves such arrays to the launch device and the results
back (never a crash). ``CHECKED``: raise ``RuntimeError`` before launch where Warp deems the access
invalid (a CPU array in a CUDA launch unless pinned, a CUDA array in a CPU launch, CUDA peers
without peer access); warn once where it cannot tell. ``STRICT``: every array argument must be on
the launch device. See ``jwarp/runtime/access.py``."""
deterministic: DeterministicMode = DeterministicMode.NOT_GUARANTEED
"""Accepted for Warp compatibility: jwarp's atomics are always deterministic."""
version: str = "1.19.0"
"""The Warp API version jwarp follows."""
mode: str = "release"
"""``"debug"`` turns out-of-bounds array accesses into ``IndexError`` after the launch, naming kernel,
file and line (release: reads are clamped, writes dropped). Other values raise ``ValueError``."""
launch_memory_budget = None
"""jwarp extension: bytes of temporaries one launch may allocate. A launch whose working set would
exceed it runs in chunks over its grid (same results, memory O(chunk)); ``None`` (default) means an
eighth of the device's free memory, at most 256 MiB. Takes effect at the next launch. See ``jwarp/runtime/memory_budget.py``."""
verify_fp: bool = False
"""After each launch, print (to stdout, as Warp's checked builds do) every written array that holds
NaN or Inf, naming the kernel, the array and the counts; the launch's results are kept."""
verify_cuda: bool = False
"""Accepted for Warp compatibility (no CUDA error state to check)."""
verify_autograd_array_access: bool = False
print_launches: bool = False
"""Print ``kernel: <key> dim: <dim> inputs: [...] outputs: [...] device: <device>`` for each launch."""
verbose: bool = False
"""Print a line for every kernel compilation (kernel, launch signature, device, time)."""
verbose_warnings: bool = False
quiet: bool = False
log_level: int = 20
cache_kernels: bool = True
"""Keep compiled kernels on disk (JAX's persistent compilation cache, enabled at the first kernel
compile unless the program set its own JAX cache directory); see :mod:`jwarp.runtime.compile_cache`."""
donate_buffers: bool = True
"""jwarp extension: a repeated launch that is the only holder of an output array's buffer lets XLA
write the result in place (buffer donation) instead of allocating a new buffer. A buffer that anything
else still references (``wp.to_jax``, a numpy view from ``.numpy()``, a Tape) is never donated."""
defer_launch_replays: bool = True
"""jwarp extension: ``Launch.launch()`` (``record_cmd=True``) of a kernel that only rewrites arrays runs
when its results could be observed (any array read, another launch, ``wp.synchronize()``), and
back-to-back replays of one Launch run as one executable call; results are the same as running each
at once. ``False``: every ``Launch.launch()`` runs immediately. See ``jwarp/runtime/deferred.py``."""
interruptible_launch_seconds: float | None = 1.0
"""jwarp extension: a launch from the main thread whose previous run took at least this many seconds
(and the first run of every compiled kernel) runs on a worker thread while the main thread waits, so
Ctrl-C interrupts it: ``KeyboardInterrupt`` is raised at once and the launch changes no array (the
computation finishes in the background, its results dropped). ``None``: always call directly. See
``jwarp/runtime/interruptible.py``."""
bucket_launch_sizes: bool = True
"""jwarp extension: once a 1-D kernel has been compiled for one launch size, a launch at another size
(same arrays' shapes) runs a program compiled for its *bucket* of sizes (4 per doubling) with the
extra lanes masked off, instead of compiling the kernel again for each size. ``False``: every new
launch size compiles an exact program. See ``jwarp/runtime/launch_buckets.py``."""
fuse_launch_chains: bool = True
"""jwarp extension: a plain ``wp.launch`` of a kernel that only rewrites arrays runs when its results
could be observed (as deferred ``Launch`` replays), and a sequence of such launches that recurs (the
substeps between two ``wp.synchronize()`` calls) runs as one XLA program; results are the same as
running each at once. ``False``: every ``wp.launch`` runs immediately. See ``jwarp/runtime/chain.py``."""
kernel_cache_dir = None
"""Where the on-disk cache lives (default ``$JWARP_CACHE_PATH`` or ``~/.cache/jwarp/xla``)."""
enable_backward: bool = True
enable_cpu_blocks: bool = False
"""Honour ``block_dim`` values 2..1024 on CPU (``wp.block_dim()`` then returns them); otherwise CPU
launches resolve ``block_dim`` to 1, as in Warp 1.19."""
pallas: str = "auto"
"""jwarp extension: where launches run as a Pallas kernel (``pallas_call``: blocks of ``block_dim``
threads, a grid-stride loop over at most ``max_blocks`` programs, arrays updated in place).
``"auto"``: on CUDA devices, for launches passing ``max_blocks`` or a ``block_dim`` other than 256
whose kernel the Triton backend can lower (else the XLA path); ``"always"``: every launch (interpret
mode on the CPU: slow, for testing), an ineligible kernel raises naming the construct; ``"never"``:
the XLA path. ``verbose`` says why a launch fell back. See docs/launch.md."""
default_grid_stride: bool = True
"""Kernels use a grid-stride loop unless ``@wp.kernel(grid_stride=False)``; ``max_blocks > 0`` on a
non-CPU device needs one."""
max_unroll: int = 16
"""Range loops with constant bounds and at most this many iterations are unrolled."""
loop_unroll: int = 32
"""Unroll factor used for long uniform loops lowered to ``fori_loop``. Measured on the all-pairs
n-body kernel (4096 bodies, 2-core CPU): 8 -> 14 ms per launch (compile 245 ms), 16 -> 11 ms
(338 ms), 32 -> 9.3 ms (549 ms). Lower it to trade run time for compile time. Loops whose body holds
a loop of its own, or is large (``jwarp.compiler.loop_shapes.UNROLL_BODY_LIMIT``), stay rolled."""
optimization_level: int | None = None
"""How hard the compiler optimises kernel code, 0-3, or None for the default (Warp: clang's/NVCC's
``-O`` level; jwarp: XLA's ``xla_backend_optimization_level``, the LLVM passes run on the kernel's
program, and at level 0 XLA:CPU's older emitters for every kernel and no expensive LLVM passes).
Level 0 compiles a fifth to a third faster and runs slower code (measured, 2-core CPU: the test suite's
cold compiles 8:00 → 6:20; Warp's SPH example runs 4x longer in jwarp, 14x in Warp), so it suits small
inputs and test suites. The module option ``"optimization_level"`` overrides it."""
cpu_compiler_flags: str | None = (
    "-march=native -mllvm=-inline-threshold=9000 -mllvm=-inline-cold-callsite-threshold=3000 "
    "-mllvm=-slp-recursion-max-depth=4"
)
"""Warp's CPU (LLVM) compiler flags; ``None`` means ``-march=native``. Accepted and reported (module
option ``cpu_compiler_flags`` inherits it); it selects the target in ``wp.get_cpu_kernel_cache_key``."""
cuda_arch_suffix = None
enable_mathdx_gemm: bool = True
enable_mathdx_solver: bool = True
enable_mathdx_fft: bool = True
enable_tiles_in_stack_memory: bool = True
legacy_cpu_linker: bool = False
llvm_cuda: bool = False
use_precompiled_headers: bool = True
lineinfo: bool = False
line_directives: bool = True
compile_time_trace: bool = False
cuda_output = None
ptx_target_arch = None
track_memory: bool = False
enable_vector_component_overwrites: bool = False
legacy_scalar_return_types: bool = False
enable_mempools_at_init: bool = True
enable_graph_capture_module_load_by_default: bool = True
load_module_max_workers = 0
deterministic_max_records: int = 0
deterministic_debug: bool = False
frontend_debug: bool = _os.environ.get("JWARP_FRONTEND_DEBUG", "0") not in ("", "0", "false")
"""Re-raise kernel compile errors with jwarp's own frames (for debugging jwarp itself)."""

_sys.modules[__name__].__class__ = _ConfigModule
