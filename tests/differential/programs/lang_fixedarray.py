# Fixed-size thread-local arrays (wp.zeros in kernel code): passed to and returned from
# @wp.func (with and without a wp.fixedarray return annotation), struct elements, and
# matched against array parameters.
from typing import Any


@wp.struct
class Item:
    offset: int
    dist: float


@wp.func
def fill(arr: wp.array2d(dtype=int), base: int):
    for i in range(arr.shape[0]):
        for j in range(arr.shape[1]):
            arr[i, j] = base + i * arr.shape[1] + j


@wp.func
def table(base: int) -> wp.fixedarray(shape=(2, 3), dtype=int):
    t = wp.zeros(shape=(2, 3), dtype=int)
    fill(t, base)
    return t


@wp.func
def ramp(n_scale: float):
    r = wp.zeros(shape=4, dtype=float)
    for i in range(4):
        r[i] = float(i) * n_scale
    return r


@wp.func
def items():
    arr = wp.zeros(shape=(2, 3), dtype=Item)
    for i in range(2):
        for j in range(3):
            arr[i][j].offset = i * 3 + j
            arr[i][j].dist = float(arr[i][j].offset) / 5.0
    return arr


@wp.func
def first(arr: wp.array(dtype=Any)):
    return arr[0]


@wp.kernel
def fixed(out: wp.array2d(dtype=float)):
    i = wp.tid()
    t = table(i * 100)
    r = ramp(float(i) + 0.5)
    it = items()
    v = wp.zeros(shape=(2,), dtype=wp.vec2)
    v[0] = wp.vec2(float(i), 2.0)
    out[i, 0] = float(t[1, 2])
    out[i, 1] = float(t[0][1])
    out[i, 2] = r[3]
    out[i, 3] = float(it[1][2].offset) + it[1][1].dist
    out[i, 4] = first(v)[0] + first(r)


def run():
    out = wp.zeros((3, 5), dtype=float)
    wp.launch(fixed, dim=3, inputs=[out])
    return {"out": out}
