"""Adjoint launches (``wp.launch(..., adjoint=True)``) with Warp's layout: adjoint arrays aligned
with the kernel's parameters (adj_inputs then adj_outputs), ``None`` falling back to
``.grad``, external adjoint arrays (not consumed by stores) versus the array's own ``.grad``
(consumed), atomic outputs, partial stores, scalar parameters, and in-place updates."""


@wp.kernel
def stretch(x: wp.array(dtype=float), s: float, y: wp.array(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i] * s
    wp.atomic_add(total, 0, x[i] * 3.0)


@wp.kernel
def partial(x: wp.array(dtype=wp.vec2), y: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    if i % 2 == 0:
        y[i] = x[i] * 2.0 + wp.vec2(x[i][1], 0.0)


@wp.kernel
def inplace(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] * 2.0


def run():
    out = {}
    x = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), dtype=float)
    y = wp.zeros(3, dtype=float)
    total = wp.zeros(1, dtype=float)
    adj_x = wp.array(np.array([0.5, 0.5, 0.5], dtype=np.float32), dtype=float)
    adj_y = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), dtype=float)
    adj_t = wp.array(np.array([10.0], dtype=np.float32), dtype=float)
    wp.launch(stretch, dim=3, inputs=[x, 2.0], outputs=[y, total], adj_inputs=[adj_x, 0.0],
              adj_outputs=[adj_y, adj_t], adjoint=True)
    out["external"] = [adj_x.numpy(), adj_y.numpy(), adj_t.numpy(), y.numpy(), total.numpy()]

    xg = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), dtype=float, requires_grad=True)
    yg = wp.zeros(3, dtype=float, requires_grad=True)
    tg = wp.zeros(1, dtype=float, requires_grad=True)
    yg.grad.fill_(1.0)
    tg.grad.fill_(2.0)
    wp.launch(stretch, dim=3, inputs=[xg, 2.0], outputs=[yg, tg], adj_inputs=[None, 0.0], adj_outputs=[None, None],
              adjoint=True)
    out["own_grads"] = [xg.grad.numpy().copy(), yg.grad.numpy().copy(), tg.grad.numpy().copy()]  # Warp aliases
    yg.grad.fill_(1.0)
    wp.launch(stretch, dim=3, inputs=[xg, 2.0], outputs=[yg, tg], adj_inputs=[xg.grad, 0.0],
              adj_outputs=[yg.grad, tg.grad], adjoint=True)
    out["explicit_grads"] = [xg.grad.numpy(), yg.grad.numpy(), tg.grad.numpy()]

    px = wp.array(np.arange(8, dtype=np.float32).reshape(4, 2), dtype=wp.vec2)
    py = wp.zeros(4, dtype=wp.vec2)
    adj_px = wp.zeros(4, dtype=wp.vec2)
    adj_py = wp.array(np.ones((4, 2), dtype=np.float32), dtype=wp.vec2)
    wp.launch(partial, dim=4, inputs=[px], outputs=[py], adj_inputs=[adj_px], adj_outputs=[adj_py], adjoint=True)
    out["partial"] = [adj_px.numpy(), adj_py.numpy()]

    ix = wp.array(np.array([1.0, 2.0], dtype=np.float32), dtype=float)
    adj_ix = wp.array(np.array([1.0, 1.0], dtype=np.float32), dtype=float)
    wp.launch(inplace, dim=2, inputs=[ix], adj_inputs=[adj_ix], adjoint=True)
    out["inplace"] = [adj_ix.numpy(), ix.numpy()]
    return out
