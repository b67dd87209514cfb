"""wp.indexedarray: construction rules, Python-side API and launch errors (kernel behaviour is
covered by the differential program core_indexedarray)."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pytest

import jwarp as wp
from jwarp.errors import WarpCodegenError
from jwarp.lang.arrays import INDEXED, ArrayType, resolve_annotation


def test_shape_from_indices_and_none_axes():
    data = wp.zeros((4, 5, 6))
    ia = wp.indexedarray(data, [wp.array([0, 2], dtype=int), None, wp.array([1], dtype=int)])
    assert ia.shape == (2, 5, 1) and ia.size == 10 and ia.ndim == 3 and len(ia) == 2
    assert ia.dtype is wp.float32 and ia.device is data.device
    assert not ia.is_contiguous
    assert wp.indexedarray(data, wp.array([3], dtype=int)).shape == (1, 5, 6)


@pytest.mark.parametrize(
    "indices, message",
    [
        ([wp.array([0], dtype=wp.int64)], "must use int32"),
        ([wp.zeros((1, 1), dtype=int)], "one-dimensional"),
        ([np.array([0])], "must be a Warp array"),
        ([None, None, None], "exceeds number of dimensions"),
        ("bad", "single Warp array or a list"),
    ],
)
def test_bad_indices_raise_value_error(indices, message):
    with pytest.raises(ValueError, match=message):
        wp.indexedarray(wp.zeros((2, 2)), indices)


def test_dtype_and_ndim_must_match_data():
    with pytest.raises(ValueError, match="dtype"):
        wp.indexedarray(wp.zeros(3), None, dtype=wp.int32)
    with pytest.raises(ValueError, match="dimensionality"):
        wp.indexedarray2d(wp.zeros(3), None)


def test_annotations_all_forms_resolve_alike():
    expected = ArrayType(wp.float64, 2, INDEXED)
    for annotation in (wp.indexedarray2d(dtype=wp.float64), wp.indexedarray(dtype=wp.float64, ndim=2),
                       wp.indexedarray[wp.float64, Literal[2]]):
        assert resolve_annotation(annotation) == expected
    assert resolve_annotation(wp.indexedarray[float]) == ArrayType(wp.float32, 1, INDEXED)
    assert resolve_annotation(wp.array[float, Literal[3]]) == ArrayType(wp.float32, 3)


def test_not_a_wp_array_and_no_gradient():
    ia = wp.zeros(4, requires_grad=True)[wp.array([1], dtype=int)]
    assert type(ia) is wp.indexedarray and not isinstance(ia, wp.array)
    assert not hasattr(ia, "grad")
    assert wp.types.is_array(ia)


def test_slices_and_ints_then_index_arrays():
    data = wp.array(np.arange(60, dtype=np.int32).reshape(3, 4, 5))
    idx = wp.array([4, 0], dtype=int)
    np.testing.assert_array_equal(data[1, :, idx].numpy(), data.numpy()[1][:, [4, 0]])
    np.testing.assert_array_equal(data[0:2, wp.array([3, 1], dtype=int)].numpy(),
                                  data.numpy()[0:2][:, [3, 1]])
    assert type(data[0:2, 0:2]) is wp.array


def test_writes_land_in_data_and_like_functions_make_arrays():
    data = wp.zeros(5, dtype=wp.vec2)
    ia = data[wp.array([4, 1], dtype=int)]
    ia.fill_([1.0, 2.0])
    np.testing.assert_array_equal(data.numpy()[[1, 4]], [[1, 2], [1, 2]])
    for made in (wp.zeros_like(ia), wp.empty_like(ia), wp.full_like(ia, wp.vec2(3.0, 4.0)), ia.contiguous()):
        assert type(made) is wp.array and made.shape == (2,) and made.dtype is wp.vec2
    with pytest.raises(ValueError, match="Failed to convert"):
        ia.fill_("nope")


def test_launch_kind_mismatch_errors(tmp_path):
    path = tmp_path / "kind_kernels.py"
    path.write_text(
        "import jwarp as wp\n\n"
        "@wp.kernel\ndef wants_indexed(a: wp.indexedarray(dtype=float)):\n    a[wp.tid()] = 1.0\n\n"
        "@wp.kernel\ndef wants_array(a: wp.array(dtype=float)):\n    a[wp.tid()] = 1.0\n"
    )
    import importlib.util

    spec = importlib.util.spec_from_file_location("kind_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    data = wp.zeros(3)
    with pytest.raises(RuntimeError, match="argument 'a' expects an array of type indexedarray.*has type array"):
        wp.launch(module.wants_indexed, dim=1, inputs=[data])
    with pytest.raises(RuntimeError, match="argument 'a' expects an array of type array.*has type indexedarray"):
        wp.launch(module.wants_array, dim=1, inputs=[data[wp.array([0], dtype=int)]])
    wp.launch(module.wants_indexed, dim=1, inputs=[data[wp.array([2], dtype=int)]])
    np.testing.assert_array_equal(data.numpy(), [0, 0, 1])


@wp.kernel
def _bump_through_index(ia: wp.indexedarray(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = ia[i]
    ia[i] = 7.0
    wp.atomic_add(ia, i, 1.0)


def test_out_of_range_entries_address_nothing():
    """Index entries outside the data (undefined in Warp): writes and atomics are dropped, and in
    debug mode the launch fails with nothing written."""
    data = wp.array(np.arange(4, dtype=np.float32))
    idx = wp.array(np.array([1, -1, 4, 2], dtype=np.int32))
    out = wp.zeros(4)
    wp.launch(_bump_through_index, dim=4, inputs=[wp.indexedarray(data, [idx]), out])
    np.testing.assert_array_equal(data.numpy(), [0, 8, 8, 3])
    np.testing.assert_array_equal(out.numpy()[[0, 3]], [1, 2])
    mode = wp.config.mode
    wp.config.mode = "debug"
    try:
        fresh = wp.array(np.arange(4, dtype=np.float32))
        with pytest.raises(IndexError, match="Out-of-bounds array access in kernel '.*_bump_through_index'"):
            wp.launch(_bump_through_index, dim=4, inputs=[wp.indexedarray(fresh, [idx]), wp.zeros(4)])
        np.testing.assert_array_equal(fresh.numpy(), [0, 1, 2, 3])
    finally:
        wp.config.mode = mode


@wp.kernel
def _tile_of_indexed(ia: wp.indexedarray(dtype=float), out: wp.array(dtype=float)):
    wp.tile_store(out, wp.tile_load(ia, shape=2))


def test_tile_transfers_reject_indexed_arrays():
    data = wp.zeros(4)
    ia = wp.indexedarray(data, [wp.array(np.array([3, 0], dtype=np.int32))])
    with pytest.raises(WarpCodegenError, match="tile_load: indexed arrays"):
        wp.launch_tiled(_tile_of_indexed, dim=1, inputs=[ia, wp.zeros(2)], block_dim=2)


@wp.kernel
def _slice_of_indexed(ia: wp.indexedarray(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = ia[1:3][i]


def test_kernel_slicing_of_indexed_arrays_is_refused():
    ia = wp.indexedarray(wp.zeros(4), [wp.array(np.array([3, 0, 1], dtype=np.int32))])
    with pytest.raises(IndexError, match="cannot be sliced in kernel code"):
        wp.launch(_slice_of_indexed, dim=2, inputs=[ia, wp.zeros(2)])
