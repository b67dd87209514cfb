"""wp.static() expressions that only name Python-scope values are evaluated once, when the kernel
is declared: a side-effecting expression runs once (nested statics included), a global changed
after the declaration does not change the kernel, ``wp.static(f)(x)`` calls the function it
selected, an alias of wp.static rebound later keeps its value; expressions naming kernel locals
are evaluated when the kernel compiles; one that fails raises when the kernel is declared."""

EVALS = []
SCALE = 2.0


def counted():
    EVALS.append(1)
    return 3.0


@wp.func
def plus(a: float, b: float):
    return a + b


@wp.func
def minus(a: float, b: float):
    return a - b


STATIC_ALIAS = wp.static


@wp.kernel
def declared(out: wp.array(dtype=float)):
    out[0] = wp.static(1.0 + wp.static(counted()))
    out[1] = wp.static(SCALE) * 2.0
    out[2] = STATIC_ALIAS(7.0)
    s = float(0.0)
    for i in range(3):
        s += wp.static(float(i) * 10.0)
    out[3] = s


EVALS_AFTER_DECLARATION = len(EVALS)
SCALE = 100.0  # after the declaration: the kernel keeps 2.0
STATIC_ALIAS = abs


def make_picker(f):
    @wp.kernel(module="unique")
    def pick(out: wp.array(dtype=float)):
        out[0] = wp.static(f)(5.0, 2.0)

    return pick


def run():
    out = wp.zeros(4, dtype=float)
    wp.launch(declared, 1, inputs=[out])
    picked = []
    for f in (plus, minus):
        o = wp.zeros(1, dtype=float)
        wp.launch(make_picker(f), 1, inputs=[o])
        picked.append(o.numpy()[0])
    raised_at = "declaration"
    try:
        @wp.kernel(module="unique")
        def failing(out: wp.array(dtype=float)):
            out[0] = wp.static({}["missing"])

        raised_at = "launch"
        wp.launch(failing, 1, inputs=[wp.zeros(1, dtype=float)])
        raised_at = "never"
    except RuntimeError as exc:
        raised_at = raised_at if "Error evaluating static expression" in str(exc) else "other"
    return {"out": out.numpy(), "evals_at_declaration": np.array(EVALS_AFTER_DECLARATION),
            "evals": np.array(len(EVALS)), "picked": np.array(picked), "raised_at": np.array(raised_at)}
