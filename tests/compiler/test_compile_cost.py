"""What a first launch costs to build (jwarp/compiler/kernel_compile.py, values.py, memory.py,
builtins/common.py): the kernel body is traced once per signature, both executables lower from
that trace, cheap trace paths give the same values and types as the general ones, and a store that
covers the whole plane needs no select."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import jwarp as wp
from jwarp.builtins import common
from jwarp.compiler import kernel_compile
from jwarp.compiler.lower import FunctionLowerer
from tests.compiler.jaxprs import count_primitive


def _counting(monkeypatch) -> dict:
    counts = {"body": 0, "jaxpr_eval": 0}
    run, as_fun = FunctionLowerer.run, kernel_compile.jax_core.jaxpr_as_fun

    def counted_run(self, *a, **kw):
        counts["body"] += 1
        return run(self, *a, **kw)

    def counted_as_fun(*a, **kw):
        counts["jaxpr_eval"] += 1
        return as_fun(*a, **kw)

    monkeypatch.setattr(FunctionLowerer, "run", counted_run)
    monkeypatch.setattr(kernel_compile.jax_core, "jaxpr_as_fun", counted_as_fun)
    return counts


def _make_kernel(scale: float):
    @wp.kernel(module="unique")
    def step(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float, out: wp.array(dtype=wp.vec3)):
        i = wp.tid()
        p = x[i] + v[i] * dt
        if p[1] < 0.0:
            p = p * scale
        out[i] = p

    return step


def _arrays(n: int = 16):
    rng = np.random.default_rng(3)
    x = wp.array(rng.standard_normal((n, 3)).astype(np.float32), dtype=wp.vec3)
    v = wp.array(rng.standard_normal((n, 3)).astype(np.float32), dtype=wp.vec3)
    return x, v


def _expected(x, v, dt: float, scale: float) -> np.ndarray:
    p = x.numpy() + v.numpy() * np.float32(dt)
    return np.where(p[:, 1:2] < 0, p * np.float32(scale), p)


def test_first_launch_traces_the_body_once(monkeypatch):
    counts = _counting(monkeypatch)
    x, v = _arrays()
    out = wp.zeros(16, dtype=wp.vec3)  # held by the array only: the first launch donates it
    kernel = _make_kernel(0.5)
    wp.launch(kernel, 16, inputs=[x, v, 0.1], outputs=[out])
    np.testing.assert_allclose(out.numpy(), _expected(x, v, 0.1, 0.5), rtol=1e-6)
    assert counts == {"body": 1, "jaxpr_eval": 0}
    for dt in (0.2, 0.3):  # later launches reuse the executable
        wp.launch(kernel, 16, inputs=[x, v, dt], outputs=[out])
    np.testing.assert_allclose(out.numpy(), _expected(x, v, 0.3, 0.5), rtol=1e-6)
    assert counts == {"body": 1, "jaxpr_eval": 0}


def test_plain_executable_compiles_from_the_same_trace(monkeypatch):
    counts = _counting(monkeypatch)
    x, v = _arrays()
    out = wp.zeros(16, dtype=wp.vec3)
    keep = out.numpy()  # a host view of the output buffer: no donation, the plain executable runs
    kernel = _make_kernel(2.0)
    wp.launch(kernel, 16, inputs=[x, v, 0.1], outputs=[out])
    np.testing.assert_allclose(out.numpy(), _expected(x, v, 0.1, 2.0), rtol=1e-6)
    assert counts == {"body": 1, "jaxpr_eval": 0}
    del keep


def test_executable_counts_its_programs():
    x, v = _arrays()
    kernel = _make_kernel(3.0)
    out = wp.zeros(16, dtype=wp.vec3)
    wp.launch(kernel, 16, inputs=[x, v, 0.1], outputs=[out])
    (compiled,) = kernel._cache.values()
    exe = compiled.executable()
    before = exe._cache_size()
    bases = [b.buffer for b in (x, v, out)]  # array bases first, then the other values
    exe(*bases, jnp.float32(0.1))
    exe(*bases, jnp.float32(0.2))
    assert exe._cache_size() == max(before, 1)


def test_lax_fast_path_only_where_jnp_agrees():
    seen = {}

    def probe(a, b, weak):
        seen["f32"] = common._lax_operands(a, b)
        seen["scalar_const"] = common._lax_operands(a, np.float32(2.0))
        seen["f64_const"] = common._lax_operands(a, np.float64(2.0))
        seen["weak"] = common._lax_operands(a, a + 1.0 - a)  # python float: a weak-typed operand
        seen["weak_tracer"] = common._lax_operands(a, weak)  # a Python float argument: weakly typed
        seen["bool"] = common._lax_operands(a > 0, b > 0)
        seen["shapes"] = common._lax_operands(a, b[:2])
        return common.mul(a, b) + common.sub(a, np.float32(1.0))

    a = jnp.arange(4, dtype=jnp.float32)
    b = jnp.full(4, 3.0, jnp.float32)
    out = jax.jit(probe)(a, b, 1.0)
    np.testing.assert_array_equal(np.asarray(out), np.arange(4) * 3.0 + np.arange(4) - 1.0)
    assert out.dtype == jnp.float32
    assert seen == {"f32": True, "scalar_const": True, "f64_const": False, "weak": True, "weak_tracer": False,
                    "bool": False, "shapes": False}
    assert not common._lax_operands(np.float32(1.0), np.float32(2.0))  # constants fold in numpy


@wp.kernel
def _fill_lanes(a: wp.array(dtype=float), value: float):
    i = wp.tid()
    a[i] = value + float(i)


@wp.kernel
def _fill_even(a: wp.array(dtype=float), value: float):
    i = wp.tid()
    if i % 2 == 0:
        a[i] = value


def test_stores_that_do_not_cover_the_plane_keep_the_rest():
    a = wp.array(np.full(6, -1.0, np.float32))
    wp.launch(_fill_lanes, 4, inputs=[a, 10.0])  # fewer lanes than elements
    np.testing.assert_array_equal(a.numpy(), [10, 11, 12, 13, -1, -1])
    wp.launch(_fill_lanes, 6, inputs=[a, 20.0])  # every element
    np.testing.assert_array_equal(a.numpy(), [20, 21, 22, 23, 24, 25])
    wp.launch(_fill_even, 6, inputs=[a, 0.0])  # a masked store
    np.testing.assert_array_equal(a.numpy(), [0, 21, 0, 23, 0, 25])


def test_covering_store_has_no_select():
    a = wp.zeros(8)
    wp.launch(_fill_lanes, 8, inputs=[a, 1.0])
    (compiled,) = [c for c in _fill_lanes._cache.values() if c.signature.grid == (8,)]
    assert "select_n" not in str(compiled.closed_jaxpr)


@wp.kernel(module="unique")
def _newton_sqrt(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    y = x
    while wp.abs(y * y - x) > 1.0e-4 * x:
        y = 0.5 * (y + x / y)
    out[i] = y


@wp.kernel(module="unique")
def _locked_add(total: wp.array(dtype=float), lock: wp.array(dtype=int), a: wp.array(dtype=float)):
    i = wp.tid()
    while wp.atomic_cas(lock, 0, 0, 1) == 1:
        pass
    total[0] = total[0] + a[i]
    wp.atomic_exch(lock, 0, 0)


def test_while_loop_of_threads_that_cannot_meet_has_no_serial_copy(monkeypatch):
    """A stall of a loop whose threads cannot observe each other's memory is a hang in any thread
    order: the kernel body is traced once, with no serial rerun in the program."""
    counts = _counting(monkeypatch)
    a = wp.array(np.array([2.0, 9.0, 0.25, 16.0], dtype=np.float32))
    out = wp.zeros(4, dtype=float)
    wp.launch(_newton_sqrt, 4, inputs=[a], outputs=[out])
    np.testing.assert_allclose(out.numpy(), np.sqrt(a.numpy()), rtol=1e-4)
    assert counts["body"] == 1
    (compiled,) = _newton_sqrt._cache.values()
    assert "cond" not in {e.primitive.name for e in compiled.closed_jaxpr.jaxpr.eqns}


def test_spin_lock_traces_lockstep_and_serial_bodies_once_each(monkeypatch):
    counts = _counting(monkeypatch)
    a = wp.array(np.arange(1.0, 6.0, dtype=np.float32))
    total, lock = wp.zeros(1, dtype=float), wp.zeros(1, dtype=int)
    wp.launch(_locked_add, 5, inputs=[total, lock, a])
    assert total.numpy()[0] == 15.0 and lock.numpy()[0] == 0
    assert counts["body"] == 2  # the lockstep run and the serial rerun (one loop over the threads)


@wp.kernel(module="unique")
def _count_hits(bvh: wp.uint64, lower: wp.vec3, upper: wp.vec3, out: wp.array(dtype=int)):
    i = wp.tid()
    index = int(0)
    q = wp.bvh_query_aabb(bvh, lower + wp.vec3(float(i), 0.0, 0.0), upper)
    while wp.bvh_query_next(q, index):
        out[i] += 1  # an atomic add whose old value nobody reads


@wp.kernel(module="unique")
def _first_hit(bvh: wp.uint64, lower: wp.vec3, upper: wp.vec3, out: wp.array(dtype=int)):
    i = wp.tid()
    index = int(-1)
    q = wp.bvh_query_aabb(bvh, lower + wp.vec3(float(i), 0.0, 0.0), upper)
    if wp.bvh_query_next(q, index):
        out[i] = index


def test_query_loop_counting_with_atomics_has_no_serial_copy(monkeypatch):
    """Atomics whose old values are discarded let no thread observe another: the query loop's
    kernel is traced once, with no serial rerun (which doubled such kernels' compile time)."""
    rng = np.random.default_rng(0)
    lower = (rng.random((40, 3)) * 6.0).astype(np.float32)
    bvh = wp.Bvh(wp.array(lower, dtype=wp.vec3), wp.array(lower + 1.0, dtype=wp.vec3))
    out = wp.zeros(3, dtype=int)
    counts = _counting(monkeypatch)
    wp.launch(_count_hits, 3, inputs=[bvh.id, wp.vec3(1.0, 1.0, 1.0), wp.vec3(4.0, 4.0, 4.0), out])
    upper = lower + 1.0
    expected = [int(np.sum(np.all((lower <= 4.0) & (upper >= np.array([1.0 + i, 1.0, 1.0])), axis=1)))
                for i in range(3)]
    assert out.numpy().tolist() == expected
    assert counts["body"] == 1
    # the loop's condition (the BVH walk) is in the program once, at the top of each iteration: as
    # many gathers as one bvh_query_next call outside a loop
    first = wp.zeros(3, dtype=int)
    wp.launch(_first_hit, 3, inputs=[bvh.id, wp.vec3(1.0, 1.0, 1.0), wp.vec3(4.0, 4.0, 4.0), first])
    (loop,), (single,) = _count_hits._cache.values(), _first_hit._cache.values()
    gathers = count_primitive(loop.closed_jaxpr.jaxpr, "gather")
    assert gathers == count_primitive(single.closed_jaxpr.jaxpr, "gather") > 0


@wp.func
def _wide(p: wp.vec3):
    # a body big enough that 32 copies of it are a slow compile
    a = wp.dot(p, p) + p[0] * p[1] - p[2] * wp.sin(p[0]) + wp.cos(p[1]) * p[2] + wp.sqrt(wp.abs(p[0]))
    b = wp.dot(p, wp.vec3(a, 1.0, 2.0)) - wp.length(p) * a + wp.exp(-a * a) * p[1] + wp.log(1.0 + a * a)
    c = wp.cross(p, wp.vec3(a, b, 1.0))
    d = wp.normalize(c + wp.vec3(1.0, 2.0, 3.0)) * (a - b) + wp.vec3(wp.tanh(a), wp.atan(b), wp.floor(a))
    e = d * wp.max(a, b) + c * wp.min(a, b) - p * wp.clamp(a, -1.0, 1.0) + wp.vec3(wp.sign(b), a * b, b - a)
    f = wp.vec3(wp.dot(d, e), wp.dot(c, e), wp.dot(p, d)) + e * wp.abs(b) - d * wp.sqrt(wp.abs(a) + 1.0)
    g = f * wp.dot(f, e) + wp.cross(f, d) - wp.vec3(wp.length(f), wp.length(e), wp.length(d))
    return wp.normalize(g + f + e + d + c + wp.vec3(1.0, 1.0, 1.0))


@wp.kernel(module="unique")
def _loops(x: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    small = float(0.0)
    for k in range(100):  # a small body: unrolled by wp.config.loop_unroll
        small = small + x[i][k % 3] * float(k)
    nested = float(0.0)
    for k in range(100):  # a loop inside: kept rolled
        j = int(0)
        while j < i % 3:
            nested = nested + x[i][j]
            j = j + 1
    wide = wp.vec3()
    for k in range(100):  # a large function body: kept rolled
        wide = _wide(wide + x[i])
    out[i] = small + nested + wide[0]


def test_long_constant_loops_unroll_only_small_bodies():
    x = wp.array(np.ones((8, 3), np.float32), dtype=wp.vec3)
    out = wp.zeros(8, dtype=float)
    wp.launch(_loops, 8, inputs=[x], outputs=[out])
    compiled = [c for c in _loops._cache.values() if hasattr(c, "closed_jaxpr")][0]
    unrolls = [eqn.params["unroll"] for eqn in compiled.closed_jaxpr.jaxpr.eqns if eqn.primitive.name == "scan"]
    assert unrolls == [wp.config.loop_unroll, 1, 1]
    assert np.all(np.isfinite(out.numpy()))
