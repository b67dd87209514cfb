"""Gradients through ``@wp.func`` calls and ``@wp.func_grad`` custom adjoints (scalar, vector,
struct-field and multiple-return forms, a custom gradient calling its own forward function,
and a custom gradient nested inside another function)."""


@wp.func
def cube(x: float):
    return x * x * x


@wp.func
def clipped_sqrt(x: float):
    return wp.sqrt(wp.max(x, 0.0))


@wp.func_grad(clipped_sqrt)
def adj_clipped_sqrt(x: float, adj_ret: float):
    if x > 0.0:
        wp.adjoint[x] += 0.5 / wp.sqrt(x) * adj_ret
    else:
        wp.adjoint[x] += 7.0 * adj_ret


@wp.func
def norm3(v: wp.vec3):
    return wp.length(v)


@wp.func_grad(norm3)
def adj_norm3(v: wp.vec3, adj_ret: float):
    wp.adjoint[v] += wp.normalize(v) * adj_ret * 2.0


@wp.func
def sigmoid(x: float):
    return 1.0 / (1.0 + wp.exp(-x))


@wp.func_grad(sigmoid)
def adj_sigmoid(x: float, adj: float):
    wp.adjoint[x] += adj * sigmoid(x) * (1.0 - sigmoid(x)) * 3.0


@wp.func
def pair(x: float, y: float):
    return x * y, x + y


@wp.func_grad(pair)
def adj_pair(x: float, y: float, adj_ret0: float, adj_ret1: float):
    wp.adjoint[x] += y * adj_ret0 * 10.0 + adj_ret1
    wp.adjoint[y] += x * adj_ret0 + adj_ret1 * 5.0


@wp.struct
class Params:
    scale: float
    offset: wp.vec2


@wp.func
def affine(p: Params, x: float):
    return p.scale * x + p.offset[0] * p.offset[1]


@wp.func_grad(affine)
def adj_affine(p: Params, x: float, adj_ret: float):
    wp.adjoint[p.scale] += x * adj_ret * 2.0
    wp.adjoint[p.offset][1] += adj_ret * 4.0
    wp.adjoint[x] += p.scale * adj_ret


@wp.func
def outer(x: float):
    return clipped_sqrt(x) * 3.0 + cube(x)


@wp.kernel
def evaluate(xs: wp.array(dtype=float), vs: wp.array(dtype=wp.vec3), scales: wp.array(dtype=float),
             out: wp.array(dtype=float)):
    i = wp.tid()
    x = xs[i]
    p = Params()
    p.scale = scales[i]
    p.offset = wp.vec2(x, 2.0)
    a, b = pair(x, scales[i])
    out[i] = outer(x) + norm3(vs[i]) + sigmoid(x) + a * 2.0 + b * 3.0 + affine(p, x)


@wp.kernel
def total(v: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, v[i] * float(i + 1))


def run():
    xs = wp.array(np.array([-0.5, 0.0, 0.25, 1.0, 2.0], dtype=np.float32), dtype=float, requires_grad=True)
    vs = wp.array(np.arange(15, dtype=np.float32).reshape(5, 3) * 0.3 - 2.0, dtype=wp.vec3, requires_grad=True)
    scales = wp.array(np.array([1.0, 2.0, -1.0, 0.5, 3.0], dtype=np.float32), dtype=float, requires_grad=True)
    out = wp.zeros(5, dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(evaluate, dim=5, inputs=[xs, vs, scales, out])
        wp.launch(total, dim=5, inputs=[out, loss])
    tape.backward(loss=loss)
    return {"out": out.numpy(), "xs": xs.grad.numpy(), "vs": vs.grad.numpy(), "scales": scales.grad.numpy()}
