# NaN as "missing" in atomic_min/atomic_max (a NaN slot takes the first number that arrives,
# a NaN value changes nothing), per lane, several lanes per slot and one uniform slot; and the
# adjoints of clamp (NaN inputs) and copysign (signed zeros) as Warp defines them.


@wp.kernel
def atomics_per_lane(a: wp.array(dtype=float), b: wp.array(dtype=float), lo: wp.array(dtype=float),
                     hi: wp.array(dtype=float), old_lo: wp.array(dtype=float), old_hi: wp.array(dtype=float)):
    i = wp.tid()
    lo[i] = a[i]
    hi[i] = a[i]
    old_lo[i] = wp.atomic_min(lo, i, b[i])
    old_hi[i] = wp.atomic_max(hi, i, b[i])


@wp.kernel
def atomics_shared(vals: wp.array(dtype=float), slots: wp.array(dtype=int), lo: wp.array(dtype=float),
                   hi: wp.array(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_min(lo, slots[i], vals[i])
    wp.atomic_max(hi, slots[i], vals[i])
    wp.atomic_min(total, 0, vals[i])
    wp.atomic_max(total, 1, vals[i])


@wp.kernel
def clamp_copysign(x: wp.array(dtype=float), a: wp.array(dtype=float), b: wp.array(dtype=float),
                   out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.clamp(x[i], a[i], b[i]) + wp.copysign(x[i], b[i])


def run():
    nan = float("nan")
    a = wp.array([-1.0, nan, nan, -1.0, nan, 2.0], dtype=float)
    b = wp.array([nan, -1.0, nan, 2.0, 2.0, nan], dtype=float)
    n = 6
    lo, hi, old_lo, old_hi = (wp.zeros(n, dtype=float) for _ in range(4))
    wp.launch(atomics_per_lane, dim=n, inputs=[a, b, lo, hi, old_lo, old_hi])

    vals = wp.array([nan, 3.0, nan, -2.0, nan, nan, 5.0, nan], dtype=float)
    slots = wp.array([0, 0, 1, 1, 2, 2, 3, 3], dtype=int)
    lo2 = wp.array([nan, 1.0, nan, nan], dtype=float)
    hi2 = wp.array([nan, 1.0, nan, nan], dtype=float)
    total = wp.array([nan, nan], dtype=float)
    wp.launch(atomics_shared, dim=8, inputs=[vals, slots, lo2, hi2, total])

    x = wp.array([nan, nan, 0.5, 2.0, -2.0, 0.5, -0.0, 0.0], dtype=float, requires_grad=True)
    ca = wp.array([-1.0, 1.0, nan, nan, -1.0, -1.0, -1.0, -1.0], dtype=float, requires_grad=True)
    cb = wp.array([1.0, -1.0, 1.0, 1.0, nan, 1.0, -1.0, -1.0], dtype=float, requires_grad=True)
    out = wp.zeros(8, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(clamp_copysign, dim=8, inputs=[x, ca, cb, out])
    out.grad.fill_(1.0)
    tape.backward()
    return {"lo": lo, "hi": hi, "old_lo": old_lo, "old_hi": old_hi, "lo_shared": lo2, "hi_shared": hi2,
            "total": total, "x_grad": x.grad, "a_grad": ca.grad, "b_grad": cb.grad}
