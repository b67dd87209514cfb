"""Ray queries and per-face evaluation: ``mesh_query_ray``, ``mesh_eval_position``,
``mesh_eval_velocity``, ``mesh_eval_face_normal``, ``mesh_get_point``/``_velocity``/``_index``, ``mesh_get``.

``mesh_query_ray`` walks the BVH keeping each lane's nearest hit (Warp's watertight ray-triangle
test, :func:`jwarp.builtins.triangle_math.intersect_ray_triangle`), entering only boxes the ray
meets before its best hit. The hit is then recomputed on the face found from the differentiable
ray, so ``t``, ``u``, ``v`` carry gradients to ``start`` and ``dir`` as in Warp.

Example:
    >>> import jwarp as wp
    >>> @wp.kernel
    ... def cast(mesh: wp.uint64, starts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    ...     i = wp.tid()
    ...     q = wp.mesh_query_ray(mesh, starts[i], wp.vec3(0.0, 0.0, -1.0), 1.0e6)
    ...     if q.result:
    ...         out[i] = q.t
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from jwarp.builtins import bvh_trail
from jwarp.builtins import triangle_math as tm
from jwarp.builtins.bvh_walk import subtree, walk, walk_nearest
from jwarp.builtins.common import Call, Value
from jwarp.builtins.mesh_common import (MeshView, active, check_vec3, full, per_mesh, stop, vec3_leaves,
                                        write_back)
from jwarp.builtins.mesh_point_queries import _struct
from jwarp.compiler import handles
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import leaves_of, value_from_leaves
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import ArrayType
from jwarp.compiler.selects import clip, where

MeshQueryRay = _struct("MeshQueryRay", {"result": scalars.bool_, "sign": scalars.float32, "face": scalars.int32,
                                        "t": scalars.float32, "u": scalars.float32, "v": scalars.float32,
                                        "normal": composites.vec3})
"""The result of a ray query (Warp's ``mesh_query_ray_t``)."""

MeshStruct = _struct("Mesh", {"points": ArrayType(composites.vec3), "velocities": ArrayType(composites.vec3),
                              "indices": ArrayType(scalars.int32)})
"""What ``wp.mesh_get(id)`` returns: the mesh's arrays."""


def _safe_rcp(direction: tuple) -> tuple:
    tiny = jnp.float32(1.0e-20)
    return tuple(1.0 / where(d == 0, tiny, d) for d in direction)


RAY_POOL = 16384
"""Rays walked at once (the lane pool of :func:`jwarp.builtins.bvh_trail.walk_trail`). Ray walks have
similar lengths, and a wider pool pays each step's fixed costs over more lanes: 1M camera rays onto
a 16k-triangle sphere, 2-core CPU, alternating runs: 200-207 ms with 4096, 165-180 ms with 16384
(Warp 198-200 ms). Point queries walk in pools of 64-256 (``lane_pool.uneven_width``): their walks vary more."""
COUNT_POOL = 1024
"""Rays walked at once by ``mesh_query_ray_count_intersections``: a count visits every entered leaf,
so its walks vary more than a first hit's. CPU ms on the 16k-triangle sphere (one core,
``benchmarks/bench_mesh_queries.py <side> 1024 3 count``), 4,096 / 65,536 / 1M camera rays:
8.9 / 45.5 / 388 with 16384 lanes, 10.4 / 29.2 / 383 with 4096, 7.3 / 27.9 / 371 with 1024,
4.2 / 28.9 / 411 with 256 (Warp 2.8 / 28.5 / 345)."""

_RAY_KEYS = ("ox", "oy", "oz", "dx", "dy", "dz", "rx", "ry", "rz")
_SETUP_KEYS = ("kx", "ky", "kz", "shx", "shy", "shz")


def _ray_state(start: tuple, direction: tuple, rcp: tuple) -> dict:
    """A ray's lane arrays (and its triangle-test constants) as walk state: lanes are repacked
    during walks, so callbacks read them there."""
    return {**dict(zip(_RAY_KEYS, (*start, *direction, *rcp))), **dict(zip(_SETUP_KEYS, tm.ray_setup(direction)))}


def _ray_of(s: dict) -> tuple:
    return (s["ox"], s["oy"], s["oz"]), (s["dx"], s["dy"], s["dz"]), (s["rx"], s["ry"], s["rz"])


def _hit(s: dict, a: tuple, b: tuple, c: tuple) -> tuple:
    start, direction, _ = _ray_of(s)
    return tm.intersect_ray_triangle(start, direction, a, b, c, tuple(s[k] for k in _SETUP_KEYS))


def _from_root(view: MeshView, root: Any, shape: tuple) -> dict:
    """The walk's start node and end (the subtree of ``root``; the whole tree without one)."""
    if root is None:
        return {"node": jnp.zeros(shape, jnp.int32)}
    start, end = subtree(view.tree, jnp.broadcast_to(root, shape))
    return {"node": start, "end": end}


def closest_hit(view: MeshView, start: tuple, direction: tuple, max_t: Any, run: Any, robust: Any = None,
                root: Any = None, first: bool = False) -> dict:
    """The nearest hit per lane with ``0 <= t < max_t`` (within the subtree ``root``): keys hit, t,
    face, sign. Nearer boxes are visited first and boxes entered beyond the best hit are skipped.
    ``first``: a lane stops at its first hit (any-hit; ``t`` is then that hit's distance)."""
    shape = run.shape
    robust_arg = robust
    rcp = _safe_rcp(direction) if robust is None else tuple(1.0 / d for d in direction)
    if robust is None:
        robust = (direction[0] == 0) | (direction[1] == 0) | (direction[2] == 0)
    else:
        robust = jnp.asarray(bool(robust))
    node = _from_root(view, root, shape)["node"]
    state = {"node": node, "t": max_t, "face": jnp.zeros(shape, jnp.int32),
             **_ray_state(start, direction, rcp), "robust": robust}

    def enter(s: dict, lower: tuple, upper: tuple) -> tuple:
        hit, t = tm.ray_box_entry(*_ray_of(s), lower, upper, s["robust"])
        return hit & (t < s["t"]), t

    def candidate(s: dict, prim: Any, corners: tuple) -> Any:
        hit, t, _, _, _ = _hit(s, *corners)
        return _after_ties(where(hit & (t >= 0), t, jnp.inf), *corners)

    if root is None and bvh_trail.supported(view.face_count, bool(view.handle.fact("grouped"))):
        def leaf_data(*corners: tuple) -> list:  # after the corners, 1.0 for a sliver (see _after_ties)
            return [tm.is_sliver(*corners).astype(jnp.float32)]

        def tested(s: dict, prim: Any, cols: tuple) -> Any:
            hit, t, _, _, _ = _hit(s, cols[0:3], cols[3:6], cols[6:9])
            t = where(hit & (t >= 0), t, jnp.inf)
            return where(cols[9] > 0, jnp.nextafter(t, jnp.inf), t)

        def enter_fast(s: dict, lower: tuple, upper: tuple) -> tuple:
            start_, _, rcp_ = _ray_of(s)
            hit, t = tm.ray_box_entry_fast(start_, rcp_, lower, upper)
            return hit & (t < s["t"]), t

        safe = robust_arg is None

        def derive(lanes: Any) -> dict:
            """A ray's reciprocal direction and triangle-test constants, when it enters the pool, and
            whether it needs the general box test (robust, or an infinite reciprocal: Warp's minima
            then ignore NaNs, which the plain test's minima need not)."""
            d = tuple(lanes[k] for k in ("dx", "dy", "dz"))
            r = _safe_rcp(d) if safe else tuple(1.0 / x for x in d)
            robust_ = (d[0] == 0) | (d[1] == 0) | (d[2] == 0) if safe else lanes["robust"]
            general = robust_ | ~(jnp.isfinite(r[0]) & jnp.isfinite(r[1]) & jnp.isfinite(r[2]))
            return {**dict(zip(("rx", "ry", "rz"), r)), **dict(zip(_SETUP_KEYS, tm.ray_setup(d))),
                    "general": general, **({"robust": robust_} if safe else {})}

        rows = view.trail_rows(leaf_data)
        derived = ("node", "rx", "ry", "rz") + _SETUP_KEYS + (("robust",) if safe else ())
        lean = {k: v for k, v in state.items() if k not in derived}
        stop_at = None
        if first:  # any hit will do: a lane stops at its first one (nearer child first, as Warp's any-hit)
            lean["limit"] = max_t
            stop_at = lambda s_: s_["t"] < s_["limit"]  # noqa: E731
        s = dict(state, **bvh_trail.walk_trail(rows, view.face_count, lean, run, enter, tested,
                                               fast=(enter_fast, "general"), derive=derive, stop=stop_at,
                                               pool=RAY_POOL, leaf_columns={"sliver": 9}))
    else:
        s = walk_nearest(view.tree, state, run, enter, candidate, fetch=view.corners, depth=view.depth)
    found = s["t"] < max_t
    corners = view.corners(s["face"])  # gathered only where a result reads them (sign, u, v, normal)
    hit = run & found
    _, _, _, _, sign = _hit(s, *corners)
    sliver = s.pop("sliver") > 0 if "sliver" in s else tm.is_sliver(*corners)
    t = where(found & sliver, jnp.nextafter(s["t"], -jnp.inf), s["t"])  # (see _after_ties)
    return dict(s, t=t, hit=hit, sign=where(hit, sign, jnp.ones_like(sign)))


def _after_ties(t: Any, a: tuple, b: tuple, c: tuple) -> Any:
    """A sliver face's hit distance one float later, so that at an exact tie with a proper face (a ray
    through their shared edge) the proper face wins whatever order the walk visits them in: a sliver's
    barycentric derivatives are ill-conditioned (on Warp's torus asset a hit on one gave the hit point
    a gradient of 20.6 where Warp's, on the proper face, is 0). :func:`closest_hit` takes the float back."""
    return where(tm.is_sliver(a, b, c), jnp.nextafter(t, jnp.inf), t)


@jax.custom_jvp
def _hit_distance(t_walk: Any, start: tuple, direction: tuple, a: tuple, b: tuple, c: tuple) -> Any:
    """The hit distance of the ray on triangle ``abc``: ``t_walk``, the value the walk computed with
    the same arithmetic (so a launch that is not differentiated does not test the face again); its
    derivative is that of :func:`jwarp.builtins.triangle_math.intersect_ray_triangle`'s ``t`` with
    respect to ``start`` and ``direction`` (the corners are constants)."""
    return t_walk


@_hit_distance.defjvp
def _hit_distance_jvp(primals: tuple, tangents: tuple) -> tuple:
    t_walk, start, direction, a, b, c = primals

    def distance(st: tuple, d: tuple) -> Any:
        return tm.intersect_ray_triangle(st, d, a, b, c)[1]

    _, dt = jax.jvp(distance, (start, direction), (tangents[1], tangents[2]))
    return t_walk, dt


@builtin("mesh_query_ray", group="Geometry", kernel_only=True)
def mesh_query_ray(call: Call, mesh: Value, start: Value, dir: Value, max_t: Value, *rest: Value) -> Value:
    """Nearest hit of the ray ``start + t dir`` (``0 <= t < max_t``) with the mesh. With
    ``t, u, v, sign, normal, face`` (and an optional group ``root``) arguments writes them and
    returns whether it hit; with at most ``root``, returns a :data:`MeshQueryRay`."""
    if not (scalars.is_int(mesh.type) and check_vec3(start) and check_vec3(dir) and scalars.is_float(max_t.type)):
        raise call.no_overload(mesh, start, dir, max_t, *rest)
    outs = list(rest[:6]) if len(rest) >= 6 else []
    if len(rest) not in (0, 1, 6, 7):
        raise call.no_overload(mesh, start, dir, max_t, *rest)
    root = _root(call, rest[-1] if len(rest) in (1, 7) else None)
    s_grad, d_grad = vec3_leaves(call, start), vec3_leaves(call, dir)
    s0, d0 = _lane_invariant(start, s_grad), _lane_invariant(dir, d_grad)
    limit = stop(full(call, max_t.data, jnp.float32))
    run0 = active(call)

    def query(view: MeshView, selected: Any) -> list:
        run = run0 if selected is None else run0 & selected
        s = closest_hit(view, s0, d0, limit, run, root=root)
        found = run & s["hit"]
        a, b, c = (tuple(stop(x) for x in corner) for corner in view.corners(s["face"]))
        _, _, u, v, sign = tm.intersect_ray_triangle(s_grad, d_grad, a, b, c)
        t = _hit_distance(s["t"], s_grad, d_grad, a, b, c)
        normal = tm.normalize(tm.cross(tm.sub(b, a), tm.sub(c, a)))
        return [found, sign, s["face"], t, u, v, *normal]

    found, sign, face, t, u, v, *normal = per_mesh(call, mesh, query)
    if not outs:
        zero = jnp.zeros_like(t)
        keep = [where(found, x, zero) for x in (sign, t, u, v, *normal)]
        fields = [found, keep[0], where(found, face, 0), keep[1], keep[2], keep[3], *keep[4:]]
        return value_from_leaves(MeshQueryRay, fields)
    for k, (target, leaves) in enumerate(zip(outs, ([t], [u], [v], [sign], normal, [face]))):
        write_back(call, 4 + k, target, list(leaves), found)
    return Value(scalars.bool_, found)


def _trail_supported(view: MeshView, root: Any) -> bool:
    return root is None and bvh_trail.supported(view.face_count, bool(view.handle.fact("grouped")))


def _trail_count(view: MeshView, state: dict, run: Any) -> Any:
    """The face count of :func:`count_hits` over :func:`jwarp.builtins.bvh_trail.walk_trail`: every
    entered leaf adds its hit (the visiting order, nearer child first, does not change a count);
    Warp's robust box test with ``rcp = 1 / dir``, the plain one for chunks of lanes whose
    reciprocals are all finite (then both agree). ``state`` holds the ray, ``robust`` and ``count``."""
    def enter(s: dict, lower: tuple, upper: tuple) -> tuple:
        return tm.ray_box_entry(*_ray_of(s), lower, upper, s["robust"])

    def enter_fast(s: dict, lower: tuple, upper: tuple) -> tuple:
        start_, _, rcp_ = _ray_of(s)
        return tm.ray_box_entry_fast(start_, rcp_, lower, upper)

    def derive(lanes: Any) -> dict:
        d = tuple(lanes[k] for k in ("dx", "dy", "dz"))
        r = tuple(1.0 / x for x in d)
        general = lanes["robust"] | ~(jnp.isfinite(r[0]) & jnp.isfinite(r[1]) & jnp.isfinite(r[2]))
        return {**dict(zip(("rx", "ry", "rz"), r)), **dict(zip(_SETUP_KEYS, tm.ray_setup(d))), "general": general}

    def counted(s: dict, prim: Any, cols: tuple) -> dict:
        hit, t, _, _, _ = _hit(s, cols[0:3], cols[3:6], cols[6:9])
        return {"count": s["count"] + (hit & (t >= 0)).astype(jnp.int32)}

    rows = view.trail_rows(lambda *corners: [])
    lean = {k: v for k, v in state.items() if k not in ("node", "end", "rx", "ry", "rz") + _SETUP_KEYS}
    return bvh_trail.walk_trail(rows, view.face_count, lean, run, enter, None, best="count", best_prim=None,
                                fast=(enter_fast, "general"), derive=derive, update=counted, pool=COUNT_POOL)["count"]


def count_hits(view: MeshView, start: tuple, direction: tuple, run: Any, root: Any = None) -> Any:
    """Number of faces each lane's ray meets at ``t >= 0`` (Warp's robust box test, ``rcp = 1 / dir``),
    within the subtree ``root``."""
    shape = run.shape
    rcp = tuple(1.0 / d for d in direction)
    robust = True
    if _trail_supported(view, root):
        state = {"count": jnp.zeros(shape, jnp.int32), **_ray_state(start, direction, rcp),
                 "robust": jnp.asarray(True)}
        return _trail_count(view, state, run)

    def enter(s: dict, lower: tuple, upper: tuple) -> Any:
        return tm.ray_box_entry(*_ray_of(s), lower, upper, robust)[0]

    def leaf(s: dict, prim: Any, take: Any) -> tuple:
        a, b, c = view.corners(prim)
        hit, t, _, _, _ = _hit(s, a, b, c)
        counted = take & hit & (t >= 0)
        return dict(s, count=s["count"] + counted.astype(jnp.int32)), counted

    state = {**_from_root(view, root, shape), "count": jnp.zeros(shape, jnp.int32),
             **_ray_state(start, direction, rcp)}
    return walk(view.tree, state, run, enter, leaf)["count"]


def _root(call: Call, root: Value | None) -> Any:
    """The lanes' ``root`` node (None: the whole tree)."""
    if root is None:
        return None
    if not scalars.is_int(root.type):
        raise call.no_overload(root)
    return full(call, root.data, jnp.int32)


def _lane_invariant(value: Value, lanes_: tuple) -> tuple:
    """A vec3 argument's components for a walk (without gradient): scalars when the kernel passed the
    same vector to every lane (the walk keeps them out of its lane data), else the lane arrays."""
    raw = leaves_of(value)
    if all(jnp.ndim(x) == 0 for x in raw):
        return tuple(stop(jnp.asarray(x).astype(jnp.float32)) for x in raw)
    return tuple(stop(x) for x in lanes_)


def _ray_args(call: Call, mesh: Value, start: Value, dir: Value, *scalars_: Value) -> tuple:
    if not (scalars.is_int(mesh.type) and check_vec3(start) and check_vec3(dir)):
        raise call.no_overload(mesh, start, dir, *scalars_)
    return _lane_invariant(start, vec3_leaves(call, start)), _lane_invariant(dir, vec3_leaves(call, dir))


@builtin("mesh_query_ray_count_intersections", group="Geometry", kernel_only=True)
def mesh_query_ray_count_intersections(call: Call, mesh: Value, start: Value, dir: Value,
                                       root: Value | None = None) -> Value:
    """How many faces the ray ``start + t dir`` (``t >= 0``) crosses."""
    s0, d0 = _ray_args(call, mesh, start, dir)
    run0 = active(call)
    top = _root(call, root)

    def query(view: MeshView, selected: Any) -> list:
        return [count_hits(view, s0, d0, run0 if selected is None else run0 & selected, top)]

    return Value(scalars.int32, per_mesh(call, mesh, query)[0])


@builtin("mesh_query_ray_anyhit", group="Geometry", kernel_only=True)
def mesh_query_ray_anyhit(call: Call, mesh: Value, start: Value, dir: Value, max_t: Value,
                          root: Value | None = None) -> Value:
    """Whether the ray meets any face at ``0 <= t < max_t`` (stops at the first hit found)."""
    s0, d0 = _ray_args(call, mesh, start, dir, max_t)
    limit = stop(full(call, max_t.data, jnp.float32))
    run0 = active(call)
    rcp = _safe_rcp(d0)
    robust = (d0[0] == 0) | (d0[1] == 0) | (d0[2] == 0)
    top = _root(call, root)

    def query(view: MeshView, selected: Any) -> list:
        def enter(s: dict, lower: tuple, upper: tuple) -> Any:
            hit, t = tm.ray_box_entry(*_ray_of(s), lower, upper, s["robust"])
            return hit & (t < s["limit"])

        def leaf(s: dict, prim: Any, take: Any) -> tuple:
            a, b, c = view.corners(prim)
            hit, t, _, _, _ = _hit(s, a, b, c)
            return s, take & hit & (t < s["limit"]) & (t >= 0)

        run = run0 if selected is None else run0 & selected
        state = {**_from_root(view, top, run.shape), "limit": limit, "robust": robust,
                 **_ray_state(s0, d0, rcp)}
        if _trail_supported(view, top):  # a closest-hit walk whose lanes stop at their first hit
            return [closest_hit(view, s0, d0, limit, run, first=True)["hit"]]
        s = walk(view.tree, state, run, enter, leaf, stop_on_accept=True)
        return [s["found"]]

    return Value(scalars.bool_, per_mesh(call, mesh, query)[0])


def _face_value(call: Call, mesh: Value, face: Value, u: Value, v: Value, table: str) -> Value:
    if not (scalars.is_int(mesh.type) and scalars.is_int(face.type) and scalars.is_float(u.type)
            and scalars.is_float(v.type)):
        raise call.no_overload(mesh, face, u, v)
    f = full(call, face.data, jnp.int32)
    uu, vv = full(call, u.data, jnp.float32), full(call, v.data, jnp.float32)

    def evaluate(view: MeshView, selected: Any) -> list:
        if table == "velocities" and not view.handle.fact("velocities"):
            return [jnp.zeros_like(uu)] * 3
        source = view.points if table == "points" else view.velocities()
        a, b, c = view.corners(f, source)
        w = 1.0 - uu - vv
        return list(tm.add(tm.add(tm.scale(a, uu), tm.scale(b, vv)), tm.scale(c, w)))

    return value_from_leaves(composites.vec3, per_mesh(call, mesh, evaluate))


@builtin("mesh_eval_position", group="Geometry", kernel_only=True)
def mesh_eval_position(call: Call, mesh: Value, face: Value, bary_u: Value, bary_v: Value) -> Value:
    """The point ``u a + v b + (1 - u - v) c`` of face ``face``."""
    return _face_value(call, mesh, face, bary_u, bary_v, "points")


@builtin("mesh_eval_velocity", group="Geometry", kernel_only=True)
def mesh_eval_velocity(call: Call, mesh: Value, face: Value, bary_u: Value, bary_v: Value) -> Value:
    """The velocity interpolated at barycentric ``(u, v)`` of face ``face`` (zero without velocities)."""
    return _face_value(call, mesh, face, bary_u, bary_v, "velocities")


@builtin("mesh_eval_face_normal", group="Geometry", kernel_only=True)
def mesh_eval_face_normal(call: Call, mesh: Value, face: Value) -> Value:
    """The unit normal of face ``face`` (counter-clockwise winding)."""
    f = full(call, face.data, jnp.int32)

    def evaluate(view: MeshView, selected: Any) -> list:
        a, b, c = view.corners(f)
        return list(tm.normalize(tm.cross(tm.sub(b, a), tm.sub(c, a))))

    return value_from_leaves(composites.vec3, per_mesh(call, mesh, evaluate))


def _vertex(call: Call, mesh: Value, index: Value, table: str) -> Value:
    i = full(call, index.data, jnp.int32)

    def read(view: MeshView, selected: Any) -> list:
        if table == "velocities" and not view.handle.fact("velocities"):
            return [jnp.zeros(i.shape, jnp.float32)] * 3
        rows = (view.points if table == "points" else view.velocities()).at[clip(i, 0, None)].get(
            mode="clip")
        return [rows[..., k] for k in range(3)]

    return value_from_leaves(composites.vec3, per_mesh(call, mesh, read))


@builtin("mesh_get_point", group="Geometry", kernel_only=True)
def mesh_get_point(call: Call, mesh: Value, index: Value) -> Value:
    """Point ``mesh.indices[index]`` of the mesh (``index`` counts face corners)."""
    corner = full(call, index.data, jnp.int32)

    def read(view: MeshView, selected: Any) -> list:
        tri = view.tris.reshape(-1).at[corner].get(mode="clip")
        rows = view.points.at[tri].get(mode="clip")
        return [rows[..., k] for k in range(3)]

    return value_from_leaves(composites.vec3, per_mesh(call, mesh, read))


@builtin("mesh_get_velocity", group="Geometry", kernel_only=True)
def mesh_get_velocity(call: Call, mesh: Value, index: Value) -> Value:
    """Velocity of corner ``index`` (counts face corners; zero without velocities)."""
    corner = full(call, index.data, jnp.int32)

    def read(view: MeshView, selected: Any) -> list:
        if not view.handle.fact("velocities"):
            return [jnp.zeros(corner.shape, jnp.float32)] * 3
        tri = view.tris.reshape(-1).at[corner].get(mode="clip")
        rows = view.velocities().at[tri].get(mode="clip")
        return [rows[..., k] for k in range(3)]

    return value_from_leaves(composites.vec3, per_mesh(call, mesh, read))


@builtin("mesh_get_index", group="Geometry", kernel_only=True)
def mesh_get_index(call: Call, mesh: Value, index: Value) -> Value:
    """The vertex index stored at corner ``index`` of the mesh's index buffer."""
    corner = full(call, index.data, jnp.int32)

    def read(view: MeshView, selected: Any) -> list:
        return [view.tris.reshape(-1).at[corner].get(mode="clip")]

    return Value(scalars.int32, per_mesh(call, mesh, read)[0])


@builtin("mesh_get", group="Geometry", kernel_only=True)
def mesh_get(call: Call, mesh: Value) -> Value:
    """The mesh's arrays as a struct: ``points``, ``velocities``, ``indices``."""
    call.require_kernel()
    found = handles.candidates(call, mesh, "mesh", "Mesh")
    if len(found) > 1:
        raise call.no_overload(mesh, extra="wp.mesh_get() needs a single mesh per launch")
    handle = found[0][0]
    arrays = handle.arrays
    return Value(MeshStruct, (arrays["points"].data, arrays["velocities"].data, arrays["indices"].data))


__all__ = ["MeshQueryRay", "MeshStruct", "closest_hit", "count_hits", "mesh_query_ray_anyhit",
           "mesh_query_ray_count_intersections", "mesh_eval_face_normal", "mesh_eval_position",
           "mesh_eval_velocity", "mesh_get", "mesh_get_index", "mesh_get_point", "mesh_get_velocity",
           "mesh_query_ray"]
