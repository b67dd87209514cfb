"""A struct captured from Python scope (through wp.static) keeps each field's declared
type (0.1 in a float64 field stays a float64, an int given to a float field becomes a float), and
an unknown attribute of a captured value raises Warp's AttributeError message."""


@wp.struct
class Inner:
    scale: wp.float64
    weight: float
    offset: wp.vec2


@wp.struct
class Outer:
    inner: Inner
    flag: wp.int32


PARAMS = Outer()
PARAMS.inner.scale = 0.1
PARAMS.inner.weight = 3
PARAMS.inner.offset = wp.vec2(-1.0, 4.0)
PARAMS.flag = 7
CAPTURED_VEC = wp.vec3(1.0, 2.0, 3.0)


@wp.func
def outer_flag(o: Outer):  # Warp needs the struct type passed to a function to register it in the module
    return o.flag


@wp.kernel
def fields(scale: wp.array(dtype=wp.float64), weight: wp.array(dtype=float), flag: wp.array(dtype=int)):
    scale[0] = wp.static(PARAMS).inner.scale
    scale[1] = wp.static(PARAMS).inner.scale * wp.float64(3.0)
    weight[0] = wp.static(PARAMS).inner.weight / 2.0
    flag[0] = outer_flag(wp.static(PARAMS)) + wp.static(PARAMS).flag


@wp.kernel(module="unique")
def unknown_attribute(out: wp.array(dtype=float)):
    out[0] = CAPTURED_VEC.foo


def run():
    scale = wp.zeros(2, dtype=wp.float64)
    weight = wp.zeros(1, dtype=float)
    flag = wp.zeros(1, dtype=int)
    wp.launch(fields, 1, inputs=[scale, weight, flag])
    try:
        wp.launch(unknown_attribute, 1, inputs=[wp.zeros(1, dtype=float)])
        message = "no error"
    except AttributeError as exc:
        message = str(exc).splitlines()[-1].lstrip(";")
    return {"scale": scale.numpy(), "weight": weight.numpy(), "flag": flag.numpy(), "message": np.array(message)}
