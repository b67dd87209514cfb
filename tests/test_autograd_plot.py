"""``wp.autograd.jacobian_plot`` and gradcheck's error plots draw the figure real Warp draws: the same title,
grid proportions, blank cells, axis labels, colour range and images (compared with real Warp in-process)."""

from __future__ import annotations

from typing import Any
from unittest import mock

import numpy as np
import pytest

import jwarp as wp
import jwarp.autograd
from tests.differential.harness import real_warp

plt = pytest.importorskip("matplotlib.pyplot")
plt.switch_backend("Agg")


def _mixed_kernel(w: Any) -> Any:
    def mixed_jacobian_kernel(a: w.array(dtype=float), b: w.array(dtype=w.vec3), out1: w.array(dtype=w.vec2),
                              out2: w.array(dtype=w.quat)):
        i = w.tid()
        out1[i] = w.vec2(b[i][0] * a[i], b[i][1] - b[i][2])
        out2[i] = w.quat(a[i], 2.0 * a[i], a[i] * a[i], 1.0)

    return w.Kernel(mixed_jacobian_kernel, key="mixed_jacobian_kernel")


def _scale_kernel(w: Any) -> Any:
    def scale_jacobian_kernel(a: w.array(dtype=float), out: w.array(dtype=float)):
        i = w.tid()
        out[i] = 3.0 * a[i]

    return w.Kernel(scale_jacobian_kernel, key="scale_jacobian_kernel")


def _describe(figure: Any) -> dict:
    """What a reader sees: title, each cell's labels and whether it is drawn, the grid's proportions, the
    images' values and colour ranges."""
    grid = figure.axes[0].get_gridspec()
    images = [image for ax in figure.axes for image in ax.get_images()]
    return {
        "title": figure.get_suptitle(),
        "axes": [(ax.axison, ax.get_xlabel(), ax.get_ylabel()) for ax in figure.axes],
        "ratios": (list(grid.get_width_ratios()), list(grid.get_height_ratios())),
        "images": [np.asarray(image.get_array(), dtype=np.float64) for image in images],
        "clims": [image.get_clim() for image in images],
    }


def _mixed_figures(w: Any, jacobian: str) -> dict:
    plt.close("all")
    kernel = _mixed_kernel(w)
    a = w.array(np.array([2.0, -1.0], np.float32), dtype=float, requires_grad=True, device="cpu")
    b = w.array(np.array([[3.0, 1.0, 2.0], [-4.0, -1.0, 0.5]], np.float32), dtype=w.vec3, requires_grad=True,
                device="cpu")
    out1 = w.zeros(2, dtype=w.vec2, requires_grad=True, device="cpu")
    out2 = w.zeros(2, dtype=w.quat, requires_grad=True, device="cpu")
    with mock.patch.object(plt, "show") as show:
        getattr(w.autograd, jacobian)(kernel, dim=2, inputs=[a, b], outputs=[out1, out2],
                                      input_output_mask=[("b", "out1"), ("a", "out2")], plot_jacobians=True)
    assert show.call_count == 1
    return _describe(plt.gcf())


def _compare(ours: dict, theirs: dict) -> None:
    assert ours["title"] == theirs["title"]
    assert ours["axes"] == theirs["axes"]
    assert ours["ratios"] == theirs["ratios"]
    assert len(ours["images"]) == len(theirs["images"])
    for mine, real in zip(ours["images"], theirs["images"]):
        np.testing.assert_allclose(mine, real, rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(np.asarray(ours["clims"]), np.asarray(theirs["clims"]), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("jacobian", ["jacobian", "jacobian_fd"])
def test_mixed_kernel_figure_matches_warp(jacobian):
    ours = _mixed_figures(wp, jacobian)
    assert ours["title"] == "mixed_jacobian_kernel kernel Jacobian"
    assert ours["ratios"] == ([2, 6], [4, 8])  # a: 2 scalars, b: 2 vec3; out1: 2 vec2, out2: 2 quat
    assert [cell[0] for cell in ours["axes"][:4]] == [False, True, True, False]  # (out1, a) and (out2, b) blank
    warp = real_warp()
    if warp is None:
        pytest.skip("warp-lang is not installed")
    import warp.autograd  # noqa: F401 - Warp's submodule, imported on demand

    _compare(ours, _mixed_figures(warp, jacobian))


def _error_figures(w: Any) -> list[dict]:
    plt.close("all")
    a = w.array(np.array([1.0, 2.0], np.float32), dtype=float, requires_grad=True, device="cpu")
    out = w.zeros(2, dtype=float, requires_grad=True, device="cpu")
    with mock.patch.object(plt, "show") as show:
        passed = w.autograd.gradcheck(_scale_kernel(w), dim=2, inputs=[a], outputs=[out], plot_relative_error=True,
                                      plot_absolute_error=True, show_summary=False)
    assert passed and show.call_count == 2
    return [_describe(plt.figure(number)) for number in plt.get_fignums()]


def test_gradcheck_error_figures_match_warp():
    ours = _error_figures(wp)
    assert [f["title"] for f in ours] == ["scale_jacobian_kernel kernel Jacobian relative error",
                                          "scale_jacobian_kernel kernel Jacobian absolute error"]
    warp = real_warp()
    if warp is None:
        pytest.skip("warp-lang is not installed")
    import warp.autograd  # noqa: F401

    theirs = _error_figures(warp)
    assert len(ours) == len(theirs)
    for mine, real in zip(ours, theirs):
        assert mine["title"] == real["title"] and mine["axes"] == real["axes"] and mine["ratios"] == real["ratios"]
        # the errors themselves are finite-difference noise: only their size is compared
        assert np.abs(mine["images"][0]).max() < 1e-2 and np.abs(real["images"][0]).max() < 1e-2


def _metadata(**overrides: Any) -> jwarp.autograd.FunctionMetadata:
    fields = {"key": "m", "input_labels": ["a"], "output_labels": ["y"], "input_strides": [None],
              "output_strides": [None], "input_dtypes": [wp.float32], "output_dtypes": [wp.float32]}
    return jwarp.autograd.FunctionMetadata(**{**fields, **overrides})


@pytest.mark.parametrize("overrides, message", [
    ({"input_labels": []}, "Jacobian input index 0: plotting metadata defines 0 inputs"),
    ({"input_labels": [None]}, "input index 0: missing label"),
    ({"input_dtypes": [None]}, "missing array dtype"),
    ({"input_dtypes": [Any]}, "array dtype has no component count"),
    ({"output_labels": []}, "Jacobian output index 0: plotting metadata defines 0 outputs"),
    ({"output_labels": [None]}, "output index 0: missing label"),
])
def test_incomplete_metadata_is_rejected_before_drawing(overrides, message):
    plt.close("all")
    with pytest.raises(ValueError, match=message):
        jwarp.autograd.jacobian_plot({(0, 0): wp.array([[1.0]], dtype=float)}, _metadata(**overrides),
                                     show_plot=False)
    assert plt.get_fignums() == []


def test_kernel_without_inputs_and_empty_jacobians():
    with pytest.raises(ValueError, match="inputs must be provided"):
        jwarp.autograd.jacobian_plot({}, _scale_kernel(wp))
    with pytest.raises(ValueError, match="must be a Warp kernel or a FunctionMetadata"):
        jwarp.autograd.jacobian_plot({}, "not a kernel")
    assert jwarp.autograd.jacobian_plot({}, _metadata(), show_plot=False) is None
    figure = jwarp.autograd.jacobian_plot({(0, 0): wp.array([[1.0]], dtype=float)}, _metadata(key=None),
                                          show_plot=False, show_colorbar=False)
    assert figure.get_suptitle() == "unknown kernel Jacobian" and len(figure.axes) == 1
