"""Builtins called in Python scope run as one traced program per argument signature
(``jwarp/compiler/python_scope.py``), where that cannot change what they compute."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

import jwarp as wp
from jwarp.compiler import python_scope
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import Value, cast_leaf
from jwarp.lang import scalars


@builtin("_test_widened_literal", group="Test")
def widened_literal(call, x):
    """Converts its argument to float64 and adds zero as a JAX operation (so it is a traced program's
    candidate): a Python float must convert at its full precision, as Warp's literals do."""
    return Value(scalars.float64, jnp.add(cast_leaf(x.data, scalars.float64), 0.0))


def _kinds() -> dict[str, object]:
    return {signature[0]: program for signature, program in python_scope._PROGRAMS.items()}


@pytest.fixture
def fresh_programs():
    python_scope.forget()
    yield
    python_scope.forget()


def _noise_calls(state: int) -> list[np.ndarray]:
    return [np.asarray(wp.noise(state, wp.vec3(1.5, 2.5, 0.3))), np.asarray(wp.noise(state, wp.vec2(1.5, 2.5))),
            np.asarray(wp.pnoise(state, wp.vec2(1.5, 2.5), 4, 4))]


def test_many_operations_run_as_one_program_with_the_op_by_op_values(fresh_programs, monkeypatch):
    state = wp.rand_init(42)
    monkeypatch.setattr(python_scope, "MIN_OPS", 10**9)  # every signature op by op
    op_by_op = _noise_calls(state)
    assert _kinds()["noise"] is python_scope._EAGER and _kinds()["pnoise"] is python_scope._EAGER
    monkeypatch.setattr(python_scope, "MIN_OPS", 1)
    python_scope.forget()
    traced = _noise_calls(state)
    again = _noise_calls(state)
    kinds = _kinds()
    assert isinstance(kinds["noise"], python_scope._Program) and isinstance(kinds["pnoise"], python_scope._Program)
    assert len([s for s in python_scope._PROGRAMS if s[0] == "noise"]) == 2  # vec3 and vec2 signatures
    for a, b, c in zip(op_by_op, traced, again):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)
        np.testing.assert_array_equal(c, b)


def test_a_program_is_one_dispatch_per_later_call(fresh_programs):
    state = wp.rand_init(7)
    wp.noise(state, wp.vec3(0.5, 0.5, 0.5))
    program = _kinds()["noise"]
    calls = []
    original = program.run
    program.run = lambda leaves: calls.append(len(leaves)) or original(leaves)
    values = [wp.noise(state, wp.vec3(0.5 + k, 0.25, 0.75)) for k in range(3)]
    assert calls == [4, 4, 4]  # the state and the point's three components, each call through the program
    assert len(set(values)) == 3


def test_constant_folding_builtins_stay_op_by_op(fresh_programs):
    assert wp.length(wp.vec3(3.0, 4.0, 0.0)) == 5.0
    np.testing.assert_allclose(np.asarray(wp.inverse(wp.mat22(2.0, 0.0, 0.0, 4.0))), [[0.5, 0.0], [0.0, 0.25]])
    kinds = _kinds()
    assert kinds["length"] is python_scope._EAGER and kinds["inverse"] is python_scope._EAGER


def test_a_float_literal_converted_inside_the_trace_keeps_its_full_value(fresh_programs):
    assert widened_literal(0.1) == 0.1  # not float64(float32(0.1)) = 0.10000000149011612
    assert widened_literal(0.1) == 0.1
    assert widened_literal(0.7) == 0.7
    assert _kinds()["_test_widened_literal"] is python_scope._EAGER
    assert widened_literal(1.5) == 1.5  # exact in float32: the traced program gives the same
    exact = [p for s, p in python_scope._PROGRAMS.items() if s[0] == "_test_widened_literal" and not s[3]]
    assert len(exact) == 1 and isinstance(exact[0], python_scope._Program)


def test_side_effects_happen_at_every_call(fresh_programs, capsys):
    for _ in range(2):
        wp.print(wp.vec3(1.0, 2.0, 3.0))
    assert capsys.readouterr().out.count("1 2 3") == 2
    t = wp.transform(wp.vec3(0.0, 0.0, 0.0), wp.quat_identity())
    for shift in (1.0, 4.0):
        wp.transform_set_translation(t, wp.vec3(shift, shift + 1.0, shift + 2.0))
        np.testing.assert_array_equal(np.asarray(t)[:3], [shift, shift + 1.0, shift + 2.0])


def test_errors_are_the_op_by_op_errors(fresh_programs):
    for _ in range(2):
        with pytest.raises(RuntimeError, match="Couldn't find a function 'mul' compatible with the arguments"):
            wp.mul(wp.vec3d(1.0, 1.0, 1.0), 0.1)


def test_forgetting_compiled_kernels_drops_the_programs(fresh_programs):
    from jwarp.runtime.kernel import forget_compiled

    wp.noise(wp.rand_init(3), wp.vec2(0.5, 0.5))
    assert python_scope._PROGRAMS
    forget_compiled()
    assert not python_scope._PROGRAMS


def test_a_program_computes_trigonometry_with_the_op_by_op_functions(fresh_programs, monkeypatch):
    args = [float(x) for x in np.random.default_rng(4).uniform(-50.0, 50.0, 200).astype(np.float32)]
    traced = [wp.sin(x) + wp.atan2(x, 0.7) for x in args]  # (XLA's functions, not the kernels' vector code)
    assert isinstance(_kinds()["sin"], python_scope._Program)
    monkeypatch.setattr(python_scope, "MIN_OPS", 10**9)
    python_scope.forget()
    np.testing.assert_array_equal(traced, [wp.sin(x) + wp.atan2(x, 0.7) for x in args])


def test_arrays_passed_in_python_scope_are_not_kept_by_the_cache(fresh_programs):
    import gc
    import weakref

    a = wp.zeros(4, dtype=float)
    ref = weakref.ref(a)
    with pytest.raises(RuntimeError, match="Couldn't find a function 'length'"):
        wp.length(a)
    del a
    gc.collect()
    assert ref() is None
    assert not python_scope._PROGRAMS
