# An array used as a condition is true unless it is null (None passed for it), and a
# short-circuit `and` never touches a null array behind it.


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


def run():
    n = 3
    with_none = wp.zeros(n, dtype=int)
    wp.launch(optional_input, dim=n, inputs=[None, with_none])
    arr = wp.array([0, 5, 0], dtype=int)
    with_array = wp.zeros(n, dtype=int)
    wp.launch(optional_input, dim=n, inputs=[arr, with_array])
    return {"with_none": with_none.numpy(), "with_array": with_array.numpy()}
