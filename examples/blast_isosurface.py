"""The shock front of a 3-D blast wave as a surface for ParaView: hydro run, marching cubes, VTK PolyData.

Runs the blast problem of ``examples/blast3d.toml`` (an overpressured sphere at the centre of the unit cube) on
``n^3`` cells to ``--tlim``, gathers the pressure over the whole mesh, extracts the isosurface at
``--level`` times the ambient pressure with ``brickwork.geometry.IsoSurfaceMarchingCubes`` (node ``(i, j, k)``
at the centre of cell ``(i, j, k)``: the field's nodes are the cell centres) and writes it with
``brickwork.io.surface.write_vtp``, each vertex carrying its distance from the centre (``radius``), each
triangle its area. Open the file in ParaView (File > Open), alone or over the run's XDMF output.

It checks what the physics requires of the front: one closed surface (Euler characteristic 2, every edge in
two triangles), centred on the blast (the problem is symmetric under the cube's reflections, and the scheme
keeps that), and nearly spherical (the spread of its vertices' radii, a few per cent on a coarse grid from the
grid's anisotropy).

Run: ``python examples/blast_isosurface.py [--n 32] [--tlim 0.1] [--level 1.5] [--out blast_front.vtp]``
"""

import argparse
import sys
from pathlib import Path

import numpy as np

import brickwork as wp
import brickwork.geometry
from brickwork.apps import hydro
from brickwork.io.surface import write_vtp

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--n", type=int, default=32, help="cells per direction (a multiple of 16)")
parser.add_argument("--tlim", type=float, default=0.1)
parser.add_argument("--level", type=float, default=1.5, help="the isosurface's pressure / ambient pressure")
parser.add_argument("--out", default="blast_front.vtp")
args = parser.parse_args()

n = args.n
cfg = hydro.load_config(Path(__file__).with_name("blast3d.toml"), [f"mesh.nx=[{n},{n},{n}]", "mesh.block_nx=[16,16,16]",
                                                  f"time.tlim={args.tlim}", "output.hdf5_dt=-1",
                                                  "output.png_dt=-1", "output.dir=blast_isosurface_output"])
result = hydro.run(cfg)
pressure = result.hydro.to_global(result.hydro.primitive("pressure"))  # (nx3, nx2, nx1)
p_out = cfg["problem"]["p_out"]

# x1 varies fastest in the mesh's arrays, the extractor's first axis is x; faces wind outward around the
# region below the level, so the extractor sees -p (the blast's inside is above the level)
field = wp.array(np.ascontiguousarray(-pressure.transpose(2, 1, 0)).astype(np.float32), dtype=wp.float32)
dx = 1.0 / n
lower, upper = (-0.5 + dx / 2,) * 3, (0.5 - dx / 2,) * 3
verts, indices = wp.geometry.IsoSurfaceMarchingCubes.extract(field, threshold=-args.level * p_out,
                                                             lower=lower, upper=upper)
v, tris = verts.numpy(), indices.numpy().reshape(-1, 3)

edges = np.sort(np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]]), axis=1)
_, uses = np.unique(edges, axis=0, return_counts=True)
euler = len(v) - len(uses) + len(tris)
radius = np.linalg.norm(v, axis=1)
cross = np.cross(v[tris[:, 1]] - v[tris[:, 0]], v[tris[:, 2]] - v[tris[:, 0]])
area = 0.5 * np.linalg.norm(cross, axis=1)
volume = np.einsum("ij,ij->i", v[tris[:, 0]], np.cross(v[tris[:, 1]], v[tris[:, 2]])).sum() / 6.0
write_vtp(args.out, verts, indices, point_data={"radius": radius}, cell_data={"area": area})

mean, spread = radius.mean(), radius.std() / radius.mean()
centre = v.mean(axis=0)
print(f"shock front at t = {result.time:.4g}: {len(v)} vertices, {len(tris)} triangles, Euler characteristic {euler}")
print(f"radius {mean:.4f} (spread {100 * spread:.2f} %), centre offset {np.abs(centre).max():.2e}, "
      f"enclosed volume {volume:.4f} (sphere of that radius: {4 / 3 * np.pi * mean**3:.4f})")
print(f"wrote {args.out}")
ok = euler == 2 and np.all(uses == 2) and volume > 0 and spread < 0.05 and np.abs(centre).max() < 1e-3 * dx
sys.exit(0 if ok else "the front is not one closed, centred, nearly spherical surface")
