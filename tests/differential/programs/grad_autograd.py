"""``wp.autograd``: Jacobians of a kernel and of a Python function of launches (reverse mode and
finite differences), input/output masks by name, and gradcheck results."""

import importlib

TOLERANCE = {"fd_kernel": (2e-2, 2e-2), "fd_function": (2e-2, 2e-2)}


@wp.kernel
def mix(x: wp.array(dtype=float), v: wp.array(dtype=wp.vec3), s: float, y: wp.array(dtype=float),
        w: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    y[i] = x[i] * x[i] * s + wp.dot(v[i], v[i])
    w[i] = v[i] * x[i] + wp.vec3(s, 0.0, 0.0)


@wp.kernel
def scale(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    b[i] = wp.sin(a[i]) * 3.0


def pipeline(a):
    b = wp.zeros(a.shape, dtype=float, requires_grad=True)
    wp.launch(scale, dim=a.shape, inputs=[a], outputs=[b])
    return b


def as_dict(jacs):
    return {f"{i}_{o}": j.numpy() for (i, o), j in sorted(jacs.items())}


def run():
    autograd = importlib.import_module(wp.__name__ + ".autograd")  # `import warp.autograd` in Warp
    x = wp.array(np.array([0.5, -1.0, 2.0], dtype=np.float32), dtype=float, requires_grad=True)
    v = wp.array(np.arange(9, dtype=np.float32).reshape(3, 3) * 0.25, dtype=wp.vec3, requires_grad=True)
    y = wp.zeros(3, dtype=float, requires_grad=True)
    w = wp.zeros(3, dtype=wp.vec3, requires_grad=True)
    ad = autograd.jacobian(mix, dim=3, inputs=[x, v, 2.0], outputs=[y, w])
    fd = autograd.jacobian_fd(mix, dim=3, inputs=[x, v, 2.0], outputs=[y, w], eps=1e-3)
    masked = autograd.jacobian(mix, dim=3, inputs=[x, v, 2.0], outputs=[y, w], input_output_mask=[("v", "w")])
    ok = autograd.gradcheck(mix, dim=3, inputs=[x, v, 2.0], outputs=[y, w], eps=1e-3, atol=1e-2, rtol=1e-2,
                               show_summary=False)
    a = wp.array(np.array([0.1, 0.7, -0.4, 1.2], dtype=np.float32), dtype=float, requires_grad=True)
    fad = autograd.jacobian(pipeline, inputs=[a])
    ffd = autograd.jacobian_fd(pipeline, inputs=[a], eps=1e-3)
    fok = autograd.gradcheck(pipeline, inputs=[a], eps=1e-3, show_summary=False)
    return {"ad_kernel": as_dict(ad), "fd_kernel": as_dict(fd), "masked": as_dict(masked), "ok": int(ok),
            "ad_function": as_dict(fad), "fd_function": as_dict(ffd), "ok_function": int(fok),
            "x_after": x.numpy(), "a_after": a.numpy()}
