# Modules and wp.Function targets: a launch loads (hashes) its module and links the modules of
# the functions its kernels reach, passed as arguments, as defaults or through another Python
# module's attribute (references/dependents); unloading clears the hash; changing a function's
# default target (Function.defaults) or a global target changes the module hash.
import sys
import types

PROVIDER = wp.Module("mft_provider")
CONSUMER = wp.Module("mft_consumer")
DEFAULTS = wp.Module("mft_defaults")


@wp.func(module=PROVIDER)
def plus_one(x: float):
    return x + 1.0


@wp.func(module=PROVIDER)
def times_two(x: float):
    return x * 2.0


@wp.func(module=CONSUMER)
def apply(g: wp.Function, x: float):
    return g(x)


@wp.kernel(module=CONSUMER)
def explicit_kernel(out: wp.array(dtype=float)):
    out[0] = apply(plus_one, 2.0)


@wp.func(module=DEFAULTS)
def apply_default(g: wp.Function = plus_one, x: float = 2.0):
    return g(x)


@wp.kernel(module=DEFAULTS)
def default_kernel(out: wp.array(dtype=float)):
    out[0] = apply_default()


# functions reached as attributes of another Python module
other = types.ModuleType("mft_other_module")
other.target = times_two
sys.modules["mft_other_module"] = other
EXTERNAL = wp.Module("mft_external")


@wp.kernel(module=EXTERNAL)
def external_kernel(out: wp.array(dtype=float)):
    out[0] = apply(other.target, 5.0)


def _links(consumer):
    out = wp.zeros(1, dtype=float)
    kernel = {CONSUMER: explicit_kernel, DEFAULTS: default_kernel, EXTERNAL: external_kernel}[consumer]
    wp.launch(kernel, dim=1, outputs=[out])
    linked = [PROVIDER in consumer.references, consumer in PROVIDER.dependents, bool(consumer.hashers)]
    consumer.unload()
    linked.append(bool(consumer.hashers))
    return float(out.numpy()[0]), linked


def run():
    values, links = [], []
    for consumer in (CONSUMER, DEFAULTS, EXTERNAL):
        value, linked = _links(consumer)
        values.append(value)
        links.extend(linked)

    saved = dict(apply_default.defaults)
    try:
        apply_default.defaults["g"] = plus_one
        h1 = DEFAULTS.hash_module()
        apply_default.defaults["g"] = times_two
        h2 = DEFAULTS.hash_module()
        out = wp.zeros(1, dtype=float)
        wp.launch(default_kernel, dim=1, outputs=[out])
        changed_default = float(out.numpy()[0])
    finally:
        apply_default.defaults = saved
    return {
        "values": np.array(values),
        "links": np.array(links),
        "default_hash_differs": np.array([h1 != h2]),
        "changed_default": np.array([changed_default]),
    }
