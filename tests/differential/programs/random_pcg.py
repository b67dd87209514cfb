"""Random numbers from the PCG state: rand_init (1 and 2 arguments), randi/randu (full range and
[low, high)), randf (both forms), randn and poisson (lam = 0, < 10 and >= 10) over 1024 threads.
The state is advanced in a loop and inside a branch taken by some lanes only (masked in-place
update), passed as a kernel parameter, and left alone when it is an array element or a wp.func's argument.

Integer results are compared exactly. Float results: randf is exact (multiples of 2^-24, the
ranged form rounds its product before adding, as Warp's CPU build does); randn uses log/cos from
the C library, so a few per thousand differ by an ulp (RTOL 1e-6).
"""

RTOL = 1e-6
ATOL = 1e-7

N = 1024
DRAWS = 5


@wp.kernel
def integers(seed: int, ints: wp.array(dtype=int, ndim=2), uints: wp.array(dtype=wp.uint32, ndim=2),
             states: wp.array(dtype=wp.uint32, ndim=2)):
    tid = wp.tid()
    state = wp.rand_init(seed, tid)
    alone = wp.rand_init(seed + tid)
    states[tid, 0] = state
    states[tid, 1] = alone
    for k in range(DRAWS):
        ints[tid, k] = wp.randi(state)
        ints[tid, DRAWS + k] = wp.randi(state, -7, 100 + tid)
        uints[tid, k] = wp.randu(state)
        uints[tid, DRAWS + k] = wp.randu(state, wp.uint32(3), wp.uint32(1000))
    if tid % 3 == 0:
        ints[tid, 2 * DRAWS] = wp.randi(state, 0, 10)
        wp.randu(alone)  # statement form still advances the state
    elif tid % 3 == 1:
        wp.randi(state)
    states[tid, 2] = state
    states[tid, 3] = alone
    ints[tid, 2 * DRAWS + 1] = wp.randi(alone, 10, 5)  # empty-looking range wraps in uint32


@wp.kernel
def floats(seed: int, lo: wp.array(dtype=float), hi: wp.array(dtype=float), out: wp.array(dtype=float, ndim=2),
           states: wp.array(dtype=wp.uint32)):
    tid = wp.tid()
    state = wp.rand_init(seed, tid)
    k = int(0)
    while k < DRAWS:
        out[tid, k] = wp.randf(state)
        out[tid, DRAWS + k] = wp.randf(state, lo[tid], hi[tid])
        out[tid, 2 * DRAWS + k] = wp.randn(state=state)  # a keyword state is updated too
        if out[tid, k] > 0.5:
            out[tid, 3 * DRAWS + k] = wp.randf(state, low=-1.0, high=1.0)
        k += 1
    states[tid] = state


@wp.kernel
def poisson_draws(seed: int, lam: wp.array(dtype=float), out: wp.array(dtype=wp.uint32, ndim=2),
                  states: wp.array(dtype=wp.uint32)):
    tid = wp.tid()
    state = wp.rand_init(seed, tid)
    for k in range(3):
        out[tid, k] = wp.poisson(state, lam[tid] * float(k + 1))
    if tid % 2 == 0:
        out[tid, 3] = wp.poisson(state, 4.5)
    states[tid] = state


@wp.func
def two_draws(s: wp.uint32):
    return wp.randf(s) - 2.0 * wp.randf(s)  # advances the function's own copy


@wp.kernel
def param_state(state: wp.uint32, table: wp.array(dtype=wp.uint32), out: wp.array(dtype=float)):
    tid = wp.tid()
    out[0] = wp.randf(state)
    out[1] = wp.randf(state)  # the parameter itself advances
    out[2] = wp.randf(table[tid])
    out[3] = wp.randf(table[tid])  # an array element is copied, not advanced
    local = wp.rand_init(3)
    out[4] = two_draws(local)
    out[5] = wp.randf(local)  # unchanged by the call
    out[6] = wp.randf(wp.rand_init(3))


def run():
    rng = np.random.default_rng(3)
    ints = wp.zeros((N, 2 * DRAWS + 2), dtype=int)
    uints = wp.zeros((N, 2 * DRAWS), dtype=wp.uint32)
    states = wp.zeros((N, 4), dtype=wp.uint32)
    wp.launch(integers, dim=N, inputs=[12345], outputs=[ints, uints, states])

    lo = rng.uniform(-3, 1, N).astype(np.float32)
    hi = (lo + rng.uniform(0.1, 5, N)).astype(np.float32)
    fl = wp.zeros((N, 4 * DRAWS), dtype=float)
    fstates = wp.zeros(N, dtype=wp.uint32)
    wp.launch(floats, dim=N, inputs=[7, wp.array(lo), wp.array(hi)], outputs=[fl, fstates])

    lam = rng.uniform(0, 20, N).astype(np.float32)
    lam[::7] = 0.0
    lam[1::11] = 9.99
    lam[2::13] = 10.0
    pois = wp.zeros((N, 4), dtype=wp.uint32)
    pstates = wp.zeros(N, dtype=wp.uint32)
    wp.launch(poisson_draws, dim=N, inputs=[99, wp.array(lam)], outputs=[pois, pstates])

    pout = wp.zeros(7, dtype=float)
    wp.launch(param_state, dim=1, inputs=[wp.uint32(5), wp.array(np.array([17], np.uint32))], outputs=[pout])

    s = int(wp.rand_init(42))
    python_scope = np.array([s, int(wp.rand_init(42, 7)), int(wp.rand_init(-1)), int(wp.randu(wp.rand_init(3))),
                             int(wp.randi(wp.rand_init(3), -5, 10)), int(wp.poisson(wp.rand_init(3), 3.5)),
                             int(wp.poisson(wp.rand_init(3), 30.0))], dtype=np.int64)
    python_floats = np.array([wp.randf(wp.rand_init(5)), wp.randf(wp.rand_init(5), 2.0, 3.0),
                              wp.randn(wp.rand_init(5))], dtype=np.float32)
    return {"ints": ints.numpy(), "uints": uints.numpy(), "states": states.numpy(), "floats": fl.numpy(),
            "float_states": fstates.numpy(), "poisson": pois.numpy(), "poisson_states": pstates.numpy(),
            "param_state": pout.numpy(), "python_scope": python_scope, "python_floats": python_floats}
