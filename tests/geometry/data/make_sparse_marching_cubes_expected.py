"""Regenerate sparse_marching_cubes_warp.npz, Warp 1.19's sparse marching cubes outputs for a few small cases,
under Warp:

    /tmp/warpenv/bin/python tests/geometry/data/make_sparse_marching_cubes_expected.py

The implicit functions are evaluated with numpy (``field_values``, shared with the test), so both libraries see
the same float32 values bit for bit; the test imports the cases from here (Warp is imported only to
regenerate). Each case stores Warp's outputs as ``{case}/{output}``;
tests/geometry/test_sparse_marching_cubes.py runs the same calls and compares.
"""

from pathlib import Path

import numpy as np

#: (name, kind, centre, radius or (major, minor)): the implicit functions of the cases
FIELDS = {"torus": ("torus", (0.0, 0.0, 0.0), (0.5, 0.2)), "sphere": ("sphere", (0.1, 0.0, 0.0), 0.5)}

#: name -> (field, nx, ny, nz, keyword arguments) of sparse_marching_cubes
GRIDS = {
    "torus": ("torus", 9, 9, 9, {"lower": (-1.0, -1.0, -1.0), "upper": (1.0, 1.0, 1.0)}),
    # the grid ends inside the sphere: the octree's padding crosses the surface and is culled
    "culled": ("sphere", 7, 9, 6, {"lower": (-0.9, -0.8, -0.7), "upper": (0.3, 0.9, 0.6), "threshold": 0.02}),
}

#: lipschitz_octree's arguments after the field
OCTREE = ((-1.0, -1.0, -1.0), 2.0, 3, 0.1, 1.5)


def field_values(name: str, points: np.ndarray) -> np.ndarray:
    kind, centre, size = FIELDS[name]
    p = points.astype(np.float64) - np.array(centre)
    if kind == "sphere":
        return (np.linalg.norm(p, axis=1) - size).astype(np.float32)
    ring = np.hypot(p[:, 0], p[:, 2]) - size[0]
    return (np.hypot(ring, p[:, 1]) - size[1]).astype(np.float32)


def explicit_cells():
    """Cells (negative subscripts, shared corners) and per-cell corner values that disagree where cells meet."""
    rng = np.random.default_rng(11)
    cells = np.unique(rng.integers(-3, 2, size=(40, 3)), axis=0).astype(np.int32)
    rng.shuffle(cells)
    values = rng.uniform(-1.0, 1.0, size=(cells.shape[0], 8)).astype(np.float32)
    return cells, values, (0.5, -1.0, 2.0), 0.25, 0.1


def far_cells():
    """``explicit_cells`` and a copy of them thousands of cells away: corner codes past 32 bits."""
    cells, values, origin, width, threshold = explicit_cells()
    far = np.concatenate([cells, cells + np.array([3000, -2000, 1000], np.int32)])
    return far, np.concatenate([values, values[::-1]]), origin, width, threshold


def evaluator(wp, name):
    """A batched evaluator of ``FIELDS[name]`` for the library ``wp`` (Warp or brickwork)."""

    def evaluate(points):
        return wp.array(field_values(name, points.numpy()), dtype=wp.float32, device=points.device)

    return evaluate


def main():
    import warp as wp
    import warp.geometry  # noqa: F401

    out = {}
    for case, (name, nx, ny, nz, kwargs) in GRIDS.items():
        verts, indices, stats = wp.geometry.sparse_marching_cubes(evaluator(wp, name), nx, ny, nz, return_stats=True,
                                                                  device="cpu", **kwargs)
        out[f"{case}/verts"], out[f"{case}/indices"] = verts.numpy(), indices.numpy()
        out[f"{case}/stats"] = np.array([stats[k] for k in ("leaf_cells", "unique_corners", "field_evaluations",
                                                            "resolution", "culled_cells")])
    cells, width = wp.geometry.lipschitz_octree(evaluator(wp, "sphere"), *OCTREE, device="cpu")
    out["octree/cells"], out["octree/width"] = cells.numpy(), np.array(width)
    for case, make in (("cells", explicit_cells), ("far", far_cells)):
        verts, indices = wp.geometry.sparse_marching_cubes_from_cells(*make(), device="cpu")
        out[f"{case}/verts"], out[f"{case}/indices"] = verts.numpy(), indices.numpy()
    np.savez_compressed(Path(__file__).with_name("sparse_marching_cubes_warp.npz"), **out)


if __name__ == "__main__":
    main()
