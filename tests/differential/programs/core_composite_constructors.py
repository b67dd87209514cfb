"""In-kernel composite constructors in Warp's forms: wp.types.vector/wp.vector/wp.matrix/
wp.quaternion/wp.transformation with length/shape/dtype from literals, module constants,
wp.constant and wp.static; copy constructors converting the scalar type; fills; zeros."""

LENGTH = 4
CONST_LENGTH = wp.constant(5)


@wp.kernel
def vectors(x: wp.float64, out: wp.array(dtype=float)):
    a = wp.types.vector(length=LENGTH, dtype=float)  # zeros
    b = wp.vector(1.5, length=CONST_LENGTH)  # fill
    c = wp.types.vector(1.0, 2.0, 3.0)  # components, float32 inferred
    d = wp.vector(x, x, dtype=wp.float64)  # runtime values of the given dtype
    e = wp.vec3d(c)  # copy, converting float32 -> float64
    f = wp.types.vector(c, dtype=wp.float16)
    g = wp.vector(2, length=wp.static(LENGTH - 1), dtype=wp.int32)  # constant converted
    h = wp.vec3(1)
    s = wp.spatial_vector(wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0))
    out[0] = float(len(a)) + a[3]
    out[1] = b[4] + float(len(b))
    out[2] = c[2]
    out[3] = float(d[1] + e[2])
    out[4] = float(f[1]) + float(g[2]) + h[0]
    out[5] = s[5] + s[0]


@wp.kernel
def matrices(out: wp.array(dtype=float)):
    z = wp.matrix(shape=(2, 3), dtype=float)
    m = wp.matrix(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, shape=(2, 3))
    fill = wp.types.matrix(2.0, shape=(3, 2))
    copy = wp.mat22d(wp.mat22(1.0, 2.0, 3.0, 4.0))
    same = wp.mat22(wp.mat22(5.0), shape=(2, 2))
    i = wp.mat33(1)
    out[0] = z[1, 2] + m[1, 0] + fill[2, 1]
    out[1] = float(copy[1, 1]) + same[0, 1] + i[2, 2]


@wp.kernel
def rotations(x: float, out: wp.array(dtype=float)):
    q0 = wp.quaternion()  # zeros, as Warp
    q1 = wp.quaternion(x, 2.0, 3.0, 4.0)
    q2 = wp.quat(wp.vec3(1.0, 2.0, 3.0), 0.5)
    q3 = wp.quaternion(q1, dtype=wp.float64)
    q4 = wp.quatd(q2)
    t0 = wp.transformation()  # zeros, as Warp
    t1 = wp.transformation(wp.vec3(1.0, 2.0, 3.0))  # identity rotation
    t2 = wp.transform(p=wp.vec3(4.0, 5.0, 6.0), q=q2)
    t3 = wp.transformation(1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0)
    t4 = wp.transformation(7.0)
    out[0] = q0[3] + q1[0] + q2[3]
    out[1] = float(q3[3] + q4[0])
    out[2] = t0[6] + t1[6] + t1[2] + t2[6] + t2[0]
    out[3] = t3[6] + t4[3]


def run():
    v = wp.zeros(6, dtype=float)
    wp.launch(vectors, dim=1, inputs=[wp.float64(2.25), v])
    m = wp.zeros(2, dtype=float)
    wp.launch(matrices, dim=1, inputs=[m])
    r = wp.zeros(4, dtype=float)
    wp.launch(rotations, dim=1, inputs=[0.75, r])
    return {"vectors": v, "matrices": m, "rotations": r}
