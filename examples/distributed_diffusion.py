"""2-D heat diffusion on several processes: jwarp kernels in ``jax.shard_map`` with halo exchange.

The grid's rows are split over every device of every process. Each step, each shard receives
one row from each neighbour (``jwarp.distributed.halo_exchange``), wraps its columns, and runs
the ``diffuse`` kernel on its block. ``jax.grad`` differentiates the whole run, with respect
to the initial field and to the diffusion rate. The same model written Warp-style under a
``wp.Tape`` on one process is here too, as a reference.

    python examples/distributed_diffusion.py                      # one process
    python examples/distributed_diffusion.py --processes 2        # two processes on this host
    srun -N 2 --ntasks-per-node=8 python examples/distributed_diffusion.py   # a GPU cluster

(``docs/distributed.md`` explains each part.)
"""

from __future__ import annotations

import argparse
import os
import sys
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec as P

import jwarp as wp
import jwarp.distributed as wpd

ROWS = "rows"  # the mesh axis the grid's rows are split over


@wp.kernel
def diffuse(u: wp.array2d(dtype=float), alpha: float, out: wp.array2d(dtype=float)):
    # u is the block padded by one cell on every side; out has the block's shape
    i, j = wp.tid()
    c = u[i + 1, j + 1]
    out[i, j] = c + alpha * (u[i, j + 1] + u[i + 2, j + 1] + u[i + 1, j] + u[i + 1, j + 2] - 4.0 * c)


@wp.kernel
def pad_periodic(u: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    # out[i, j] = u[(i - 1) mod ny, (j - 1) mod nx]: the whole grid with a one-cell periodic border
    i, j = wp.tid()
    ny = u.shape[0]
    nx = u.shape[1]
    out[i, j] = u[(i + ny - 1) % ny, (j + nx - 1) % nx]


@wp.kernel
def sum_squares(u: wp.array2d(dtype=float), loss: wp.array(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(loss, 0, u[i, j] * u[i, j])


diffuse_jax = wp.jax_kernel(diffuse)


def local_steps(block: jax.Array, alpha: jax.Array, steps: int) -> jax.Array:
    """``steps`` diffusion steps of one shard's block (call inside ``shard_map``)."""

    def step(_, u):
        padded = wpd.halo_exchange(u, ROWS)                                    # rows from the neighbours
        padded = jnp.concatenate([padded[:, -1:], padded, padded[:, :1]], 1)   # columns: periodic, local
        (out,) = diffuse_jax(padded, alpha, launch_dims=u.shape)
        return out

    return jax.lax.fori_loop(0, steps, step, block)


def simulation(mesh, steps: int):
    """``(u0, alpha) -> u after steps``, on global arrays whose rows are sharded over ``mesh``."""
    sharded = jax.shard_map(partial(local_steps, steps=steps), mesh=mesh, in_specs=(P(ROWS), P()),
                            out_specs=P(ROWS))
    return jax.jit(sharded)


def loss_and_grads(mesh, steps: int):
    """``(u0, alpha) -> (loss, (d loss/d u0, d loss/d alpha))``; loss = sum of squares after ``steps``."""
    run = simulation(mesh, steps)
    return jax.jit(jax.value_and_grad(lambda u0, alpha: jnp.sum(run(u0, alpha) ** 2), argnums=(0, 1)))


def initial_field(ny: int, nx: int) -> np.ndarray:
    """A smooth wave plus a hot square, float32, the same on every process."""
    y, x = np.meshgrid(np.arange(ny) / ny, np.arange(nx) / nx, indexing="ij")
    u = np.sin(2 * np.pi * y) * np.cos(4 * np.pi * x)
    u[ny // 4: ny // 4 + ny // 8, nx // 3: nx // 3 + nx // 8] += 2.0
    return u.astype(np.float32)


def tape_reference(u0: np.ndarray, alpha: float, steps: int) -> tuple[np.ndarray, float, np.ndarray]:
    """The same model Warp-style on one device under ``wp.Tape``: (u after steps, loss, d loss/d u0)."""
    ny, nx = u0.shape
    u = wp.array(u0, dtype=float, requires_grad=True)
    first = u
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        for _ in range(steps):
            padded = wp.zeros((ny + 2, nx + 2), dtype=float, requires_grad=True)
            wp.launch(pad_periodic, dim=padded.shape, inputs=[u], outputs=[padded])
            nxt = wp.zeros((ny, nx), dtype=float, requires_grad=True)
            wp.launch(diffuse, dim=(ny, nx), inputs=[padded, alpha], outputs=[nxt])
            u = nxt
        wp.launch(sum_squares, dim=(ny, nx), inputs=[u], outputs=[loss])
    tape.backward(loss=loss)
    return u.numpy(), float(loss.numpy()[0]), first.grad.numpy()


def _in_distributed_job() -> bool:
    return wpd.COORDINATOR_ENV in os.environ or any(k in os.environ for k in ("SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE"))


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ny", type=int, default=256)
    parser.add_argument("--nx", type=int, default=256)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--alpha", type=float, default=0.2)
    parser.add_argument("--processes", type=int, default=1, help="start this many local processes")
    args = parser.parse_args(argv)
    if args.processes > 1 and not _in_distributed_job():
        forwarded = [a for a in (argv if argv is not None else sys.argv[1:])]
        results = wpd.launch_local([os.path.abspath(__file__), *forwarded], args.processes, timeout=600)
        for r in results:
            sys.stderr.write(r.stderr if r.returncode else "")
        print(results[0].stdout, end="")
        return {"returncodes": [r.returncode for r in results]}
    if _in_distributed_job():
        wpd.initialize()
    mesh = wpd.mesh((ROWS,))
    u0 = wpd.shard(initial_field(args.ny, args.nx), mesh, P(ROWS))
    loss, (grad_u0, grad_alpha) = loss_and_grads(mesh, args.steps)(u0, jnp.float32(args.alpha))
    report = {"processes": jax.process_count(), "devices": len(jax.devices()), "loss": float(loss),
              "grad_u0_norm": float(np.linalg.norm(wpd.gather(grad_u0))), "grad_alpha": float(grad_alpha)}
    if jax.process_index() == 0:
        print(" ".join(f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in report.items()))
    return report


if __name__ == "__main__":
    main()
