"""``fill_`` / ``wp.full`` values go through Warp's constructor rules: a scalar broadcasts, a vector
takes its components (or a one-item sequence), a matrix its components flat or its rows; wrong
lengths, wrong row lengths and non-numbers raise Warp's ValueError message; the array is unchanged."""


def attempt(arr, value):
    try:
        arr.fill_(value)
        return arr.numpy().copy()  # Warp's CPU numpy() is a view of the array
    except ValueError as exc:
        return ["ValueError", str(exc), arr.numpy().tolist()]


def run():
    res = {}
    v = wp.full(2, 9.0, dtype=wp.vec3)
    m = wp.full(2, 9.0, dtype=wp.mat22)
    a = wp.full(2, 9.0, dtype=float)
    vec_cases = {"v_len1": [5.0], "v_scalar": 5.0, "v_nested": [[1, 2, 3]], "v_vec2": wp.vec2(1.0, 2.0),
                 "v_tuple2": (1.0, 2.0), "v_list4": [1.0, 2.0, 3.0, 4.0], "v_np2": np.array([1.0, 2.0]),
                 "v_mat22": wp.mat22(1.0, 2.0, 3.0, 4.0), "v_ok": (1.0, 2.0, 3.0)}
    for name, value in vec_cases.items():
        res[name] = attempt(v, value)
    mat_cases = {"m_rows": [[1, 2], [3, 4]], "m_flat": [1, 2, 3, 4], "m_scalar": 7, "m_rows_2x3": [[1, 2, 3], [3, 4, 5]],
                 "m_rows_3x2": [[1, 2], [3, 4], [5, 6]], "m_vec4": wp.vec4(1.0, 2.0, 3.0, 4.0), "m_three": [1.0, 2.0, 3.0],
                 "m_vec3": wp.vec3()}
    for name, value in mat_cases.items():
        res[name] = attempt(m, value)
    for name, value in {"s_list": [1.0, 2.0], "s_vec2": wp.vec2(), "s_none": None, "s_np_0d": np.array(4.0)}.items():
        res[name] = attempt(a, value)
    try:
        wp.full(2, [1.0, 2.0], dtype=wp.vec3)
        res["full_vec3_len2"] = "no error"
    except ValueError as exc:
        res["full_vec3_len2"] = str(exc)
    try:
        wp.full(2, "x", dtype=float)
        res["full_str"] = "no error"
    except ValueError as exc:
        res["full_str"] = str(exc)
    return res
