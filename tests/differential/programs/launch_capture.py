"""Graph capture (ScopedCapture / capture_begin / capture_end / capture_launch) on the CPU:
nothing runs while capturing; replays read the arrays' current contents, bake scalar
parameters, and include copies, fills and arrays allocated inside the capture."""


@wp.kernel
def scale_add(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s + 1.0


@wp.kernel
def accumulate(a: wp.array(dtype=float), b: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    b[i] = b[i] + wp.vec2(a[i], a[i] * a[i])


def run():
    a = wp.zeros(4, dtype=float, device="cpu")
    b = wp.zeros(4, dtype=wp.vec2, device="cpu")
    s = 2.0
    with wp.ScopedCapture(device="cpu") as capture:
        wp.launch(scale_add, 4, [a, s], device="cpu")
        wp.launch(accumulate, 4, [a, b], device="cpu")
        c = wp.zeros(4, dtype=wp.vec2, device="cpu")
        wp.copy(c, b)
    s = 100.0  # scalars were baked in at capture time
    out = {"after_capture_a": a.numpy().copy(), "after_capture_b": b.numpy().copy()}
    wp.capture_launch(capture.graph)
    out["replay1_a"], out["replay1_c"] = a.numpy().copy(), c.numpy().copy()
    wp.capture_launch(capture.graph)
    out["replay2_b"], out["replay2_c"] = b.numpy().copy(), c.numpy().copy()
    a.fill_(3.0)  # replays see the arrays' current contents
    wp.capture_launch(capture.graph)
    out["after_fill_a"], out["after_fill_b"] = a.numpy().copy(), b.numpy().copy()

    wp.capture_begin(device="cpu")
    for _ in range(5):
        wp.launch(scale_add, 4, [a, 0.5], device="cpu")
    a.zero_()
    wp.launch(scale_add, 4, [a, 0.5], device="cpu")
    graph = wp.capture_end(device="cpu")
    out["before_replay"] = a.numpy().copy()
    wp.capture_launch(graph)
    out["begin_end"] = a.numpy().copy()
    return out
