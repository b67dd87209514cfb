"""User subclasses of wp.array / wp.indexedarray (their own __init__ calling super().__init__)
are accepted wherever the parent is: typed and generic launch arguments, outputs, struct
fields, wp.copy/clone, and kernels see their data (Warp GH-1723)."""

from typing import Any


class TaggedArray(wp.array):
    def __init__(self, *args, tag, **kwargs):
        self.tag = tag
        super().__init__(*args, **kwargs)


class TaggedIndexedArray(wp.indexedarray):
    def __init__(self, *args, tag, **kwargs):
        self.tag = tag
        super().__init__(*args, **kwargs)


@wp.kernel
def square_any(values: wp.array[Any], result: wp.array[Any]):
    i = wp.tid()
    result[i] = values[i] * values[i]


@wp.kernel
def read_indexed(a: wp.indexedarray[float], out: wp.array[float]):
    i = wp.tid()
    out[i] = a[i] * 2.0


@wp.struct
class Holder:
    arr: wp.array[float]
    scale: float


@wp.kernel
def read_holder(h: Holder, out: wp.array[float]):
    i = wp.tid()
    out[i] = h.arr[i] * h.scale


def run():
    values = TaggedArray([1.0, 2.0, 3.0, 4.0], tag="in", dtype=float)
    result = TaggedArray(tag="out", shape=4, dtype=float)
    wp.launch(square_any, dim=4, inputs=[values], outputs=[result])
    indices = wp.array(np.array([3, 1, 0, 2], dtype=np.int32))
    ia = TaggedIndexedArray(tag="view", data=values, indices=indices)
    doubled = wp.zeros(4, dtype=float)
    wp.launch(read_indexed, dim=4, inputs=[ia], outputs=[doubled])
    h = Holder()
    h.arr = values
    h.scale = 3.0
    scaled = wp.zeros(4, dtype=float)
    wp.launch(read_holder, dim=4, inputs=[h], outputs=[scaled])
    copied = TaggedArray(tag="copy", shape=4, dtype=float)
    wp.copy(copied, ia)
    return {
        "result": result.numpy(),
        "doubled": doubled.numpy(),
        "scaled": scaled.numpy(),
        "copied": copied.numpy(),
        "clone": wp.clone(values).numpy(),
        "tags": np.array([result.tag == "out", h.arr is values, ia.data is values]),
    }
