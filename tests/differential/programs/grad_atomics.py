"""Gradients through atomics: scatter-adds (``atomic_add``/``atomic_sub``/``+=``/``-=``) at
data-dependent indices, reductions into one element, and ``atomic_min``/``atomic_max`` with
ties (Warp gives the element's adjoint to every value equal to the final contents)."""


@wp.kernel
def scatter(x: wp.array(dtype=float), idx: wp.array(dtype=int), v: wp.array(dtype=wp.vec3),
            acc: wp.array(dtype=float), vacc: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    wp.atomic_add(acc, idx[i], x[i] * x[i])
    wp.atomic_sub(acc, (idx[i] + 1) % 4, 0.5 * x[i])
    vacc[idx[i]] += v[i] * x[i]
    vacc[0] -= v[i]


@wp.kernel
def extremes(x: wp.array(dtype=float), idx: wp.array(dtype=int), lo: wp.array(dtype=float),
             hi: wp.array(dtype=float), vlo: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    wp.atomic_min(lo, idx[i], x[i])
    wp.atomic_max(hi, idx[i], 2.0 * x[i])
    wp.atomic_min(vlo, 0, wp.vec2(x[i], -x[i]))


@wp.kernel
def weigh(acc: wp.array(dtype=float), vacc: wp.array(dtype=wp.vec3), lo: wp.array(dtype=float),
          hi: wp.array(dtype=float), vlo: wp.array(dtype=wp.vec2), loss: wp.array(dtype=float)):
    i = wp.tid()
    w = float(i + 1)
    wp.atomic_add(loss, 0, w * acc[i] + wp.dot(vacc[i], wp.vec3(1.0, 2.0, 3.0)) * w + lo[i] * w + hi[i] * w * w)
    if i == 0:
        wp.atomic_add(loss, 0, vlo[0][0] * 3.0 + vlo[0][1] * 5.0)


def run():
    xs = np.array([0.5, -1.0, 2.0, 2.0, -1.0, 0.25, 3.0, 0.5], dtype=np.float32)
    x = wp.array(xs, dtype=float, requires_grad=True)
    idx = wp.array(np.array([0, 1, 2, 2, 1, 3, 0, 3], dtype=np.int32), dtype=int)
    v = wp.array(np.arange(24, dtype=np.float32).reshape(8, 3) * 0.1, dtype=wp.vec3, requires_grad=True)
    acc = wp.zeros(4, dtype=float, requires_grad=True)
    vacc = wp.zeros(4, dtype=wp.vec3, requires_grad=True)
    lo = wp.array(np.array([0.0, 5.0, 5.0, 0.25], dtype=np.float32), dtype=float, requires_grad=True)
    hi = wp.array(np.array([-9.0, -9.0, 4.0, -9.0], dtype=np.float32), dtype=float, requires_grad=True)
    vlo = wp.array(np.array([[9.0, 9.0]], dtype=np.float32), dtype=wp.vec2, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(scatter, dim=8, inputs=[x, idx, v, acc, vacc])
        wp.launch(extremes, dim=8, inputs=[x, idx, lo, hi, vlo])
        wp.launch(weigh, dim=4, inputs=[acc, vacc, lo, hi, vlo, loss])
    tape.backward(loss=loss)
    out = {name: a.numpy() for name, a in (("acc", acc), ("vacc", vacc), ("lo", lo), ("hi", hi), ("vlo", vlo),
                                           ("loss", loss))}
    out.update({name + "_grad": a.grad.numpy() for name, a in (("x", x), ("v", v), ("acc", acc), ("vacc", vacc),
                                                              ("lo", lo), ("hi", hi), ("vlo", vlo), ("loss", loss))})
    return out
