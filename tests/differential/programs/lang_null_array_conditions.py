# An array used as a condition is true unless it is null (None passed for it), `not` of a null
# array is true, and a short-circuit `and` never touches a null array behind it. A null array's
# shape is all zeros.


@wp.kernel
def optional_input(arr: wp.array(dtype=int), result: wp.array(dtype=int)):
    tid = wp.tid()
    result[tid] = 1
    if arr and tid >= 0 and arr[tid] == 0:
        result[tid] = 2
    if arr:
        result[tid] += 10
    else:
        result[tid] += 20
    if not arr:
        result[tid] += 100


@wp.kernel
def read_or_default(a: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if a.shape[0] > 0:
        out[i] = a[i, 0]
    else:
        out[i] = -1.0 - float(a.shape[1]) - 10.0 * float(a.ndim) - 100.0 * float(a.size)


def run():
    n = 3
    with_none = wp.zeros(n, dtype=int)
    wp.launch(optional_input, dim=n, inputs=[None, with_none])
    arr = wp.array([0, 5, 0], dtype=int)
    with_array = wp.zeros(n, dtype=int)
    wp.launch(optional_input, dim=n, inputs=[arr, with_array])
    defaults = wp.zeros(n, dtype=float)
    wp.launch(read_or_default, dim=n, inputs=[None], outputs=[defaults])
    read = wp.zeros(n, dtype=float)
    wp.launch(read_or_default, dim=n, inputs=[wp.full((n, 2), 7.0, dtype=float)], outputs=[read])
    return {"with_none": with_none.numpy(), "with_array": with_array.numpy(), "defaults": defaults.numpy(),
            "read": read.numpy()}
