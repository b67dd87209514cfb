"""Array creation details: ``wp.full`` infers vector/matrix dtypes from sequences and numpy arrays
(the numpy scalar type kept), struct dtypes from instances, and rejects numpy scalars and 3-d
values; ``fill_`` on struct arrays (an instance, or 0); empty arrays have no ``ptr``; Warp's
errors for negative shapes and impossible reshapes; ``wp.array(other, shape=...)`` reshapes."""


@wp.struct
class Item:
    x: int
    v: wp.vec3


def _error(make):
    try:
        make()
        return "none"
    except Exception as e:  # noqa: BLE001 - the type and message are the result
        return f"{type(e).__name__}: {e}"


def run():
    out = {}
    for i, value in enumerate([np.array([1, 2, 3], dtype=np.int16), np.array([[True, False], [True, True]]),
                               [1.0, 2.0], [[1, 2], [3, 4]], np.ones(5, dtype=np.uint8), 7, 2.5, True]):
        a = wp.full(2, value)
        na = a.numpy()
        out[f"full_{i}"] = [na, str(na.dtype), list(na.shape)]
    out["full_errors"] = [_error(lambda: wp.full(2, np.float64(2.0))), _error(lambda: wp.full(2, np.ones((2, 2, 2))))]

    item = Item()
    item.x = 4
    item.v = wp.vec3(1.0, 2.0, 3.0)
    items = wp.zeros(3, dtype=Item)
    items.fill_(item)
    filled = items.numpy().copy()
    items.fill_(0)
    full = wp.full(2, item)
    out["struct_fill"] = [filled["x"], filled["v"], items.numpy()["x"], full.numpy()["v"],
                          _error(lambda: items.fill_(1.5)).split(":")[0]]

    out["empty_ptr"] = [wp.zeros(0, dtype=float).ptr is None, wp.zeros((2, 0)).ptr is None,
                        wp.zeros(3).ptr is not None]
    b = wp.array(np.arange(6, dtype=np.float32))
    out["errors"] = [_error(lambda: wp.zeros(shape=-1, dtype=int)), _error(lambda: wp.zeros(shape=(10, -1))),
                     _error(lambda: b.reshape((4, 2))), _error(lambda: b.reshape((-1, 4))),
                     _error(lambda: b.reshape((-1, -1)))]
    from typing import Any

    src = wp.array(np.arange(12, dtype=np.float32).reshape((3, 4)))
    out["from_array_shape"] = [wp.array(src, dtype=dtype, shape=shape).numpy()
                               for dtype in (Any, wp.float32) for shape in (None, (3, 4), (12,), (3, 2, 2))]
    return out
