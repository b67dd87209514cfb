"""Closest- and furthest-point mesh queries: ``mesh_query_point`` and its sign variants.

Each query walks the mesh's BVH (:func:`jwarp.builtins.bvh_walk.walk`) keeping the best face per
lane, as Warp does: nodes farther than the best distance so far are skipped, sliver faces are
ignored, and a face replaces the best only when strictly closer. The barycentric weights are then
recomputed on the face found from the (differentiable) query point, so ``.grad`` flows to the
query point as in Warp (mesh points get no gradient, as in Warp).

Signs: ``mesh_query_point`` votes with three rays (+x, +y, +z), ``_sign_normal`` uses the
angle-weighted normal of the closest features, ``_sign_winding_number`` the winding number
(summed exactly over all faces; Warp approximates far faces, which does not change the sign of
points away from the surface).

Example:
    >>> import jwarp as wp
    >>> @wp.kernel
    ... def closest(mesh: wp.uint64, points: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    ...     i = wp.tid()
    ...     q = wp.mesh_query_point_no_sign(mesh, points[i], 1.0e6)
    ...     out[i] = wp.mesh_eval_position(mesh, q.face, q.u, q.v)
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from jwarp.builtins import bvh_trail, inverse_trig
from jwarp.builtins import triangle_math as tm
from jwarp.builtins import winding_number
from jwarp.builtins.bvh_walk import descend, gather_rows, table, walk, walk_nearest
from jwarp.builtins.common import Call, Value
from jwarp.builtins.mesh_common import (MeshView, active, check_vec3, full, per_mesh, stop, vec3_leaves,
                                        write_back)
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import value_from_leaves
from jwarp.lang import scalars
from jwarp.lang.struct import StructType
from jwarp.compiler.selects import clip, where


def _struct(name: str, fields: dict) -> StructType:
    cls = type(name, (), {"__annotations__": fields})
    cls.__module__ = __name__
    return StructType(cls)


MeshQueryPoint = _struct("MeshQueryPoint", {"result": scalars.bool_, "sign": scalars.float32, "face": scalars.int32,
                                            "u": scalars.float32, "v": scalars.float32})
"""The result of a closest-point query (Warp's ``mesh_query_point_t``)."""


def _point_of(s: dict) -> tuple:
    return (s["px"], s["py"], s["pz"])


def _seed(view: MeshView, point: tuple, furthest: bool = False) -> tuple[Any, Any]:
    """(face, squared distance) of the leaf reached by always entering the nearer (farther) child:
    a first bound that lets the walk prune from its start (slivers give no bound)."""
    state = {"px": point[0], "py": point[1], "pz": point[2]}
    measure = tm.furthest_distance_to_box_sq if furthest else tm.distance_to_box_sq

    def nearer(s: dict, llo: tuple, lhi: tuple, rlo: tuple, rhi: tuple) -> Any:
        dl, dr = measure(_point_of(s), llo, lhi), measure(_point_of(s), rlo, rhi)
        return dl >= dr if furthest else dl <= dr

    leaf = descend(view.tree, state, nearer)
    face = jnp.maximum(gather_rows(view.tree.links, leaf)[..., 1], 0)
    a, b, c = view.corners(face)
    u, v = (tm.furthest_point_to_triangle if furthest else tm.closest_point_to_triangle)(a, b, c, point)
    cp = tm.add(tm.add(tm.scale(a, u), tm.scale(b, v)), tm.scale(c, 1.0 - u - v))
    d = tm.sub(cp, point)
    d2 = tm.dot(d, d)
    bad = (view.face_count == 0) | (tm.is_sliver(a, b, c) if not furthest else False)
    return face, where(bad, jnp.inf if not furthest else -jnp.inf, d2)


def _seed_bound(view: MeshView, point: tuple) -> tuple[Any, Any]:
    """(face, bound) of the leaf reached by always entering the nearer child: ``bound`` is the
    squared distance to the farthest corner of the leaf's box (scaled up by a few ulps), which no
    point of the face exceeds. The walk then scores that leaf first (it visits the nearer child
    first too), so it finds what :func:`_seed`'s exact distance would, and ties go to the same face,
    without a copy of the closest-point arithmetic in the program. Slivers give no bound. (The
    sign-normal walk seeds with it too: scoring that first face from the bound leaves the same best
    distance, face and normal as scoring it again from its exact distance.) Walks over node tables
    (:mod:`jwarp.builtins.bvh_trail`) start without it: their first steps go down the same path, and
    the seeds' descent cost more than the pops it saved (:func:`_unseeded`)."""
    state = {"px": point[0], "py": point[1], "pz": point[2]}

    def nearer(s: dict, llo: tuple, lhi: tuple, rlo: tuple, rhi: tuple) -> Any:
        return tm.distance_to_box_sq(_point_of(s), llo, lhi) <= tm.distance_to_box_sq(_point_of(s), rlo, rhi)

    leaf = descend(view.tree, state, nearer)
    face = jnp.maximum(gather_rows(view.tree.links, leaf)[..., 1], 0)
    row = gather_rows(view.tree.bounds, leaf)
    bound = tm.furthest_distance_to_box_sq(point, (row[..., 0], row[..., 1], row[..., 2]),
                                           (row[..., 3], row[..., 4], row[..., 5]))
    bad = (view.face_count == 0) | tm.is_sliver(*view.corners(face))
    return face, where(bad, jnp.inf, bound * jnp.float32(1.0 + 1e-5))


def _unseeded(shape: tuple) -> tuple[Any, Any]:
    """No seed (face 0, no bound): a trail walk's first steps go down the path of :func:`_seed_bound`'s
    descent, scoring the same first leaf. In-process A/B, no seed against the seed (same results):
    Warp's ``example_mesh`` launch 0.82x (step 10) and 0.87x (step 60); 1,000 / 16,384 queries on
    the bunny with ``max_dist`` 1e6, closest point 1.01x / 0.97x, sign-normal 0.98x / 0.89x."""
    return jnp.zeros(shape, jnp.int32), jnp.full(shape, jnp.inf, jnp.float32)


def _sliver_column(a: tuple, b: tuple, c: tuple) -> list:
    """The leaf data after the corners in a closest-point walk's table (:meth:`MeshView.trail_rows`):
    whether the face is a sliver (1.0: computed once per face, not at every step of every lane)."""
    return [tm.is_sliver(a, b, c).astype(jnp.float32)]


def _closest_walk(view: MeshView, point: tuple, limit_sq: Any, run: Any, furthest: bool = False) -> dict:
    """Best face (and its squared distance) per lane; ``furthest`` looks for the farthest point."""
    shape = run.shape
    trail = not furthest and bvh_trail.supported(view.face_count, bool(view.handle.fact("grouped")))
    face0, d0 = _seed(view, point, furthest) if furthest else _unseeded(shape) if trail else _seed_bound(view, point)
    better0 = (d0 > limit_sq) if furthest else (d0 < limit_sq)
    state = {"node": jnp.zeros(shape, jnp.int32), "best": where(better0, d0, limit_sq),
             "face": where(better0, face0, 0), "px": point[0], "py": point[1], "pz": point[2]}

    if not furthest:  # nearest box first, as Warp
        def near(s: dict, lower: tuple, upper: tuple) -> tuple:
            d = tm.distance_to_box_sq(_point_of(s), lower, upper)
            return d <= s["best"], d

        def candidate(s: dict, prim: Any, corners: tuple) -> Any:
            a, b, c = corners
            point = _point_of(s)
            u, v = tm.closest_point_to_triangle(a, b, c, point)
            cp = tm.add(tm.add(tm.scale(a, u), tm.scale(b, v)), tm.scale(c, 1.0 - u - v))
            d = tm.sub(cp, point)
            return where(tm.is_sliver(a, b, c), jnp.inf, tm.dot(d, d))

        if trail:
            rows = view.trail_rows(_sliver_column)
            state.pop("node")
            def tested(s: dict, prim: Any, cols: tuple) -> Any:
                a, b, c = cols[0:3], cols[3:6], cols[6:9]
                point = _point_of(s)
                u, v = tm.closest_point_to_triangle(a, b, c, point)
                cp = tm.add(tm.add(tm.scale(a, u), tm.scale(b, v)), tm.scale(c, 1.0 - u - v))
                d = tm.sub(cp, point)
                return where(cols[9] != 0, jnp.inf, tm.dot(d, d))

            return bvh_trail.walk_trail(rows, view.face_count, state, run, near, tested, best="best",
                                        best_prim="face", share=True)
        return walk_nearest(view.tree, state, run, near, candidate, fetch=view.corners, depth=view.depth,
                            best="best", best_prim="face")

    def enter(s: dict, lower: tuple, upper: tuple) -> Any:
        if furthest:
            return tm.furthest_distance_to_box_sq(_point_of(s), lower, upper) >= s["best"]
        return tm.distance_to_box_sq(_point_of(s), lower, upper) <= s["best"]

    def leaf(s: dict, prim: Any, take: Any) -> tuple:
        a, b, c = view.corners(prim)
        point = _point_of(s)
        if furthest:
            u, v = tm.furthest_point_to_triangle(a, b, c, point)
            usable = take
        else:
            u, v = tm.closest_point_to_triangle(a, b, c, point)
            usable = take & ~tm.is_sliver(a, b, c)
        w = 1.0 - u - v
        cp = tm.add(tm.add(tm.scale(a, u), tm.scale(b, v)), tm.scale(c, w))
        d = tm.sub(cp, point)
        d2 = tm.dot(d, d)
        better = usable & ((d2 > s["best"]) if furthest else (d2 < s["best"]))
        s = dict(s, best=where(better, d2, s["best"]), face=where(better, prim, s["face"]))
        return s, better

    return walk(view.tree, state, run, enter, leaf)


def _weights(view: MeshView, face: Any, point: tuple, furthest: bool = False) -> tuple[Any, Any]:
    """(u, v) on ``face``, recomputed from the differentiable query point with Warp's rounding."""
    a, b, c = (tuple(stop(x) for x in corner) for corner in view.corners(face))
    fn = tm.furthest_point_to_triangle if furthest else tm.closest_point_to_triangle
    u, v = fn(a, b, c, point)
    w = 1.0 - u - v
    return 1.0 - v - w, v


def _inside_by_rays(view: MeshView, point: tuple, run: Any) -> Any:
    """-1 where at least two of three axis rays first hit a back face, else 1 (Warp's vote)."""
    from jwarp.builtins.mesh_ray_queries import closest_hit

    votes = jnp.zeros(run.shape, jnp.int32)
    zero, one = jnp.zeros_like(point[0]), jnp.ones_like(point[0])
    for axis in range(3):
        direction = tuple(one if k == axis else zero for k in range(3))
        s = closest_hit(view, point, direction, jnp.full(run.shape, jnp.inf, jnp.float32), run, robust=True)
        votes = votes + (s["hit"] & (s["sign"] < 0)).astype(jnp.int32)
    return where(votes >= 2, -1.0, 1.0).astype(jnp.float32)


def _inside_by_parity(view: MeshView, point: tuple, run: Any, samples: Any, scale: Any) -> Any:
    """-1 where at least half of ``samples`` perturbed (1, 1, 1) rays cross the mesh an odd number
    of times (Warp's ``mesh_query_inside_parity``, same random directions), else 1."""
    from jwarp.builtins.mesh_ray_queries import count_hits
    from jwarp.builtins.random import rand_init_leaf, randf_range

    shape = run.shape
    state = jnp.broadcast_to(rand_init_leaf(jnp.uint32(42)), shape)
    votes = jnp.zeros(shape, jnp.int32)
    n = jnp.broadcast_to(samples, shape)

    def body(i: Any, carry: tuple) -> tuple:
        state, votes = carry
        direction = []
        for _ in range(3):
            state, r = randf_range(state, -scale, scale)
            direction.append(1.0 + r)
        odd = count_hits(view, point, tuple(direction), run & (i < n)) % 2 == 1
        return state, votes + (odd & (i < n)).astype(jnp.int32)

    _, votes = lax.fori_loop(0, jnp.max(n), body, (state, votes))
    return where(votes * 2 >= n, -1.0, 1.0).astype(jnp.float32)


def _winding_sign(view: MeshView, point: tuple, run: Any, threshold: Any, accuracy: Any) -> Any:
    """-1 where the winding number exceeds ``threshold``, else 1: the fast (far clusters expanded,
    :mod:`jwarp.builtins.winding_number`) form where the tree allows, else the exact sum."""
    if view.handle.fact("winding_table"):
        rows = table(view.call, view.handle, "winding_rows")[0]
        winding = winding_number.winding_numbers(rows, point, run, accuracy)
        return where(winding > threshold, -1.0, 1.0).astype(jnp.float32)

    def body(f: Any, total: Any) -> Any:
        a, b, c = view.corners(jnp.full(point[0].shape, f, jnp.int32))
        return total + tm.solid_angle(a, b, c, point)

    total = lax.fori_loop(0, view.face_count, body, jnp.zeros_like(point[0]))
    winding = total * 0.07957747154
    return where(winding > threshold, -1.0, 1.0).astype(jnp.float32)


def _angle(x: tuple, y: tuple, acos: Any = inverse_trig.acos) -> Any:
    """The angle between the 3-vectors ``x`` and ``y`` (tuples of lane arrays)."""
    return acos(clip(tm.dot(tm.normalize(x), tm.normalize(y)), -1.0, 1.0))


def _angle_columns(a: tuple, b: tuple, c: tuple) -> list:
    """The leaf data after the corners in a sign-normal walk's table (:meth:`MeshView.trail_rows`): the
    face's angles at ``a``, ``b``, ``c`` (Warp's vertex weights; computed once per face, not at every lane
    step, in float32 vector code: XLA's ``acos`` took 0.4 ms for the 12,200 faces of Warp's bunny), the
    first -1 for a sliver."""
    e0, e1, e2 = tm.sub(b, a), tm.sub(c, a), tm.sub(c, b)
    neg = lambda x: tuple(-y for y in x)  # noqa: E731
    acos = inverse_trig.acos_within_ulp
    at_a, at_b, at_c = _angle(e0, e1, acos), _angle(e2, neg(e0), acos), _angle(neg(e1), neg(e2), acos)
    return [where(tm.is_sliver(a, b, c), -1.0, at_a), at_b, at_c]


def _sign_normal_walk(view: MeshView, point: tuple, max_dist: Any, run: Any, epsilon: Any) -> dict:
    """Warp's angle-weighted-normal sign: the walk of ``mesh_query_point_sign_normal``."""
    shape = run.shape
    eps = view.average_edge_length() * epsilon
    eps_sq = eps * eps
    zero = jnp.zeros(shape, jnp.float32)
    trail = bvh_trail.supported(view.face_count, bool(view.handle.fact("grouped")))
    face0, d0 = _unseeded(shape) if trail else _seed_bound(view, point)
    dist0 = jnp.sqrt(d0)
    seeded = dist0 < max_dist
    state = {"node": jnp.zeros(shape, jnp.int32), "best": where(seeded, dist0, max_dist),
             "face": where(seeded, face0, 0), "nx": zero, "ny": zero, "nz": zero,
             "px": point[0], "py": point[1], "pz": point[2]}
    pi = jnp.float32(3.14159265359)

    def enter(s: dict, lower: tuple, upper: tuple) -> Any:
        reach = s["best"] + eps
        return tm.distance_to_box_sq(_point_of(s), lower, upper) <= reach * reach

    def scored(s: dict, prim: Any, corners: tuple, take: Any, sliver: Any = None, angles: tuple | None = None) -> tuple:
        """(new state, updated) after the face ``prim`` with ``corners`` (lanes ``take``; ``sliver``:
        whether the face is one, and ``angles``: its :func:`_angle_columns`, when known)."""
        a, b, c = corners
        point = _point_of(s)
        e0, e1, e2 = tm.sub(b, a), tm.sub(c, a), tm.sub(c, b)
        normal = tm.cross(e0, e1)
        take = take & ~(tm.is_sliver(a, b, c) if sliver is None else sliver)
        u, v = tm.closest_point_to_triangle(a, b, c, point)
        w = 1.0 - u - v
        cp = tm.add(tm.add(tm.scale(a, u), tm.scale(b, v)), tm.scale(c, w))
        dist = tm.length(tm.sub(cp, point))
        near = take & (dist < s["best"] + eps)
        ca, cb, cc = tm.sub(cp, a), tm.sub(cp, b), tm.sub(cp, c)
        la, lb, lc = tm.dot(ca, ca), tm.dot(cb, cb), tm.dot(cc, cc)
        n0, n1, n2 = tm.dot(e0, e0), tm.dot(e1, e1), tm.dot(e2, e2)
        e0a, e2b, e1a = tm.dot(e0, ca), tm.dot(e2, cb), tm.dot(e1, ca)
        on_edge = ((la * n0 - e0a * e0a < eps_sq * n0) | (lb * n2 - e2b * e2b < eps_sq * n2)
                   | (la * n1 - e1a * e1a < eps_sq * n1))
        neg = lambda x: tuple(-y for y in x)  # noqa: E731
        # the angle at the vertex the point is at (one arccos: the vertex's two edges picked first)
        at_a, at_b = la < eps_sq, lb < eps_sq
        pick = lambda x, y, z: tuple(where(at_a, p, where(at_b, q, r)) for p, q, r in zip(x, y, z))  # noqa: E731
        if angles is None:
            corner = _angle(pick(e0, e2, neg(e1)), pick(e1, neg(e0), neg(e2)))
        else:
            corner = where(at_a, angles[0], where(at_b, angles[1], angles[2]))
        weight = where(at_a | at_b | (lc < eps_sq), corner, where(on_edge, pi, 2.0 * pi))
        unit = tm.normalize(normal)
        tie = near & (dist > s["best"] - eps)
        closer_tie = tie & (dist < s["best"])
        replace = near & ~tie
        update = closer_tie | replace
        out = dict(s)
        for k, key in enumerate(("nx", "ny", "nz")):
            contrib = weight * unit[k]
            out[key] = where(tie, s[key] + contrib, where(replace, contrib, s[key]))
        out["best"] = where(update, dist, s["best"])
        out["face"] = where(update, prim, s["face"])
        return out, update

    if trail:  # Warp's order: nearer child first
        def near(s: dict, lower: tuple, upper: tuple) -> tuple:
            d = tm.distance_to_box_sq(_point_of(s), lower, upper)
            reach = s["best"] + eps
            return d <= reach * reach, d

        def update(s: dict, prim: Any, cols: tuple) -> dict:
            # columns 9-11: the vertex angles, the first -1 for a sliver
            out, _ = scored(s, prim, (cols[0:3], cols[3:6], cols[6:9]), jnp.ones(prim.shape, bool), cols[9] < 0,
                            cols[9:12])
            return {k: out[k] for k in _NORMAL_FIELDS}

        rows = view.trail_rows(_angle_columns)
        state.pop("node")
        return bvh_trail.walk_trail(rows, view.face_count, state, run, near, None, best="best", best_prim="face",
                                    update=update, changes=("nx", "ny", "nz"))

    def leaf(s: dict, prim: Any, take: Any) -> tuple:
        return scored(s, prim, view.corners(prim), take)

    return walk(view.tree, state, run, enter, leaf)


_NORMAL_FIELDS = ("best", "face", "nx", "ny", "nz")


def _point_query(call: Call, mesh: Value, point: Value, limit: Value, kind: str, extra: dict) -> list:
    """Leaves [result, sign, face, u, v] of a point query of ``kind`` for every lane."""
    if not (scalars.is_int(mesh.type) and check_vec3(point) and scalars.is_float(limit.type)):
        raise call.no_overload(mesh, point, limit)
    pt_grad = vec3_leaves(call, point)
    pt = tuple(stop(x) for x in pt_grad)
    lim = stop(full(call, limit.data, jnp.float32))
    run0 = active(call)
    furthest = kind == "furthest"

    def query(view: MeshView, selected: Any) -> list:
        run = run0 if selected is None else run0 & selected
        if kind == "normal":
            s = _sign_normal_walk(view, pt, lim, run, extra["epsilon"])
            found = run & (s["best"] < lim)
        else:
            s = _closest_walk(view, pt, lim * lim, run, furthest)
            found = run & ((s["best"] > lim * lim) if furthest else (s["best"] < lim * lim))
        face = s["face"]
        u, v = _weights(view, face, pt_grad, furthest)
        sign = jnp.zeros_like(u)
        if kind == "normal":
            a, b, c = view.corners(face)
            w = 1.0 - u - v
            cp = tm.add(tm.add(tm.scale(a, stop(u)), tm.scale(b, stop(v))), tm.scale(c, stop(w)))
            side = tm.dot((s["nx"], s["ny"], s["nz"]), tm.sub(pt, cp))
            sign = where(side > 0, 1.0, -1.0).astype(jnp.float32)
        elif kind == "rays" or (kind == "winding" and not view.handle.fact("winding")):
            sign = _inside_by_rays(view, pt, found)
        elif kind == "winding":
            sign = _winding_sign(view, pt, run, extra["threshold"], extra["accuracy"])
        elif kind == "parity":
            sign = _inside_by_parity(view, pt, found, extra["samples"], extra["scale"])
        return [found, sign, face, u, v]

    return per_mesh(call, mesh, query)


def _finish(call: Call, leaves: list, outs: list, out_index: int) -> Value:
    """Write the in-out arguments (``outs``, starting at argument ``out_index``) or return the struct."""
    found, sign, face, u, v = leaves
    if not outs:
        zero = jnp.zeros_like(u)
        fields = [found, where(found, sign, zero), where(found, face, 0), where(found, u, zero),
                  where(found, v, zero)]
        return value_from_leaves(MeshQueryPoint, fields)
    values = [sign, face, u, v][-len(outs):]
    for k, (target, leaf) in enumerate(zip(outs, values)):
        write_back(call, out_index + k, target, [leaf], found)
    return Value(scalars.bool_, found)


def _split(call: Call, rest: tuple, optional: int, *head: Value) -> tuple[list, list]:
    """(out arguments, optional trailing scalars) of a query called with or without out arguments."""
    outs, extras = (list(rest[:4]), list(rest[4:])) if len(rest) >= 4 else ([], list(rest))
    if len(extras) > optional:
        raise call.no_overload(*head, *rest)
    return outs, extras


def _scalar(call: Call, value: Any, default: float) -> Any:
    if value is None:
        return jnp.float32(default)
    return stop(full(call, value.data, jnp.float32))


@builtin("mesh_query_point", group="Geometry", kernel_only=True)
def mesh_query_point(call: Call, mesh: Value, point: Value, max_dist: Value, *outs: Value) -> Value:
    """Closest point on the mesh within ``max_dist`` of ``point``; the sign (< 0 inside) comes from
    three ray casts. With ``inside, face, u, v`` arguments writes them and returns whether a point
    was found; without, returns a :data:`MeshQueryPoint`."""
    if len(outs) not in (0, 4):
        raise call.no_overload(mesh, point, max_dist, *outs)
    return _finish(call, _point_query(call, mesh, point, max_dist, "rays", {}), list(outs), 3)


@builtin("mesh_query_point_no_sign", group="Geometry", kernel_only=True)
def mesh_query_point_no_sign(call: Call, mesh: Value, point: Value, max_dist: Value, *outs: Value) -> Value:
    """Closest point on the mesh within ``max_dist`` (no inside/outside test); ``face, u, v`` out
    arguments, or a :data:`MeshQueryPoint` result."""
    if len(outs) not in (0, 3):
        raise call.no_overload(mesh, point, max_dist, *outs)
    return _finish(call, _point_query(call, mesh, point, max_dist, "none", {}), list(outs), 3)


@builtin("mesh_query_furthest_point_no_sign", group="Geometry", kernel_only=True)
def mesh_query_furthest_point_no_sign(call: Call, mesh: Value, point: Value, min_dist: Value, *outs: Value) -> Value:
    """Furthest point of the mesh from ``point``, if farther than ``min_dist``."""
    if len(outs) not in (0, 3):
        raise call.no_overload(mesh, point, min_dist, *outs)
    return _finish(call, _point_query(call, mesh, point, min_dist, "furthest", {}), list(outs), 3)


@builtin("mesh_query_point_sign_normal", group="Geometry", kernel_only=True)
def mesh_query_point_sign_normal(call: Call, mesh: Value, point: Value, max_dist: Value, *rest: Value,
                                 epsilon: Value | None = None) -> Value:
    """Closest point with the sign from the angle-weighted normal of the closest features;
    ``epsilon`` (default 1e-3, relative to the mean edge length) merges near-equal distances."""
    outs, extras = _split(call, rest, 1, mesh, point, max_dist)
    if extras:
        epsilon = extras[0]
    extra = {"epsilon": _scalar(call, epsilon, 1e-3)}
    return _finish(call, _point_query(call, mesh, point, max_dist, "normal", extra), outs, 3)


@builtin("mesh_query_point_sign_winding_number", group="Geometry", kernel_only=True)
def mesh_query_point_sign_winding_number(call: Call, mesh: Value, point: Value, max_dist: Value, *rest: Value,
                                         accuracy: Value | None = None, threshold: Value | None = None) -> Value:
    """Closest point with the sign from the winding number (inside where it exceeds ``threshold``,
    default 0.5); needs ``support_winding_number=True`` (else ray casts decide)."""
    outs, extras = _split(call, rest, 2, mesh, point, max_dist)
    if extras:
        accuracy = extras[0]
    if len(extras) > 1:
        threshold = extras[1]
    extra = {"threshold": _scalar(call, threshold, 0.5), "accuracy": _scalar(call, accuracy, 2.0)}
    return _finish(call, _point_query(call, mesh, point, max_dist, "winding", extra), outs, 3)


@builtin("mesh_query_point_sign_parity", group="Geometry", kernel_only=True)
def mesh_query_point_sign_parity(call: Call, mesh: Value, point: Value, max_dist: Value, *rest: Value,
                                 n_sample: Value | None = None, perturbation_scale: Value | None = None) -> Value:
    """Closest point with the sign from the parity of ``n_sample`` (default 1) ray casts along
    randomly perturbed (1, 1, 1) directions (``perturbation_scale``, default 0.1)."""
    outs, extras = _split(call, rest, 2, mesh, point, max_dist)
    if extras:
        n_sample = extras[0]
    if len(extras) > 1:
        perturbation_scale = extras[1]
    samples = jnp.int32(1) if n_sample is None else stop(full(call, n_sample.data, jnp.int32))
    extra = {"samples": samples, "scale": _scalar(call, perturbation_scale, 0.1)}
    return _finish(call, _point_query(call, mesh, point, max_dist, "parity", extra), outs, 3)


__all__ = ["MeshQueryPoint", "mesh_query_furthest_point_no_sign", "mesh_query_point", "mesh_query_point_no_sign",
           "mesh_query_point_sign_parity",
           "mesh_query_point_sign_normal", "mesh_query_point_sign_winding_number"]
