"""Launch objects hold struct arguments by reference: fields changed after ``set_param_*`` (or after
a launch) are seen by the next ``cmd.launch()``; ``None`` for a vector parameter fails to convert
(``ValueError``)."""


@wp.struct
class Params:
    i: int
    f: float


@wp.kernel
def apply(p: Params, scale: float, out: wp.array(dtype=float)):
    t = wp.tid()
    out[t] = float(p.i + t) * p.f * scale


@wp.kernel
def takes_vec(v: wp.vec3, out: wp.array(dtype=float)):
    out[0] = v[0]


def run():
    out = wp.zeros(3, dtype=float)
    p = Params()
    p.i, p.f = 1, 2.0
    cmd = wp.launch(apply, dim=3, inputs=[p, 1.0, out], record_cmd=True)
    cmd.launch()
    first = out.numpy().copy()
    p.i, p.f = 5, 0.5          # no set_param: the recorded launch sees the instance's new fields
    cmd.launch()
    second = out.numpy().copy()
    cmd.set_param_at_index(1, 3.0)
    p.f = 4.0
    cmd.launch()
    third = out.numpy().copy()
    try:
        wp.launch(takes_vec, dim=1, inputs=[None, out])
        error = "none"
    except ValueError as e:
        error = str(e)
    return {"launches": [first, second, third], "none_vec": error}
