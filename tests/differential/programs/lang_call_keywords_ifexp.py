# Builtins called with Warp's parameter names as keywords (wp.pow(x=..., y=...),
# transform_compose(position=..., ...)), gradients included; and conditional expressions whose
# branches have side effects: only the taken branch runs for each thread.


@wp.kernel
def keywords(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    out[i] = wp.pow(x=x, y=3.0) + wp.pow(2.0, y=x) + wp.pow(y=2.0, x=x)
    m = wp.transform_compose(rotation=wp.quat_identity(), position=wp.vec3(x, 1.0, 2.0), scale=wp.vec3(2.0))
    out[i] += m[0, 3] + m[1, 1]


@wp.kernel
def one_branch(x: wp.array(dtype=float), counts: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_add(counts, 0, 1) if x[i] > 0.0 else wp.atomic_add(counts, 1, 1)


def run():
    a = wp.array(np.array([0.5, 1.25, 2.0], np.float32), dtype=float, requires_grad=True)
    out = wp.zeros(3, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(keywords, dim=3, inputs=[a, out])
    out.grad.fill_(1.0)
    tape.backward()
    x = wp.array(np.array([1.0, -1.0, 2.0, -3.0, 0.5], np.float32), dtype=float)
    counts = wp.zeros(2, dtype=int)
    wp.launch(one_branch, dim=5, inputs=[x, counts])
    return {"out": out.numpy(), "grad": a.grad.numpy(), "counts": counts.numpy()}
