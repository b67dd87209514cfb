"""wp.tid reached through an alias sets the kernel's grid rank as a literal wp.tid() call does: a
global bound to it, a local alias, an attribute of a namespace; a user function merely named
``tid`` does not count."""

import types

# Warp keeps the builtin out of its Python namespace (reached through its builtin table); jwarp has it as wp.tid
TID = wp.tid if "jwarp" in wp.__name__ else wp._src.context.builtin_functions["tid"]
NAMESPACE = types.SimpleNamespace(tid=TID)


@wp.func
def tid():
    return 7


NOT_TID = types.SimpleNamespace(tid=tid)


@wp.kernel
def global_alias(out: wp.array2d(dtype=int)):
    i, j = TID()
    out[i, j] = i * 10 + j


@wp.kernel
def local_alias(out: wp.array2d(dtype=int)):
    t = TID
    i, j = t()
    out[i, j] = i * 10 + j + 100


@wp.kernel
def namespace_alias(out: wp.array3d(dtype=int)):
    i, j, k = NAMESPACE.tid()
    out[i, j, k] = i * 100 + j * 10 + k


@wp.kernel
def named_tid_function(out: wp.array(dtype=int)):
    i = wp.tid()
    x = NOT_TID.tid()
    out[i] = x + i


def run():
    a = wp.zeros((2, 3), dtype=int)
    wp.launch(global_alias, dim=(2, 3), inputs=[a])
    b = wp.zeros((2, 3), dtype=int)
    wp.launch(local_alias, dim=(2, 3), inputs=[b])
    c = wp.zeros((2, 2, 2), dtype=int)
    wp.launch(namespace_alias, dim=(2, 2, 2), inputs=[c])
    d = wp.zeros(4, dtype=int)
    wp.launch(named_tid_function, dim=4, inputs=[d])
    return {"global": a.numpy(), "local": b.numpy(), "namespace": c.numpy(), "named": d.numpy()}
