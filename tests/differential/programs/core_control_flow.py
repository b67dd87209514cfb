@wp.kernel
def branches(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    r = float(0.0)
    if v < -1.0:
        r = -2.0
    elif v < 0.0:
        r = v * 3.0
    elif v < 1.0:
        r = v
    else:
        r = 1.0 + v
    out[i] = r if i % 2 == 0 else -r


@wp.kernel
def loops(n: int, out: wp.array(dtype=int)):
    i = wp.tid()
    total = int(0)
    for j in range(i):
        total += j
    for j in range(10, 0, -3):
        total += j
    for j in range(n):
        if j == i:
            continue
        if j > i + 3:
            break
        total += 100
    k = int(0)
    while k * k < i * 7:
        k += 1
    out[i] = total + k * 1000


@wp.func
def early(x: float) -> float:
    if x < 0.0:
        return -1.0
    for k in range(5):
        if float(k) > x:
            return float(k)
    return 10.0


@wp.kernel
def returns(x: wp.array(dtype=float), out: wp.array(dtype=float), out2: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = early(x[i])
    if x[i] > 3.0:
        return
    out2[i] = x[i] * 2.0


def run():
    x = wp.array(np.linspace(-3.0, 6.0, 37).astype(np.float32))
    out = wp.zeros(37, dtype=float)
    wp.launch(branches, dim=37, inputs=[x, out])
    ints = wp.zeros(16, dtype=int)
    wp.launch(loops, dim=16, inputs=[12, ints])
    r1 = wp.zeros(37, dtype=float)
    r2 = wp.zeros(37, dtype=float)
    wp.launch(returns, dim=37, inputs=[x, r1, r2])
    return {"branches": out, "loops": ints, "early": r1, "after_return": r2}
