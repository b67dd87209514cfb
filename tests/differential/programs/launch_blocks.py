"""``block_dim`` and ``max_blocks`` on CPU: ``wp.block_dim()`` resolves to 1 unless
``wp.config.enable_cpu_blocks``; ``max_blocks`` changes no result on CPU (also with grid_stride=False;
jwarp uses it there only to bound memory, see launch_memory_chunks.py)."""


@wp.kernel
def report(out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = wp.block_dim() * 1000 + i


@wp.kernel(grid_stride=False)
def lean(out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = i + 1


def run():
    res = {}
    for bd in (None, 0, -3, 1, 64, 1024):
        out = wp.zeros(3, dtype=int)
        wp.launch(report, dim=3, inputs=[out], block_dim=bd, device="cpu")
        res[f"block_dim_{bd}"] = out
    out = wp.zeros(5, dtype=int)
    wp.launch(lean, dim=5, inputs=[out], max_blocks=2, device="cpu")
    res["lean_max_blocks"] = out
    out = wp.zeros(5, dtype=int)
    wp.launch(report, dim=5, inputs=[out], max_blocks=1, block_dim=2, device="cpu")
    res["max_blocks_ignored"] = out
    saved = wp.config.enable_cpu_blocks
    wp.config.enable_cpu_blocks = True
    try:
        for bd in (None, 1, 8, 64):
            out = wp.zeros(8, dtype=int)
            wp.launch(report, dim=8, inputs=[out], block_dim=bd, device="cpu")
            res[f"cpu_blocks_{bd}"] = out
    finally:
        wp.config.enable_cpu_blocks = saved
    errors = []
    for bd in (1025, 4096):
        try:
            wp.launch(report, dim=2, inputs=[wp.zeros(2, dtype=int)], block_dim=bd, device="cpu")
        except ValueError as exc:
            errors.append(str(exc))
    res["too_big"] = [len(errors), "at most 1024 on CPU" in errors[0]]
    return res
