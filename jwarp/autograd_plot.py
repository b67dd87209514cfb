"""Jacobian figures for ``wp.autograd`` (Warp's ``jacobian_plot``): one image per (input, output) pair.

The figure is a grid with one column per input and one row per output that has a Jacobian. A column is as
wide as its input has scalars (elements times components), a row as tall as its output has scalars, so the
images keep the Jacobians' proportions. Cells without a Jacobian are left blank; each column names its input
under its lowest image and each row its output left of its first image. The colour scale is shared by all
images unless ``scale_colors_per_submatrix``; NaN entries do not count towards it.

Example:
    >>> import jwarp as wp
    >>> from jwarp.autograd import FunctionMetadata, jacobian_plot
    >>> meta = FunctionMetadata(key="scale", input_labels=["x"], output_labels=["y"],
    ...                         input_dtypes=[wp.float32], output_dtypes=[wp.float32])
    >>> fig = jacobian_plot({(0, 0): wp.array([[2.0]], dtype=float)}, meta, show_plot=False)
    >>> fig.get_suptitle()
    'scale kernel Jacobian'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def _components(metadata: Any, i: int) -> int:
    """The scalar count of input ``i``'s dtype, after checking the metadata describes that input."""
    labels, dtypes = metadata.input_labels or [], metadata.input_dtypes or []
    if not 0 <= i < len(labels):
        raise ValueError(f"Invalid Jacobian input index {i}: plotting metadata defines {len(labels)} inputs")
    if labels[i] is None:
        raise ValueError(f"Invalid plotting metadata for Jacobian input index {i}: missing label")
    if i >= len(dtypes) or dtypes[i] is None:
        raise ValueError(f"Invalid plotting metadata for Jacobian input index {i}: missing array dtype")
    count = getattr(dtypes[i], "_length_", None)
    if count is None:
        raise ValueError(f"Invalid plotting metadata for Jacobian input index {i}: array dtype has no component count")
    return count


def _check_output(metadata: Any, o: int) -> None:
    labels = metadata.output_labels or []
    if not 0 <= o < len(labels):
        raise ValueError(f"Invalid Jacobian output index {o}: plotting metadata defines {len(labels)} outputs")
    if labels[o] is None:
        raise ValueError(f"Invalid plotting metadata for Jacobian output index {o}: missing label")


def _color_range(matrices: Sequence[np.ndarray]) -> tuple[float, float]:
    finite = [m[~np.isnan(m)] for m in matrices]
    finite = [m for m in finite if m.size]
    if not finite:
        return 0.0, 0.0
    return float(min(m.min() for m in finite)), float(max(m.max() for m in finite))


def jacobian_plot(jacobians: dict, kernel: Any, inputs: Sequence | None = None, show_plot: bool = True,
                  show_colorbar: bool = True, scale_colors_per_submatrix: bool = False, title: str | None = None,
                  colormap: str = "coolwarm", log_scale: bool = False) -> Any:
    """Plot the Jacobians of :func:`jwarp.autograd.jacobian` / ``jacobian_fd`` (requires matplotlib).

    ``kernel`` is the kernel (then ``inputs`` is required: it gives the input arrays' dtypes) or a
    :class:`~jwarp.autograd.FunctionMetadata`. Returns the figure, or None when there is nothing to plot.
    The title defaults to ``"<key> kernel Jacobian"``; ``log_scale`` shows ``log10(|J| + 1e-8)``.
    """
    from jwarp.autograd import FunctionMetadata
    from jwarp.runtime.kernel import Kernel

    if isinstance(kernel, Kernel):
        if inputs is None:
            raise ValueError("inputs must be provided when kernel is a Warp kernel")
        metadata = FunctionMetadata()
        metadata.update_from_kernel(kernel, inputs)
    elif isinstance(kernel, FunctionMetadata):
        metadata = kernel
    else:
        raise ValueError("Invalid kernel argument: must be a Warp kernel or a FunctionMetadata object")
    ins = sorted({i for i, _ in jacobians})
    outs = sorted({o for _, o in jacobians})
    if not ins:
        return None
    components = {i: _components(metadata, i) for i in ins}
    for o in outs:
        _check_output(metadata, o)
    matrices = {}
    for (i, o), jac in jacobians.items():  # rows: output scalars; columns: input scalars
        matrices[i, o] = np.asarray(jac.numpy(), dtype=np.float64).reshape(jac.shape[0], jac.shape[1] * components[i])
    widths = [next(m.shape[1] for (i, _), m in matrices.items() if i == col) for col in ins]
    heights = [next(m.shape[0] for (_, o), m in matrices.items() if o == row) for row in outs]

    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, axes = plt.subplots(nrows=len(outs), ncols=len(ins), figsize=(7, 7), layout="constrained", sharex="col",
                             sharey="row", squeeze=False, subplot_kw={"aspect": 1},
                             gridspec_kw={"wspace": 0.1, "hspace": 0.1, "width_ratios": widths,
                                          "height_ratios": heights})
    title = title if title is not None else f"{metadata.key or 'unknown'} kernel Jacobian"
    fig.suptitle(title)
    if fig.canvas.manager is not None:
        fig.canvas.manager.set_window_title(title)
    present = np.array([[(i, o) in matrices for i in ins] for o in outs])
    for r, c in zip(*np.nonzero(~present)):
        axes[r, c].axis("off")
    vmin, vmax = _color_range(list(matrices.values()))
    for (i, o), m in sorted(matrices.items(), key=lambda item: (item[0][1], item[0][0])):
        r, c = outs.index(o), ins.index(i)
        ax = axes[r, c]
        if scale_colors_per_submatrix:
            vmin, vmax = _color_range([m])
        image = ax.imshow(np.log10(np.abs(m) + 1e-8) if log_scale else m, cmap=colormap, aspect="auto",
                          interpolation="nearest", extent=[0, m.shape[1], 0, m.shape[0]], vmin=vmin, vmax=vmax)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(color="black", which="major", linewidth=1.0)
        if not present[r + 1:, c].any():  # the lowest image of its column
            ax.set_xlabel(metadata.input_labels[i])
        if not present[r, :c].any():  # the first image of its row
            ax.set_ylabel(metadata.output_labels[o])
        if show_colorbar and scale_colors_per_submatrix:
            fig.colorbar(image, ax=ax, orientation="vertical", pad=0.02)
    if show_colorbar and not scale_colors_per_submatrix:
        scale = plt.cm.ScalarMappable(cmap=colormap)
        scale.set_clim(vmin, vmax)
        fig.colorbar(scale, ax=axes, orientation="vertical", pad=0.02)
    if show_plot:
        plt.show()
    return fig


def error_jacobians(jacs_ad: dict, jacs_fd: dict) -> tuple[dict, dict]:
    """Warp's error matrices for ``gradcheck``'s plots: the relative error ``(ad - fd) / ad`` (``ad`` taken
    as 1e-8 where ``|ad| < 1e-8``) and the absolute error ``|ad - fd|``, with the Jacobians' dtypes."""
    from jwarp.runtime.array import array

    relative, absolute = {}, {}
    for key, fd_array in jacs_fd.items():
        fd, ad = fd_array.numpy(), jacs_ad[key].numpy()
        denom = np.where(np.abs(ad) < 1e-8, ad.dtype.type(1e-8), ad)
        relative[key] = array((ad - fd) / denom, dtype=fd_array.dtype, device=fd_array.device)
        absolute[key] = array(np.abs(ad - fd), dtype=fd_array.dtype, device=fd_array.device)
    return relative, absolute


__all__ = ["jacobian_plot", "error_jacobians"]
