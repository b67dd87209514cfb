# 64-bit values printed from kernels keep all their bits (uint64(-1), int64 and float64 beyond
# 32 bits), and wp.printf refuses more than 32 variadic arguments with Warp's error.
import os
import sys
import tempfile


@wp.kernel
def wide(value: int, big: wp.int64, x: wp.float64):
    print(wp.uint64(value))
    print(wp.int64(value))
    print(big)
    print(x)
    wp.printf("%lld\n", big)


@wp.kernel(module="unique")  # Warp builds a module's kernels together: keep this one apart
def too_many_printf_arguments():
    wp.printf("%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
              "%d\n", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
              26, 27, 28, 29, 30, 31, 32)


def _captured(fn):
    sys.stdout.flush()
    saved, saved_stream = os.dup(1), sys.stdout
    sys.stdout = sys.__stdout__
    sys.stdout.flush()
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 1)
        try:
            fn()
            wp.synchronize()
            sys.stdout.flush()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
            sys.stdout = saved_stream
        tmp.seek(0)
        return tmp.read().decode()


def run():
    wp.load_module(device="cpu")
    text = _captured(lambda: wp.launch(wide, dim=1, inputs=[-1, wp.int64(123456789012345), wp.float64(0.1)]))
    try:
        wp.launch(too_many_printf_arguments, dim=1)
        error = ""
    except RuntimeError as exc:
        error = str(exc).splitlines()[-1].lstrip(";")
    return {"lines": np.array(text.splitlines()), "printf_error": np.array(error)}
