"""``wp.config.verify_autograd_array_access``: launches and copies recorded on a Tape mark the
arrays they read (``array._is_read``, also on the arrays a view came from), and writing an array
already read warns ("has already been read from"); reads through views, ``@wp.func`` calls and
in-kernel views count, ``+=``/atomics count as writes only; ``zero_``/``fill_``, ``Tape.backward``
and ``Tape.reset`` clear the marks; ``kernel.adj.args[i].is_read/is_write`` after a launch."""

import contextlib
import io
import warnings


@contextlib.contextmanager
def captured(out: list):
    """Warning text, whether it went to stderr (Warp) or to a warnings recorder (jwarp under pytest)."""
    with warnings.catch_warnings(record=True) as rec, contextlib.redirect_stderr(io.StringIO()) as err:
        warnings.simplefilter("always")
        yield
    out.append(err.getvalue() + "".join(str(w.message) for w in rec))


@wp.kernel
def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel
def overwrite(z: wp.array(dtype=float), x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = z[i]


@wp.func
def load_from(a: wp.array(dtype=float), i: int):
    return a[i]


@wp.kernel
def through_func(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    c[i] = load_from(a, i)
    b[i] += 1.0
    wp.atomic_add(c, 0, 1.0)


@wp.kernel
def through_view(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i, j = wp.tid()
    row = x[i]
    out = y[i]
    out[j] = row[j]


def _flags(*arrays):
    return [bool(a._is_read) for a in arrays]


def run():
    out = {}
    saved = wp.config.verify_autograd_array_access
    wp.config.verify_autograd_array_access = True
    try:
        a = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
        b = wp.zeros_like(a)
        c = wp.array(np.array([-1.0, -2.0, -3.0], dtype=np.float32), requires_grad=True)
        tape = wp.Tape()
        text = []
        with captured(text):
            with tape:
                wp.launch(square, 3, inputs=[a], outputs=[b])
                flags_after_square = _flags(a, b, c)
                wp.launch(overwrite, 3, inputs=[c], outputs=[a])
        out["launch_warns"] = ["has already been read from" in text[0], flags_after_square, _flags(a, b, c)]
        tape.backward(grads={b: wp.ones_like(b)})
        out["after_backward"] = _flags(a, b, c)

        # copies: the destination read before is written by "an array copy"
        a = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
        b = wp.zeros_like(a)
        tape = wp.Tape()
        text = []
        with captured(text):
            with tape:
                wp.launch(square, 3, inputs=[a], outputs=[b])
                wp.copy(a, b)
        out["copy_warns"] = ["being written to by an array copy" in text[0], _flags(a, b)]
        tape.reset()
        out["after_reset"] = _flags(a, b)

        # funcs, += and atomics; views in kernels; parent arrays of views
        a, b, c = (wp.zeros(4, dtype=float, requires_grad=True) for _ in range(3))
        x = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), requires_grad=True)
        y = wp.zeros_like(x)
        tape = wp.Tape()
        with tape:
            wp.launch(through_func, 4, inputs=[a, b, c])
            wp.launch(through_view, (2, 3), inputs=[x, y])
        out["func_view_flags"] = _flags(a, b, c, x, y)
        out["adj_args"] = [[v.label, bool(v.is_read), bool(v.is_write)] for v in through_func.adj.args]
        p = wp.zeros(6, dtype=float, requires_grad=True)
        v = p.reshape((2, 3))
        v.mark_read()
        before_zero = _flags(p, v)
        p.zero_()
        out["view_parent"] = [before_zero, _flags(p), _flags(p.reshape((3, 2)))]
        tape.reset()
    finally:
        wp.config.verify_autograd_array_access = saved
    return out
