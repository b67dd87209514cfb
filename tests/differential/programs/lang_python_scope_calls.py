# Python-scope calls of @wp.func (overload selection by argument type, defaults, wp.Function
# arguments, errors when no overload matches) and Python-scope composite arithmetic (operands
# must share one scalar type; transform products with non-unit quaternions); wp.grad(f) bound
# to a local in a kernel.
from typing import Any


@wp.func
def custom(x: int):
    return x + 1


@wp.func
def custom(x: float):
    return x + 1.0


@wp.func
def custom(x: wp.vec3):
    return x + wp.vec3(1.0, 0.0, 0.0)


@wp.func
def halve64(x: wp.float64):
    return x / wp.float64(2.0)


@wp.func
def triple(x: float):
    return x * 3.0


@wp.func
def apply(g: wp.Function, x: float):
    return g(x)


@wp.func
def apply_default(g: wp.Function = triple, x: float = 2.0):
    return g(x)


@wp.func
def generic_len(a: wp.array(dtype=Any)):
    return a.shape[0]


@wp.func
def square(x: float):
    return x * x


@wp.kernel(enable_backward=False)
def grad_local(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    dsq = wp.grad(square)
    out[i] = dsq(x[i])


def _error(fn):
    """0: no error, 1: RuntimeError, 2: TypeError, 3: other."""
    try:
        fn()
    except RuntimeError:
        return 1
    except TypeError:
        return 2
    except Exception:
        return 3
    return 0


def run():
    calls = [
        float(custom(1)),
        float(custom(1.0)),
        *list(custom(wp.vec3(1.0, 0.0, 0.0))),
        float(apply(triple, 4.0)),
        float(apply(wp.sin, 0.5)),
        float(apply_default()),
        float(apply_default(x=5.0)),
        float(generic_len(wp.zeros(4, dtype=wp.int32))),
        float(halve64(wp.float64(3.0))),
    ]
    call_errors = [
        _error(lambda: halve64(1.0)),  # a Python float is float32: no overload
        _error(lambda: apply(lambda x: x, 1.0)),  # a lambda is not a wp.Function
    ]
    v3f = wp.vec3f(1.0, 2.0, 3.0)
    m22f = wp.mat22f(1.0, 2.0, 3.0, 4.0)
    operand_errors = [
        _error(lambda: m22f * wp.mat22d(1.0, 2.0, 3.0, 4.0)),
        _error(lambda: v3f + wp.vec3d(1.0, 2.0, 3.0)),
        _error(lambda: v3f * wp.float64(2.0)),
        _error(lambda: v3f * 2),
        _error(lambda: 2 * v3f),
        _error(lambda: wp.vec3d(1.0, 2.0, 3.0) * 2.0),
        _error(lambda: v3f / 2),
        _error(lambda: v3f * v3f),
        _error(lambda: v3f + (1.0, 2.0, 3.0)),
        _error(lambda: wp.quatf(1.0, 2.0, 3.0, 4.0) * wp.quatd(1.0, 2.0, 3.0, 4.0)),
        _error(lambda: v3f * 2.0),
        _error(lambda: 2.0 * v3f),
        _error(lambda: v3f * wp.float32(2.0)),
        _error(lambda: wp.vec3i(1, 2, 3) * 2),
        _error(lambda: m22f * wp.vec2f(1.0, 2.0)),
    ]
    t = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(4.0, 5.0, 6.0, 7.0))
    product = list(t * wp.transform(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0))

    x = wp.array(np.arange(4, dtype=np.float32))
    out = wp.zeros(4, dtype=float)
    wp.launch(grad_local, dim=4, inputs=[x, out])
    return {
        "calls": np.array(calls),
        "call_errors": np.array(call_errors),
        "operand_errors": np.array(operand_errors),
        "transform_product": np.array(product),
        "grad_local": out.numpy(),
    }
