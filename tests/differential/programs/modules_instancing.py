"""Modules and instancing: functions and kernels made by factories stay distinct per captured value
(closures), redefining a function at module level leaves earlier references intact, identical
module="unique" kernels are one object, and set_module_options after a kernel's definition applies
at its next compile (enable_backward here). Also type(x)(v) in generic code, enum member .value,
and wp.static forcing unrolling of a constant loop longer than the unique module's max_unroll."""

import enum
from typing import Any


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 5


def make_offset(value):
    @wp.func
    def offset(x: int):
        return x + value

    return offset


add_two = make_offset(2)
add_ten = make_offset(10)


def make_scaler(value):
    @wp.func
    def scale(x: Any):
        return x * type(x)(value)

    @wp.kernel
    def scale_kernel(xi: wp.array(dtype=int), xf: wp.array(dtype=float)):
        xi[0] = scale(xi[0])
        xf[0] = scale(xf[0])

    return scale_kernel


twice = make_scaler(2)
thrice = make_scaler(3)


@wp.func
def level():
    return 1


old_level = level


@wp.func
def level():
    return 7


@wp.kernel
def use_funcs(out: wp.array(dtype=int)):
    out[0] = add_two(1)
    out[1] = add_ten(1)
    out[2] = old_level()
    out[3] = level()
    out[4] = int(Level.HIGH.value) + Level.LOW


def make_unique(value):
    @wp.kernel(module="unique", module_options={"max_unroll": 2})
    def odd_sum(out: wp.array(dtype=float)):
        total = float(0.0)
        for i in range(12):
            if wp.static(i % 2 == 0):
                continue
            total += float(i)
        out[0] = total * float(value)

    return odd_sum


@wp.kernel
def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


wp.set_module_options({"enable_backward": False})  # after square's definition: still applies to it


def run():
    import warnings

    out = wp.zeros(5, dtype=int)
    wp.launch(use_funcs, 1, [out])
    xi, xf = wp.array([3], dtype=int), wp.array([1.5], dtype=float)
    wp.launch(twice, 1, [xi, xf])
    wp.launch(thrice, 1, [xi, xf])
    u1, u2, u3 = make_unique(1), make_unique(1), make_unique(2)
    sums = wp.zeros(2, dtype=float)
    wp.launch(u1, 1, [sums[0:1]])
    wp.launch(u3, 1, [sums[1:2]])
    x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    y = wp.zeros(2, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(square, 2, [x, y])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tape.backward(grads={y: wp.ones(2)})
    wp.set_module_options({"enable_backward": True})
    return {
        "funcs": out.numpy(),
        "scaled": [xi.numpy(), xf.numpy()],
        "unique": [sums.numpy(), np.array([u1 is u2, u1 is u3, u1.module is u2.module])],
        "unique_names_differ": np.array(u1.module.name != u3.module.name),
        "square_options": np.array(len(square.options)),
        "x_grad": x.grad.numpy(),
    }
