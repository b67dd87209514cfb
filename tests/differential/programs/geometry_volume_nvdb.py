"""A NanoVDB file's volume (Warp's ``rocks.nvdb`` asset: 1,493 leaves and 329 internal-node tiles of one
value) sampled LINEAR and CLOSEST, with ``volume_sample_grad_f``, at index-space points around its
leaves: inside leaves, across leaf borders (a sample's corners in up to 8 tiles), in constant tiles and
in the background; bit for bit (Warp rounds each product before the sums it feeds). Without the asset
(warp-lang not installed, nothing to compare with) a dense volume stands in."""

import importlib.util
import os

import numpy as np

RTOL = 0.0
ATOL = 0.0


@wp.kernel
def sample(vol: wp.uint64, uvw: wp.array(dtype=wp.vec3), lin: wp.array(dtype=float), near: wp.array(dtype=float),
           grad: wp.array(dtype=wp.vec3), gval: wp.array(dtype=float)):
    i = wp.tid()
    p = uvw[i]
    lin[i] = wp.volume_sample_f(vol, p, wp.Volume.LINEAR)
    near[i] = wp.volume_sample_f(vol, p, wp.Volume.CLOSEST)
    g = wp.vec3()
    gval[i] = wp.volume_sample_grad_f(vol, p, wp.Volume.LINEAR, g)
    grad[i] = g


def _volume():
    spec = importlib.util.find_spec("warp")
    path = None if spec is None or spec.origin is None else os.path.join(
        os.path.dirname(spec.origin), "examples", "assets", "rocks.nvdb")
    if path is not None and os.path.exists(path):
        with open(path, "rb") as f:
            return wp.Volume.load_from_nvdb(f)
    dense = np.random.default_rng(3).random((20, 12, 17)).astype(np.float32)
    return wp.Volume.load_from_numpy(dense, voxel_size=0.5, bg_value=-1.0)


def run():
    rng = np.random.default_rng(11)
    vol = _volume()
    tiles = vol.get_tiles().numpy()
    picks = tiles[rng.integers(0, len(tiles), 1500)].astype(np.float32)
    spread = picks + rng.uniform(-6.0, 14.0, picks.shape).astype(np.float32)  # leaves, neighbours, beyond
    borders = picks + np.float32(7.0) + rng.uniform(0.0, 1.0, picks.shape).astype(np.float32)  # across tiles
    far = rng.uniform(tiles.min(0) - 24.0, tiles.max(0) + 32.0, (500, 3)).astype(np.float32)  # constant tiles, background
    uvw = np.concatenate([spread, borders, far])
    n = len(uvw)
    lin, near, gval = (wp.zeros(n, dtype=float) for _ in range(3))
    grad = wp.zeros(n, dtype=wp.vec3)
    wp.launch(sample, n, inputs=[vol.id, wp.array(uvw, dtype=wp.vec3), lin, near, grad, gval])
    return {"lin": lin.numpy(), "near": near.numpy(), "grad": grad.numpy(), "gval": gval.numpy(),
            "tiles": np.array([len(tiles)])}
