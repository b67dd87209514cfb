"""Past one process: jwarp programs on several processes or machines with ``jax.distributed``.

jwarp kernels are JAX functions (``wp.jax_kernel``), so a multi-process run is JAX's: every
process runs the same script, ``jax.distributed`` joins them into one set of global devices,
``jax.shard_map`` runs the kernels on each shard's block, and neighbouring shards exchange halo
cells with ``jax.lax.ppermute``. This module holds the few pieces every such program needs:

- :func:`initialize` joins the processes (on CPU it also selects cross-process collectives);
- :func:`mesh` lays all global devices out as a named mesh;
- :func:`halo_exchange` pads a shard's block with its neighbours' edge cells;
- :func:`shard`, :func:`from_process_local` and :func:`gather` move data between numpy and
  global sharded arrays;
- :func:`launch_local` starts N copies of a script on this host, for testing and benchmarks.

Example (``docs/distributed.md`` has the whole program)::

    import jwarp as wp
    import jwarp.distributed as wpd

    wpd.initialize()                           # under SLURM/OpenMPI or launch_local: nothing to pass
    mesh = wpd.mesh(("rows",))
    lap = wp.jax_kernel(laplacian)             # out[i] = u[i] - 2 u[i+1] + u[i+2]

    def local(u):                              # one shard's block
        (out,) = lap(wpd.halo_exchange(u, "rows"), launch_dims=u.shape)
        return out

    step = jax.jit(jax.shard_map(local, mesh=mesh, in_specs=P("rows"), out_specs=P("rows")))
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

COORDINATOR_ENV = "JWARP_COORDINATOR"
NUM_PROCESSES_ENV = "JWARP_NUM_PROCESSES"
PROCESS_ID_ENV = "JWARP_PROCESS_ID"


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, *, cpu_collectives: str | None = "gloo", **kwargs) -> None:
    """Join this process to a multi-process JAX run (``jax.distributed.initialize``).

    Arguments left as ``None`` come from :func:`launch_local`'s environment variables
    (``JWARP_COORDINATOR``, ``JWARP_NUM_PROCESSES``, ``JWARP_PROCESS_ID``) when they are set,
    and otherwise from JAX's own cluster detection (SLURM, Open MPI, Kubernetes, Cloud TPU).
    ``cpu_collectives`` selects the library CPU devices use to talk across processes
    (``"gloo"``, or ``"mpi"``; ``None`` keeps JAX's setting). It has no effect on GPUs, where
    NCCL is used. Call it once, before any other JAX call. Extra keyword arguments go to
    ``jax.distributed.initialize`` (for example ``local_device_ids``).

    Example:
        >>> import jwarp.distributed as wpd
        >>> wpd.initialize("10.0.0.1:1234", num_processes=4, process_id=rank)  # doctest: +SKIP
    """
    if cpu_collectives is not None:
        jax.config.update("jax_cpu_collectives_implementation", cpu_collectives)
    env = os.environ
    if coordinator_address is None and COORDINATOR_ENV in env:
        coordinator_address = env[COORDINATOR_ENV]
    if num_processes is None and NUM_PROCESSES_ENV in env:
        num_processes = int(env[NUM_PROCESSES_ENV])
    if process_id is None and PROCESS_ID_ENV in env:
        process_id = int(env[PROCESS_ID_ENV])
    jax.distributed.initialize(coordinator_address, num_processes, process_id, **kwargs)


def mesh(axis_names: Sequence[str] = ("x",), shape: Sequence[int] | None = None) -> Mesh:
    """All global devices (of every process) as a :class:`jax.sharding.Mesh`.

    ``shape`` defaults to one axis over every device. Devices keep JAX's global order, so the
    blocks of a sharded axis follow process order: process 0 holds the first block.

    Example:
        >>> import jwarp.distributed as wpd
        >>> wpd.mesh(("rows",)).shape["rows"] == len(jax.devices())  # doctest: +SKIP
        True
    """
    devices = np.array(jax.devices())
    if shape is None:
        shape = (devices.size,) + (1,) * (len(axis_names) - 1)
    if len(shape) != len(axis_names):
        raise ValueError(f"mesh(): shape {tuple(shape)} and axis_names {tuple(axis_names)} differ in length")
    if int(np.prod(shape)) != devices.size:
        raise ValueError(f"mesh(): shape {tuple(shape)} holds {int(np.prod(shape))} devices, "
                         f"but there are {devices.size}")
    return Mesh(devices.reshape(tuple(shape)), tuple(axis_names))


def halo_exchange(block: jax.Array, axis_name: str, width: int = 1, *, axis: int = 0,
                  periodic: bool = True) -> jax.Array:
    """Pad a shard's ``block`` along ``axis`` with ``width`` cells from each neighbouring shard.

    Call it inside ``jax.shard_map``: the neighbours are the previous and next shards along
    the mesh axis ``axis_name``. The result is ``width`` cells longer on each side of ``axis``:
    ``[last cells of the previous shard, block, first cells of the next shard]``. With
    ``periodic=True`` the first and last shards are neighbours (a ring); with ``False`` the
    halo beyond either end of the domain is zeros. It is two ``ppermute``s, so it is
    differentiable (the transpose sends the halo's gradient back to its owner).

    Example:
        >>> def local(u):                    # inside shard_map(..., in_specs=P("rows"))
        ...     padded = halo_exchange(u, "rows")
        ...     return padded[:-2] - 2 * u + padded[2:]
    """
    if width < 1:
        raise ValueError(f"halo_exchange(): width must be at least 1, got {width}")
    if block.shape[axis] < width:
        raise ValueError(f"halo_exchange(): the block has {block.shape[axis]} cells along axis {axis}, "
                         f"fewer than the halo width {width}")
    count = jax.lax.axis_size(axis_name)
    forward = [(i, i + 1) for i in range(count - 1)]
    backward = [(i + 1, i) for i in range(count - 1)]
    if periodic:
        forward.append((count - 1, 0))
        backward.append((0, count - 1))
    first = jax.lax.slice_in_dim(block, 0, width, axis=axis)
    last = jax.lax.slice_in_dim(block, block.shape[axis] - width, block.shape[axis], axis=axis)
    from_previous = jax.lax.ppermute(last, axis_name, forward)
    from_next = jax.lax.ppermute(first, axis_name, backward)
    return jax.lax.concatenate([from_previous, block, from_next], axis)


def from_process_local(local: np.ndarray | jax.Array, mesh: Mesh, spec: PartitionSpec) -> jax.Array:
    """A global array sharded by ``spec`` over ``mesh``, built from each process's own block.

    Every process passes the block its devices hold (for ``P("rows")`` over processes, its
    rows). This is ``jax.make_array_from_process_local_data``.
    """
    return jax.make_array_from_process_local_data(NamedSharding(mesh, spec), np.asarray(local))


def shard(x: np.ndarray | jax.Array, mesh: Mesh, spec: PartitionSpec) -> jax.Array:
    """A global array sharded by ``spec`` over ``mesh`` from a whole array every process holds.

    Each device takes its own block of ``x``; nothing is sent between processes. For data too
    large for one process, build each process's block and use :func:`from_process_local`.
    """
    data = np.asarray(x)
    return jax.make_array_from_callback(data.shape, NamedSharding(mesh, spec), lambda index: data[index])


def gather(x: jax.Array) -> np.ndarray:
    """The whole of a global array as numpy, on every process (an all-gather across processes)."""
    if jax.process_count() == 1 or x.is_fully_addressable:
        return np.asarray(x)
    from jax.experimental import multihost_utils

    return np.asarray(multihost_utils.process_allgather(x, tiled=True))


@dataclass
class ProcessResult:
    """One process of a :func:`launch_local` run: its id, exit status and output."""

    process_id: int
    returncode: int
    stdout: str
    stderr: str


def free_port() -> int:
    """A TCP port on localhost that nothing listens on now (for the coordinator)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("localhost", 0))
        return sock.getsockname()[1]


def launch_local(argv: Sequence[str], num_processes: int, *, timeout: float = 300.0,
                 env: dict[str, str] | None = None) -> list[ProcessResult]:
    """Run ``python argv...`` as ``num_processes`` processes of one distributed job on this host.

    Each process gets the coordinator address, the process count and its id in the
    environment, which :func:`initialize` reads. The call waits for all of them; if one fails
    the others are stopped (they would otherwise wait for it forever), and if ``timeout``
    seconds pass, all are killed and ``TimeoutError`` is raised with their output so far.

    Example:
        >>> results = launch_local(["sim.py", "--steps", "10"], num_processes=2)  # doctest: +SKIP
        >>> [r.returncode for r in results]
        [0, 0]
    """
    base = dict(os.environ if env is None else env)
    base[COORDINATOR_ENV] = f"localhost:{free_port()}"
    base[NUM_PROCESSES_ENV] = str(num_processes)
    procs = []
    logs = []
    for pid in range(num_processes):
        out = _temp_log()
        err = _temp_log()
        logs.append((out, err))
        procs.append(subprocess.Popen([sys.executable, *argv], env=dict(base, **{PROCESS_ID_ENV: str(pid)}),
                                      stdout=out, stderr=err, start_new_session=True))
    deadline = time.monotonic() + timeout
    timed_out = False
    try:
        while True:
            codes = [p.poll() for p in procs]  # poll every process: each updates its returncode
            if all(code is not None for code in codes):
                break
            if any(code not in (None, 0) for code in codes):
                break  # one failed: the others would wait for it at their next collective
            if time.monotonic() > deadline:
                timed_out = True
                break
            time.sleep(0.05)
    finally:
        for p in procs:
            if p.poll() is None:
                _kill(p)
    results = [ProcessResult(i, p.returncode, _read(out), _read(err)) for i, (p, (out, err)) in enumerate(zip(procs, logs))]
    if timed_out:
        detail = "\n".join(f"--- process {r.process_id} stderr ---\n{r.stderr[-2000:]}" for r in results)
        raise TimeoutError(f"launch_local({list(argv)}): not finished after {timeout} s; killed\n{detail}")
    return results


def _temp_log():
    import tempfile

    return tempfile.TemporaryFile(mode="w+")


def _read(handle) -> str:
    handle.seek(0)
    text = handle.read()
    handle.close()
    return text


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the process and anything it started
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.wait()
