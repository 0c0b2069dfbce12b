"""The hydro guide's figures, made by the docs build from real runs of the hydro application.

Before the pages are read, ``docs/_generated/`` receives:

- ``sod_profile.png``: Sod's shock tube (examples/sod.toml as shipped: 256 cells, t = 0.2), density,
  velocity and pressure against the exact Riemann solution;
- ``kh_density.png``: the Kelvin-Helmholtz instability (examples/kelvin_helmholtz.toml on a
  128 x 128 mesh in 16 x 16 blocks instead of 256 x 256 in 64 x 64, to its t = 3), the density image the
  application's PNG writer draws. The blocks are those of the hydro tests' Kelvin-Helmholtz runs, so after
  ``make test`` the figure's kernels are in the cache folder the two share (the Makefile); the image is the
  same, bit for bit, as in 64 x 64 blocks.

Both are small runs (seconds once the kernels are in the cache). They are made again whenever a
file of the brickwork package or of this extension is newer than the figures.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOD_OVERRIDES = ["output.hdf5_dt=-1", "output.png_dt=-1", "output.restart_dt=-1", "output.history=false",
                 "output.progress=false"]
KH_OVERRIDES = [*SOD_OVERRIDES, "mesh.nx=[128,128]", "mesh.block_nx=[16,16]", "time.tlim=3.0"]
FIGURES = ("sod_profile.png", "kh_density.png")


def _run(example: str, overrides: list[str], out_dir: str):
    from brickwork.apps import hydro

    cfg = hydro.load_config(str(ROOT / "examples" / example), [*overrides, f"output.dir={out_dir}"])
    return cfg, hydro.run(cfg, progress=False, log=None)


def sod_profile(path: Path, work: str) -> None:
    """Density, velocity and pressure of the Sod run against the exact solution, side by side."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    cfg, result = _run("sod.toml", SOD_OVERRIDES, work)
    sim = result.hydro
    m = cfg["mesh"]
    n = m["nx"][0]
    x = m["xmin"][0] + (np.arange(n) + 0.5) * (m["xmax"][0] - m["xmin"][0]) / n
    xe = np.linspace(m["xmin"][0], m["xmax"][0], 2000)
    exact = cfg.problem.exact(xe, result.time, cfg["problem"], sim.gamma)
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.4), dpi=100)
    for ax, var, ref, label in zip(axes, ("density", "velocity_1", "pressure"), exact,
                                   ("density", "velocity", "pressure")):
        ax.plot(xe, ref, "-", lw=1, color="0.3", label="exact")
        ax.plot(x, sim.to_global(sim.primitive(var))[0, 0], ".", ms=3, label="brickwork")
        ax.set_xlabel("x")
        ax.set_title(label)
    axes[0].legend()
    h = cfg["hydro"]
    fig.suptitle(f"Sod, {n} cells, {h['reconstruction']} + {h['riemann']}, t = {result.time:.4g}")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def kh_density(path: Path, work: str) -> None:
    """The density of the Kelvin-Helmholtz run, drawn by the application's own PNG writer."""
    from brickwork.io import png

    cfg, result = _run("kelvin_helmholtz.toml", KH_OVERRIDES, work)
    sim = result.hydro
    m = cfg["mesh"]
    png.save(str(path), sim.to_global(sim.primitive("density")), m["xmin"], m["xmax"], 2, "density",
             f"Kelvin-Helmholtz, {m['nx'][0]} x {m['nx'][1]}, t = {result.time:.3g}")


def _stale(out: Path) -> bool:
    sources = [Path(__file__), *(ROOT / "src" / "brickwork").rglob("*.py"), *(ROOT / "examples").glob("*.toml")]
    newest = max(p.stat().st_mtime for p in sources)
    return any(not (out / f).exists() or (out / f).stat().st_mtime < newest for f in FIGURES)


def make_figures(app) -> None:
    out = Path(app.srcdir) / "_generated"
    if not _stale(out):
        return
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="brickwork-docs-") as work:
        sod_profile(out / "sod_profile.png", work)
        kh_density(out / "kh_density.png", work)


def setup(app):
    app.connect("builder-inited", make_figures)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
