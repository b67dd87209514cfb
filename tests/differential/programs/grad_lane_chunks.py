"""Gradients of launches large enough for the tape to differentiate them chunk by chunk over the
grid (``jwarp/runtime/lane_chunks.py``: at least four chunks of 65536 threads, and traced
intermediates over the launch memory budget, set low here for jwarp), with a partial last chunk: gathers through index arrays (vec3 and a 2-D texture), arrays in a struct, vec3
stores and atomic sums. Two cases are checked against finite differences in
``tests/runtime/test_lane_chunks.py`` instead, where Warp's gradients differ from the derivative:
loops over a run-time count (Warp's adjoint does not replay them, so a value they accumulate
reaches its backward pass as zero) and in-place updates (Warp's adjoint reads the updated value)."""

N = 4 * 65536 + 1000
FACES = 97


@wp.struct
class Lights:
    dirs: wp.array(dtype=wp.vec3)
    count: int


@wp.kernel
def shade(points: wp.array(dtype=wp.vec3), faces: wp.array(dtype=int), normals: wp.array(dtype=wp.vec3),
          texture: wp.array2d(dtype=float), lights: Lights, colors: wp.array(dtype=wp.vec3),
          loss: wp.array(dtype=float)):
    tid = wp.tid()
    f = faces[tid]
    n = normals[f]
    p = points[tid]
    lam = float(0.0)
    for k in range(3):
        lam = lam + wp.max(wp.dot(n, lights.dirs[k]), 0.0)
    u = wp.abs(p[0]) * 7.0
    x0 = int(u)
    a = u - float(x0)
    t = (1.0 - a) * texture[x0 % 16, f % 16] + a * texture[(x0 + 1) % 16, f % 16]
    c = p * (lam * t)
    colors[tid] = c
    wp.atomic_add(loss, 0, wp.dot(c, c))


@wp.kernel
def scale(x: wp.array(dtype=wp.vec3), w: wp.array(dtype=float), y: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    y[i] = x[i] * w[i % 7]


@wp.kernel
def total(x: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.length(x[i]))


def run():
    if hasattr(wp.config, "launch_memory_budget"):  # jwarp's setting (Warp has none)
        saved = wp.config.launch_memory_budget
        wp.config.launch_memory_budget = 1 << 20
        try:
            return _run()
        finally:
            wp.config.launch_memory_budget = saved
    return _run()


def _run():
    rng = np.random.default_rng(7)
    points = wp.array(rng.uniform(-1.0, 1.0, (N, 3)).astype(np.float32), dtype=wp.vec3, requires_grad=True)
    faces = wp.array(rng.integers(0, FACES, N).astype(np.int32), dtype=int)
    normals = wp.array(rng.normal(size=(FACES, 3)).astype(np.float32), dtype=wp.vec3, requires_grad=True)
    texture = wp.array(rng.uniform(0.5, 1.5, (16, 16)).astype(np.float32), dtype=float, requires_grad=True)
    lights = Lights()
    lights.dirs = wp.array(rng.normal(size=(3, 3)).astype(np.float32), dtype=wp.vec3, requires_grad=True)
    lights.count = 3
    colors = wp.zeros(N, dtype=wp.vec3, requires_grad=True)
    scaled = wp.zeros(N, dtype=wp.vec3, requires_grad=True)
    w = wp.array(rng.uniform(0.5, 2.0, 7).astype(np.float32), dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(shade, N, inputs=[points, faces, normals, texture, lights], outputs=[colors, loss])
        wp.launch(scale, N, inputs=[colors, w], outputs=[scaled])
        wp.launch(total, N, inputs=[scaled], outputs=[loss])
    tape.backward(loss)
    return {
        "loss": loss.numpy(),
        "scaled": scaled.numpy(),
        "points_grad": points.grad.numpy(),
        "normals_grad": normals.grad.numpy(),
        "texture_grad": texture.grad.numpy(),
        "dirs_grad": lights.dirs.grad.numpy(),
        "w_grad": w.grad.numpy(),
    }


RTOL, ATOL = 2e-3, 1e-2
