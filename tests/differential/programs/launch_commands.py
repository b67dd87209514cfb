"""``Launch`` objects (``record_cmd=True``): relaunching, changing parameters by index, name and
list, changing dimensions, arrays updated between relaunches, direct construction."""


@wp.kernel
def axpy(x: wp.array(dtype=float), s: float, y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = y[i] + s * x[i]


@wp.kernel
def place(v: wp.vec3, n: int, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = v * float(n + i)


@wp.kernel
def grid_fill(out: wp.array2d(dtype=int), base: int):
    i, j = wp.tid()
    out[i, j] = base + i * 10 + j


def run():
    res = {}
    x = wp.array(np.arange(6, dtype=np.float32))
    y = wp.zeros(6, dtype=float)
    cmd = wp.launch(axpy, dim=6, inputs=[x, 2.0, y], record_cmd=True)
    res["not_run_yet"] = y.numpy().copy()
    cmd.launch()
    cmd.launch()
    res["twice"] = y.numpy().copy()
    cmd.set_param_by_name("s", 0.5)
    cmd.launch()
    res["by_name"] = y.numpy().copy()
    x.assign(np.full(6, 4.0, dtype=np.float32))  # the launch sees the array's new contents
    cmd.set_param_at_index(1, 1)
    cmd.launch()
    res["assigned"] = y.numpy().copy()
    y2 = wp.ones(6, dtype=float)
    cmd.set_params([x, 3.0, y2])
    cmd.set_dim(3)
    cmd.launch()
    res["params_and_dim"] = [y.numpy().copy(), y2.numpy().copy()]
    cmd.set_dim((0,))
    cmd.launch()
    res["zero_dim"] = y2.numpy().copy()

    out = wp.zeros(4, dtype=wp.vec3)
    c2 = wp.launch(place, dim=4, inputs=[wp.vec3(1.0, 2.0, 3.0), 0, out], record_cmd=True)
    c2.launch()
    res["vec_first"] = out.numpy().copy()
    c2.set_param_by_name("v", wp.vec3(0.0, -1.0, 0.5))
    c2.set_param_by_name("n", 10)
    c2.launch()
    res["vec_second"] = out.numpy().copy()

    g = wp.zeros((3, 4), dtype=int)
    c3 = wp.Launch(grid_fill, wp.get_device("cpu"))  # zero dims, default parameters
    c3.launch()
    res["direct_empty"] = g.numpy().copy()
    c3.set_param_at_index(0, g)
    c3.set_param_at_index(1, 1000)
    c3.set_dim((3, 4))
    c3.launch()
    res["direct"] = g.numpy().copy()
    return res
