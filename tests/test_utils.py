"""``jwarp.utils`` against real Warp: every scenario runs with both libraries and compares
results, errors (type and message) and tape behaviour; ``ScopedTimer`` prints like Warp."""

from __future__ import annotations

import re

import numpy as np
import pytest

import jwarp as wp
from tests.differential.harness import real_warp


def _both(scenario):
    """``scenario(lib)`` with jwarp, and with Warp when installed: returns (jwarp, warp or None)."""
    warp = real_warp()
    return scenario(wp), (scenario(warp) if warp is not None else None)


def _compare(scenario, rtol: float = 1e-6, atol: float = 1e-6) -> dict:
    ours, theirs = _both(scenario)
    if theirs is None:
        return ours
    assert ours.keys() == theirs.keys()
    for key in ours:
        a, b = np.asarray(ours[key]), np.asarray(theirs[key])
        assert a.shape == b.shape and a.dtype == b.dtype, (key, a, b)
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=key)
    return ours


def _f32(lib, values, dtype=None, shape=None):
    return lib.array(np.asarray(values, dtype=np.float32).reshape(shape or np.shape(values)),
                     dtype=dtype or lib.float32)


# -- reductions ------------------------------------------------------------------------------------
def _reductions(lib):
    U = lib.utils
    a = lib.array(np.arange(12, dtype=np.float32).reshape(3, 4) * 0.25)
    d = lib.array(np.linspace(-1, 1, 7))  # float64
    v = _f32(lib, np.arange(12) * 0.5, lib.vec3, (4, 3))
    out = lib.zeros((3, 1))
    U.array_sum(a, out=out, axis=1)
    return {
        "sum": U.array_sum(a), "sum64": U.array_sum(d), "sum_count": U.array_sum(a, value_count=5),
        "sum_axis0": U.array_sum(a, axis=0).numpy().copy(),
        "sum_axis_neg": U.array_sum(a, axis=-1, value_count=2).numpy().copy(),
        "sum_out": out.numpy().copy(), "sum_vec": U.array_sum(v),
        "sum_vec_axis": U.array_sum(v, axis=0).numpy().copy(),
        "sum_empty": U.array_sum(lib.zeros(0)), "sum_empty_vec": U.array_sum(lib.zeros(0, dtype=lib.vec3)),
        "inner": U.array_inner(a, a), "inner64": U.array_inner(d, d), "inner_vec": U.array_inner(v, v),
        "inner_axis": U.array_inner(a, a, axis=0, count=2).numpy().copy(),
        "inner_vec_axis": U.array_inner(v, v, axis=0).numpy().copy(),
        "inner_empty": U.array_inner(lib.zeros(0), lib.zeros(0)),
    }


def test_reductions_match_warp():
    ours = _compare(_reductions, rtol=1e-6)
    assert isinstance(ours["sum"], np.float32) and isinstance(ours["sum64"], np.float64)
    assert isinstance(ours["inner_empty"], float) and ours["sum_vec"].shape == (3,)


def test_reductions_of_strided_views_use_the_view_elements():
    # Warp 1.19 reads a non-contiguous view with axis=None as if it were contiguous (it sums
    # a[1, 2] and a[1, 3] here); jwarp sums the view's own elements.
    a = wp.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert wp.utils.array_sum(a[1:, 2]) == 6 + 10
    assert wp.utils.array_inner(a[:, 1], a[:, 3]) == 1 * 3 + 5 * 7 + 9 * 11


def test_reductions_return_their_out_array_and_are_not_taped():
    def scenario(lib):
        x = lib.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
        out, out2 = lib.zeros(1, requires_grad=True), lib.zeros(1, requires_grad=True)
        tape = lib.Tape()
        with tape:
            same = lib.utils.array_sum(x, out=out) is out
            lib.utils.array_inner(x, x, out=out2)
        return {"same": same, "launches": len(tape.launches), "out": out.numpy().copy(), "out2": out2.numpy().copy()}

    ours = _compare(scenario)
    assert ours["same"] and ours["launches"] == 0


# -- scan ------------------------------------------------------------------------------------------
def _scans(lib):
    U = lib.utils
    res = {}
    for name, dtype, values in (("i32", lib.int32, np.arange(1, 9)), ("i64", lib.int64, np.arange(-4, 4) * 3),
                                ("f32", lib.float32, np.linspace(0, 2, 8)),
                                ("f64", lib.float64, np.linspace(-1, 3, 8))):
        x = lib.array(values, dtype=dtype)
        for inclusive in (True, False):
            y = lib.zeros(8, dtype=dtype)
            U.array_scan(x, y, inclusive=inclusive)
            res[f"{name}_{inclusive}"] = y.numpy().copy()
    v = _f32(lib, np.arange(12), lib.vec2, (6, 2))
    y = lib.zeros(6, dtype=lib.vec2)
    U.array_scan(v, y, inclusive=False)
    res["vec"] = y.numpy().copy()
    m = lib.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    flat = lib.zeros(6)
    U.array_scan(m, flat)
    res["2d_to_1d"] = flat.numpy().copy()
    grid = lib.array(np.arange(12, dtype=np.float32).reshape(4, 3))
    target = lib.zeros((4, 3))
    U.array_scan(grid[:, 1], target[:, 2])
    res["strided"] = target.numpy().copy()
    return res


def test_scan_matches_warp():
    _compare(_scans)


# -- sorting ---------------------------------------------------------------------------------------
def _sorts(lib):
    U = lib.utils
    res = {}
    cases = {
        "int32": (lib.int32, [3, -1, 2, -1, 0, 7, -9, 7]),
        "uint32": (lib.uint32, [7, 2**31 + 5, 1, 2**32 - 1, 0, 3, 1, 9]),
        "int64": (lib.int64, [5, -7, 2**40, -(2**40), 0, 3, 3, -1]),
        "uint64": (lib.uint64, [2**63, 1, 2**40, 0, 5, 5, 7, 2**64 - 1]),
        "float32": (lib.float32, [0.5, -0.0, 0.0, -3.0, np.nan, -np.inf, np.inf, 1.0]),
        "float64": (lib.float64, [1e300, -1e-300, 0.0, -0.0, 2.5, -2.5, 2.5, np.inf]),
    }
    for name, (dtype, keys) in cases.items():
        n = len(keys)
        k = lib.array(np.array(keys + [0] * n, dtype=np.dtype(name)), dtype=dtype)
        values = lib.array(np.arange(2 * n, dtype=np.int32))
        U.radix_sort_pairs(k, values, n)
        res[name] = (k.numpy().copy()[:n], values.numpy().copy()[:n])
    k = lib.array(np.array([0b1011, 0b0110, 0b1101, 0b0001, 0b1110, 0, 0, 0, 0, 0], dtype=np.uint32))
    values = lib.array(np.arange(20, dtype=np.float16).reshape(10, 2), dtype=lib.vec2h)  # 4-byte values
    U.radix_sort_pairs(k, values, 5, begin_bit=1, end_bit=3)
    res["bits"] = (k.numpy().copy()[:5], values.numpy().copy()[:5])
    k = lib.array(np.array([4, 3, 2, 1, 0, 0, 0, 0], dtype=np.int32))
    values = lib.array(np.arange(8, dtype=np.float64))  # 8-byte values
    U.radix_sort_pairs(k, values, 4, begin_bit=5, end_bit=5)  # empty bit range: unchanged
    res["empty_range"] = (k.numpy().copy()[:4], values.numpy().copy()[:4])
    U.radix_sort_pairs(k, values, 4)
    res["f64_values"] = (k.numpy().copy()[:4], values.numpy().copy()[:4])
    return {f"{key}_{i}": part for key, pair in res.items() for i, part in enumerate(pair)}


def test_radix_sort_matches_warp():
    _compare(_sorts, rtol=0, atol=0)


def _segmented(lib):
    U = lib.utils
    res = {}
    keys = [5, 3, 9, 1, 1, 0, 7, 2, 8, 6]
    for name, dtype, segs, ends in (("adjacent", lib.int32, [0, 3, 3, 7, 10], None),
                                    ("explicit", lib.int32, [1, 6], [4, 9]),
                                    ("float", lib.float32, [0, 5], [5, 10]),
                                    ("unordered", lib.int32, [6, 0], [10, 4])):
        k = lib.array(np.array(keys + [0] * 10), dtype=dtype)
        values = lib.array(np.arange(20, dtype=np.int32))
        start = lib.array(np.array(segs, dtype=np.int32))
        end = None if ends is None else lib.array(np.array(ends, dtype=np.int32))
        U.segmented_sort_pairs(k, values, 10, start, end)
        res[f"{name}_keys"], res[f"{name}_values"] = k.numpy().copy()[:10], values.numpy().copy()[:10]
    return res


def test_segmented_sort_matches_warp():
    ours = _compare(_segmented, rtol=0, atol=0)
    assert ours["adjacent_keys"].tolist() == [3, 5, 9, 0, 1, 1, 7, 2, 6, 8]


# -- run-length encoding ---------------------------------------------------------------------------
def _rle(lib):
    U = lib.utils
    vals = lib.array(np.array([1, 1, 2, 2, 2, 3, 1, 1, 9], dtype=np.int32))
    rv, rl = lib.full(9, -5, dtype=lib.int32), lib.full(9, -5, dtype=lib.int32)
    n = U.runlength_encode(vals, rv, rl)
    res = {"n": n, "is_int": isinstance(n, int), "values": rv.numpy().copy(), "lengths": rl.numpy().copy()}
    count = lib.zeros(1, dtype=lib.int32)
    same = U.runlength_encode(vals, rv, rl, run_count=count, value_count=4) is count
    res.update(same=same, count=count.numpy().copy(), values4=rv.numpy().copy(), lengths4=rl.numpy().copy())
    res["zero"] = U.runlength_encode(vals, rv, rl, value_count=0)
    single = lib.array(np.array([7, 7, 7], dtype=np.int32))
    res["single"] = U.runlength_encode(single, rv, rl)
    res["single_values"], res["single_lengths"] = rv.numpy().copy(), rl.numpy().copy()
    return res


def test_runlength_encode_matches_warp():
    ours = _compare(_rle, rtol=0, atol=0)
    assert ours["n"] == 5 and ours["is_int"] and ours["same"]


# -- casts -----------------------------------------------------------------------------------------
def _casts(lib):
    U = lib.utils
    res = {}
    a = _f32(lib, [[1.7, -2.5], [3.2, 4.9]])
    for name, dtype in (("i32", lib.int32), ("f64", lib.float64), ("f16", lib.float16), ("u8", lib.uint8)):
        b = lib.zeros((2, 2), dtype=dtype)
        U.array_cast(a if name != "u8" else lib.array(np.array([[300, -1], [7, 0]], dtype=np.int32)), b)
        res[name] = b.numpy().copy()
    flat = lib.zeros(4, dtype=lib.float64)
    U.array_cast(a, flat)
    res["flat"] = flat.numpy().copy()
    part = lib.zeros(5, dtype=lib.int8)
    U.array_cast(_f32(lib, [0.0, 1.5, 2.5, 3.5, 4.5]), part, count=3)
    res["partial"] = part.numpy().copy()
    v3 = _f32(lib, np.arange(6), lib.vec3, (2, 3))
    vd = lib.zeros(2, dtype=lib.vec3d)
    U.array_cast(v3, vd)
    res["vec"] = vd.numpy().copy()
    halves = lib.zeros(6, dtype=lib.float16)
    U.array_cast(v3, halves, count=1)
    res["vec_to_flat"] = halves.numpy().copy()
    same = lib.zeros(2, dtype=lib.vec3)
    U.array_cast(v3, same, count=1)
    res["same_dtype"] = same.numpy().copy()
    flags = lib.zeros(3, dtype=lib.bool)
    U.array_cast(_f32(lib, [0.0, 0.5, -2.0]), flags)
    res["bool"] = flags.numpy().copy()
    return res


def test_cast_matches_warp():
    _compare(_casts, rtol=0, atol=0)


def test_cast_is_taped_like_warp():
    def scenario(lib):
        x = _f32(lib, [1.0, 2.0, 3.0])
        x.requires_grad = True
        y = lib.zeros(3, dtype=lib.float64, requires_grad=True)
        tape = lib.Tape()
        with tape:
            lib.utils.array_cast(x, y)
        y.grad.fill_(2.0)
        tape.backward()
        return {"launches": len(tape.launches), "x_grad": x.grad.numpy().copy(), "y_grad": y.grad.numpy().copy()}

    assert _compare(scenario)["launches"] == 1


# -- errors ----------------------------------------------------------------------------------------
def _bad_calls(lib):
    U, z = lib.utils, lib.zeros
    i32 = lib.int32
    return {
        "sum_int": lambda: U.array_sum(lib.array(np.array([1, 2, 3], dtype=np.int32))),
        "sum_out_dtype": lambda: U.array_sum(z((2, 3)), out=z(1, dtype=lib.float64)),
        "sum_out_shape": lambda: U.array_sum(z((2, 3)), out=z(2)),
        "sum_axis": lambda: U.array_sum(z((2, 3)), axis=2),
        "inner_shape": lambda: U.array_inner(z((2, 3)), z(3)),
        "inner_dtype": lambda: U.array_inner(z(3), z(3, dtype=lib.float64)),
        "inner_int": lambda: U.array_inner(z(2, dtype=i32), z(2, dtype=i32)),
        "inner_out": lambda: U.array_inner(z(2, dtype=lib.vec3), z(2, dtype=lib.vec3), out=z(1, dtype=lib.vec3)),
        "inner_axis": lambda: U.array_inner(z(3), z(3), axis=-2),
        "scan_size": lambda: U.array_scan(z(3), z(4)),
        "scan_dtype": lambda: U.array_scan(z(3), z(3, dtype=i32)),
        "scan_uint": lambda: U.array_scan(z(3, dtype=lib.uint32), z(3, dtype=lib.uint32)),
        "scan_half": lambda: U.array_scan(z(3, dtype=lib.float16), z(3, dtype=lib.float16)),
        "scan_mat": lambda: U.array_scan(z(3, dtype=lib.mat22), z(3, dtype=lib.mat22)),
        "scan_strided": lambda: U.array_scan(z((4, 3))[:, 0:2], z((4, 2))),
        "sort_size": lambda: U.radix_sort_pairs(z(3, dtype=i32), z(3, dtype=i32), 2),
        "sort_key": lambda: U.radix_sort_pairs(z(4, dtype=lib.int16), z(4, dtype=i32), 2),
        "sort_value": lambda: U.radix_sort_pairs(z(4, dtype=i32), z(4, dtype=lib.int16), 2),
        "sort_bits": lambda: U.radix_sort_pairs(z(4, dtype=i32), z(4, dtype=i32), 2, 3, 40),
        "sort_bit_type": lambda: U.radix_sort_pairs(z(4, dtype=i32), z(4, dtype=i32), 2, 1.0),
        "seg_range": lambda: U.segmented_sort_pairs(z(6, dtype=i32), z(6, dtype=i32), 3,
                                                    lib.array(np.array([0, 4], dtype=np.int32))),
        "seg_keys": lambda: U.segmented_sort_pairs(z(6, dtype=lib.int64), z(6, dtype=i32), 3,
                                                   lib.array(np.array([0, 3], dtype=np.int32))),
        "seg_count_type": lambda: U.segmented_sort_pairs(z(6, dtype=i32), z(6, dtype=i32), 3.0, z(2, dtype=i32)),
        "seg_count_sign": lambda: U.segmented_sort_pairs(z(6, dtype=i32), z(6, dtype=i32), -1, z(2, dtype=i32)),
        "seg_start_dtype": lambda: U.segmented_sort_pairs(z(6, dtype=i32), z(6, dtype=i32), 3, z(2, dtype=lib.int64)),
        "seg_lengths": lambda: U.segmented_sort_pairs(z(6, dtype=i32), z(6, dtype=i32), 3, z(2, dtype=i32),
                                                      z(1, dtype=i32)),
        "rle_dtype": lambda: U.runlength_encode(z(4), z(4), z(4, dtype=i32)),
        "rle_mismatch": lambda: U.runlength_encode(z(4, dtype=i32), z(4), z(4, dtype=i32)),
        "rle_size": lambda: U.runlength_encode(z(4, dtype=i32), z(3, dtype=i32), z(4, dtype=i32)),
        "rle_lengths": lambda: U.runlength_encode(z(4, dtype=i32), z(4, dtype=i32), z(4, dtype=lib.int64)),
        "rle_negative": lambda: U.runlength_encode(z(4, dtype=i32), z(4, dtype=i32), z(4, dtype=i32), value_count=-1),
        "rle_count": lambda: U.runlength_encode(z(4, dtype=i32), z(4, dtype=i32), z(4, dtype=i32),
                                                run_count=z(1, dtype=lib.int64)),
        "cast_shape": lambda: U.array_cast(z((2, 2)), z((2, 3), dtype=lib.float64)),
        "cast_partial": lambda: U.array_cast(z((2, 2)), z((2, 2), dtype=lib.float64), count=2),
        "cast_count": lambda: U.array_cast(z(4), z(3, dtype=lib.float64)),
    }


def test_errors_match_warp():
    warp = real_warp()
    ours = _bad_calls(wp)
    theirs = _bad_calls(warp) if warp is not None else {}
    for name, call in ours.items():
        with pytest.raises(Exception) as ours_info:
            call()
        if name in theirs:
            with pytest.raises(Exception) as warp_info:
                theirs[name]()
            assert type(ours_info.value).__name__ == type(warp_info.value).__name__, name
            assert str(ours_info.value) == str(warp_info.value), name


def test_empty_and_zero_count_calls_do_nothing():
    def scenario(lib):
        U = lib.utils
        k = lib.array(np.array([2, 1], dtype=np.int32))
        U.radix_sort_pairs(k, lib.zeros(2, dtype=lib.int32), 0)
        U.segmented_sort_pairs(k, lib.zeros(2, dtype=lib.int32), 0, lib.zeros(2, dtype=lib.int32))
        U.array_scan(lib.zeros(0), lib.zeros(0))
        count = lib.full(1, 5, dtype=lib.int32)
        U.runlength_encode(k, lib.zeros(2, dtype=lib.int32), lib.zeros(2, dtype=lib.int32), run_count=count,
                           value_count=0)
        zero_sum = U.array_sum(lib.zeros((2, 2)), axis=0, value_count=0)
        return {"keys": k.numpy().copy(), "count": count.numpy().copy(), "zero_sum": zero_sum.numpy().copy()}

    _compare(scenario)


# -- ScopedTimer -----------------------------------------------------------------------------------
_TOOK = re.compile(r"^( *)(\w+) took \d+\.\d\d ms( .*)?$")


def _timer_lines(lib, capsys) -> list[tuple[str, str, str]]:
    times: dict = {}
    with lib.ScopedTimer("outer", dict=times) as outer:
        with lib.ScopedTimer("inner") as inner:
            inner.extra_msg = "(extra)"
        with lib.ScopedTimer("quiet", print=False, dict=times):
            pass
        with lib.ScopedTimer("off", active=False) as off:
            pass
    assert isinstance(outer.elapsed, float) and outer.elapsed >= inner.elapsed >= 0.0
    assert off.elapsed == 0.0 and times["outer"] == [outer.elapsed] and len(times["quiet"]) == 1
    lines = [line for line in capsys.readouterr().out.splitlines() if " took " in line]
    return [_TOOK.match(line).groups("") for line in lines]


def test_scoped_timer_prints_like_warp(capsys):
    ours = _timer_lines(wp, capsys)
    assert ours == [("    ", "inner", " (extra)"), ("", "outer", "")]
    warp = real_warp()
    if warp is not None:
        assert _timer_lines(warp, capsys) == ours


def test_scoped_timer_synchronizes_when_asked(monkeypatch):
    calls = []
    monkeypatch.setattr(wp, "synchronize", lambda: calls.append(1))
    with wp.ScopedTimer("a", print=False):
        pass
    assert calls == []
    with wp.ScopedTimer("b", print=False, synchronize=True):
        pass
    assert calls == [1, 1]


def test_scoped_timer_opens_a_tape_scope():
    x = wp.zeros(3, requires_grad=True)
    tape = wp.Tape()
    with tape:
        with wp.ScopedTimer("step", print=False):
            wp.utils.array_cast(x, wp.zeros(3, dtype=wp.float64, requires_grad=True))
        with wp.ScopedTimer("skipped", print=False, skip_tape=True):
            pass
    assert [name for _, name, _ in tape.scopes] == ["step", None]


def test_utils_surface():
    assert wp.utils.ScopedTimer is wp.ScopedTimer
    warp = real_warp()
    names = {"array_cast", "array_inner", "array_scan", "array_sum", "radix_sort_pairs", "runlength_encode",
             "segmented_sort_pairs"}
    assert all(callable(getattr(wp.utils, n)) for n in names)
    if warp is not None:
        assert names <= set(dir(warp.utils))
