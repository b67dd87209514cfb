"""Launches larger than a small memory budget (jwarp runs them in chunks over the grid; Warp has no
such setting and ignores it) and ``max_blocks`` on the CPU: atomics accumulate across chunks, atomic
return values follow thread order (Warp's CPU runs threads in order), plain writes are unaffected."""

TIMEOUT = 300


@wp.kernel
def tally(h: wp.array(dtype=int), counter: wp.array(dtype=int), order: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_add(h, i % 16, 1)
    slot = wp.atomic_add(counter, 0, 1)
    order[slot] = i


@wp.kernel
def grid_stats(total: wp.array(dtype=int), top: wp.array(dtype=float), sums: wp.array(dtype=wp.vec3),
               out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    v = (i * 7 + j * 3) % 11
    wp.atomic_add(total, 0, v)
    wp.atomic_max(top, 0, float((i * 13 + j * 5) % 1000))
    wp.atomic_add(sums, v % 4, wp.vec3(1.0, float(v), float(i % 3)))
    out[i, j] = wp.sqrt(float(v)) + float(j)


def launch_all(res, tag, **kwargs):
    n = 1 << 20
    h, counter, order = wp.zeros(16, dtype=int), wp.zeros(1, dtype=int), wp.zeros(n, dtype=int)
    wp.launch(tally, dim=n, inputs=[h, counter, order], **kwargs)
    total, top = wp.zeros(1, dtype=int), wp.full(1, -1.0, dtype=float)
    sums, out = wp.zeros(4, dtype=wp.vec3), wp.zeros((384, 640), dtype=float)
    wp.launch(grid_stats, dim=(384, 640), inputs=[total, top, sums, out], **kwargs)
    for name, arr in (("h", h), ("counter", counter), ("order", order), ("total", total), ("top", top),
                      ("sums", sums), ("out", out)):
        res[f"{tag}_{name}"] = arr.numpy()


def run():
    res = {}
    saved = getattr(wp.config, "launch_memory_budget", None)
    wp.config.launch_memory_budget = 1 << 20  # jwarp setting; an unused attribute for Warp
    try:
        launch_all(res, "budget")
    finally:
        wp.config.launch_memory_budget = saved
    launch_all(res, "max_blocks", max_blocks=7)
    return res
