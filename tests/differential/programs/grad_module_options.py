"""Module options: wp.set_module_options({"enable_backward": False}) turns off the gradients of this
module's kernels (the tape warns and skips them), but not of a kernel with module="unique";
get_module_options reports the setting; load_module / force_load are accepted."""

wp.set_module_options({"enable_backward": False})


@wp.kernel
def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel(module="unique")
def double(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i] + y[i]


def run():
    import warnings

    x = wp.array(np.arange(4, dtype=np.float32), requires_grad=True)
    y = wp.zeros(4, requires_grad=True)
    z = wp.zeros(4, requires_grad=True)
    wp.load_module(device="cpu")
    wp.force_load(device="cpu")
    tape = wp.Tape()
    with tape:
        wp.launch(square, 4, [x, y])
        wp.launch(double, 4, [x, z])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tape.backward(grads={y: wp.ones(4), z: wp.ones(4)})
    options = wp.get_module_options()
    return {"x_grad": x.grad.numpy(), "y": y.numpy(), "z": z.numpy(),
            "enable_backward": np.array(options["enable_backward"]), "max_unroll": np.array(options["max_unroll"])}
