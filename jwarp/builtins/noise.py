"""Random group, Perlin noise: ``noise`` and ``pnoise`` (1-D to 4-D) and ``curlnoise`` (2-D, 3-D,
and 3-D varying along a fourth axis).

Semantics follow Warp 1.19 (``warp/native/noise.h``), with its float32 arithmetic replayed
operation by operation (products rounded before additions, see :func:`random.fmul`):

- Lattice corner ``(i, j, …)`` hashes to ``i*73856093 ^ j*19349663 ^ … ^ (last*p + state)``
  (uint32, ``+`` binds tighter than ``^``); its gradient is ``randf(h, -1, 1)`` in 1-D and the
  normalised ``sample_unit_square/cube/hypercube(h)`` otherwise.
- Corner values ``dot(d, g)`` are blended with the quintic ``smootherstep`` along x, then y, ….
- ``pnoise`` wraps lattice indices with C's ``%`` (negative coordinates give negative indices,
  as in Warp); a zero period crashes Warp and gives index 0 here.
- ``curlnoise`` sums ``octaves`` rotated noise gradients (three fields, re-seeded with
  ``rand_init(state, 10019689)`` and ``rand_init(state, 13112221)``, for 3-D and 4-D).

Gradients are Warp's analytic adjoints, installed as ``jax.custom_jvp`` rules: ``noise``/
``pnoise`` pass ``adj * grad noise`` to the coordinates; ``curlnoise`` uses the noise Hessians
(Warp's ``noise_level_compose``); ``state``, periods, ``octaves``, ``lacunarity`` and ``gain`` get
no gradient. ``noise``/``pnoise`` gradients match Warp bit for bit; ``curlnoise`` gradients are
summed in another order (last-bit differences).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jwarp.builtins import common as c
from jwarp.builtins.common import Call, Value
from jwarp.builtins.random import F32, I32, U32, VEC2, VEC3, VEC4, draw, draws, fmul, pcg, state_leaf, to_u32
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import is_const, leaves_of, value_from_leaves
from jwarp.lang import scalars
from jwarp.compiler.selects import where

_PRIMES = (np.uint32(73856093), np.uint32(19349663), np.uint32(53471161), np.uint32(10000019))
_RESEED_2 = np.uint32(10019689)
_RESEED_3 = np.uint32(13112221)
_ONE, _HALF = np.float32(1.0), np.float32(0.5)

# -- lattice and gradients ------------------------------------------------------------------------


def _corner_hash(state: Any, corner: list) -> Any:
    terms = [to_u32(i) * p for i, p in zip(corner, _PRIMES)]
    terms[-1] = terms[-1] + state
    h = terms[0]
    for t in terms[1:]:
        h = h ^ t
    return h


def _random_gradient(state: Any, corner: list) -> list:
    """Warp's ``random_gradient_Nd``: the lattice gradient at an integer corner."""
    h = _corner_hash(state, corner)
    if len(corner) == 1:
        _, u = draw(h)
        return [np.float32(2.0) * u + np.float32(-1.0)]  # randf(h, -1, 1)
    _, us = draws(h, len(corner))
    v = [u - _HALF for u in us]
    total = fmul(v[0], v[0])
    for x in v[1:]:
        total = total + fmul(x, x)
    length = jnp.sqrt(total)
    positive = length > np.float32(0.0)
    safe = where(positive, length, _ONE)
    return [where(positive, x / safe, np.float32(0.0)) for x in v]


def _dot(d: list, g: list) -> Any:
    total = fmul(d[0], g[0])
    for a, b in zip(d[1:], g[1:]):
        total = total + fmul(a, b)
    return total


def _smootherstep(t: Any) -> Any:
    return ((t * t) * t) * (fmul(t, fmul(t, np.float32(6.0)) - np.float32(15.0)) + np.float32(10.0))


def _smootherstep_gradient(t: Any) -> Any:
    return ((np.float32(30.0) * t) * t) * (fmul(t, t - np.float32(2.0)) + _ONE)


def _smootherstep_hessian(t: Any) -> Any:
    return (np.float32(60.0) * t) * (fmul(t, fmul(t, np.float32(2.0)) - np.float32(3.0)) + _ONE)


def _crem(a: Any, b: Any) -> Any:
    """C ``a % b`` on int32 (0 where ``b == 0``)."""
    zero = b == 0
    return where(zero, np.int32(0), jnp.fmod(a, where(zero, np.int32(1), b)))


def _lattice(coords: list, periods: list | None) -> tuple[list, list, list]:
    """(fractional offsets, lower corner, upper corner) of each coordinate."""
    floors = [jnp.floor(x) for x in coords]
    d = [x - f for x, f in zip(coords, floors)]
    lo = [f.astype(I32) for f in floors]
    if periods is None:
        return d, lo, [i + np.int32(1) for i in lo]
    lo = [_crem(i, p) for i, p in zip(lo, periods)]
    return d, lo, [_crem(i + np.int32(1), p) for i, p in zip(lo, periods)]


def _pairs(x: Any) -> tuple[Any, Any]:
    """Split the last (corner) axis into the lower and upper member of each adjacent pair."""
    if isinstance(x, np.generic):  # a constant zero shared by every corner
        return x, x
    x = jnp.reshape(x, jnp.shape(x)[:-1] + (jnp.shape(x)[-1] // 2, 2))
    lower, upper = lax.split(x, (1, 1), axis=x.ndim - 1)  # a split, not slices: Triton lowers splits only
    return lower[..., 0], upper[..., 0]


def _corners(state: Any, d: list, lo: list, hi: list) -> tuple[Any, list]:
    """(value, gradient components) at every lattice corner, stacked on a new last axis.

    Corner ``c`` is the upper neighbour along axis ``k`` when bit ``k`` of ``c`` is set, so the
    corners that blend along axis 0 are adjacent, then those along axis 1 after that blend, ….
    One vectorized evaluation over the 2**n corners keeps the XLA program small (a 4-D curlnoise
    octave evaluated corner by corner took minutes to compile).
    """
    index = lax.iota(jnp.int32, 1 << len(d))  # an iota, not a captured constant (Pallas kernels refuse those)
    bits = [((index >> k) & 1) == 1 for k in range(len(d))]
    corner = [where(b, jnp.asarray(h)[..., None], jnp.asarray(l)[..., None]) for b, l, h in zip(bits, lo, hi)]
    g = _random_gradient(jnp.asarray(state)[..., None], corner)
    disp = [where(b, (x - _ONE)[..., None], jnp.asarray(x)[..., None]) for b, x in zip(bits, d)]
    return _dot(disp, g), g


def perlin(state: Any, d: list, lo: list, hi: list, want_grad: bool) -> tuple[Any, list | None]:
    """Noise value (and its gradient, Warp's ``noise_Nd_gradient``) at offsets ``d`` in a cell."""
    values, grads = _corners(state, d, lo, hi)
    for axis in range(len(d)):
        s = _smootherstep(d[axis])[..., None]
        a0, a1 = _pairs(values)
        dv = a1 - a0
        if want_grad:
            w = fmul(dv, _smootherstep_gradient(d[axis])[..., None])
            grads = [(fmul(y - x, s) + fmul(w, np.float32(i == axis))) + x
                     for i, (x, y) in enumerate(_pairs(g) for g in grads)]
        values = fmul(dv, s) + a0
    return values[..., 0], ([g[..., 0] for g in grads] if want_grad else None)


def perlin_hessian(state: Any, d: list, lo: list, hi: list) -> list[list]:
    """Warp's ``noise_Nd_hessian`` (composition of value, gradient and Hessian per level)."""
    n = len(d)
    values, grads = _corners(state, d, lo, hi)
    hess = [[np.float32(0.0)] * n for _ in range(n)]
    for k in range(n):
        s = _smootherstep(d[k])[..., None]
        s1 = _smootherstep_gradient(d[k])[..., None]
        s2 = _smootherstep_hessian(d[k])[..., None]
        av, bv = _pairs(values)
        ag, bg = zip(*(_pairs(g) for g in grads))
        dv = bv - av
        dg = [y - x for x, y in zip(ag, bg)]
        grads = [x + fmul(e, s) for x, e in zip(ag, dg)]
        grads[k] = grads[k] + fmul(dv, s1)
        halves = [[_pairs(h) for h in row] for row in hess]
        hess = [[jnp.broadcast_to(a + fmul(b - a, s), jnp.shape(dv)) for a, b in row] for row in halves]
        for i in range(n):
            hess[i][k] = hess[i][k] + fmul(dg[i], s1)
            hess[k][i] = hess[k][i] + fmul(dg[i], s1)
        hess[k][k] = hess[k][k] + fmul(dv, s2)
        values = av + fmul(dv, s)
    return [[h[..., 0] for h in row] for row in hess]


# -- noise / pnoise -------------------------------------------------------------------------------


def _zero_tangent(t: Any) -> bool:
    return getattr(t, "dtype", None) == jax.dtypes.float0


@jax.custom_jvp
def _noise(state: Any, periods: tuple, coords: tuple) -> Any:
    d, lo, hi = _lattice(list(coords), list(periods) if periods else None)
    return perlin(state, d, lo, hi, False)[0]


@_noise.defjvp
def _noise_jvp(primals: tuple, tangents: tuple) -> tuple:
    state, periods, coords = primals
    d, lo, hi = _lattice(list(coords), list(periods) if periods else None)
    value, grad = perlin(state, d, lo, hi, True)
    t_out = jnp.zeros_like(value)
    for g, t in zip(grad, tangents[2]):
        if not _zero_tangent(t):
            t_out = t_out + g * t
    return value, jnp.broadcast_to(t_out, jnp.shape(value)).astype(value.dtype)


_COORD_NAMES = ("x", "xy", "xyz", "xyzt")
_PERIOD_NAMES = ("px", "py", "pz", "pt")


def _bind_noise(call: Call, args: tuple, kwargs: dict, periodic: bool) -> tuple[Any, list, list]:
    """(state leaf, coordinate leaves, period leaves) of a ``noise``/``pnoise`` call."""
    given = list(args) + list(kwargs.values())
    state, coord = (list(args[:2]) + [None, None])[:2]
    periods = list(args[2:])
    named_periods = {}
    for key, value in kwargs.items():
        if key == "state" and state is None:
            state = value
        elif key in _COORD_NAMES and coord is None:
            coord = value
        elif periodic and key in _PERIOD_NAMES[len(periods):]:
            named_periods[key] = value
        else:
            raise call.no_overload(*given)
    periods += [named_periods[k] for k in _PERIOD_NAMES if k in named_periods]
    ok = state is not None and coord is not None and (coord.type is scalars.float32 or coord.type in (VEC2, VEC3, VEC4))
    c.require(ok, call, *given)
    n = len(leaves_of(coord))
    if periodic:
        c.require(len(periods) == n and all(p.type is scalars.int32 for p in periods), call, *given)
    else:
        c.require(not periods, call, *given)
    coords = [jnp.asarray(x, F32) for x in leaves_of(coord)]
    return state_leaf(call, state, *given[1:]), coords, [jnp.asarray(p.data, I32) for p in periods]


def _noise_builtin(call: Call, args: tuple, kwargs: dict, periodic: bool) -> Value:
    state, coords, periods = _bind_noise(call, args, kwargs, periodic)
    return Value(scalars.float32, _noise(state, tuple(periods), tuple(coords)))


@builtin("noise", group="Random")
def noise(call: Call, *args: Value, **kwargs: Value) -> Value:
    """Non-periodic Perlin noise at a float, vec2, vec3 or vec4 coordinate (``state`` is not advanced)."""
    return _noise_builtin(call, args, kwargs, periodic=False)


@builtin("pnoise", group="Random")
def pnoise(call: Call, *args: Value, **kwargs: Value) -> Value:
    """Periodic Perlin noise: lattice indices wrap every ``px`` (``py``, ``pz``, ``pt``) cells."""
    return _noise_builtin(call, args, kwargs, periodic=True)


# -- curlnoise ------------------------------------------------------------------------------------


def _fields(state: Any, n_fields: int) -> tuple[list, Any]:
    """The states of the potentials sampled per octave, and the state left for the next octave."""
    states = [state]
    for offset in (_RESEED_2, _RESEED_3)[: n_fields - 1]:
        state = pcg(state + pcg(offset))  # rand_init(state, offset)
        states.append(state)
    return states, state


def _split_last(x: Any, n: int) -> list:
    """The ``n`` members of the last axis (a split, not slices: Triton lowers splits, of 2**k parts)."""
    if n == 1:
        return [x[..., 0]]
    return [part[..., 0] for part in lax.split(x, (1,) * n, axis=x.ndim - 1)]


def _stack_last(xs: list) -> Any:
    """``jnp.stack(xs, -1)``, as pairwise stacks when ``len(xs)`` is a power of two (Triton stacks pairs only)."""
    if len(xs) == 1:
        return jnp.asarray(xs[0])[..., None]
    if len(xs) == 2 or len(xs) & (len(xs) - 1):
        return jnp.stack(xs, -1)
    pairs = jnp.stack([_stack_last(xs[0::2]), _stack_last(xs[1::2])], -1)  # [..., k, j] = xs[2k + j]
    return jnp.reshape(pairs, jnp.shape(pairs)[:-2] + (len(xs),))


def _octave(state: Any, coords: list, freq: Any, amp: Any, want_jacobian: bool, pow2_fields: bool = False):
    """One octave: (gradients of each potential, Jacobian rows of the curl, next state).

    ``pow2_fields``: stack the three potentials of 3-D/4-D with a fourth (ignored) one, as the Pallas
    target needs power-of-two shapes for Triton."""
    n = len(coords)
    pt = [fmul(freq, x) for x in coords]
    d, lo, hi = _lattice(pt, None)
    states, next_state = _fields(state, 1 if n == 2 else 3)
    # the three potentials of 3-D/4-D share the lattice cell: evaluate them together, on a field axis
    stacked = states + states[-1:] if pow2_fields and len(states) == 3 else states
    fields = _stack_last(jnp.broadcast_arrays(*stacked))
    d, lo, hi = ([jnp.asarray(x)[..., None] for x in xs] for xs in (d, lo, hi))
    grad_stack = perlin(fields, d, lo, hi, True)[1]
    grads = [list(fs) for fs in zip(*(_split_last(g, len(stacked)) for g in grad_stack))][:len(states)]
    jac = None
    if want_jacobian:
        k = amp * freq
        hess_stack = perlin_hessian(fields, d, lo, hi)
        rows = [list(zip(*(_split_last(h, len(stacked)) for h in row))) for row in hess_stack]  # [row][field][col]
        hs = [[list(rows[r][f]) for r in range(n)] for f in range(len(states))]
        if n == 2:
            (h,) = hs
            jac = [[k * -h[1][col] for col in range(n)], [k * h[0][col] for col in range(n)]]
        else:
            h1, h2, h3 = hs
            jac = [[k * (h3[1][col] - h2[2][col]) for col in range(n)],
                   [k * (h1[2][col] - h3[0][col]) for col in range(n)],
                   [k * (h2[0][col] - h1[1][col]) for col in range(n)]]
    return grads, jac, next_state


def _curl_eval(state, octaves, lacunarity, gain, coords, want_jacobian: bool, n_octaves: int | None,
               pow2_fields: bool = False):
    """(curl vector leaves, Jacobian rows or None); ``n_octaves`` when the count is a constant."""
    n = len(coords)
    n_sums = 1 if n == 2 else 3
    n_out = 2 if n == 2 else 3
    shapes = [jnp.shape(x) for x in (*coords, state, octaves, lacunarity, gain)]
    shape = jnp.broadcast_shapes(*shapes)
    zeros = jnp.zeros(shape, F32)
    sums = [[zeros] * n for _ in range(n_sums)]
    jac = [[zeros] * n for _ in range(n_out)] if want_jacobian else None
    ones = jnp.ones(shape, F32)
    carry = (jnp.broadcast_to(state, shape), ones, ones, sums, jac)

    def step(i, carry, live=None):
        s, freq, amp, sums, jac = carry
        grads, j_oct, s_next = _octave(s, coords, freq, amp, want_jacobian, pow2_fields)

        def keep(new, old):
            return new if live is None else where(live, new, old)

        sums = [[keep(total + fmul(amp, g), total) for total, g in zip(row, grad)] for row, grad in zip(sums, grads)]
        if want_jacobian:
            jac = [[keep(a + b, a) for a, b in zip(r0, r1)] for r0, r1 in zip(jac, j_oct)]
        return s_next, freq * lacunarity, amp * gain, sums, jac

    if n_octaves is not None and n_octaves <= 1:
        for i in range(n_octaves):
            carry = step(i, carry)
    elif n_octaves is not None:  # a loop with a static trip count: one body to compile, reversible
        carry = lax.fori_loop(0, n_octaves, step, carry)
    else:
        bound = jnp.max(octaves).astype(I32)
        carry = lax.fori_loop(0, bound, lambda i, cr: step(i, cr, to_u32(i) < octaves), carry)
    sums = carry[3]
    if n == 2:
        (cs,) = sums
        out = [-cs[1], cs[0]]
    else:
        c1, c2, c3 = sums
        out = [c3[1] - c2[2], c1[2] - c3[0], c2[0] - c1[1]]
    return out, carry[4]


@functools.lru_cache(maxsize=None)
def _curl_function(n_octaves: int | None, pow2_fields: bool = False):
    """``curlnoise`` with Warp's Hessian-based derivative, for a constant (or traced) octave count."""

    @jax.custom_jvp
    def curl(state, octaves, lacunarity, gain, coords):
        return tuple(_curl_eval(state, octaves, lacunarity, gain, list(coords), False, n_octaves, pow2_fields)[0])

    @curl.defjvp
    def curl_jvp(primals: tuple, tangents: tuple) -> tuple:
        state, octaves, lacunarity, gain, coords = primals
        out, jac = _curl_eval(state, octaves, lacunarity, gain, list(coords), True, n_octaves, pow2_fields)
        t_out = []
        for row, o in zip(jac, out):
            total = jnp.zeros_like(o)
            for entry, t in zip(row, tangents[4]):
                if not _zero_tangent(t):
                    total = total + entry * t
            t_out.append(jnp.broadcast_to(total, jnp.shape(o)).astype(o.dtype))
        return tuple(out), tuple(t_out)

    return curl


_CURL_NAMES = ("state", "coord", "octaves", "lacunarity", "gain")


@builtin("curlnoise", group="Random")
def curlnoise(call: Call, *args: Value, **kwargs: Value) -> Value:
    """Divergence-free noise: the curl of ``octaves`` summed Perlin potentials (vec2 in 2-D, vec3 otherwise)."""
    given = list(args) + list(kwargs.values())
    if len(args) > len(_CURL_NAMES):
        raise call.no_overload(*given)
    slots = list(args) + [None] * (len(_CURL_NAMES) - len(args))
    for key, value in kwargs.items():
        index = 1 if key in _COORD_NAMES else (_CURL_NAMES.index(key) if key in _CURL_NAMES else -1)
        if index < 0 or slots[index] is not None:
            raise call.no_overload(*given)
        slots[index] = value
    state, coord, octaves, lacunarity, gain = slots
    ok = (state is not None and coord is not None and coord.type in (VEC2, VEC3, VEC4)
          and (octaves is None or octaves.type is scalars.uint32)
          and (lacunarity is None or lacunarity.type is scalars.float32)
          and (gain is None or gain.type is scalars.float32))
    c.require(ok, call, *given)
    octave_leaf = np.uint32(1) if octaves is None else octaves.data
    n_octaves = int(octave_leaf) if is_const(octave_leaf) else None
    lac = jnp.asarray(np.float32(2.0) if lacunarity is None else lacunarity.data, F32)
    gn = jnp.asarray(np.float32(0.5) if gain is None else gain.data, F32)
    coords = tuple(jnp.asarray(x, F32) for x in leaves_of(coord))
    curl = _curl_function(n_octaves, getattr(call.ctx, "ref_memory", None) is not None)  # Pallas target
    out = curl(state_leaf(call, state, *given[1:]), jnp.asarray(octave_leaf, U32), lax.stop_gradient(lac),
               lax.stop_gradient(gn), coords)
    return value_from_leaves(VEC2 if coord.type is VEC2 else VEC3, list(out))


__all__ = ["perlin", "perlin_hessian", "noise", "pnoise", "curlnoise"]
