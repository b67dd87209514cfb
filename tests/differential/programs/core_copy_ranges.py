"""``wp.copy`` between arrays of equal element size but different dtypes (the bits are kept),
offsets and counts on 1-D strided views, copies between strided views of equal shape, and the
adjoint of a sub-range copy with different source/destination offsets, contiguous then strided
(two tapes with copies of different layouts in one process)."""


def run():
    out = {}
    f = wp.array(np.array([1.0, -2.5, 3.0], dtype=np.float32), dtype=wp.float32)
    i = wp.zeros(3, dtype=wp.int32)
    wp.copy(i, f)
    out["float_bits_as_int"] = i.numpy()
    d = wp.array(np.array([1.0, 2.0], dtype=np.float64), dtype=wp.float64)
    v = wp.zeros(2, dtype=wp.vec2i)
    wp.copy(v, d)
    out["double_bits_as_vec2i"] = v.numpy()
    u = wp.zeros(2, dtype=wp.uint32)
    wp.copy(u, f, src_offset=1, count=2)
    out["offset_bits"] = u.numpy()

    base = wp.array(np.arange(12, dtype=np.float32), dtype=float)
    dst_base = wp.zeros(10, dtype=float)
    wp.copy(dst_base[::2], base[::3], dest_offset=1, src_offset=2, count=2)
    out["strided_range"] = dst_base.numpy()
    grid = wp.array(np.arange(24, dtype=np.float32).reshape(4, 6), dtype=float)
    target = wp.zeros((4, 4), dtype=float)
    wp.copy(target[:, 1:4], grid[:, ::2])
    out["strided_2d"] = target.numpy()

    for strided in (False, True):
        if strided:
            src = wp.array(np.arange(12, dtype=np.float32), dtype=float, requires_grad=True)[::2]
            dst = wp.zeros(12, dtype=float, requires_grad=True)[::2]
        else:
            src = wp.array(np.arange(6, dtype=np.float32), dtype=float, requires_grad=True)
            dst = wp.zeros(6, dtype=float, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.copy(dst, src, src_offset=1, dest_offset=3, count=2)
        seed = wp.array(np.arange(10, 16, dtype=np.float32), dtype=float)
        tape.backward(grads={dst: seed})
        out[f"adjoint_strided_{strided}"] = [dst.numpy(), src.grad.numpy()]
    return out
