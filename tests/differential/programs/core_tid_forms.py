@wp.kernel
def one_index(out: wp.array(dtype=int), counts: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = i
    wp.atomic_add(counts, i, 1)


@wp.kernel
def two_index(out: wp.array2d(dtype=int)):
    i, j = wp.tid()
    out[i, j] = i * 10 + j + 1


@wp.kernel
def three_index(out: wp.array3d(dtype=int)):
    i, j, k = wp.tid()
    out[i, j, k] = i * 100 + j * 10 + k + 1


def run():
    out = wp.zeros(4, dtype=int)
    counts = wp.zeros(4, dtype=int)
    wp.launch(one_index, dim=(4, 3), inputs=[out, counts])
    out2 = wp.zeros((5, 1), dtype=int)
    wp.launch(two_index, dim=5, inputs=[out2])
    out3 = wp.zeros((2, 3, 1), dtype=int)
    wp.launch(three_index, dim=(2, 3), inputs=[out3])
    scalar = wp.zeros(1, dtype=int)
    wp.launch(one_index, dim=(), inputs=[scalar, wp.zeros(1, dtype=int)])
    return {"out": out, "counts": counts, "out2": out2, "out3": out3, "scalar": scalar}
