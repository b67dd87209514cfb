# wp.ref[T] pass-by-reference parameters of @wp.func: locals, array elements, struct fields,
# components, forwarding, tuple assignment, calls under a per-lane condition and in loops.


@wp.struct
class Body:
    mass: float
    vel: wp.vec3


@wp.func
def bump(x: wp.ref[float], by: float):
    x += by


@wp.func
def scale_int(x: wp.ref[int], k: int):
    x = x * k


@wp.func
def forward(x: wp.ref[float]):
    bump(x, 100.0)


@wp.func
def swap(a: wp.ref[float], b: wp.ref[float]):
    a, b = b, a


@wp.func
def heavier(b: wp.ref[Body]):
    b.mass += 1.0
    b.vel[1] = -b.vel[1]


@wp.func
def touch_matrix(m: wp.ref[wp.mat22], q: wp.ref[wp.quat]):
    m[0, 1] += 5.0
    q[3] = 2.0


@wp.func
def read_only(x: wp.ref[float]) -> float:
    return x * 2.0


@wp.kernel(enable_backward=False)
def refs(data: wp.array(dtype=float), bodies: wp.array(dtype=Body), ints: wp.array(dtype=int),
         mats: wp.array(dtype=wp.mat22), xforms: wp.array(dtype=wp.transform), out: wp.array2d(dtype=float)):
    i = wp.tid()
    local = float(i)
    bump(local, 0.5)
    forward(local)
    out[i, 0] = local
    bump(data[i], 10.0)                 # array element
    if i % 2 == 0:
        bump(data[i], 1000.0)           # only even lanes
    heavier(bodies[i])                  # struct array element
    b = Body()
    b.mass = 2.0
    b.vel = wp.vec3(1.0, 2.0, 3.0)
    heavier(b)
    bump(b.vel[2], float(i))            # struct field component
    out[i, 1] = b.mass + b.vel[1] + b.vel[2]
    p = float(i)
    q = float(-i)
    swap(p, q)
    out[i, 2] = p * 10.0 + q
    for k in range(3):
        scale_int(ints[i], 2)
    m = mats[i]
    rot = wp.quat_identity()
    touch_matrix(m, rot)
    mats[i] = m
    out[i, 3] = rot[3]
    bump(xforms[i].p[0], 7.0)           # transform translation component in an array
    out[i, 4] = read_only(local)


def run():
    n = 4
    rng = np.random.default_rng(11)
    data = wp.array(np.arange(n, dtype=np.float32))
    bodies = wp.zeros(n, dtype=Body)
    ints = wp.array(np.arange(1, n + 1, dtype=np.int32))
    mats = wp.array(rng.standard_normal((n, 2, 2)).astype(np.float32), dtype=wp.mat22)
    xforms = wp.array(rng.standard_normal((n, 7)).astype(np.float32), dtype=wp.transform)
    out = wp.zeros((n, 5), dtype=float)
    wp.launch(refs, dim=n, inputs=[data, bodies, ints, mats, xforms, out])
    masses = np.array([bodies.numpy()[k][0] for k in range(n)])
    return {"out": out, "data": data, "ints": ints, "mats": mats, "xforms": xforms, "masses": masses}
