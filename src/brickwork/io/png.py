"""PNG snapshots with matplotlib's Agg renderer (no display needed).

``save(path, field, extent, ...)``: a 1-D field is drawn as a line (with an optional reference
curve, e.g. an exact solution), a 2-D one as an image, a 3-D one as its mid-plane in x3 (the plane of
cells ``nx3 // 2``, whose x3 the title gives).

The figure is a ``matplotlib.figure.Figure`` drawn by its own Agg canvas, not a pyplot figure: pyplot
is not imported (about a second of a short run's start), and the process's backend is left as the user
chose it (a notebook's inline or interactive plots keep working after a run writes PNGs).
"""

from __future__ import annotations

import numpy as np

from .files import staged


def _figure(figsize: tuple):
    """A new figure of ``figsize`` inches at 100 dpi, with an Agg canvas of its own."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise RuntimeError("PNG output needs matplotlib: pip install 'brickwork[io]' (or set output.png_dt = -1)") \
            from e
    fig = Figure(figsize=figsize, dpi=100)
    FigureCanvasAgg(fig)
    return fig


def save(path: str, field: np.ndarray, xmin, xmax, ndim: int, label: str, title: str = "",
         reference: tuple | None = None) -> str:
    """Write ``field`` (a global ``(nx3, nx2, nx1)`` array) as a PNG; ``reference = (x, values, name)``
    adds a curve to a 1-D plot. Returns ``path``; ``OutputError`` if it cannot be written."""
    fig = _figure((6.4, 4.8) if ndim == 1 else (6.0, 5.2))
    ax = fig.add_subplot(1, 1, 1)
    if ndim == 1:
        line = field[0, 0, :]
        n = line.shape[0]
        dx = (xmax[0] - xmin[0]) / n
        x = xmin[0] + (np.arange(n) + 0.5) * dx
        ax.plot(x, line, ".", ms=3, label="brickwork")
        if reference is not None:
            ax.plot(reference[0], reference[1], "-", lw=1, label=reference[2])
            ax.legend()
        ax.set_xlabel("x1")
        ax.set_ylabel(label)
    else:
        plane = field[field.shape[0] // 2] if ndim == 3 else field[0]
        if ndim == 3:  # say which plane: the image alone looks like a 2-D run
            nk = field.shape[0]
            where = f"x3 = {xmin[2] + (nk // 2 + 0.5) * (xmax[2] - xmin[2]) / nk:.4g}"
            title = f"{title}  ({where})" if title else where
        im = ax.imshow(plane, origin="lower", extent=(xmin[0], xmax[0], xmin[1], xmax[1]), cmap="viridis",
                       interpolation="nearest")
        fig.colorbar(im, ax=ax, label=label)
        ax.set_xlabel("x1")
        ax.set_ylabel("x2")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    with staged(path, suffix=".tmp.png") as (tmp,):
        fig.savefig(tmp)
    return path
