"""curlnoise in 2-D, 3-D and 4-D (default, constant and per-thread octave counts) and its gradient
with respect to the coordinates through wp.Tape (Warp's analytic adjoint: the noise Hessians;
lacunarity/gain get none). The points are noise_perlin.py's.

Values are bit-exact with Warp's CPU build. Gradients are Warp's Hessian formula summed in another
order (a few ulps; RTOL 1e-5 with ATOL 1e-5 for entries that nearly cancel).
"""

RTOL = 1e-6
ATOL = 1e-7
TOLERANCE = {"curl_grad": (1e-5, 1e-5)}

N = 256


def points():
    rng = np.random.default_rng(11)
    pts = rng.uniform(-6, 6, (N, 4)).astype(np.float32)
    pts[:8] = np.round(pts[:8])  # lattice points
    pts[8:12] = [[0.5, -0.5, 2.25, -3.75]] * 4
    return rng, pts


@wp.kernel
def curl_values(seed: int, x: wp.array(dtype=wp.vec4), octaves: wp.array(dtype=wp.uint32),
                out2: wp.array(dtype=wp.vec2, ndim=2), out3: wp.array(dtype=wp.vec3, ndim=2)):
    tid = wp.tid()
    state = wp.rand_init(seed)
    p = x[tid]
    xy = wp.vec2(p[0], p[1])
    xyz = wp.vec3(p[0], p[1], p[2])
    out2[tid, 0] = wp.curlnoise(state, xy)
    out2[tid, 1] = wp.curlnoise(state, xy, wp.uint32(3), 2.0, 0.5)
    out2[tid, 2] = wp.curlnoise(state, xy, octaves[tid], 1.7, 0.6)
    out3[tid, 0] = wp.curlnoise(state, xyz)
    out3[tid, 1] = wp.curlnoise(state, xyz, wp.uint32(2), 2.5, 0.4)
    out3[tid, 2] = wp.curlnoise(state, xyz, octaves[tid], 2.0, 0.5)
    out3[tid, 3] = wp.curlnoise(state, p)
    out3[tid, 4] = wp.curlnoise(state, p, wp.uint32(3), 2.0, 0.5)
    out3[tid, 5] = wp.curlnoise(state, p, octaves[tid], 1.5, 0.7)


@wp.kernel
def curl_loss(seed: int, x: wp.array(dtype=wp.vec4), loss: wp.array(dtype=float)):
    tid = wp.tid()
    state = wp.rand_init(seed)
    p = x[tid]
    c2 = wp.curlnoise(state, wp.vec2(p[0], p[1]), wp.uint32(2), 2.0, 0.5)
    c3 = wp.curlnoise(state, wp.vec3(p[0], p[1], p[2]))
    c4 = wp.curlnoise(state, p, wp.uint32(2), 2.0, 0.5)
    v = wp.dot(c2, wp.vec2(1.0, -2.0)) + wp.dot(c3, wp.vec3(0.5, 1.0, -1.5)) + wp.dot(c4, wp.vec3(-1.0, 0.25, 2.0))
    wp.atomic_add(loss, 0, v)


def run():
    rng, pts = points()
    x = wp.array(pts, dtype=wp.vec4)
    octaves = wp.array(rng.integers(0, 4, N).astype(np.uint32))
    c2 = wp.zeros((N, 3), dtype=wp.vec2)
    c3 = wp.zeros((N, 6), dtype=wp.vec3)
    wp.launch(curl_values, dim=N, inputs=[22, x, octaves], outputs=[c2, c3])

    xc = wp.array(pts, dtype=wp.vec4, requires_grad=True)
    closs = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(curl_loss, dim=N, inputs=[24, xc, closs])
    tape.backward(loss=closs)

    state = wp.rand_init(42)
    python_scope = [np.array(wp.curlnoise(state, wp.vec3(1.5, 2.5, 0.3)), dtype=np.float32),
                    np.array(wp.curlnoise(state, wp.vec4(1.5, 2.5, 0.3, 0.1), wp.uint32(3), 2.0, 0.5), dtype=np.float32)]
    return {"curl2": c2.numpy(), "curl3": c3.numpy(), "curl_grad": xc.grad.numpy(), "python_scope": python_scope}
