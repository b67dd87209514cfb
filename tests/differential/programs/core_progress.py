"""Threads that wait on each other (spin locks, CAS retry loops, a ticket queue) complete with the
results of Warp's CPU backend, which runs threads one after another in thread order."""

TIMEOUT = 240  # jwarp's run() goes to a child process: a kernel that never finishes fails the test


@wp.func
def acquire(lock: wp.array(dtype=int)):
    while wp.atomic_cas(lock, 0, 0, 1) == 1:
        pass


@wp.func
def release(lock: wp.array(dtype=int)):
    wp.atomic_exch(lock, 0, 0)


@wp.kernel
def locked_counter(counter: wp.array(dtype=int), lock: wp.array(dtype=int), seen: wp.array(dtype=int),
                   atomic_counter: wp.array(dtype=int)):
    tid = wp.tid()
    acquire(lock)
    value = wp.atomic_exch(counter, 0, 0)  # a "volatile" read, as in Warp's spin-lock example
    wp.atomic_exch(counter, 0, value)
    seen[tid] = value
    counter[0] = value + 1
    release(lock)
    wp.atomic_add(atomic_counter, 0, 1)


@wp.kernel
def locked_float_sum(total: wp.array2d(dtype=wp.float64), lock: wp.array2d(dtype=wp.float64),
                     values: wp.array(dtype=wp.float64)):
    i = wp.tid()
    while wp.atomic_cas(lock, 0, 0, wp.float64(0.0), wp.float64(1.0)) == wp.float64(1.0):
        pass
    total[0, 0] = total[0, 0] * wp.float64(0.5) + values[i]  # order-dependent: thread order shows
    wp.atomic_exch(lock, 0, 0, wp.float64(0.0))


@wp.kernel
def cas_max(best: wp.array(dtype=int), values: wp.array(dtype=int)):
    # a CAS retry loop (how many tries each thread needs depends on scheduling: not compared)
    i = wp.tid()
    v = values[i]
    while True:
        old = best[0]
        if wp.atomic_cas(best, 0, old, wp.max(old, v)) == old:
            break


@wp.kernel
def in_turn(turn: wp.array(dtype=int), order: wp.array(dtype=int), stamp: wp.array(dtype=int)):
    # thread i waits until every earlier thread has taken its turn (a chain of waits)
    i, j = wp.tid()
    me = i * 3 + j
    while wp.atomic_add(turn, 0, 0) != me:
        pass
    order[me] = wp.atomic_add(stamp, 0, 1)
    wp.atomic_add(turn, 0, 1)


def run():
    n = 37
    counter = wp.zeros(1, dtype=int)
    lock = wp.zeros(1, dtype=int)
    seen = wp.zeros(n, dtype=int)
    atomic_counter = wp.zeros(1, dtype=int)
    wp.launch(locked_counter, dim=n, inputs=[counter, lock, seen, atomic_counter])

    rng = np.random.default_rng(5)
    total = wp.zeros((1, 1), dtype=wp.float64)
    flock = wp.zeros((1, 1), dtype=wp.float64)
    values = wp.array(rng.uniform(0.0, 1.0, 20), dtype=wp.float64)
    wp.launch(locked_float_sum, dim=20, inputs=[total, flock, values])

    best = wp.zeros(1, dtype=int)
    wp.launch(cas_max, dim=16, inputs=[best, wp.array(rng.integers(0, 100, 16).astype(np.int32))])

    turn = wp.zeros(1, dtype=int)
    order = wp.zeros(12, dtype=int)
    stamp = wp.zeros(1, dtype=int)
    wp.launch(in_turn, dim=(4, 3), inputs=[turn, order, stamp])
    return {"counter": counter, "lock": lock, "seen": seen, "atomic_counter": atomic_counter, "total": total,
            "flock": flock, "best": best, "turn": turn, "order": order}
