# Array arguments and operators beyond wp.array: Python operators on indexed arrays (a new
# contiguous result; in place writes the selected elements), objects exposing NumPy's
# __array_interface__ passed to a CPU launch, and the TypeError a host wp.fixedarray gets as
# the argument or overload type of a generic kernel.
from typing import Any


@wp.kernel
def read_regular(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] * 2.0


@wp.kernel(module="unique", enable_backward=False)
def read_generic(a: wp.array(dtype=Any), out: wp.array(dtype=float)):
    out[0] = float(a[0])


class NumPyLike:
    def __init__(self, values):
        self._values = values

    @property
    def __array_interface__(self):
        return self._values.__array_interface__


def _type_error(fn):
    try:
        fn()
    except TypeError as exc:
        return int("fixedarray" in str(exc))
    except Exception:
        return 2
    return 3


def run():
    data = wp.array(np.arange(1.0, 6.0, dtype=np.float32))
    ia = wp.indexedarray(data, [wp.array([0, 2, 4], dtype=int)])
    sub = (ia - 2.0).numpy()
    rdiv = (12.0 / ia).numpy()
    neg = (-ia).numpy()
    ia += 1.0

    values = np.arange(1, 5, dtype=np.float32)
    out = wp.empty(4, dtype=float)
    wp.launch(read_regular, 4, inputs=[NumPyLike(values)], outputs=[out])

    fixed = wp.fixedarray(dtype=float, shape=1)
    small = wp.empty(1, dtype=float)
    errors = [
        _type_error(lambda: wp.launch(read_generic, 1, inputs=[fixed], outputs=[small])),
        _type_error(lambda: wp.overload(read_generic, [fixed, wp.array(dtype=float)])),
    ]
    return {
        "sub": sub,
        "rdiv": rdiv,
        "neg": neg,
        "in_place_view": ia.numpy(),
        "in_place_data": data.numpy(),
        "interface": out.numpy(),
        "fixed_errors": np.array(errors),
    }
