"""wp.map: a @wp.func, a builtin, a Python function and lambdas mapped over arrays (indexed arrays
and array subclasses included), with scalar and composite non-array inputs, numpy broadcasting,
functions returning several values, explicit outputs, and the kernel cache shared by subclasses."""


@wp.func
def square(x: float):
    return x * x


@wp.func
def split(x: float):
    return x + 1.0, x * 2.0


@wp.func
def Literal(value: float):  # noqa: N802  (a name that could clash with generated code)
    return value + 1.0


@wp.func
def uses_literal_name(Literal: float):  # noqa: N803
    return Literal * 2.0


def scaled_length(v, s):
    return wp.length(v) * s


class Tagged(wp.array):
    pass


def run():
    a = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    column = wp.array(np.array([[10.0], [20.0]], dtype=np.float32))
    row = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    out = {}
    out["square"] = wp.map(square, a).numpy()
    combined = wp.map(lambda x, y, z: x + 2.0 * y - z, a, column, row)
    out["lambda_broadcast"] = combined.numpy()
    clamped = wp.array(np.array([-1.0, 0.0, 1.0, 2.0], dtype=np.float32))
    result = wp.map(wp.clamp, clamped, -0.5, 0.5, out=clamped)
    out["clamp_in_place"] = clamped.numpy()
    out["clamp_returns_out"] = np.array(result is clamped)
    tf = wp.transform((1.0, 2.0, 3.0), wp.quat_rpy(0.2, -0.6, 0.1))
    points = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=wp.vec3)
    moved = wp.map(wp.transform_point, tf, points)
    out["transform_point"] = moved.numpy()
    out["transform_dtype_is_vec3"] = np.array(moved.dtype == wp.vec3)
    out["python_function"] = wp.map(scaled_length, points, 2.0).numpy()
    first, second = wp.map(split, a)
    out["split_first"], out["split_second"] = first.numpy(), second.numpy()
    data = wp.array(np.arange(10, dtype=np.float32))
    indexed = wp.indexedarray1d(data, [wp.array([1, 3, 5, 7, 9], dtype=wp.int32)])
    tenfold = wp.map(lambda x: x * 10.0, indexed)
    out["indexed"] = tenfold.numpy()
    out["literal_names"] = wp.map(uses_literal_name, wp.map(Literal, row)).numpy()
    tagged = Tagged([1.0, 2.0], dtype=float)
    plain = wp.array([3.0, 4.0], dtype=float)
    out["kernel_shared_by_subclass"] = np.array(
        wp.map(square, tagged, return_kernel=True) is wp.map(square, plain, out=plain, return_kernel=True))
    out["kernel_distinct_for_indexed"] = np.array(
        wp.map(square, indexed, return_kernel=True) is not wp.map(square, data, return_kernel=True))
    grads = wp.map(square, wp.array([1.0, 2.0], dtype=float, requires_grad=True))
    out["requires_grad"] = np.array(grads.requires_grad)
    source = wp.array([1.5], dtype=float, requires_grad=True)
    truncated = wp.map(lambda x: wp.int32(x), source)
    out["int_output_no_grad"] = np.array(truncated.requires_grad)
    empty = wp.map(square, wp.zeros(0, dtype=float))
    out["empty_shape"] = np.array(empty.shape)
    try:
        wp.map(square, a, out=wp.zeros(3, dtype=float))
    except TypeError as exc:
        out["bad_out_shape"] = np.array("does not match expected shape" in str(exc))
    try:
        wp.map(square, a, out=wp.zeros((2, 3), dtype=wp.float64))
    except TypeError as exc:
        out["bad_out_dtype"] = np.array("does not match expected dtype" in str(exc))
    return out
