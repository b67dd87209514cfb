"""Volume samples: jwarp against Warp's CPU build and a hand-written jnp trilinear sample of a dense grid.

The volume is Warp's ``rocks.nvdb`` asset (1,493 leaves, 329 constant internal-node tiles; shipped with
``warp-lang``), sampled at index-space points scattered around its leaves. Kernels (both libraries in
one process, launches alternating; medians of wall-clock milliseconds):

- ``linear``: ``wp.volume_sample_f(vol, p, wp.Volume.LINEAR)``;
- ``grad``: ``wp.volume_sample_grad_f`` (value and gradient, as Warp's ``example_nvdb``);
- ``index``: ``wp.volume_sample_grad_index`` on an index grid over the same tiles, reading a data array.

The ``jnp`` column is what a JAX user might write instead: the volume's values laid out densely over
its tiles' bounding box (9 MB for this file) and a jitted trilinear blend of the 8 gathered corners
(``linear`` only; its weights are applied in another order, so it agrees to rounding).

Usage::

    PYTHONPATH=. python benchmarks/bench_volume.py [points=100000] [repeats=15] [kinds, comma-separated]

prints, per kind, the medians and the jwarp/Warp and jwarp/jnp ratios (< 1: jwarp is faster), after
checking that jwarp and Warp computed the same results.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from benchmarks.harness import interleaved_ms

KINDS = ("linear", "grad", "index")


def asset() -> str:
    """The path of Warp's ``rocks.nvdb`` (needs ``warp-lang``)."""
    import warp.examples

    return os.path.join(warp.examples.get_asset_directory(), "rocks.nvdb")


def points_around(tiles: np.ndarray, count: int) -> np.ndarray:
    """Index-space points inside, across and around the tiles (origins ``tiles``)."""
    rng = np.random.default_rng(0)
    picks = tiles[rng.integers(0, len(tiles), count)].astype(np.float32)
    return picks + rng.uniform(-4.0, 12.0, picks.shape).astype(np.float32)


def programs(wp, count: int) -> dict:
    """``{kind: (step, output)}`` for the library ``wp``, plus the volume under ``"_volume"``."""

    @wp.kernel(module="unique")
    def linear(vol: wp.uint64, p: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = wp.volume_sample_f(vol, p[i], wp.Volume.LINEAR)

    @wp.kernel(module="unique")
    def grad(vol: wp.uint64, p: wp.array(dtype=wp.vec3), out: wp.array(dtype=float), g: wp.array(dtype=wp.vec3)):
        i = wp.tid()
        n = wp.vec3()
        out[i] = wp.volume_sample_grad_f(vol, p[i], wp.Volume.LINEAR, n)
        g[i] = n

    @wp.kernel(module="unique")
    def index(vol: wp.uint64, p: wp.array(dtype=wp.vec3), data: wp.array(dtype=float), out: wp.array(dtype=float),
              g: wp.array(dtype=wp.vec3)):
        i = wp.tid()
        n = wp.vec3()
        out[i] = wp.volume_sample_grad_index(vol, p[i], wp.Volume.LINEAR, data, 0.5, n)
        g[i] = n

    with open(asset(), "rb") as f:
        vol = wp.Volume.load_from_nvdb(f)
    tiles = vol.get_tiles()
    indexed = wp.Volume.allocate_by_tiles(tiles, voxel_size=1.0, bg_value=None)
    data = wp.array(np.random.default_rng(1).random(indexed.get_voxel_count()).astype(np.float32))
    pts = wp.array(points_around(tiles.numpy(), count), dtype=wp.vec3)
    out, g = wp.zeros(count, dtype=float), wp.zeros(count, dtype=wp.vec3)
    launches = {"linear": (linear, [vol.id, pts, out]), "grad": (grad, [vol.id, pts, out, g]),
                "index": (index, [indexed.id, pts, data, out, g])}

    def make(kind: str):
        kernel, args = launches[kind]

        def step() -> None:
            wp.launch(kernel, dim=count, inputs=args)
            wp.synchronize()

        return step, lambda: np.concatenate([out.numpy(), g.numpy().reshape(-1)])

    made = {k: make(k) for k in KINDS}
    made["_volume"] = (vol, indexed, data, pts)
    return made


def dense_linear(jwarp, vol, pts: np.ndarray):
    """(step, output) of a jitted jnp trilinear sample of ``vol`` laid out densely (background outside)."""
    import jax
    import jax.numpy as jnp

    tiles = vol.get_tiles().numpy()
    lo = tiles.min(0)
    shape = tuple(int(s) for s in tiles.max(0) - lo + 8)

    @jwarp.kernel(module="unique")
    def fill(v: jwarp.uint64, origin: jwarp.vec3i, out: jwarp.array3d(dtype=float), bg: jwarp.array(dtype=float)):
        i, j, k = jwarp.tid()
        out[i, j, k] = jwarp.volume_lookup_f(v, origin[0] + i, origin[1] + j, origin[2] + k)
        if i == 0 and j == 0 and k == 0:  # far outside every tile: the background
            bg[0] = jwarp.volume_lookup_f(v, origin[0] - 4096, origin[1], origin[2])

    grid, bg = jwarp.zeros(shape, dtype=float), jwarp.zeros(1, dtype=float)
    jwarp.launch(fill, dim=shape, inputs=[vol.id, jwarp.vec3i(*lo.tolist()), grid, bg])
    dense = jnp.asarray(grid.numpy())
    background = jnp.float32(bg.numpy()[0])
    points = jnp.asarray(pts - lo.astype(np.float32))

    @jax.jit
    def sample(p: jax.Array) -> jax.Array:
        base = jnp.floor(p)
        f = p - base
        ijk = base.astype(jnp.int32)
        total = jnp.zeros(p.shape[0], jnp.float32)
        for ox in (0, 1):
            for oy in (0, 1):
                for oz in (0, 1):
                    c = ijk + jnp.array([ox, oy, oz], jnp.int32)
                    inside = jnp.all((c >= 0) & (c < jnp.array(shape)), axis=1)
                    value = jnp.where(inside, dense.at[c[:, 0], c[:, 1], c[:, 2]].get(mode="clip"), background)
                    w = ((f[:, 0] if ox else 1 - f[:, 0]) * (f[:, 1] if oy else 1 - f[:, 1])
                         * (f[:, 2] if oz else 1 - f[:, 2]))
                    total = total + w * value
        return total

    result = {}

    def step() -> None:
        result["out"] = sample(points)
        result["out"].block_until_ready()

    return step, lambda: np.asarray(result["out"])


def main(count: int = 100000, repeats: int = 15, kinds: tuple = KINDS) -> dict:
    import jwarp
    import warp

    warp.config.quiet = True
    warp.init()
    libs = {"jwarp": programs(jwarp, count), "warp": programs(warp, count)}
    vol, _, _, pts = libs["jwarp"]["_volume"]
    reference = dense_linear(jwarp, vol, pts.numpy())
    result = {}
    for kind in kinds:
        steps = {name: lib[kind][0] for name, lib in libs.items()}
        for step in steps.values():
            step()
        a, b = libs["jwarp"][kind][1](), libs["warp"][kind][1]()
        assert np.allclose(a, b, rtol=1e-5, atol=1e-5), f"{kind}: results differ"
        if kind == "linear":
            steps["jnp"] = reference[0]
            reference[0]()
            ours = a[:count]
            assert np.allclose(reference[1](), ours, rtol=1e-4, atol=1e-4), "linear: the dense jnp sample differs"
        med = interleaved_ms(steps, repeats)
        line = (f"{kind:7s} {count:7d} lanes: jwarp {med['jwarp']:7.2f} ms, warp {med['warp']:7.2f} ms "
                f"(ratio {med['jwarp'] / med['warp']:.2f}x)")
        if "jnp" in med:
            line += f", dense jnp {med['jnp']:7.2f} ms (ratio {med['jwarp'] / med['jnp']:.2f}x)"
        print(line, flush=True)
        result[kind] = med
    return result


if __name__ == "__main__":
    args = sys.argv[1:]
    nums = [int(x) for x in args[:2]]
    main(*nums, *((tuple(args[2].split(",")),) if len(args) > 2 else ()))
