"""``jacobian_plot``: Jacobian blocks drawn as a grid of images with matplotlib (the optional ``io`` extra)."""

from __future__ import annotations

import numpy as np

from ..lang.kernel import Kernel
from ..types.arrays import array, element_layout
from .metadata import FunctionMetadata


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("jacobian_plot needs matplotlib, which comes with brickwork's optional 'io' extra "
                          "(pip install 'brickwork[io]')") from e
    return plt


def _metadata(kernel, inputs) -> FunctionMetadata:
    if isinstance(kernel, FunctionMetadata):
        return kernel
    if isinstance(kernel, Kernel):
        if inputs is None:
            raise ValueError(f"jacobian_plot: inputs must be provided to plot the Jacobians of kernel "
                             f"'{kernel.key}' (they tell its inputs from its outputs)")
        names = [name for name, _ in kernel.params]
        return FunctionMetadata(key=kernel.key, input_labels=names[:len(inputs)],
                                output_labels=names[len(inputs):],
                                input_dtypes=[a.dtype if isinstance(a, array) else None for a in inputs])
    raise TypeError(f"jacobian_plot: kernel must be a kernel or a FunctionMetadata, got {type(kernel).__name__}")


def _label(labels: list, index: int, what: str) -> str:
    if index >= len(labels) or labels[index] is None:
        raise ValueError(f"jacobian_plot: Jacobian {what} index {index}: missing label (the metadata names "
                         f"{len(labels)} {what}s)")
    return str(labels[index])


def _component_count(meta: FunctionMetadata, index: int) -> int:
    dtype = meta.input_dtypes[index] if index < len(meta.input_dtypes) else None
    if dtype is None:
        raise ValueError(f"jacobian_plot: Jacobian input index {index}: missing array dtype")
    try:
        return int(np.prod(element_layout(dtype)[1], dtype=np.int64))
    except TypeError as e:
        raise ValueError(f"jacobian_plot: Jacobian input index {index}: cannot find the component count of "
                         f"dtype {dtype!r}") from e


def _matrix(jacobian) -> np.ndarray:
    """The Jacobian as a 2-d matrix of scalars (a vector element's components become columns)."""
    data = np.asarray(jacobian.numpy() if isinstance(jacobian, array) else jacobian, dtype=np.float64)
    return data.reshape(data.shape[0], -1) if data.ndim > 1 else data.reshape(1, -1)


def _norm(matrices: list, log_scale: bool):
    from matplotlib import colors

    values = np.concatenate([m[np.isfinite(m)] for m in matrices]) if matrices else np.zeros(0)
    top = float(np.abs(values).max()) if values.size else 1.0
    top = top if top > 0 else 1.0
    if log_scale:
        nonzero = np.abs(values[values != 0])
        return colors.SymLogNorm(linthresh=float(nonzero.min()) if nonzero.size else 1.0, vmin=-top, vmax=top)
    return colors.Normalize(vmin=-top, vmax=top)


def jacobian_plot(jacobians: dict, kernel, inputs=None, show_plot: bool = True, show_colorbar: bool = True,
                  scale_colors_per_submatrix: bool = False, title: str | None = None, colormap: str = "coolwarm",
                  log_scale: bool = False):
    """Draw Jacobian blocks as a matplotlib figure and return it (None when ``jacobians`` is empty).

    ``jacobians`` maps (input index, output index) to a Jacobian array (as ``jacobian`` returns);
    ``kernel`` is the kernel (then ``inputs``, its input arguments, are needed) or a ``FunctionMetadata``.
    One row of images per output and one column per input; blocks without a Jacobian are blank.
    ``scale_colors_per_submatrix`` gives each block its own color range, ``log_scale`` a symmetric
    logarithmic one; ``show_plot`` calls ``plt.show()``. Needs matplotlib (the ``io`` extra).
    """
    plt = _pyplot()
    meta = _metadata(kernel, inputs)
    if not jacobians:
        return None
    for i, j in jacobians:  # every block must be labelled, and its input typed, before anything is drawn
        _label(meta.input_labels, i, "input")
        _component_count(meta, i)
        _label(meta.output_labels, j, "output")
    columns = sorted({i for i, _ in jacobians})
    rows = sorted({j for _, j in jacobians})
    matrices = {key: _matrix(jac) for key, jac in jacobians.items()}
    widths = [next(m.shape[1] for (i, _), m in matrices.items() if i == c) for c in columns]
    heights = [next(m.shape[0] for (_, j), m in matrices.items() if j == r) for r in rows]
    figure, axes = plt.subplots(len(rows), len(columns), squeeze=False, layout="constrained",
                                gridspec_kw={"width_ratios": widths, "height_ratios": heights})
    shared = None if scale_colors_per_submatrix else _norm(list(matrices.values()), log_scale)
    image = None
    for r, j in enumerate(rows):
        for c, i in enumerate(columns):
            ax = axes[r][c]
            if (i, j) not in matrices:
                ax.axis("off")
                continue
            m = matrices[i, j]
            norm = shared or _norm([m], log_scale)
            image = ax.imshow(m, cmap=colormap, norm=norm, aspect="auto", interpolation="nearest")
            ax.set_xlabel(_label(meta.input_labels, i, "input"))
            ax.set_ylabel(_label(meta.output_labels, j, "output"))
            if show_colorbar and scale_colors_per_submatrix:
                figure.colorbar(image, ax=ax)
    if show_colorbar and not scale_colors_per_submatrix and image is not None:
        figure.colorbar(image, ax=axes.ravel().tolist())
    figure.suptitle(title if title is not None else f"{meta.key or 'unknown'} kernel Jacobian")
    if show_plot:
        plt.show()
    return figure
