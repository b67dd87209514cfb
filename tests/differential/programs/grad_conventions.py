"""Adjoint conventions of scalar builtins at ties and kinks (abs at 0, min/max ties, clamp at
its bounds, frac, mod, acos/asin at +-1, atan2, pow, sqrt/log/div; the singular points of
sqrt/cbrt/log/div/pow on lanes that take the branch: inf and NaN as Warp's), compared through
``tape.backward`` with real Warp."""


@wp.kernel
def kinks(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    a = x[i]
    b = y[i]
    s = wp.abs(a) * 1.0
    s += 2.0 * wp.min(a, b) + 3.0 * wp.max(a, b)
    s += 5.0 * wp.clamp(a, -1.0, b)
    s += 7.0 * wp.frac(a * 1.5) + 11.0 * wp.mod(a, 0.75)
    s += wp.floor(a) + wp.round(b) + wp.sign(a)
    out[i] = s


@wp.kernel
def smooth(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    a = x[i]
    b = y[i]
    s = wp.sqrt(b) + wp.log(b) + wp.log2(b) + wp.log10(b) + wp.cbrt(b)
    s += wp.atan2(a, b) + wp.pow(b, a) + a / b + wp.tan(a * 0.5)
    s += wp.acos(wp.clamp(a, -1.0, 1.0)) * 0.5 + wp.asin(wp.clamp(a * 0.5, -1.0, 1.0))
    s += wp.exp(a * 0.1) + wp.sin(a) * wp.cos(b) + wp.tanh(a) + wp.sinh(a * 0.1) + wp.cosh(b * 0.1)
    out[i] = s


@wp.kernel
def branches(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    a = x[i]
    r = float(0.0)
    if a > 0.0:
        r = wp.sqrt(a) + 1.0 / a + wp.log(a)
    else:
        r = a * a
    r += wp.where(a > 0.5, a * 3.0, a * 4.0) + wp.where(a < 1.0, a * 5.0, a * 6.0)
    out[i] = r


@wp.kernel
def singular(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    a = x[i]
    k = i % 7
    r = float(0.0)
    if k == 0:
        r = wp.sqrt(a)
    elif k == 1:
        r = wp.cbrt(a)
    elif k == 2:
        r = wp.log(a)
    elif k == 3:
        r = wp.log2(a)
    elif k == 4:
        r = wp.log10(a)
    elif k == 5:
        r = 1.0 / a
    else:
        r = wp.pow(a, 0.5)
    out[i] = r


@wp.kernel
def total(v: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, v[i] * float(i + 1))


def grads(kernel, xs, ys=None):
    x = wp.array(np.array(xs, dtype=np.float32), dtype=float, requires_grad=True)
    args = [x]
    y = None
    if ys is not None:
        y = wp.array(np.array(ys, dtype=np.float32), dtype=float, requires_grad=True)
        args.append(y)
    out = wp.zeros(len(xs), dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=len(xs), inputs=[*args, out])
        wp.launch(total, dim=len(xs), inputs=[out, loss])
    tape.backward(loss=loss)
    result = {"out": out.numpy(), "x": x.grad.numpy(), "out_grad": out.grad.numpy(), "loss_grad": loss.grad.numpy()}
    if y is not None:
        result["y"] = y.grad.numpy()
    return result


def run():
    xs = [0.0, 1.0, -1.0, 2.0, 0.5, -0.25, 1.5, -2.0]
    ys = [0.0, 1.0, -1.0, 1.0, 0.5, 0.25, 3.0, 0.5]
    return {
        "kinks": grads(kinks, xs, ys),
        "smooth": grads(smooth, [0.3, -0.7, 1.0, 0.9, -1.0, 0.1], [0.5, 1.5, 2.0, 0.25, 3.0, 1.0]),
        "branches": grads(branches, [-1.0, 0.0, 0.25, 0.5, 0.75, 1.0, 2.0]),
        "singular": grads(singular, [0.0] * 7 + [1.0] * 7),
    }
