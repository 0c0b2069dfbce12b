"""Regenerate surface_nets_warp.npz, Warp 1.19's IsoSurfaceNets outputs for a few small fields, under Warp:

    /tmp/warpenv/bin/python tests/geometry/data/make_surface_nets_expected.py

Each case stores its field, threshold, bounds and topology (``{name}/field`` ...), and Warp's ``verts`` and
``indices``; tests/geometry/test_surface_nets.py compares brickwork's extraction with them.
"""

from pathlib import Path

import numpy as np
import warp as wp
import warp.geometry


def cases():
    rng = np.random.default_rng(7)
    smooth = rng.uniform(-1.0, 1.0, size=(6, 5, 7)).astype(np.float32)
    signs = np.sign(rng.uniform(-1.0, 1.0, size=(7, 7, 7))).astype(np.float32) + np.float32(0.5)
    two_sheets = np.ones((4, 4, 4), np.float32)
    two_sheets[1, 1, 1] = two_sheets[2, 2, 2] = -1.0
    g = np.indices((9, 8, 10)).astype(np.float32)
    ellipsoid = (np.sqrt(((g[0] - 4.2) / 3.0) ** 2 + ((g[1] - 3.6) / 2.5) ** 2 + ((g[2] - 4.9) / 3.5) ** 2) - 1.0)
    for topology in ("triangle", "quad"):
        yield f"smooth_{topology}", smooth, 0.0, None, None, topology
        yield f"smooth_threshold_{topology}", smooth, 0.25, None, None, topology
        yield f"ambiguous_{topology}", signs, 0.0, None, None, topology
        yield f"two_sheets_{topology}", two_sheets, 0.0, None, None, topology
        yield f"ellipsoid_bounds_{topology}", ellipsoid.astype(np.float32), 0.0, (-1.0, 0.5, 2.0), (3.0, 1.5, 9.0), \
            topology


def main():
    out = {}
    for name, field, threshold, lower, upper, topology in cases():
        verts, indices = wp.geometry.IsoSurfaceNets.extract(
            wp.array(field, dtype=wp.float32, device="cpu"), threshold, lower=lower, upper=upper, topology=topology)
        out[f"{name}/field"] = field
        out[f"{name}/threshold"] = np.float32(threshold)
        out[f"{name}/lower"] = np.array(lower if lower is not None else np.nan, dtype=np.float32)
        out[f"{name}/upper"] = np.array(upper if upper is not None else np.nan, dtype=np.float32)
        out[f"{name}/topology"] = np.array(topology)
        out[f"{name}/verts"] = verts.numpy().reshape(-1, 3)
        out[f"{name}/indices"] = indices.numpy()
    np.savez_compressed(Path(__file__).with_name("surface_nets_warp.npz"), **out)


if __name__ == "__main__":
    main()
