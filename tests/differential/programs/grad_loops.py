"""Gradients through loops in kernels: constant (unrolled) ranges, launch-uniform ranges,
per-lane ranges with ``continue``, nested loops with per-lane bounds, and loops inside
``wp.func`` calls. (``while`` loops, ``break`` and loop-carried values that are overwritten
rather than accumulated — ``p = p * x`` — are where Warp's gradients are wrong: warp issues
1694/1740/729; jwarp checks those against finite differences in tests/runtime/test_tape.py.)"""


@wp.func
def poly(x: float, n: int):
    acc = float(0.0)
    for k in range(n):
        acc += wp.pow(x, float(k)) / float(k + 1)
    return acc


@wp.kernel
def loops(x: wp.array(dtype=float), counts: wp.array(dtype=int), n: int, y: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    s = float(0.0)
    for k in range(3):
        s += v * float(k)
    for k in range(n):
        s += wp.sin(v * float(k))
    for k in range(counts[i]):
        if k == 2:
            continue
        s += v * v * float(k)
    for a in range(counts[i]):
        for b in range(a):
            s += v * float(a - b)
    y[i] = s + poly(v, counts[i] + 1)


@wp.kernel
def total(y: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, y[i] * float(i + 1))


def run():
    x = wp.array(np.array([0.3, 0.9, 1.4, 0.05, 0.6], dtype=np.float32), dtype=float, requires_grad=True)
    counts = wp.array(np.array([0, 2, 5, 3, 4], dtype=np.int32), dtype=int)
    y = wp.zeros(5, dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(loops, dim=5, inputs=[x, counts, 4], outputs=[y])
        wp.launch(total, dim=5, inputs=[y, loss])
    tape.backward(loss=loss)
    return {"y": y.numpy(), "x": x.grad.numpy(), "y_grad": y.grad.numpy()}
