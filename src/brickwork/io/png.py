"""PNG snapshots with matplotlib (Agg backend, no display needed).

``save(path, field, extent, ...)``: a 1-D field is drawn as a line (with an optional reference
curve, e.g. an exact solution), a 2-D one as an image, a 3-D one as its mid-plane in x3.
"""

from __future__ import annotations

import numpy as np

from .files import staged


def _pyplot():
    try:
        import matplotlib
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise RuntimeError("PNG output needs matplotlib: pip install 'brickwork[io]' (or set output.png_dt = -1)") \
            from e
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def save(path: str, field: np.ndarray, xmin, xmax, ndim: int, label: str, title: str = "",
         reference: tuple | None = None) -> str:
    """Write ``field`` (a global ``(nx3, nx2, nx1)`` array) as a PNG; ``reference = (x, values, name)``
    adds a curve to a 1-D plot. Returns ``path``; ``OutputError`` if it cannot be written."""
    plt = _pyplot()
    fig = plt.figure(figsize=(6.4, 4.8) if ndim == 1 else (6.0, 5.2), dpi=100)
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
        im = ax.imshow(plane, origin="lower", extent=(xmin[0], xmax[0], xmin[1], xmax[1]), cmap="viridis",
                       interpolation="nearest")
        fig.colorbar(im, ax=ax, label=label)
        ax.set_xlabel("x1")
        ax.set_ylabel("x2")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    try:
        with staged(path, suffix=".tmp.png") as (tmp,):
            fig.savefig(tmp)
    finally:
        plt.close(fig)
    return path
