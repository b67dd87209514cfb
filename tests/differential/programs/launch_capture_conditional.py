"""Conditional graph nodes: wp.capture_if / wp.capture_while recorded in a CPU capture (decided at
each replay from the condition array's current contents) and run eagerly outside a capture."""


@wp.kernel
def bump(a: wp.array(dtype=float), k: int):
    a[k] = a[k] + 1.0


@wp.kernel
def countdown(c: wp.array(dtype=wp.int32), a: wp.array(dtype=float)):
    a[1] = a[1] * 2.0 + 1.0
    c[0] = c[0] - 1


def run():
    a = wp.zeros(3, dtype=float, device="cpu")
    c = wp.array(np.array([3], dtype=np.int32), dtype=wp.int32, device="cpu")
    flag = wp.array(np.array([0], dtype=np.int32), dtype=wp.int32, device="cpu")
    with wp.ScopedCapture(device="cpu") as capture:
        wp.capture_if(flag, on_true=lambda: wp.launch(bump, 1, [a, 0], device="cpu"),
                      on_false=lambda: wp.launch(bump, 1, [a, 2], device="cpu"))
        wp.capture_while(c, lambda: wp.launch(countdown, 1, [c, a], device="cpu"))
    out = {"after_capture": a.numpy().copy()}
    wp.capture_launch(capture.graph)
    out["replay1"], out["c1"] = a.numpy().copy(), c.numpy().copy()
    flag.fill_(1)
    c.fill_(2)
    wp.capture_launch(capture.graph)
    out["replay2"], out["c2"] = a.numpy().copy(), c.numpy().copy()
    c.fill_(4)  # eager forms
    wp.capture_if(flag, on_true=lambda: wp.launch(bump, 1, [a, 0], device="cpu"))
    wp.capture_while(c, lambda: wp.launch(countdown, 1, [c, a], device="cpu"))
    out["eager"], out["c3"] = a.numpy().copy(), c.numpy().copy()
    return out
