"""Under Warp 1.19: sha256 and counts of Warp's buffers for the inputs of tests/runtime/test_nanovdb_*.py.

Not a test (needs Warp). Run from the repository root:
    /tmp/warpenv/bin/python tests/runtime/nanovdb_make_expectations.py tests/runtime/nanovdb_warp_expectations.json
"""

import hashlib
import json
import os
import struct
import sys

import numpy as np
import warp as wp

wp.config.quiet = True
wp.init()


def points(n, lo, hi, seed):  # the same formula as the test: no RNG, stable everywhere
    i = np.arange(n, dtype=np.int64)
    span = hi - lo
    return (
        np.stack([(i * 7919 + seed) % span, (i * 104729 + 3 * seed) % span, (i * 1299709 + 7 * seed) % span], 1).astype(
            np.int32
        )
        + lo
    )


def record(buf):
    a = buf.array().numpy().copy()
    nodes = struct.unpack_from("<3I", a, 672 + 32)
    return {
        "size": int(a.size),
        "sha256": hashlib.sha256(a.tobytes()).hexdigest(),
        "leaf_lower_upper": list(nodes),
        "voxel_count": struct.unpack_from("<Q", a, 672 + 56)[0],
    }


out = {}
tiles = wp.array(points(300, -700, 700, 1), dtype=wp.int32, device="cpu")
bgs = {
    "float": 0.5,
    "double": wp.float64(1.25),
    "int32": 7,
    "int64": wp.int64(-3),
    "uint32": wp.uint32(9),
    "Vec3f": (1.0, 2.0, 3.0),
    "Vec3d": wp.vec3d(1, 2, 3),
    "Vec4f": (1.0, 2.0, 3.0, 4.0),
    "Vec4d": wp.vec4d(1, 2, 3, 4),
}
for name, bg in bgs.items():
    out["tiles_" + name] = record(
        wp.Volume.allocate_by_tiles(tiles, voxel_size=0.25, bg_value=bg, translation=(1.0, -2.0, 0.5), device="cpu")
    )
T = np.array([[0.5, 0.125, 0.0], [0.0, 0.75, 0.25], [0.375, 0.0, 1.5]], np.float32)
out["tiles_transform"] = record(
    wp.Volume.allocate_by_tiles(tiles, transform=T, bg_value=1.0, translation=(0.1, 0.2, 0.3), device="cpu")
)
out["tiles_index"] = record(wp.Volume.allocate_by_tiles(tiles, voxel_size=0.5, bg_value=None, device="cpu"))
vox = wp.array(points(5000, -50, 50, 2), dtype=wp.int32, device="cpu")
onindex = wp.Volume.allocate_by_voxels(vox, voxel_size=0.5, translation=(0.0, 1.0, 0.0), device="cpu")
out["voxels_onindex"] = record(onindex)
for what, arr in (("get_voxels", onindex.get_voxels()), ("get_tiles", onindex.get_tiles())):
    a = arr.numpy().astype("<i4")
    out["voxels_onindex"][what] = {"shape": list(a.shape), "sha256": hashlib.sha256(a.tobytes()).hexdigest()}
i = np.arange(10 * 7 * 13, dtype=np.float32).reshape(10, 7, 13)
dense = np.sin(i) * 3.0
out["numpy_float"] = record(
    wp.Volume.load_from_numpy(dense, min_world=(-1.0, 0.0, 2.0), voxel_size=0.5, bg_value=-1.0, device="cpu")
)
dense_v = np.stack([dense, -dense, dense * 2], -1)
out["numpy_vec3f"] = record(wp.Volume.load_from_numpy(dense_v, voxel_size=2.0, bg_value=(0.0, 0.0, 1.0), device="cpu"))
# rebuildable volumes: node arrays laid out for the capacities (leaf, lower, upper)
few = wp.array(np.array([[0, 0, 0], [100, 5, 9], [5000, 0, 0]], np.int32), dtype=wp.int32, device="cpu")
caps = {"max_tiles": 10, "max_lower_nodes": 6, "max_upper_nodes": 4}
rebuildable = wp.Volume.allocate_by_tiles(few, voxel_size=0.5, bg_value=1.5, device="cpu", **caps)
out["capacity_tiles"] = record(rebuildable)
rebuildable.rebuild(wp.array(np.zeros((1, 3), np.int32), dtype=wp.int32, device="cpu"))
out["capacity_rebuilt"] = record(rebuildable)
out["capacity_exceeded"] = record(
    wp.Volume.allocate_by_tiles(few, voxel_size=0.5, bg_value=1.5, device="cpu", **{**caps, "max_tiles": 2})
)
out["capacity_voxels"] = record(
    wp.Volume.allocate_by_voxels(
        few, voxel_size=0.5, device="cpu", max_active_voxels=20, max_leaf_nodes=10, max_lower_nodes=6, max_upper_nodes=4
    )
)
assets = {}
root = os.path.dirname(wp.__file__)
for rel in (
    "tests/assets/test_grid.nvdb",
    "tests/assets/test_index_grid.nvdb",
    "tests/assets/test_int32_grid.nvdb",
    "tests/assets/test_vec_grid.nvdb",
    "tests/assets/torus.nvdb",
    "examples/assets/rocks.nvdb",
):
    with open(os.path.join(root, rel), "rb") as f:
        volume = wp.Volume.load_from_nvdb(f, device="cpu")
    a = volume.array().numpy().copy()  # array() views the volume's memory: keep the volume alive
    assets[rel] = {"size": int(a.size), "sha256": hashlib.sha256(a.tobytes()).hexdigest()}
result = {
    "generated_by": "Warp " + wp.config.version + ", tests/runtime/nanovdb_make_expectations.py",
    "cases": out,
    "warp_assets": assets,
}
with open(sys.argv[1], "w") as f:
    json.dump(result, f, indent=1)
    f.write("\n")
