# print / wp.printf output reaches stdout in thread order (all of thread 0's lines, then thread
# 1's, ...) with Warp's formatting. Output is captured at the file-descriptor level, where both
# Warp's C printf and jwarp's host callbacks write.
import os
import sys
import tempfile


@wp.func
def show(v: wp.vec3, k: int):
    wp.print(v)
    wp.printf("k=%d half=%.2f\n", k, float(k) * 0.5)


@wp.kernel
def talk(data: wp.array(dtype=float)):
    i = wp.tid()
    wp.printf("thread %d value %f\n", i, data[i])
    if i % 2 == 1:
        print(i)
    for j in range(2):
        wp.printf("  loop %d.%d\n", i, j)
    show(wp.vec3(float(i), 1.5, -2.0), i)


@wp.struct
class Pair:
    x: float
    y: float


@wp.kernel
def show_unprintable(a: wp.array(dtype=float), s: Pair):
    print(a)  # arrays and structs print a placeholder, as in Warp
    print(s)


def _captured(fn):
    sys.stdout.flush()
    saved, saved_stream = os.dup(1), sys.stdout
    sys.stdout = sys.__stdout__  # the stream on file descriptor 1 (test runners swap sys.stdout)
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
    data = wp.array(np.array([0.5, -1.25, 3.0], np.float32))
    wp.load_module(device="cpu")  # compile before capturing (Warp may log the module load)
    text = _captured(lambda: wp.launch(talk, dim=3, inputs=[data]))
    pair = Pair()
    other = _captured(lambda: wp.launch(show_unprintable, dim=2, inputs=[data, pair]))
    return {"lines": np.array(text.splitlines()), "unprintable": np.array(other.splitlines())}
