@wp.kernel
def exchange(slots: wp.array(dtype=int), idx: wp.array(dtype=int), olds: wp.array(dtype=int), cas_olds: wp.array(dtype=int),
             counters: wp.array(dtype=float), tickets: wp.array(dtype=float)):
    i = wp.tid()
    olds[i] = wp.atomic_exch(slots, idx[i], i)
    cas_olds[i] = wp.atomic_cas(slots, 4, i - 1, i)
    tickets[i] = wp.atomic_add(counters, idx[i], 0.5)


@wp.kernel
def minmax(vals: wp.array(dtype=float), idx: wp.array(dtype=int), lo: wp.array(dtype=float), hi: wp.array(dtype=float),
           lo_old: wp.array(dtype=float), hi_old: wp.array(dtype=float)):
    i = wp.tid()
    lo_old[i] = wp.atomic_min(lo, idx[i], vals[i])
    hi_old[i] = wp.atomic_max(hi, idx[i], vals[i])


@wp.kernel
def bitwise(flags: wp.array(dtype=int), idx: wp.array(dtype=int), out_or: wp.array(dtype=int), out_and: wp.array(dtype=int), out_xor: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_or(out_or, idx[i], flags[i])
    wp.atomic_and(out_and, idx[i], flags[i])
    wp.atomic_xor(out_xor, idx[i], flags[i])


def run():
    rng = np.random.default_rng(11)
    n = 40
    slots = wp.zeros(5, dtype=int)
    idx = wp.array(rng.integers(0, 4, n).astype(np.int32))
    olds = wp.zeros(n, dtype=int)
    cas_olds = wp.zeros(n, dtype=int)
    counters = wp.zeros(4, dtype=float)
    tickets = wp.zeros(n, dtype=float)
    wp.launch(exchange, dim=n, inputs=[slots, idx, olds, cas_olds, counters, tickets])
    vals = wp.array(rng.standard_normal(n).astype(np.float32))
    lo = wp.full(4, 10.0, dtype=float)
    hi = wp.full(4, -10.0, dtype=float)
    lo_old = wp.zeros(n, dtype=float)
    hi_old = wp.zeros(n, dtype=float)
    wp.launch(minmax, dim=n, inputs=[vals, idx, lo, hi, lo_old, hi_old])
    flags = wp.array(rng.integers(0, 256, n).astype(np.int32))
    o = wp.zeros(4, dtype=int)
    a = wp.full(4, 255, dtype=int)
    x = wp.zeros(4, dtype=int)
    wp.launch(bitwise, dim=n, inputs=[flags, idx, o, a, x])
    return {"slots": slots, "olds": olds, "cas_olds": cas_olds, "counters": counters, "tickets": tickets,
            "lo": lo, "hi": hi, "lo_old": lo_old, "hi_old": hi_old, "or": o, "and": a, "xor": x}
