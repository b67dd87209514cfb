"""Whether a traced ``pallas_call`` kernel can be lowered by the Triton backend (checked on any machine).

The Triton backend of Pallas lowers a fixed set of primitives (its lowering-rule table) and only
tensors whose every dimension is a power of two. :func:`check_triton` walks the kernel jaxpr of
each ``pallas_call`` in a traced program (sub-jaxprs of loops and conditionals included) and
raises :class:`~jwarp.compiler.pallas_memory.PallasIneligible` naming the first primitive without
a rule (e.g. ``gather`` from a thread-local array, ``concatenate``) or the first value with a
non-power-of-two shape.

:func:`check_triton_lowering` then runs the lowering itself for the CUDA platform (it needs no GPU),
so a launch that passes both cannot fail later in the Triton lowering.

Example::

    closed = jax.make_jaxpr(launch_as_pallas_call)(*operands)
    check_triton(closed.jaxpr)     # raises PallasIneligible("primitive 'gather' ...")
"""

from __future__ import annotations

import os
from typing import Any, Iterator

from jwarp.compiler.pallas_memory import PallasIneligible


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # jwarp/: its frames name no user line


def _sub_jaxprs(params: dict) -> Iterator[Any]:
    for value in params.values():
        for item in value if isinstance(value, (tuple, list)) else (value,):
            jaxpr = getattr(item, "jaxpr", None)
            if jaxpr is not None and hasattr(jaxpr, "eqns"):
                yield jaxpr
            elif hasattr(item, "eqns"):
                yield item


def _eqns(jaxpr: Any) -> Iterator[Any]:
    for eqn in jaxpr.eqns:
        yield eqn
        for sub in _sub_jaxprs(eqn.params):
            yield from _eqns(sub)


def _power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def _describe(eqn: Any) -> str:
    info = eqn.source_info
    try:
        from jax._src import source_info_util

        frame = source_info_util.user_frame(info.traceback)
        inside_jwarp = frame is not None and os.path.dirname(frame.file_name).startswith(_PACKAGE)
        where = f" at {frame.file_name}:{frame.start_line}" if frame and not inside_jwarp else ""
    except Exception:  # noqa: BLE001 - the location is a courtesy
        where = ""
    return f"{eqn.primitive.name}{where}"


def check_triton(jaxpr: Any) -> None:
    """Raise :class:`PallasIneligible` unless every ``pallas_call`` kernel in ``jaxpr`` lowers to Triton."""
    from jax._src.pallas.triton.lowering import triton_lowering_rules

    from jwarp.compiler.pallas_triton_rules import register_rules

    register_rules()
    for eqn in _eqns(jaxpr):
        if eqn.primitive.name != "pallas_call":
            continue
        kernel = eqn.params["jaxpr"]
        for inner in _eqns(kernel):
            if inner.primitive not in triton_lowering_rules:
                raise PallasIneligible(
                    f"the operation '{_describe(inner)}' has no Triton lowering (e.g. a gather or scatter of "
                    "values such as a thread-local array indexed per thread, concatenate, complex numbers)")
            for var in inner.outvars:
                shape = getattr(getattr(var, "aval", None), "shape", ())
                if shape and not all(_power_of_two(int(d)) for d in shape):
                    raise PallasIneligible(
                        f"a value of shape {tuple(shape)} in '{_describe(inner)}': the Triton backend needs "
                        "power-of-two block shapes")


_HOST_CALLBACKS = ("debug_callback", "io_callback", "pure_callback")


def check_no_host_callbacks(jaxpr: Any) -> None:
    """Raise :class:`PallasIneligible` when a ``pallas_call`` kernel calls back to the host (``print``,
    ``wp.expect_eq``…): neither backend runs those callbacks inside a Pallas kernel."""
    for eqn in _eqns(jaxpr):
        if eqn.primitive.name != "pallas_call":
            continue
        for inner in _eqns(eqn.params["jaxpr"]):
            if inner.primitive.name in _HOST_CALLBACKS:
                raise PallasIneligible("print() / wp.expect_* (host callbacks inside the kernel)")


# The GPU an abstract CUDA target names where none is attached (JAX 0.11's Triton lowering reads the
# compute capability of the device it lowers for).
ABSTRACT_CUDA_KIND = "NVIDIA H100"


def cuda_target() -> Any:
    """The context to lower for the CUDA platform in: on a machine without a GPU, an abstract mesh
    whose device is an ``ABSTRACT_CUDA_KIND`` (JAX versions whose Triton lowering needs a device to
    read the compute capability from); elsewhere, and with JAX versions without abstract devices, no-op.

    Example:
        >>> with cuda_target():  # doctest: +SKIP
        ...     jax.jit(f).trace(x).lower(lowering_platforms=("cuda",))
    """
    import contextlib

    import jax

    sharding = jax.sharding
    if jax.default_backend() in ("gpu", "cuda") or not hasattr(sharding, "AbstractDevice"):
        return contextlib.nullcontext()
    try:
        device = sharding.AbstractDevice(device_kind=ABSTRACT_CUDA_KIND, num_cores=None, platform="cuda")
        mesh = sharding.AbstractMesh((), (), abstract_device=device)
    except TypeError:  # an older signature: the lowering needs no device there
        return contextlib.nullcontext()
    return sharding.use_abstract_mesh(mesh)


def check_triton_lowering(closed: Any, operands: list) -> None:
    """Run the Pallas → Triton lowering of ``closed`` (the traced ``pallas_call`` program) for the CUDA
    platform (no GPU needed); raise :class:`PallasIneligible` with the lowering's message when it fails
    (a construct the rule table accepts but a rule refuses). The kernel is not traced again."""
    import jax
    from jax.extend.core import jaxpr_as_fun

    from jwarp.compiler.pallas_triton_rules import register_rules

    register_rules()
    try:
        with jax.enable_x64(True), cuda_target():
            jax.jit(jaxpr_as_fun(closed)).trace(*operands).lower(lowering_platforms=("cuda",))
    except Exception as exc:  # noqa: BLE001 - any lowering failure makes the kernel ineligible
        lines = [line for line in str(exc).splitlines() if line.strip()]
        raise PallasIneligible(f"the Triton lowering failed: {type(exc).__name__}: "
                               f"{lines[0] if lines else ''}") from None


__all__ = ["check_triton", "check_triton_lowering", "check_no_host_callbacks", "cuda_target"]
