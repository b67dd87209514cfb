"""Warp modules jwarp does not implement: importing them works, using them raises."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

import jwarp as wp
import jwarp.fem as fem
from jwarp.unavailable import missing, missing_decorator


def test_stand_in_raises_naming_the_feature():
    thing = missing("warp.x.Thing", "no x")
    with pytest.raises(NotImplementedError, match=r"warp\.x\.Thing is not implemented in jwarp \(no x\)"):
        thing(1)
    with pytest.raises(NotImplementedError):
        thing.attribute
    with pytest.raises(NotImplementedError):
        thing[0]
    with pytest.raises(NotImplementedError):
        class Sub(thing):  # noqa: F811
            pass


def test_stand_in_decorator_both_forms():
    deco = missing_decorator("warp.x.deco")

    @deco
    def f(x):
        return x

    @deco(kernel_options={"a": 1})
    def g(x):
        return x

    for fn in (f, g):
        with pytest.raises(NotImplementedError, match="warp.x.deco"):
            fn(1)


def test_modules_import_headless():
    code = "import jwarp.render, jwarp.fem, jwarp.sparse, jwarp.optim.linear; print('ok')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"


def test_render_and_fem_raise_on_use():
    import jwarp.render as render

    with pytest.raises(NotImplementedError, match="warp.render.OpenGLRenderer"):
        render.OpenGLRenderer()
    with pytest.raises(NotImplementedError, match="warp.fem.Grid2D"):
        fem.Grid2D(res=(2, 2))
    from jwarp.fem import Tetmesh  # any Warp name imports

    with pytest.raises(NotImplementedError, match="warp.fem.Tetmesh"):
        Tetmesh()


def test_fem_sample_is_a_struct_usable_as_field():
    @wp.struct
    class Holder:
        s: fem.Sample

    h = Holder()
    assert h.s.qp_index == 0
    assert fem.NULL_ELEMENT_INDEX == -1


def test_optim_linear_solvers_raise():
    from jwarp.optim import linear

    with pytest.raises(NotImplementedError, match="warp.optim.linear.cg"):
        linear.cg(None, None, None)


def test_sparse_kernel_helper_signature():
    from jwarp.sparse import bsr_row_index

    assert list(inspect.signature(bsr_row_index).parameters) == ["offsets", "row_count", "block_index"]


def test_func_native_decorates_and_raises_in_kernels(tmp_path):
    from tests.kernel_errors import launch_error

    prelude = '@wp.func_native("return a + 2.0f;")\ndef add_two(a: float) -> float:\n    ...\n'
    message = launch_error(tmp_path, "out[0] = add_two(1.0)", prelude=prelude, exc_type=NotImplementedError)
    assert "add_two" in message and "func_native" in message and "error_kernel.py" in message


def test_only_warp_names_are_stand_ins():
    import jwarp.sparse as sparse

    with pytest.raises(NotImplementedError, match="warp.sparse.bsr_compress"):
        sparse.bsr_compress(None)
    assert not hasattr(fem, "pytest_plugins") and not hasattr(sparse, "not_a_warp_name")


def test_sparse_padded_topology_is_not_implemented():
    import jwarp.sparse as sparse

    with pytest.raises(NotImplementedError, match="topology='padded'"):
        sparse.bsr_zeros(2, 2, wp.float32, topology="padded")
    with pytest.raises(NotImplementedError, match="warp.sparse.BsrTripletMap"):
        sparse.BsrTripletMap()
