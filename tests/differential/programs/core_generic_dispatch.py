"""Generic code helpers: type(x) and .dtype/.length in kernels, bare Warp names (vec3, expect_eq),
wp.static(len(local)), concrete @wp.func overloads preferred over generic ones, operators
overloaded by @wp.func add/mul on structs, and @wp.overload stubs."""

from typing import Any


@wp.func
def combine(a: Any, b: Any):
    return a + b


@wp.func
def combine(a: int, b: int):
    return a - b


@wp.struct
class Pair:
    a: float
    b: float


@wp.func
def add(x: Pair, y: Pair) -> Pair:
    return Pair(x.a + y.a, x.b + y.b)


@wp.func
def mul(x: Pair, y: Pair) -> Pair:
    return Pair(x.a * y.a, x.b * y.b)


@wp.kernel
def typed(a: Any, b: Any, arr: wp.array(dtype=Any), out: wp.array(dtype=float)):
    x = type(a)(b)
    zero = type(arr[0])(0)
    v = wp.types.vector(length=2, dtype=type(b))
    m = wp.identity(n=v.length, dtype=v.dtype) * b
    c = arr.dtype(arr[0]) + zero
    u = vec3(1.0, 2.0, 3.0)
    out[0] = float(x) + float(wp.trace(m)) + float(c)
    out[1] = float(combine(2, 3)) + combine(2.0, 3.0) + combine(u, u)[2]
    out[2] = float(wp.static(len(u))) + float(len(m)) + wp.sin(half_pi)
    p = Pair(1.0, 2.0) + Pair(3.0, 4.0)
    q = Pair(2.0, 3.0) * Pair(4.0, 5.0)
    out[3] = p.a + p.b * 10.0 + q.b * 100.0 + 2.0 * 3.0


@wp.kernel
def scaled(a: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    a[i] = a[i] * s


@wp.overload
def scaled(a: wp.array(dtype=wp.vec3), s: float):  # fmt: skip
    ...


wp.overload(scaled, [wp.array(dtype=float), float])


def run():
    out = wp.zeros(4, dtype=float)
    wp.launch(typed, dim=1, inputs=[1.0, wp.float64(2.5), wp.array([3], dtype=wp.int32), out])
    out_b = wp.zeros(4, dtype=float)
    wp.launch(typed, dim=1, inputs=[wp.float64(1.0), 4.0, wp.array([1.5], dtype=float), out_b])
    v = wp.array(np.ones((3, 3), dtype=np.float32), dtype=wp.vec3)
    wp.launch(scaled, dim=3, inputs=[v, 2.0])
    return {"typed": out, "typed_b": out_b, "scaled": v, "overloads": len(scaled.overloads)}
