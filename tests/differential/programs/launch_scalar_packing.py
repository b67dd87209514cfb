"""Scalar parameters are packed as Warp packs them (C types): an int parameter takes ints, numpy
integers and 0-d integer arrays (wrapped to 32 bits) and refuses floats, float arrays and numpy bools;
a float parameter takes real numbers (bools, integers, 0-d arrays, numpy complex scalars) and refuses
strings, Python complex, complex arrays and 1-d arrays; refusals are RuntimeErrors naming the param.
A refused launch changes no array."""

import warnings


@wp.kernel
def store(out: wp.array(dtype=float), n: int, x: float, flag: bool):
    i = wp.tid()
    out[i] = float(n) + x * 10.0 + wp.where(flag, 100.0, 0.0)


CASES = {
    "n_np_float_0d": (np.array(2.7), 1.0, True),
    "n_np_float_whole": (np.array(3.0), 1.0, True),
    "n_float": (2.7, 1.0, True),
    "n_np_float32": (np.float32(2.0), 1.0, True),
    "n_np_bool": (np.bool_(True), 1.0, True),
    "n_np_int_0d": (np.array(3), 1.0, True),
    "n_np_int_1d": (np.array([3]), 1.0, True),
    "n_bool": (True, 1.0, True),
    "n_uint64": (np.uint64(7), 1.0, True),
    "n_big": (2**33 + 5, 1.0, True),
    "n_negative": (-4, 1.0, True),
    "x_complex": (1, 1 + 2j, True),
    "x_np_complex_0d": (1, np.array(1 + 2j), True),
    "x_str": (1, "2.0", True),
    "x_np_1d": (1, np.array([1.0]), True),
    "x_np_int_0d": (1, np.array(2), True),
    "x_np_float64_0d": (1, np.array(2.5), True),
    "x_np_bool_0d": (1, np.array(True), True),
    "x_int": (1, 3, True),
    "x_np_complex64": (1, np.complex64(1 + 2j), True),
    "flag_zero": (1, 1.0, 0),
    "flag_np_float": (1, 1.0, np.float32(0.5)),
}


def run():
    res = {}
    for name, (n, x, flag) in CASES.items():
        out = wp.full(2, -1.0, dtype=float)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                wp.launch(store, dim=2, inputs=[out, n, x, flag])
            res[name] = out.numpy()
        except RuntimeError as exc:
            text = str(exc)
            param = "n" if name.startswith("n_") else "x"
            res[name] = ["RuntimeError", "unable to pack kernel parameter type" in text, f"for param {param}," in text,
                         out.numpy().tolist()]
    return res
