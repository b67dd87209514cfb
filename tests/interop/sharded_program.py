"""Run in a subprocess by test_sharding.py with 8 XLA host devices: jwarp kernels inside
jax.shard_map — a halo-exchange stencil (ppermute) and a data-parallel particle update.
Prints one JSON line of error measures."""

from __future__ import annotations

import json
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

import jwarp as wp  # noqa: E402


@wp.kernel
def laplacian(u: wp.array(dtype=float), out: wp.array(dtype=float)):
    # u is the local block with one halo cell on each side; out has the block's size
    i = wp.tid()
    out[i] = u[i] - 2.0 * u[i + 1] + u[i + 2]


@wp.kernel
def integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float,
              x_out: wp.array(dtype=wp.vec3), v_out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    vel = v[i] + wp.vec3(0.0, -9.8, 0.0) * dt
    pos = x[i] + vel * dt
    if pos[1] < 0.0:  # bounce off the ground
        pos = wp.vec3(pos[0], -pos[1], pos[2])
        vel = wp.vec3(vel[0], -vel[1], vel[2])
    x_out[i] = pos
    v_out[i] = vel


@wp.kernel
def halve_until_small(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    while v > 1.0:
        v = v * 0.5
    out[i] = v


def main() -> None:
    devices = jax.devices()
    nd = len(devices)
    mesh = Mesh(np.array(devices), ("x",))
    lap = wp.jax_kernel(laplacian)
    step = wp.jax_kernel(integrate, num_outputs=2)
    halve = wp.jax_kernel(halve_until_small)

    def local_laplacian(u):
        left = jax.lax.ppermute(u[-1:], "x", [(i, (i + 1) % nd) for i in range(nd)])
        right = jax.lax.ppermute(u[:1], "x", [(i, (i - 1) % nd) for i in range(nd)])
        (out,) = lap(jnp.concatenate([left, u, right]), launch_dims=u.shape[0])
        return out

    sharded_lap = jax.jit(jax.shard_map(local_laplacian, mesh=mesh, in_specs=P("x"), out_specs=P("x")))
    n = 16 * nd
    u = jax.device_put(jnp.sin(jnp.arange(n, dtype=jnp.float32) * 0.3), NamedSharding(mesh, P("x")))

    def ref_lap(u):
        return jnp.roll(u, 1) - 2 * u + jnp.roll(u, -1)

    r = sharded_lap(u)
    g = jax.grad(lambda u: jnp.sum(sharded_lap(u) ** 2))(u)
    g_ref = jax.grad(lambda u: jnp.sum(ref_lap(u) ** 2))(u)

    def local_step(x, v):
        x, v = step(x, v, 0.01)
        return x, v

    sharded_step = jax.jit(jax.shard_map(local_step, mesh=mesh, in_specs=(P("x"), P("x")), out_specs=(P("x"), P("x"))))
    rng = np.random.default_rng(0)
    x0 = jnp.asarray(rng.uniform(0, 1, size=(8 * nd, 3)), jnp.float32)
    v0 = jnp.asarray(rng.normal(size=(8 * nd, 3)), jnp.float32)
    xs, vs = jax.device_put(x0, NamedSharding(mesh, P("x"))), jax.device_put(v0, NamedSharding(mesh, P("x")))
    xr, vr = x0, v0
    for _ in range(20):
        xs, vs = sharded_step(xs, vs)
        xr, vr = step(xr, vr, 0.01)

    def warp_style_local(xj):  # Warp-style launch inside shard_map
        x = wp.from_jax(xj)
        out = wp.from_jax(jnp.zeros_like(xj))
        wp.launch(halve_until_small, dim=len(x), inputs=[x], outputs=[out])
        return wp.to_jax(out)

    big = jax.device_put(jnp.linspace(0.5, 100.0, 8 * nd), NamedSharding(mesh, P("x")))
    halved = jax.jit(jax.shard_map(warp_style_local, mesh=mesh, in_specs=P("x"), out_specs=P("x")))(big)
    halved_k = jax.jit(jax.shard_map(lambda a: halve(a)[0], mesh=mesh, in_specs=P("x"), out_specs=P("x")))(big)
    print(json.dumps({
        "devices": nd,
        "stencil_err": float(jnp.max(jnp.abs(r - ref_lap(u)))),
        "stencil_grad_err": float(jnp.max(jnp.abs(g - g_ref))),
        "out_sharding": str(r.sharding.spec),
        "particles_err": float(jnp.max(jnp.abs(xs - xr)) + jnp.max(jnp.abs(vs - vr))),
        "particles_sharded": len(xs.sharding.device_set),
        "while_err": float(jnp.max(jnp.abs(halved - halve(big)[0])) + jnp.max(jnp.abs(halved_k - halve(big)[0]))),
    }))


if __name__ == "__main__":
    main()
