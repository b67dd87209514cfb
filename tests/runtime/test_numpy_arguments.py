"""numpy launch arguments and wp.array construction forms (Warp's messages)."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp


def _kernel(tmp_path):
    import importlib.util

    path = tmp_path / "np_kernels.py"
    path.write_text("import jwarp as wp\n\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n"
                    "    a[wp.tid()] = a[wp.tid()] + 1.0\n")
    spec = importlib.util.spec_from_file_location("np_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.k


def test_numpy_argument_is_written_in_place(tmp_path):
    k = _kernel(tmp_path)
    a = np.zeros(3, np.float32)
    wp.launch(k, dim=3, inputs=[a])
    wp.launch(k, dim=3, inputs=[a])
    np.testing.assert_array_equal(a, [2, 2, 2])


def test_numpy_argument_of_another_scalar_type_raises(tmp_path):
    k = _kernel(tmp_path)
    with pytest.raises(RuntimeError, match="Could not convert array interface with typestr='<f8' to Warp array "
                                           "with dtype=float32"):
        wp.launch(k, dim=3, inputs=[np.zeros(3)])


def test_read_only_numpy_argument_is_read(tmp_path):
    k = _kernel(tmp_path)
    a = np.zeros(3, np.float32)
    a.flags.writeable = False
    wp.launch(k, dim=3, inputs=[a])  # nothing to write back into; no error
    np.testing.assert_array_equal(a, [0, 0, 0])


@pytest.mark.parametrize("value", [5.0, 3, np.float32(2.0), wp.float32(1.0)])
def test_scalar_data_raises(value):
    with pytest.raises(RuntimeError, match="Data must be a sequence or array, got scalar"):
        wp.array(value, dtype=float)


def test_single_composite_value_makes_one_element():
    a = wp.array(wp.vec3(1.0, 2.0, 3.0), dtype=wp.vec3)
    assert a.shape == (1,) and a.numpy().tolist() == [[1.0, 2.0, 3.0]]
    assert wp.array(np.array(7, dtype=np.int32)).shape == (1,)
    assert wp.array(wp.vec3(1.0, 2.0, 3.0)).shape == (3,)
