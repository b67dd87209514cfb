"""Geometric samplers (sample_triangle, sample_unit_ring/disk/square/cube, sample_unit_sphere,
sample_unit_hemisphere and their _surface forms) and sample_cdf, over 1024 threads with several
draws per thread, some in a branch, and the final states.

Tolerances: the sphere and hemisphere samplers call glibc's acosf, which is not correctly
rounded (jwarp rounds a float64 acos), so about 8 % of those samples differ by an ulp of the
angle: ~1e-7 absolute after sin/cos (ATOL 5e-7, RTOL 1e-6). Everything else is bit-exact, and
sample_cdf indices and all states are compared exactly.
"""

RTOL = 1e-6
ATOL = 5e-7

N = 1024


@wp.kernel
def planar(seed: int, out2: wp.array(dtype=wp.vec2, ndim=2), states: wp.array(dtype=wp.uint32)):
    tid = wp.tid()
    state = wp.rand_init(seed, tid)
    for k in range(2):
        out2[tid, 4 * k + 0] = wp.sample_triangle(state)
        out2[tid, 4 * k + 1] = wp.sample_unit_ring(state)
        out2[tid, 4 * k + 2] = wp.sample_unit_disk(state)
        out2[tid, 4 * k + 3] = wp.sample_unit_square(state)
    if tid % 4 == 1:
        out2[tid, 8] = wp.sample_unit_disk(state)
    states[tid] = state


@wp.kernel
def spatial(seed: int, out3: wp.array(dtype=wp.vec3, ndim=2), states: wp.array(dtype=wp.uint32)):
    tid = wp.tid()
    state = wp.rand_init(seed, tid)
    for k in range(2):
        out3[tid, 5 * k + 0] = wp.sample_unit_sphere_surface(state)
        out3[tid, 5 * k + 1] = wp.sample_unit_sphere(state)
        out3[tid, 5 * k + 2] = wp.sample_unit_hemisphere_surface(state)
        out3[tid, 5 * k + 3] = wp.sample_unit_hemisphere(state)
        out3[tid, 5 * k + 4] = wp.sample_unit_cube(state)
    if tid % 2 == 0:
        out3[tid, 10] = wp.sample_unit_sphere(state)
    states[tid] = state


@wp.kernel
def cdf_draws(seed: int, cdf: wp.array(dtype=float), short_cdf: wp.array(dtype=float),
              out: wp.array(dtype=int, ndim=2), states: wp.array(dtype=wp.uint32)):
    tid = wp.tid()
    state = wp.rand_init(seed, tid)
    for k in range(4):
        out[tid, k] = wp.sample_cdf(state, cdf)
    if tid % 3 == 0:
        out[tid, 4] = wp.sample_cdf(state, short_cdf)
    states[tid] = state


def run():
    out2 = wp.zeros((N, 9), dtype=wp.vec2)
    s2 = wp.zeros(N, dtype=wp.uint32)
    wp.launch(planar, dim=N, inputs=[3], outputs=[out2, s2])
    out3 = wp.zeros((N, 11), dtype=wp.vec3)
    s3 = wp.zeros(N, dtype=wp.uint32)
    wp.launch(spatial, dim=N, inputs=[4], outputs=[out3, s3])

    weights = np.random.default_rng(5).uniform(0, 1, 37).astype(np.float32)
    weights[[3, 4, 20]] = 0.0  # flat steps: ties in the binary search
    cdf = np.cumsum(weights) / weights.sum()
    cdf[-1] = 1.0
    short = np.array([0.25, 1.0], dtype=np.float32)
    idx = wp.zeros((N, 5), dtype=int)
    s4 = wp.zeros(N, dtype=wp.uint32)
    wp.launch(cdf_draws, dim=N, inputs=[5, wp.array(cdf.astype(np.float32)), wp.array(short)], outputs=[idx, s4])

    state = wp.rand_init(11)
    python_scope = [np.array(f(state), dtype=np.float32) for f in (
        wp.sample_triangle, wp.sample_unit_ring, wp.sample_unit_disk, wp.sample_unit_square, wp.sample_unit_cube,
        wp.sample_unit_sphere_surface, wp.sample_unit_sphere, wp.sample_unit_hemisphere_surface,
        wp.sample_unit_hemisphere)]
    return {"planar": out2.numpy(), "planar_states": s2.numpy(), "spatial": out3.numpy(),
            "spatial_states": s3.numpy(), "cdf": idx.numpy(), "cdf_states": s4.numpy(), "python_scope": python_scope}
