# wp.Function parameters: @wp.func and builtins passed as arguments to @wp.func (positional,
# keyword, default, bound to a local, nested, generic, and through wp.grad).
from typing import Any


@wp.func
def double_it(x: float):
    return x * 2.0


@wp.func
def square_it(x: float):
    return x * x


@wp.func
def apply(g: wp.Function, x: float):
    return g(x)


@wp.func
def apply_generic(g: wp.Function, x: Any):
    return g(x)


@wp.func
def apply_default(g: wp.Function = double_it, x: float = 3.0):
    return g(x)


@wp.func
def apply_binary(g: wp.Function, x: float, y: float):
    return g(x, y)


@wp.func
def apply_bound(g: wp.Function, x: float):
    f = g
    return f(x)


@wp.func
def apply_nested(x: float):
    return apply(square_it, x) + apply(wp.sin, x)


@wp.kernel
def function_params(xs: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    x = xs[i]
    out[i, 0] = apply(double_it, x)
    out[i, 1] = apply(g=square_it, x=x)
    out[i, 2] = apply_default()
    out[i, 3] = apply_default(square_it)
    out[i, 4] = apply_generic(wp.cos, x)
    out[i, 5] = apply_binary(wp.max, x, 0.25)
    out[i, 6] = apply_bound(double_it, x)
    out[i, 7] = apply_nested(x)


@wp.kernel(enable_backward=False)
def grad_through(xs: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.grad(apply)(square_it, xs[i])


def run():
    xs = wp.array(np.array([0.1, -0.5, 1.5, 2.0], np.float32))
    out = wp.zeros((4, 8), dtype=float)
    wp.launch(function_params, dim=4, inputs=[xs, out])
    g = wp.zeros(4, dtype=float)
    wp.launch(grad_through, dim=4, inputs=[xs, g])
    return {"out": out, "grad": g}
