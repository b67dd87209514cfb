"""Transformations and Spatial Math builtins: composition, inverse, points and vectors (by transform
and by 4x4 matrix), get/set (in place and copies), matrix conversions, compose/decompose, spatial
cross products, adjoint, twist/wrench mapping and point velocities."""

RTOL = 2e-5
ATOL = 2e-6


@wp.kernel
def transforms(p: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat), v: wp.array(dtype=wp.vec3),
               xf: wp.array(dtype=wp.transform, ndim=2), vecs: wp.array(dtype=wp.vec3, ndim=2),
               mats: wp.array(dtype=wp.mat44, ndim=2)):
    i = wp.tid()
    j = (i + 1) % 8
    a = wp.transform(p[i], wp.normalize(q[i]))
    b = wp.transform(p[j], wp.normalize(q[j]))
    xf[i, 0] = a * b
    xf[i, 1] = wp.transform_multiply(b, a)
    xf[i, 2] = wp.transform_inverse(a)
    xf[i, 3] = wp.transform_identity()
    # (transform_set_*_copy return an unresolved generic type in Warp 1.19 and cannot be stored there;
    # tests/builtins/test_transform.py covers them)
    xf[i, 4] = wp.transform(v[i], wp.normalize(q[i]))
    xf[i, 5] = wp.transform(p[i], wp.normalize(q[j]))
    c = a
    wp.transform_set_translation(c, v[i])
    if i % 2 == 0:
        wp.transform_set_rotation(c, wp.quat_identity())
    xf[i, 6] = c
    xf[i, 7] = wp.transform_from_matrix(wp.transform_to_matrix(a))
    vecs[i, 0] = wp.transform_point(a, v[i])
    vecs[i, 1] = wp.transform_vector(a, v[i])
    vecs[i, 2] = wp.transform_get_translation(b)
    r = wp.transform_get_rotation(b)
    vecs[i, 3] = wp.vec3(r[0], r[1], r[3])
    m = wp.transform_to_matrix(a)
    mats[i, 0] = m
    vecs[i, 4] = wp.transform_point(m, v[i])
    vecs[i, 5] = wp.transform_vector(m, v[i])
    scale = wp.vec3(1.0 + float(i), 0.5, 2.0)
    mc = wp.transform_compose(p[i], wp.normalize(q[i]), scale)
    mats[i, 1] = mc
    pos, rot, sc = wp.transform_decompose(mc)
    vecs[i, 6] = pos
    vecs[i, 7] = sc
    vecs[i, 8] = wp.vec3(rot[0], rot[2], rot[3])


@wp.kernel
def spatial(a: wp.array(dtype=wp.spatial_vector), b: wp.array(dtype=wp.spatial_vector),
            p: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat), m: wp.array(dtype=wp.mat33),
            sv: wp.array(dtype=wp.spatial_vector, ndim=2), s: wp.array(dtype=float),
            vecs: wp.array(dtype=wp.vec3, ndim=2), sm: wp.array(dtype=wp.spatial_matrix)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    t = wp.transform(p[i], wp.normalize(q[i]))
    s[i] = wp.spatial_dot(x, y)
    sv[i, 0] = wp.spatial_cross(x, y)
    sv[i, 1] = wp.spatial_cross_dual(x, y)
    sv[i, 2] = wp.transform_twist(t, x)
    sv[i, 3] = wp.transform_wrench(t, y)
    vecs[i, 0] = wp.spatial_top(x)
    vecs[i, 1] = wp.spatial_bottom(y)
    vecs[i, 2] = wp.velocity_at_point(x, p[i])
    sm[i] = wp.spatial_adjoint(m[i], wp.skew(p[i]) * m[i])


@wp.kernel
def transforms_f64(t: wp.array(dtype=wp.transformd), v: wp.array(dtype=wp.vec3d),
                   out: wp.array(dtype=wp.vec3d, ndim=2)):
    i = wp.tid()
    a = t[i]
    a = wp.transformd(wp.transform_get_translation(a), wp.normalize(wp.transform_get_rotation(a)))
    out[i, 0] = wp.transform_point(wp.transform_inverse(a) * a, v[i])
    out[i, 1] = wp.transform_vector(wp.transform_to_matrix(a), v[i])
    out[i, 2] = wp.transform_get_translation(wp.transform_from_matrix(wp.transform_to_matrix(a)))


def run():
    rng = np.random.default_rng(5)
    n = 8
    p = wp.array(rng.normal(size=(n, 3)).astype(np.float32), dtype=wp.vec3)
    q = wp.array(rng.normal(size=(n, 4)).astype(np.float32), dtype=wp.quat)
    v = wp.array(rng.normal(size=(n, 3)).astype(np.float32), dtype=wp.vec3)
    xf = wp.zeros((n, 8), dtype=wp.transform)
    vecs = wp.zeros((n, 9), dtype=wp.vec3)
    mats = wp.zeros((n, 2), dtype=wp.mat44)
    wp.launch(transforms, n, [p, q, v, xf, vecs, mats])
    a = wp.array(rng.normal(size=(n, 6)).astype(np.float32), dtype=wp.spatial_vector)
    b = wp.array(rng.normal(size=(n, 6)).astype(np.float32), dtype=wp.spatial_vector)
    m = wp.array(rng.normal(size=(n, 3, 3)).astype(np.float32), dtype=wp.mat33)
    sv = wp.zeros((n, 4), dtype=wp.spatial_vector)
    s = wp.zeros(n, dtype=float)
    svecs = wp.zeros((n, 3), dtype=wp.vec3)
    sm = wp.zeros(n, dtype=wp.spatial_matrix)
    wp.launch(spatial, n, [a, b, p, q, m, sv, s, svecs, sm])
    td = wp.array(rng.normal(size=(n, 7)), dtype=wp.transformd)
    vd = wp.array(rng.normal(size=(n, 3)), dtype=wp.vec3d)
    outd = wp.zeros((n, 3), dtype=wp.vec3d)
    wp.launch(transforms_f64, n, [td, vd, outd])
    return {"xf": xf.numpy(), "vecs": vecs.numpy(), "mats": mats.numpy(), "sv": sv.numpy(), "s": s.numpy(),
            "svecs": svecs.numpy(), "sm": sm.numpy(), "f64": outd.numpy()}
