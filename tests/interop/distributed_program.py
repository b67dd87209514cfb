"""Run by test_distributed.py: the distributed diffusion example on every device of every process
(two processes joined by jax.distributed, or one process with two XLA host devices). Process 0
writes the gathered results to the .npz file named on the command line."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

import jwarp.distributed as wpd  # noqa: E402

import distributed_diffusion as model  # noqa: E402


def main(out_path: str, ny: int, nx: int, steps: int, alpha: float) -> None:
    if wpd.COORDINATOR_ENV in os.environ:
        wpd.initialize()
    mesh = wpd.mesh((model.ROWS,))
    u0 = wpd.shard(model.initial_field(ny, nx), mesh, P(model.ROWS))
    u_final = model.simulation(mesh, steps)(u0, jnp.float32(alpha))
    loss, (grad_u0, grad_alpha) = model.loss_and_grads(mesh, steps)(u0, jnp.float32(alpha))

    def halos(block):  # a width-2, non-periodic exchange of each shard's rows
        return wpd.halo_exchange(block, model.ROWS, 2, periodic=False)

    rows = wpd.shard(np.arange(ny * 3, dtype=np.float32).reshape(ny, 3), mesh, P(model.ROWS))
    padded = jax.jit(jax.shard_map(halos, mesh=mesh, in_specs=P(model.ROWS), out_specs=P(model.ROWS)))(rows)
    results = dict(
        processes=jax.process_count(), devices=len(jax.devices()),
        local_rows=[s.data.shape[0] for s in u_final.addressable_shards],
        u_final=wpd.gather(u_final), loss=float(loss), grad_u0=wpd.gather(grad_u0),
        grad_alpha=float(grad_alpha), padded=wpd.gather(padded),
    )
    if jax.process_index() == 0:
        np.savez(out_path, **results)


if __name__ == "__main__":
    main(sys.argv[1], *map(int, sys.argv[2:5]), float(sys.argv[5]))
