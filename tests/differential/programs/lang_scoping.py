# Python scoping as Warp allows it: a local first assigned inside a loop or branch body is
# visible after the statement. Only lanes where the body assigned it are compared (Warp leaves
# the variable uninitialized elsewhere).


@wp.func
def march(origin: float, step: float) -> float:
    t = float(0.0)
    for _ in range(40):
        d = origin - t * step
        t = t + 0.25
    return d


@wp.kernel
def loop_locals(n: wp.array(dtype=int), out: wp.array(dtype=float), out_v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    # launch-uniform loop long enough to stay a lax loop
    for _ in range(50):
        d = float(i) * 0.5
        v = wp.vec3(d, 1.0, 2.0)
    # per-lane bound (masked while loop); every lane runs at least once
    for j in range(n[i]):
        g = float(j) * 2.0
    # while loop
    k = int(0)
    while k < n[i]:
        h = float(k) + 0.5
        k += 1
    # branch taken by every lane, on a value the compiler cannot fold
    if n[i] > 0:
        e = g + h
    out[i] = d + g * 10.0 + h * 100.0 + e * 1000.0 + march(float(i), 0.5)
    out_v[i] = v


@wp.kernel
def nested_loop_local(out: wp.array(dtype=int)):
    i = wp.tid()
    for a in range(i + 1):
        for b in range(3):
            inner = a * 10 + b
        last_outer = inner
    out[i] = last_outer


def run():
    n = wp.array(np.array([1, 3, 2, 5], np.int32))
    out = wp.zeros(4, dtype=float)
    out_v = wp.zeros(4, dtype=wp.vec3)
    wp.launch(loop_locals, dim=4, inputs=[n, out, out_v])
    nested = wp.zeros(5, dtype=int)
    wp.launch(nested_loop_local, dim=5, inputs=[nested])
    return {"out": out, "out_v": out_v, "nested": nested}
