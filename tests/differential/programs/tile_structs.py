"""Tiles of structs (values only): tile_load/tile_store, tile_map with struct functions and a
struct argument, field-wise tile + and -, tile_sum and tile_atomic_add (fields without an atomic
addition, bool and int8, are carried / left unchanged), tile_sort with struct values,
tile_reshape/tile_transpose, tile_extract, tile_from_thread, tile_zeros, wp.tile and wp.untile of
structs (with and without cooperative CPU blocks); 64-bit
integer fields past 2**53 stay exact."""


@wp.struct
class Item:
    x: wp.float32
    y: wp.vec3
    k: wp.int32
    flag: wp.bool
    small: wp.int8
    big: wp.int64


@wp.func
def bump(s: Item, b: Item) -> Item:
    out = Item()
    out.x = s.x + b.x
    out.y = s.y * 2.0
    out.k = s.k + b.k
    out.flag = s.flag
    out.small = s.small
    out.big = s.big - b.big
    return out


@wp.func
def weight(s: Item) -> float:
    return s.x + s.y[0] + s.y[1] + s.y[2] + float(s.k)


@wp.kernel
def struct_tiles(inp: wp.array(dtype=Item), keys: wp.array(dtype=int), mapped: wp.array(dtype=Item),
                 weights: wp.array(dtype=float), sums: wp.array(dtype=Item), added: wp.array(dtype=Item),
                 diff: wp.array(dtype=Item), atomics: wp.array(dtype=Item), sorted_items: wp.array(dtype=Item),
                 transposed: wp.array2d(dtype=Item), picked: wp.array(dtype=Item), from_thread: wp.array(dtype=Item),
                 zeros: wp.array(dtype=Item)):
    _i, lane = wp.tid()
    t = wp.tile_load(inp, shape=8, storage="shared")
    b = Item()
    b.x = 10.0
    b.k = 5
    b.big = wp.int64(-1)
    m = wp.tile_map(bump, t, b)
    wp.tile_store(mapped, m)
    wp.tile_store(weights, wp.tile_map(weight, m))
    wp.tile_store(sums, wp.tile_sum(t))
    wp.tile_store(added, t + m)
    wp.tile_store(diff, m - t)
    wp.tile_atomic_add(atomics, t)
    kt = wp.tile_load(keys, shape=8)
    s = wp.tile_load(inp, shape=8)
    wp.tile_sort(kt, s)
    wp.tile_store(sorted_items, s)
    wp.tile_store(transposed, wp.tile_transpose(wp.tile_reshape(t, shape=(2, 4))))
    e = wp.tile_extract(t, 5)
    if lane == 0:
        picked[0] = e
    v = inp[lane]
    wp.tile_store(from_thread, wp.tile_from_thread(shape=8, value=v, thread_idx=3))
    wp.tile_store(zeros, wp.tile_zeros(shape=8, dtype=Item))


@wp.kernel
def thread_structs(inp: wp.array(dtype=Item), out: wp.array(dtype=Item), xs: wp.array(dtype=float)):
    _i, lane = wp.tid()
    s = inp[lane]
    t = wp.tile(s)
    wp.tile_store(out, t)
    u = wp.untile(t)
    xs[lane] = u.x + float(u.k)


@wp.kernel
def axis_sums(inp: wp.array2d(dtype=Item), rows: wp.array(dtype=Item), cols: wp.array(dtype=Item)):
    t = wp.tile_load(inp, shape=(2, 4))
    wp.tile_store(rows, wp.tile_sum(t, axis=1))
    wp.tile_store(cols, wp.tile_sum(t, axis=0))


def run():
    items = []
    for j in range(8):
        s = Item()
        s.x = float(j) + 0.5
        s.y = wp.vec3(float(j), 2.0 * j, -1.0)
        s.k = 3 * j
        s.flag = True
        s.small = wp.int8(3)
        s.big = wp.int64(2**60 + 7 * j - 3)
        items.append(s)
    inp = wp.array(items, dtype=Item)
    keys = wp.array(np.array([5, 2, 7, 0, 3, 1, 6, 4], dtype=np.int32))
    outs = {name: wp.zeros(n, dtype=Item) for name, n in
            (("mapped", 8), ("sums", 1), ("added", 8), ("diff", 8), ("atomics", 8), ("sorted", 8),
             ("picked", 1), ("from_thread", 8), ("zeros", 8))}
    weights = wp.zeros(8, dtype=float)
    transposed = wp.zeros((4, 2), dtype=Item)
    wp.launch_tiled(struct_tiles, dim=1, inputs=[inp, keys, outs["mapped"], weights, outs["sums"], outs["added"],
                                                 outs["diff"], outs["atomics"], outs["sorted"], transposed,
                                                 outs["picked"], outs["from_thread"], outs["zeros"]], block_dim=8)
    result = {"weights": weights.numpy()}
    rows, cols = wp.zeros(2, dtype=Item), wp.zeros(4, dtype=Item)
    wp.launch_tiled(axis_sums, dim=1, inputs=[inp.reshape((2, 4)), rows, cols], block_dim=8)
    for name, arr in (("rows", rows), ("cols", cols)):
        for field in ("x", "k", "small", "big"):
            result[f"{name}.{field}"] = np.asarray(arr.numpy()[field])
    for enable in (False, True):
        wp.config.enable_cpu_blocks = enable
        try:
            per_thread = wp.zeros(8, dtype=Item)
            xs = wp.zeros(8, dtype=float)
            wp.launch_tiled(thread_structs, dim=1, inputs=[inp, per_thread, xs], block_dim=8)
        finally:
            wp.config.enable_cpu_blocks = False
        result[f"per_thread.x.{enable}"] = np.asarray(per_thread.numpy()["x"])
        result[f"per_thread.big.{enable}"] = np.asarray(per_thread.numpy()["big"])
        result[f"untiled.{enable}"] = xs.numpy()
    for name, arr in list(outs.items()) + [("transposed", transposed)]:
        data = arr.numpy()
        for field in ("x", "y", "k", "flag", "small", "big"):
            result[f"{name}.{field}"] = np.asarray(data[field])
    return result
