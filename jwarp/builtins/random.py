"""Random group: ``rand_init randi randu randf randn poisson sample_cdf`` and the
``sample_*`` geometric samplers (Perlin noise lives in :mod:`jwarp.builtins.noise`).

Semantics follow Warp 1.19 (``warp/native/rand.h``), bit for bit where the arithmetic allows:

- The generator is the PCG hash of Jarzynski & Olano: ``state`` is a ``uint32`` and every draw
  replaces it by ``rand_pcg(state)`` with wrapping 32-bit integer arithmetic. Builtins that draw
  write the new state back into the variable passed (Warp's ``uint32& state``) when it is a
  plain local name or kernel parameter; an array element or struct field passed as ``state``
  is copied and not updated, as in Warp. In Python scope nothing is written back.
- ``randf`` is ``(state >> 8) * 2^-24`` (exact); ``randf(state, low, high)`` is
  ``(high - low) * randf + low`` rounded after the product: Warp's CPU build does not fuse
  multiply-adds while XLA does, so products that feed an addition go through :func:`fmul`.
- Transcendental functions are those of the C library Warp calls on CPU (``logf cosf acosf``…):
  ``log``/``exp``/``acos`` are evaluated in float64 and rounded, ``sin``/``cos``/``pow`` in
  float32; both agree with glibc's float functions in all but a few cases per thousand
  (``acosf`` is not correctly rounded in glibc 2.36: about 8 % of sphere samples differ by 1 ulp).
- ``randi``/``randu`` with a range compute ``state % (high - low) + low`` in uint32 (Warp's C
  conversions); an empty range (``high == low``) crashes Warp and gives ``low`` here.
- None of these functions is differentiable in Warp: gradients through ``randf(state, low,
  high)`` (and ``poisson``'s ``lam``) are zero.
- ``poisson`` runs Warp's two rejection loops (multiplication method below ``lam = 10``,
  Hörmann's transformed rejection above) as one masked ``while_loop`` over the lanes.
"""

from __future__ import annotations

import ast
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.builtins import common as c
from jwarp.builtins.common import Call, Value
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import leaves_of, value_from_leaves
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import ArrayType
from jwarp.compiler.selects import clip, where

F32 = jnp.float32
U32 = jnp.uint32
I32 = jnp.int32

INV_2_24 = np.float32(1.0 / 16777216.0)
PI_F = np.float32(np.pi)
TWO_PI_F = np.float32(2.0) * PI_F  # 2.f * M_PI_F, folded in float
RANDN_EPSILON = np.float32(5.96e-8)

VEC2 = composites.vector(2, scalars.float32)
VEC3 = composites.vector(3, scalars.float32)
VEC4 = composites.vector(4, scalars.float32)

# -- float32 arithmetic with C semantics ----------------------------------------------------------


def fmul(a: Any, b: Any) -> Any:
    """float32 ``a * b`` rounded before any addition it feeds.

    XLA contracts ``a * b + c`` into a fused multiply-add (through ``optimization_barrier``s,
    no-op ``reduce_precision``s and selects that LLVM can see through); Warp's CPU kernels round
    the product first. Here the product is formed exactly in float64 and rounded to float32
    with a ``reduce_precision`` that XLA cannot drop, so no float32 multiply is left to fuse.
    (Results below float32's normal range flush to zero, as XLA's CPU float32 arithmetic does.)
    """
    if isinstance(a, np.generic) and isinstance(b, np.generic):
        return np.float32(a) * np.float32(b)
    with jax.enable_x64(True):  # also when a launch is traced without 64-bit types (tape backward)
        exact = jnp.asarray(a, F32).astype(jnp.float64) * jnp.asarray(b, F32).astype(jnp.float64)
        return lax.reduce_precision(exact, exponent_bits=8, mantissa_bits=23).astype(F32)


def _via_f64(fn: Any, x: Any) -> Any:
    """``fn`` evaluated in float64 and rounded: near-correctly rounded like glibc's float functions."""
    with jax.enable_x64(True):
        return fn(jnp.asarray(x, F32).astype(jnp.float64)).astype(F32)


def logf(x: Any) -> Any:
    return _via_f64(jnp.log, x)


def expf(x: Any) -> Any:
    return _via_f64(jnp.exp, x)


def acosf(x: Any) -> Any:
    """Warp's ``acos``: the argument is clamped to [-1, 1]."""
    return _via_f64(jnp.arccos, clip(jnp.asarray(x, F32), -1.0, 1.0))


def cosf(x: Any) -> Any:
    return jnp.cos(jnp.asarray(x, F32))


def sinf(x: Any) -> Any:
    return jnp.sin(jnp.asarray(x, F32))


# -- the PCG generator ----------------------------------------------------------------------------


def to_u32(x: Any) -> Any:
    """C conversion to uint32 (two's complement wrap for signed integers)."""
    x = jnp.asarray(x)
    return x if x.dtype == U32 else x.astype(U32)


def pcg(state: Any) -> Any:
    """Warp's ``rand_pcg``: one PCG hash step on uint32 lanes."""
    if isinstance(state, np.generic):
        with np.errstate(over="ignore"):
            return _pcg(state)
    return _pcg(state)


def _pcg(state: Any) -> Any:
    b = state * np.uint32(747796405) + np.uint32(2891336453)
    m = ((b >> ((b >> np.uint32(28)) + np.uint32(4))) ^ b) * np.uint32(277803737)
    return (m >> np.uint32(22)) ^ m


def unit_float(state: Any) -> Any:
    """The float in [0, 1) that ``randf`` returns for an already advanced ``state``."""
    return (state >> np.uint32(8)).astype(F32) * INV_2_24


def draw(state: Any) -> tuple[Any, Any]:
    """``randf(state)``: (advanced state, uniform float)."""
    s = pcg(state)
    return s, unit_float(s)


def draws(state: Any, n: int) -> tuple[Any, list]:
    """``n`` successive ``randf`` draws."""
    out = []
    for _ in range(n):
        state, u = draw(state)
        out.append(u)
    return state, out


def rand_init_leaf(seed: Any, offset: Any = None) -> Any:
    if offset is None:
        return pcg(to_u32(seed))
    return pcg(to_u32(seed) + pcg(to_u32(offset)))


def randf_range(state: Any, low: Any, high: Any) -> tuple[Any, Any]:
    s, u = draw(state)
    return s, fmul(jnp.subtract(high, low), u) + low


# -- argument handling ----------------------------------------------------------------------------


def bind(call: Call, args: tuple, kwargs: dict, names: tuple[str, ...], required: int) -> list:
    """Positional + keyword arguments in Warp's parameter order (None where omitted)."""
    if len(args) > len(names):
        raise call.no_overload(*args, *kwargs.values())
    out = list(args) + [None] * (len(names) - len(args))
    for key, value in kwargs.items():
        if key not in names or out[names.index(key)] is not None:
            raise call.no_overload(*args, *kwargs.values())
        out[names.index(key)] = value
    if any(v is None for v in out[:required]):
        raise call.no_overload(*[v for v in out if v is not None])
    return out


def is_type(v: Value | None, t: type) -> bool:
    return v is not None and v.type is t


def state_leaf(call: Call, state: Value, *others: Value) -> Any:
    """The uint32 leaf of a ``state`` argument.

    Python scope also takes a plain int (jwarp returns Python ints for ``uint32`` results, so
    ``wp.randf(wp.rand_init(1))`` must work there)."""
    ok = state.type is scalars.uint32 or (not call.in_kernel and c.is_int_scalar(state))
    c.require(ok, call, state, *others)
    return to_u32(state.data)


def write_state(call: Call, new_state: Any, index: int = 0) -> None:
    """Warp's ``uint32& state``: update the caller's variable if it is a plain name."""
    lw = call.lowerer
    node = call.arg_node(index, "state")
    if lw is None or node is None:
        return
    if isinstance(node, ast.Name) and node.id in lw.env:
        call.assign_back(index, Value(scalars.uint32, new_state), "state")


def _float(x: Any) -> Value:
    return Value(scalars.float32, x)


def _vector(t: type, parts: list) -> Value:
    return value_from_leaves(t, [jnp.asarray(p, F32) for p in parts])


# -- builtins -------------------------------------------------------------------------------------


@builtin("rand_init", group="Random")
def rand_init(call: Call, *args: Value, **kwargs: Value) -> Value:
    """Initial RNG state from ``seed`` (and a per-thread ``offset``): ``rand_pcg(seed)`` or
    ``rand_pcg(seed + rand_pcg(offset))``."""
    seed, offset = bind(call, args, kwargs, ("seed", "offset"), 1)
    c.require(is_type(seed, scalars.int32) and (offset is None or is_type(offset, scalars.int32)), call,
              *[a for a in (seed, offset) if a is not None])
    return Value(scalars.uint32, rand_init_leaf(seed.data, None if offset is None else offset.data))


def _integer_draw(call: Call, args: tuple, kwargs: dict, bound: type, out: type) -> Value:
    state, low, high = bind(call, args, kwargs, ("state", "low", "high"), 1)
    given = [a for a in (state, low, high) if a is not None]
    if (low is None) != (high is None) or (low is not None and not (low.type is bound and high.type is bound)):
        raise call.no_overload(*given)
    s = pcg(state_leaf(call, state, *given[1:]))
    write_state(call, s)
    if low is None:
        result = s
    else:
        span = to_u32(high.data) - to_u32(low.data)
        safe = where(span == 0, np.uint32(1), span)
        result = where(span == 0, np.uint32(0), s % safe) + to_u32(low.data)
    return Value(out, result if out is scalars.uint32 else lax.bitcast_convert_type(result, I32))


@builtin("randi", group="Random")
def randi(call: Call, *args: Value, **kwargs: Value) -> Value:
    """Random int32: all 32 bits of the next state, or ``state % (high - low) + low``."""
    return _integer_draw(call, args, kwargs, scalars.int32, scalars.int32)


@builtin("randu", group="Random")
def randu(call: Call, *args: Value, **kwargs: Value) -> Value:
    """Random uint32: the next state, or ``state % (high - low) + low``."""
    return _integer_draw(call, args, kwargs, scalars.uint32, scalars.uint32)


@builtin("randf", group="Random")
def randf(call: Call, *args: Value, **kwargs: Value) -> Value:
    """Random float in [0, 1) (multiples of 2^-24), or ``(high - low) * randf + low``."""
    state, low, high = bind(call, args, kwargs, ("state", "low", "high"), 1)
    given = [a for a in (state, low, high) if a is not None]
    if (low is None) != (high is None) or (low is not None and not (low.type is scalars.float32
                                                                  and high.type is scalars.float32)):
        raise call.no_overload(*given)
    s = state_leaf(call, state, *given[1:])
    if low is None:
        s, u = draw(s)
    else:
        s, u = randf_range(s, lax.stop_gradient(jnp.asarray(low.data, F32)),
                           lax.stop_gradient(jnp.asarray(high.data, F32)))
    write_state(call, s)
    return _float(u)


@builtin("randn", group="Random")
def randn(call: Call, *args: Value, **kwargs: Value) -> Value:
    """Standard normal sample by Box-Muller from two draws."""
    (state,) = bind(call, args, kwargs, ("state",), 1)
    s, (u1, u2) = draws(state_leaf(call, state), 2)
    write_state(call, s)
    return _float(jnp.sqrt(np.float32(-2.0) * logf(u1 + RANDN_EPSILON)) * cosf(TWO_PI_F * u2))


@builtin("sample_cdf", group="Random", kernel_only=True)
def sample_cdf(call: Call, *args: Value, **kwargs: Value) -> Value:
    """Index of the first CDF entry >= a uniform draw (binary search; Warp's ``lower_bound``)."""
    from jwarp.builtins.kernel_arrays import lower_bound

    call.require_kernel()
    state, cdf = bind(call, args, kwargs, ("state", "cdf"), 2)
    ok = isinstance(cdf.type, ArrayType) and cdf.type.ndim == 1 and cdf.type.dtype is scalars.float32
    c.require(ok and state.type is scalars.uint32, call, state, cdf)
    s, u = draw(state_leaf(call, state, cdf))
    write_state(call, s)
    return lower_bound.impl(call, cdf, _float(u))


def _sampler(name: str, out: type, n_draws: int, doc: str):
    """Register a ``sample_*`` builtin computing its components from ``n_draws`` uniforms."""

    def register(fn):
        def impl(call: Call, *args: Value, **kwargs: Value) -> Value:
            (state,) = bind(call, args, kwargs, ("state",), 1)
            s, us = draws(state_leaf(call, state), n_draws)
            write_state(call, s)
            return _vector(out, fn(*us))

        impl.__doc__ = doc
        globals()[name] = builtin(name, group="Random")(impl)
        return fn

    return register


@_sampler("sample_triangle", VEC2, 2, "Uniform point in a triangle as barycentric ``(u, v)``.")
def _triangle(u1, u2):
    r = jnp.sqrt(u1)
    return [np.float32(1.0) - r, u2 * r]


@_sampler("sample_unit_ring", VEC2, 1, "Uniform point on the unit circle.")
def _ring(u1):
    theta = fmul(TWO_PI_F, u1) + np.float32(0.0)  # randf(state, 0, 2 pi)
    return [cosf(theta), sinf(theta)]


@_sampler("sample_unit_disk", VEC2, 2, "Uniform point in the unit disk.")
def _disk(u1, u2):
    r = jnp.sqrt(u1)
    theta = fmul(TWO_PI_F, u2) + np.float32(0.0)
    return [r * cosf(theta), r * sinf(theta)]


def _sphere_point(phi, theta, r=None):
    sp, ct, st, cp = sinf(phi), cosf(theta), sinf(theta), cosf(phi)
    if r is None:
        return [ct * sp, st * sp, cp]
    return [(r * ct) * sp, (r * st) * sp, r * cp]


_ONE_THIRD = np.float32(1.0) / np.float32(3.0)


@_sampler("sample_unit_sphere_surface", VEC3, 2, "Uniform point on the unit sphere.")
def _sphere_surface(u1, u2):
    phi = acosf(np.float32(1.0) - np.float32(2.0) * u1)
    return _sphere_point(phi, fmul(TWO_PI_F, u2) + np.float32(0.0))


@_sampler("sample_unit_sphere", VEC3, 3, "Uniform point in the unit ball.")
def _sphere(u1, u2, u3):
    phi = acosf(np.float32(1.0) - np.float32(2.0) * u1)
    theta = fmul(TWO_PI_F, u2) + np.float32(0.0)
    return _sphere_point(phi, theta, jnp.power(u3, _ONE_THIRD))


@_sampler("sample_unit_hemisphere_surface", VEC3, 2, "Uniform point on the unit hemisphere (z >= 0).")
def _hemisphere_surface(u1, u2):
    phi = acosf(np.float32(1.0) - u1)
    return _sphere_point(phi, fmul(TWO_PI_F, u2) + np.float32(0.0))


@_sampler("sample_unit_hemisphere", VEC3, 3, "Uniform point in the unit half ball (z >= 0).")
def _hemisphere(u1, u2, u3):
    phi = acosf(np.float32(1.0) - u1)
    theta = fmul(TWO_PI_F, u2) + np.float32(0.0)
    return _sphere_point(phi, theta, jnp.power(u3, _ONE_THIRD))


@_sampler("sample_unit_square", VEC2, 2, "Uniform point in ``[-0.5, 0.5)^2``.")
def _square(u1, u2):
    return [u1 - np.float32(0.5), u2 - np.float32(0.5)]


@_sampler("sample_unit_cube", VEC3, 3, "Uniform point in ``[-0.5, 0.5)^3``.")
def _cube(u1, u2, u3):
    return [u1 - np.float32(0.5), u2 - np.float32(0.5), u3 - np.float32(0.5)]


# -- poisson --------------------------------------------------------------------------------------

_LOGGAM_COEFFS = [np.float32(x) for x in (
    8.333333333333333e-02, -2.777777777777778e-03, 7.936507936507937e-04, -5.952380952380952e-04,
    8.417508417508418e-04, -1.917526917526918e-03, 6.410256410256410e-03, -2.955065359477124e-02,
    1.796443723688307e-01, -1.39243221690590e+00)]
_HALF_LOG_2PI = np.float32(0.5) * np.float32(1.8378770664093453)
_MAX_POISSON_ROUNDS = 1 << 16  # Warp loops forever on pathological input; jwarp stops here


def _loggam(x: Any) -> Any:
    """Warp's ``random_loggam`` (SPECFUN log-gamma) in float32, for x >= 1."""
    below7 = x < np.float32(7.0)
    n = where(below7, (np.float32(7.0) - x).astype(U32), np.uint32(0))
    x0 = x + n.astype(F32)
    inv = np.float32(1.0) / x0
    x2 = inv * inv
    gl0 = jnp.full_like(x, _LOGGAM_COEFFS[9])
    for coeff in reversed(_LOGGAM_COEFFS[:9]):
        gl0 = fmul(gl0, x2) + coeff
    gl = ((gl0 / x0 + _HALF_LOG_2PI) + fmul(x0 - np.float32(0.5), logf(x0))) - x0
    for k in range(1, 7):
        take = below7 & (np.uint32(k) <= n)
        gl = where(take, gl - logf(x0 - np.float32(1.0)), gl)
        x0 = where(take, x0 - np.float32(1.0), x0)
    return where((x == np.float32(1.0)) | (x == np.float32(2.0)), np.float32(0.0), gl)


def poisson_leaf(state: Any, lam: Any, mask: Any = None) -> tuple[Any, Any]:
    """(new state, sample) of Warp's ``poisson`` on every lane, as one masked loop."""
    lam = lax.stop_gradient(jnp.asarray(lam, F32))
    shape = jnp.broadcast_shapes(jnp.shape(state), jnp.shape(lam), jnp.shape(mask) if mask is not None else ())
    state = jnp.broadcast_to(state, shape)
    lam = jnp.broadcast_to(lam, shape)
    big = lam >= np.float32(10.0)
    small = ~big & (lam != np.float32(0.0))
    # transformed rejection constants (harmless garbage on lanes that multiply)
    slam = jnp.sqrt(lam)
    loglam = logf(lam)
    b = np.float32(0.931) + fmul(np.float32(2.53), slam)
    a = np.float32(-0.059) + fmul(np.float32(0.02483), b)
    log_invalpha = logf(np.float32(1.1239) + np.float32(1.1328) / (b - np.float32(3.4)))
    vr = np.float32(0.9277) - np.float32(3.6224) / (b - np.float32(2.0))
    enlam = expf(-lam)

    done = ~(big | small)
    if mask is not None:
        done = done | ~jnp.broadcast_to(mask, shape)
    zero_u = jnp.zeros(shape, U32)
    init = (state, zero_u, jnp.ones(shape, F32), zero_u, done, jnp.int32(0))

    def cond(carry):
        return jnp.any(~carry[4]) & (carry[5] < _MAX_POISSON_ROUNDS)

    def body(carry):
        s, count, prod, result, done, rounds = carry
        s1, u = draw(s)
        s2, v = draw(s1)
        # multiplication method (0 < lam < 10): one draw per round
        prod_next = prod * u
        more = prod_next > enlam
        mult_stop = small & ~more
        # transformed rejection (lam >= 10): two draws per round
        uc = u - np.float32(0.5)
        us = np.float32(0.5) - jnp.abs(uc)
        k = jnp.floor((fmul((np.float32(2.0) * a) / us + b, uc) + lam) + np.float32(0.43))
        quick = (us >= np.float32(0.07)) & (v <= vr)
        skip = (k < np.float32(0.0)) | ((us < np.float32(0.013)) & (v > us))
        lhs = (logf(v) + log_invalpha) - logf(a / (us * us) + b)
        kk = jnp.maximum(k, np.float32(0.0))
        rhs = (-lam + fmul(kk, loglam)) - _loggam(kk + np.float32(1.0))
        ptrs_stop = big & (quick | (~skip & (lhs <= rhs)))
        live = ~done
        stop = live & (mult_stop | ptrs_stop)
        value = where(small, count, kk.astype(U32))
        result = where(stop, value, result)
        count = where(live & small & more, count + np.uint32(1), count)
        prod = where(live & small, prod_next, prod)
        s = where(live, where(small, s1, s2), s)
        return s, count, prod, result, done | stop, rounds + 1

    s, _, _, result, _, _ = lax.while_loop(cond, body, init)
    return s, result


@builtin("poisson", group="Random")
def poisson(call: Call, *args: Value, **kwargs: Value) -> Value:
    """Poisson-distributed uint32 with mean ``lam`` (no draw when ``lam == 0``)."""
    state, lam = bind(call, args, kwargs, ("state", "lam"), 2)
    c.require(lam.type is scalars.float32, call, state, lam)
    s0 = state_leaf(call, state, lam)
    s, result = poisson_leaf(s0, lam.data, call.mask)
    write_state(call, s)
    return Value(scalars.uint32, result)


__all__ = [
    "F32", "U32", "I32", "VEC2", "VEC3", "VEC4", "fmul", "logf", "expf", "acosf", "cosf", "sinf", "to_u32",
    "pcg", "unit_float", "draw", "draws", "rand_init_leaf", "randf_range", "bind", "is_type", "state_leaf",
    "write_state", "leaves_of",
]
