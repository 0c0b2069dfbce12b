"""Neighbour search with ``wp.HashGrid`` (docs/hash_grid.md), appended to ``cases.CASES``:

- ``hash_grid_density_f32``: an SPH-like density, ``rho_i = sum over j with |p_i - p_j| < h of
  (h² - r²)³`` (i itself included), of N float32 points uniformly random in a cube of edge ``side * h``,
  ``side`` chosen for about ``POINTS_PER_CELL`` points per h³ (about 38 neighbours within h). The grid
  has ``side³`` cells of edge h (``side`` at most ``MAX_DIM``), built once outside the timing; one call is
  ONE launch over the points in the grid's order (``wp.hash_grid_point_id``), each visiting
  ``for j in wp.hash_grid_query(grid, p, h)`` (the 27 cells around its own). brickwork and Warp run the
  same kernel source with their own ``HashGrid``; C (``c/hash_grid.cpp``, the reference) and Numba sort
  the points by cell with a counting sort in the setup, into the same tables as the grid (sorted point
  ids, each cell's range; the same wrap of cell coordinates), and time the loop over the 27 cells of each
  point, reading the candidates through the sorted ids as a query does. All visit the candidates in the
  same order here (brickwork's sums equal Warp's bit for bit), but the C contracts multiply-adds (g++'s
  default; brickwork builds with -ffp-contract=off), so the check is float32-tolerant.
- ``hash_grid_build_f32``: ``grid.build(points, h)`` alone, same points and grid (brickwork's compiled
  build and the C and Numba stable counting sorts, each parallel over chunks of the points; Warp's CPU
  build). The check: every point once, and each cell's points contiguous (the sorted ids and the sorted
  lengths of the runs of equal cells along the grid's order equal the C's).

There is no numpy version: a vectorized neighbour sum needs ragged cell-pair blocks (or a k-d tree from
scipy), which is not a loop a numpy user would write for this.
"""

from __future__ import annotations

import numpy as np
from cnative import ptr

POINTS_PER_CELL = 9.0  # points per h³: 4/3 π × 9 ≈ 38 neighbours within h
H = 1.0  # the cell width and the query radius
N_FULL, N_QUICK = 200_000, 20_000
MAX_DIM = 128  # cells per axis at most: larger boxes alias cells (more candidates), memory stays bounded

_KERNELS: dict = {}  # kernel-language module name -> its kernels


def _kernels(wp):
    """The kernels of this module defined with ``wp`` (brickwork or warp), once per module."""
    if wp.__name__ not in _KERNELS:
        from types import SimpleNamespace

        @wp.kernel
        def hash_grid_density_f32(grid: wp.uint64, points: wp.array(dtype=wp.vec3), h: float,
                                  rho: wp.array(dtype=float)):
            tid = wp.tid()
            i = wp.hash_grid_point_id(grid, tid)
            p = points[i]
            h2 = h * h
            s = float(0.0)  # noqa: UP018 - Warp: a variable (not a constant) that the loop updates
            for j in wp.hash_grid_query(grid, p, h):
                d = p - points[j]
                r2 = wp.dot(d, d)
                if r2 < h2:
                    w = h2 - r2
                    s += w * w * w
            rho[i] = s

        @wp.kernel
        def hash_grid_order(grid: wp.uint64, ids: wp.array(dtype=int)):
            tid = wp.tid()
            ids[tid] = wp.hash_grid_point_id(grid, tid)

        _KERNELS[wp.__name__] = SimpleNamespace(density=hash_grid_density_f32, order=hash_grid_order)
    return _KERNELS[wp.__name__]


def _inputs(quick: bool) -> dict:
    n = N_QUICK if quick else N_FULL
    side = max(3, round((n / POINTS_PER_CELL) ** (1.0 / 3.0)))
    xyz = np.random.default_rng(2024).uniform(0.0, side * H, (n, 3)).astype(np.float32)
    dim = min(side, MAX_DIM)
    return {"points": xyz, "h": H, "dims": (dim, dim, dim), "side": side}


def _size_label(inputs: dict) -> str:
    n, (dx, dy, dz) = len(inputs["points"]), inputs["dims"]
    return f"{n / 1e3:g}k pts, {dx}x{dy}x{dz} cells"


def _cells(inputs: dict) -> np.ndarray:
    """The grid's physical cell of each point (as runtime/hash_grid.py computes it)."""
    inv = np.float32(1.0) / np.float32(inputs["h"])
    coords = np.floor(inputs["points"] * inv).astype(np.int64)
    dx, dy, dz = inputs["dims"]
    return ((coords[:, 2] % dz) * dy + coords[:, 1] % dy) * dx + coords[:, 0] % dx


def _order_result(inputs: dict, ids: np.ndarray) -> dict:
    """What a build must get right whatever the numbering of its cells: every point once, and the
    points of each cell contiguous in the grid's order (the run lengths are then the cells' counts)."""
    cells = _cells(inputs)[ids] if ids.min() >= 0 and ids.max() < len(ids) else np.arange(len(ids))
    bounds = np.flatnonzero(np.diff(cells)) + 1
    runs = np.diff(np.concatenate(([0], bounds, [len(ids)])))
    return {"ids": np.sort(ids), "runs": np.sort(runs)}


# --- kernel languages (brickwork, Warp) ------------------------------------------------------------


def _grid(kl, inputs: dict):
    wp = kl.wp
    points = wp.array(inputs["points"].copy(), dtype=wp.vec3, device=kl.device)
    grid = wp.HashGrid(*inputs["dims"], device=kl.device)
    return points, grid


def _density_kernel(kl, inputs: dict):
    from cases import Bound

    kernel, (points, grid) = _kernels(kl.wp).density, _grid(kl, inputs)
    n, h = len(inputs["points"]), inputs["h"]
    grid.build(points, h)
    rho = kl.zeros(n, kl.wp.float32)
    return Bound(lambda: kl.launch(kernel, n, [grid.id, points, h, rho]), lambda: {"rho": rho.numpy()})


def _build_kernel(kl, inputs: dict):
    from cases import Bound

    kernel, (points, grid) = _kernels(kl.wp).order, _grid(kl, inputs)
    n, h = len(inputs["points"]), inputs["h"]
    ids = kl.zeros(n, kl.wp.int32)

    def run() -> None:
        grid.build(points, h)
        kl.wp.synchronize()

    def result() -> dict:
        kl.launch(kernel, n, [grid.id, ids])
        return _order_result(inputs, ids.numpy())

    return Bound(run, result)


# --- C (the reference) and Numba: the counting sort and the density loop -------------------------------


class _Tables:
    """The sorted ids, the cells' ranges and the counting sort's scratch, for ``threads`` chunks."""

    def __init__(self, inputs: dict, threads: int):
        n, dims = len(inputs["points"]), inputs["dims"]
        ncells = dims[0] * dims[1] * dims[2]
        self.xyz = np.ascontiguousarray(inputs["points"], dtype=np.float32)
        self.inv = np.float32(np.float32(1.0) / np.float32(inputs["h"]))
        self.h = np.float32(inputs["h"])
        self.dims = np.array(dims, np.int32)
        self.point_ids, self.cells = np.zeros(n, np.int32), np.zeros(n, np.int32)
        self.cell_starts, self.cell_ends = np.zeros(ncells, np.int32), np.zeros(ncells, np.int32)
        self.counts = np.zeros((threads, ncells), np.int32)
        self.rho = np.zeros(n, np.float32)


def _c_tables(lib, inputs: dict):
    t = _Tables(inputs, lib.threads)
    fn = lib.hash_grid_build_f32
    args = (ptr(t.xyz), len(t.xyz), float(t.inv), ptr(t.dims), ptr(t.point_ids), ptr(t.cell_starts),
            ptr(t.cell_ends), ptr(t.cells), ptr(t.counts), len(t.counts))
    return t, (lambda: fn(*args))


def _density_c(lib, inputs: dict):
    from cases import Bound

    t, build = _c_tables(lib, inputs)
    build()
    fn = lib.hash_grid_density_f32
    args = (ptr(t.xyz), len(t.xyz), float(t.h), float(t.inv), ptr(t.dims), ptr(t.point_ids),
            ptr(t.cell_starts), ptr(t.cell_ends), ptr(t.rho))
    return Bound(lambda: fn(*args), lambda: {"rho": t.rho})


def _build_c(lib, inputs: dict):
    from cases import Bound

    t, build = _c_tables(lib, inputs)
    return Bound(build, lambda: _order_result(inputs, t.point_ids))


def _numba_tables(nbp, inputs: dict):
    t = _Tables(inputs, nbp.threads)
    fn = nbp.kernels.hash_grid_build
    return t, (lambda: fn(t.xyz, t.inv, t.dims, t.point_ids, t.cell_starts, t.cell_ends, t.cells, t.counts))


def _density_numba(nbp, inputs: dict):
    from cases import Bound

    t, build = _numba_tables(nbp, inputs)
    build()
    fn = nbp.kernels.hash_grid_density
    return Bound(lambda: fn(t.xyz, t.h, t.inv, t.dims, t.point_ids, t.cell_starts, t.cell_ends, t.rho),
                 lambda: {"rho": t.rho})


def _build_numba(nbp, inputs: dict):
    from cases import Bound

    t, build = _numba_tables(nbp, inputs)
    return Bound(build, lambda: _order_result(inputs, t.point_ids))


def hash_grid_cases() -> list:
    from cases import Case

    return [
        Case(
            name="hash_grid_density_f32",
            make_inputs=_inputs,
            size_label=_size_label,
            bytes_moved=lambda inp: 0,  # a gather over neighbours, not a streaming kernel: no GB/s
            impls={"kernel": _density_kernel, "c": _density_c, "numba": _density_numba},
            # positive float32 terms, rounded differently where C contracts multiply-adds (or summed in
            # another order): a few ulps of the sum; a neighbour at r ≈ h counted by one code only adds ≈ 0
            rtol=2e-6,
            atol=1e-6,
            reference="c",
        ),
        Case(
            name="hash_grid_build_f32",
            make_inputs=_inputs,
            size_label=_size_label,
            bytes_moved=lambda inp: 0,
            impls={"kernel": _build_kernel, "c": _build_c, "numba": _build_numba},
            rtol=0.0,
            atol=0.0,
            reference="c",
        ),
    ]
