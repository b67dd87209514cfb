"""Block-cooperative BVH and mesh queries with ``wp.config.enable_cpu_blocks`` (threads of a block
run together on the CPU): ``tile_bvh_query_aabb`` / ``_ray`` and ``tile_mesh_query_aabb`` driven by
a ``while wp.tile_query_valid(...)`` loop, the deprecated ``*_tiled`` aliases, and a tile made and
untiled inside a ``while`` loop whose trip count differs between blocks (a tile assigned under
the loop's lane mask stays the block's tile).
Hits are counted per box, so the order in which threads receive results does not matter."""

import numpy as np


@wp.kernel
def boxes(bvh: wp.uint64, lower: wp.vec3, upper: wp.vec3, start: wp.vec3, direction: wp.vec3,
          hits: wp.array2d(dtype=int)):
    b, lane = wp.tid()
    q = wp.tile_bvh_query_aabb(bvh, lower, upper)
    while wp.tile_query_valid(q):
        found = wp.untile(wp.tile_bvh_query_next(q))
        if found >= 0:
            wp.atomic_add(hits, 0, found, 1)
    r = wp.bvh_query_ray_tiled(bvh, start, direction)
    while wp.tile_query_valid(r):
        result = wp.bvh_query_next_tiled(r)
        found = wp.untile(result)
        if found >= 0:
            wp.atomic_add(hits, 1, found, 1)


@wp.kernel
def faces(mesh: wp.uint64, lower: wp.vec3, upper: wp.vec3, hits: wp.array(dtype=int)):
    b, lane = wp.tid()
    q = wp.tile_mesh_query_aabb(mesh, lower, upper)
    while wp.tile_query_valid(q):
        found = wp.untile(wp.tile_mesh_query_aabb_next(q))
        if found >= 0:
            wp.atomic_add(hits, found, 1)


@wp.kernel
def rounds(out: wp.array2d(dtype=int)):
    b, lane = wp.tid()
    n = int(0)
    while n < b + 2:  # the same trip count on every thread of a block (divergent tile ops are undefined)
        t = wp.tile(lane * 10 + n)
        s = wp.tile_sum(t)
        out[b, lane] += wp.untile(t) + s[0]
        n += 1


def run():
    saved = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = True
    try:
        rng = np.random.default_rng(5)
        lowers = (rng.random((70, 3)) * 5.0).astype(np.float32)
        uppers = lowers + (rng.random((70, 3)) * 2.0).astype(np.float32)
        bvh = wp.Bvh(wp.array(lowers, dtype=wp.vec3), wp.array(uppers, dtype=wp.vec3))
        hits = wp.zeros((2, 70), dtype=int)
        wp.launch_tiled(boxes, dim=2, inputs=[bvh.id, wp.vec3(1.0, 1.0, 1.0), wp.vec3(4.0, 4.0, 4.0),
                                              wp.vec3(0.0, 0.0, 0.0), wp.normalize(wp.vec3(1.0, 0.9, 1.1)), hits],
                        block_dim=16)
        points = (rng.random((30, 3)) * 4.0).astype(np.float32)
        indices = rng.integers(0, 30, 60).astype(np.int32)
        mesh = wp.Mesh(wp.array(points, dtype=wp.vec3), wp.array(indices, dtype=int))
        face_hits = wp.zeros(20, dtype=int)
        wp.launch_tiled(faces, dim=3, inputs=[mesh.id, wp.vec3(1.0, 0.5, 1.0), wp.vec3(3.0, 3.0, 2.5), face_hits],
                        block_dim=8)
        out = wp.zeros((2, 12), dtype=int)
        wp.launch_tiled(rounds, dim=2, inputs=[out], block_dim=12)
        return {"box_hits": hits.numpy(), "face_hits": face_hits.numpy(), "rounds": out.numpy()}
    finally:
        wp.config.enable_cpu_blocks = saved
