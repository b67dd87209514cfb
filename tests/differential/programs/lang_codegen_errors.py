"""Warp's compile errors: a kernel that returns a value (or annotates a return type other than
None), a list construct assigned in a kernel, and a @wp.func whose returned value does not match
its return annotation (scalar type, tuple count, tuple item types). Kernels that return nothing,
annotated `-> None` or not, compile. Each kernel lives in its own module: Warp builds a module's
kernels together."""


@wp.kernel(module="unique")
def bare_return(x: float):
    return


@wp.kernel(module="unique")
def none_annotated(x: float) -> None:
    return


@wp.kernel(module="unique")
def returns_none(x: float):
    return None


@wp.kernel(module="unique")
def returns_value(x: float):
    return x


@wp.kernel(module="unique")
def annotated_float(x: float) -> float:
    return


@wp.kernel(module="unique")
def list_construct():
    x = [1.0, 2.0, 3.0]


@wp.func
def narrow(x: wp.int32) -> wp.int16:
    return wp.int8(x)


@wp.func
def pair_for_int(x: int) -> int:
    return (x + x, x * x)


@wp.func
def wrong_items(x: int) -> tuple[int, int]:
    return (x, 1.23)


@wp.func
def short_tuple(x: int) -> tuple[int, int, int]:
    return (x + x, x * x)


@wp.kernel(module="unique")
def call_narrow():
    x = narrow(123)


@wp.kernel(module="unique")
def call_pair_for_int():
    x = pair_for_int(123)


@wp.kernel(module="unique")
def call_wrong_items():
    a, b = wrong_items(123)


@wp.kernel(module="unique")
def call_short_tuple():
    a, b, c = short_tuple(123)


def run():
    out = {}
    for kernel in (bare_return, none_annotated, returns_none, returns_value, annotated_float, list_construct,
                   call_narrow, call_pair_for_int, call_wrong_items, call_short_tuple):
        inputs = [1.0] if kernel in (bare_return, none_annotated, returns_none, returns_value, annotated_float) else []
        try:
            wp.launch(kernel, dim=1, inputs=inputs)
            out[kernel.key] = np.array("ok")
        except (RuntimeError, TypeError) as exc:
            kind = "TypeError" if isinstance(exc, TypeError) else "RuntimeError"
            out[kernel.key] = np.array(kind + ": " + str(exc).splitlines()[-1].lstrip(";"))
    return out
