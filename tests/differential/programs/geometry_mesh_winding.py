"""Inside/outside from winding numbers (``mesh_query_point_sign_winding_number``) on meshes large
enough that far clusters of faces are replaced by their expansion: a closed sphere, an open cap
(fractional winding numbers) and the same cap far from the origin, with several thresholds and
accuracies, in the struct and in-out forms.

Where the exact winding number (computed here with numpy) lies near the threshold the sign depends
on the approximation error, which depends on the tree (Warp's and jwarp's differ), so those points
are left out of the comparison (set to 0): within 0.01 for accuracy >= 2, within 0.2 for the coarse
accuracy 1 (both errors reach 0.1 there; jwarp's against the exact sum: tests/runtime/
test_winding_numbers.py)."""

from tests.differential.meshes import exact_winding, uv_sphere

NEAR = {1.0: 0.2, 2.0: 0.01, 4.0: 0.01}


@wp.kernel
def winding_signs(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), accuracy: float, threshold: float,
                  out: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_point_sign_winding_number(mesh, pts[i], 1.0e6, accuracy, threshold)
    out[i] = q.sign


@wp.kernel
def winding_signs_inout(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    sign = float(0.0)
    face = int(0)
    u = float(0.0)
    v = float(0.0)
    if wp.mesh_query_point_sign_winding_number(mesh, pts[i], 1.0e6, sign, face, u, v):
        out[i] = sign


def run():
    rng = np.random.default_rng(11)
    out = {}
    n = 400
    cases = {"closed": uv_sphere(), "cap": uv_sphere(keep_rows=15), "far_cap": uv_sphere(keep_rows=15, centre=(500.0, -300.0, 200.0))}
    for name, (points, tris) in cases.items():
        centre = np.array([500.0, -300.0, 200.0]) if name == "far_cap" else np.zeros(3)
        q = (centre + (rng.random((n, 3)) * 3.0 - 1.5)).astype(np.float32)
        q[:40] = (centre + 0.97 * (q[:40] - centre) / np.linalg.norm(q[:40] - centre, axis=1, keepdims=True))
        q[40:80] = (centre + 1.03 * (q[40:80] - centre) / np.linalg.norm(q[40:80] - centre, axis=1, keepdims=True))
        exact = exact_winding(points, tris, q)
        mesh = wp.Mesh(points=wp.array(points, dtype=wp.vec3), indices=wp.array(tris, dtype=wp.int32),
                       support_winding_number=True)
        pts = wp.array(q, dtype=wp.vec3)
        for accuracy, threshold in ((2.0, 0.5), (2.0, 0.2), (1.0, 0.8), (4.0, 0.35)):
            signs = wp.zeros(n, dtype=float)
            wp.launch(winding_signs, n, inputs=[mesh.id, pts, accuracy, threshold, signs])
            keep = np.abs(exact - threshold) > NEAR[accuracy]
            out[f"{name}_{accuracy}_{threshold}"] = np.where(keep, signs.numpy(), 0.0)
        signs = wp.zeros(n, dtype=float)
        wp.launch(winding_signs_inout, n, inputs=[mesh.id, pts, signs])
        out[f"{name}_inout"] = np.where(np.abs(exact - 0.5) > NEAR[2.0], signs.numpy(), 0.0)
    return out
