# String annotations (``from __future__ import annotations``) on kernels, funcs and structs,
# including an annotation naming a module attribute and locals of an enclosing factory.
from __future__ import annotations

@wp.struct
class Pair:
    a: float
    b: wp.vec3


@wp.func
def combine(p: Pair, s: float) -> float:
    return (p.a + wp.length(p.b)) * s


@wp.func
def doubled(x: float) -> float:
    return 2.0 * x


class Holder:
    Data = Pair
    scale = doubled


holder = Holder()


@wp.kernel
def with_module_attribute(p: holder.Data, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = combine(p, float(i))


def make_kernel(ns, dtype):
    def fn(p: ns.Data, out: wp.array(dtype=dtype)):
        i = wp.tid()
        out[i] = ns.scale(p.a) + dtype(i)

    return wp.Kernel(func=fn)


def run():
    p = Pair()
    p.a = 1.5
    p.b = wp.vec3(3.0, 4.0, 0.0)
    out = wp.zeros(3, dtype=float)
    wp.launch(with_module_attribute, dim=3, inputs=[p, out])
    out2 = wp.zeros(3, dtype=float)
    wp.launch(make_kernel(holder, wp.float32), dim=3, inputs=[p, out2])
    return {"out": out, "out2": out2}
