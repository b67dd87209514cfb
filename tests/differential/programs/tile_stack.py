"""Block-shared stacks (wp.tile_stack): pushes from some lanes (count, overflow past capacity
dropped, slot -1 without a value), pops of more than was pushed, clear, vec3 elements, a stack
pushed through a @wp.func parameter, a compaction loop, independent stacks per block; with
cooperative CPU blocks (wp.config.enable_cpu_blocks) so that every lane of a block takes part.
Which lane gets which slot is unspecified, so the results compared are counts and sorted sets."""

BD = 8
CAP = wp.constant(32)
SMALL = wp.constant(3)


@wp.func
def push_twice(s: wp.tile_stack(capacity=CAP, dtype=int), v: int):
    wp.tile_stack_push(s, v, True)
    wp.tile_stack_push(s, v + 100, True)


@wp.kernel
def stacks(data: wp.array(dtype=int), counts: wp.array2d(dtype=int), popped: wp.array2d(dtype=int),
           slots: wp.array2d(dtype=int), vecs: wp.array2d(dtype=wp.vec3)):
    b, lane = wp.tid()
    s = wp.tile_stack(capacity=CAP, dtype=int)
    small = wp.tile_stack(capacity=SMALL, dtype=int)
    v = wp.tile_stack(capacity=CAP, dtype=wp.vec3)
    x = data[b * BD + lane]
    slots[b, lane] = wp.tile_stack_push(small, x, True)
    wp.tile_stack_push(s, x, x > 4 + b)
    counts[b, 0] = wp.tile_stack_count(s)
    counts[b, 1] = wp.tile_stack_count(small)
    push_twice(s, lane)
    counts[b, 2] = wp.tile_stack_count(s)
    value, slot = wp.tile_stack_pop(s)
    if slot >= 0:
        popped[b, slot] = value
    _x, _s = wp.tile_stack_pop(s)
    _y, _t = wp.tile_stack_pop(s)
    counts[b, 3] = wp.tile_stack_count(s)
    wp.tile_stack_clear(small)
    counts[b, 4] = wp.tile_stack_count(small)
    wp.tile_stack_push(v, wp.vec3(float(lane), float(b), 1.0), lane < 3)
    w, ws = wp.tile_stack_pop(v)
    if ws >= 0:
        vecs[b, ws] = w
    e, es = wp.tile_stack_pop(small)
    counts[b, 5] = wp.tile_stack_count(small) + es * 10


def run():
    wp.config.enable_cpu_blocks = True
    try:
        data = wp.array(np.array([3, 9, 5, 7, 1, 8, 6, 2] * 2, dtype=np.int32))
        counts = wp.zeros((2, 6), dtype=int)
        popped = wp.full((2, CAP), -1, dtype=int)
        slots = wp.zeros((2, BD), dtype=int)
        vecs = wp.zeros((2, CAP), dtype=wp.vec3)
        wp.launch_tiled(stacks, dim=2, inputs=[data, counts, popped, slots, vecs], block_dim=BD)
        return {"counts": counts.numpy(), "popped": np.sort(popped.numpy(), axis=1),
                "slots": np.sort(slots.numpy(), axis=1), "vecs": vecs.numpy()[:, :3].sum(axis=1)}
    finally:
        wp.config.enable_cpu_blocks = False
