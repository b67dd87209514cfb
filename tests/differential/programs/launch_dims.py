"""Launch dimensions: ints, tuples, lists, numpy ints, ``()``, zero extents, and kernels that
unpack fewer ``wp.tid()`` indices than the launch has dimensions (extra dimensions repeat the
same coordinates, so atomics see every repeated thread)."""


@wp.kernel
def count1(counts: wp.array(dtype=int), order: wp.array(dtype=int), ticket: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_add(counts, i, 1)
    t = wp.atomic_add(ticket, 0, 1)
    wp.atomic_max(order, i, t)


@wp.kernel
def count2(counts: wp.array2d(dtype=int), total: wp.array(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(counts, i, j, 1)
    wp.atomic_add(total, 0, float(i * 7 + j))


@wp.kernel
def fill4(out: wp.array4d(dtype=int)):
    i, j, k, m = wp.tid()
    out[i, j, k, m] = ((i * 10 + j) * 10 + k) * 10 + m + 1


@wp.kernel
def fill3_from4(out: wp.array3d(dtype=int), hits: wp.array(dtype=int)):
    i, j, k = wp.tid()
    out[i, j, k] = i * 100 + j * 10 + k + 1
    wp.atomic_add(hits, 0, 1)


@wp.kernel
def store_first(out: wp.array(dtype=float), v: float):
    i = wp.tid()
    out[i] = v + float(i)


def run():
    res = {}
    counts = wp.zeros(3, dtype=int)
    order = wp.zeros(3, dtype=int)
    ticket = wp.zeros(1, dtype=int)
    wp.launch(count1, dim=(3, 4), inputs=[counts, order, ticket])
    res["extra_dim_counts"] = counts
    res["ticket"] = ticket
    res["ticket_order"] = order  # Warp's CPU runs threads in order; jwarp's atomics return as if it did
    counts = wp.zeros(2, dtype=int)
    wp.launch(count1, dim=(2, 2, 3), inputs=[counts, wp.zeros(2, dtype=int), wp.zeros(1, dtype=int)])
    res["two_extra_dims"] = counts
    c2 = wp.zeros((3, 2), dtype=int)
    total = wp.zeros(1, dtype=float)
    wp.launch(count2, dim=(3, 2, 5), inputs=[c2, total])
    res["count2_extra"] = c2
    res["count2_total"] = total
    c2b = wp.zeros((4, 1), dtype=int)
    wp.launch(count2, dim=[4], inputs=[c2b, wp.zeros(1, dtype=float)])
    res["count2_padded"] = c2b
    out4 = wp.zeros((2, 3, 2, 2), dtype=int)
    wp.launch(fill4, dim=(2, 3, 2, 2), inputs=[out4])
    res["fill4"] = out4
    out3 = wp.zeros((2, 2, 2), dtype=int)
    hits = wp.zeros(1, dtype=int)
    wp.launch(fill3_from4, dim=(2, 2, 2, 3), inputs=[out3, hits])
    res["fill3_from4"] = out3
    res["fill3_hits"] = hits
    out = wp.zeros(6, dtype=float)
    wp.launch(store_first, dim=np.int64(3), inputs=[out, 1.5])
    wp.launch(store_first, dim=(np.int32(2),), inputs=[out, 10.0])
    wp.launch(store_first, dim=np.array([1]), inputs=[out, 20.0])
    wp.launch(store_first, dim=(), inputs=[out, 30.0])
    res["numpy_dims"] = out
    untouched = wp.full(4, 5.0, dtype=float)
    wp.launch(store_first, dim=0, inputs=[untouched, 1.0])
    wp.launch(store_first, dim=(4, 0), inputs=[untouched, 1.0])
    # a zero-sized launch does not validate its arguments
    wp.launch(store_first, dim=(0, 3), inputs=[1, 2, 3])
    res["zero_dims"] = untouched
    return res
