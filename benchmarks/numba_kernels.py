"""The benchmark kernels for Numba: ``@njit(parallel=True)`` with ``prange`` on the outer loop,
written the way a Numba user would (no ``fastmath``, plain loops over numpy arrays).

:func:`make_kernels` defines them once per process; they compile on their first call (the
harness's check call), for the argument types of that call. Numba has no float16 on the CPU, so
there is no ``scale_f16``.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np


def make_kernels(numba) -> SimpleNamespace:
    """Define and return the Numba benchmark kernels."""
    njit, prange = numba.njit, numba.prange

    @njit(parallel=True)
    def scale(x, s):
        for i in prange(x.size):
            x[i] = s * x[i]

    @njit(parallel=True)
    def saxpy(x, y, a):
        for i in prange(x.size):
            y[i] = a * x[i] + y[i]

    @njit(parallel=True)
    def laplacian3d(a, out):
        nz, ny, nx = a.shape
        six = a.dtype.type(6.0)
        for k in prange(1, nz - 1):
            for j in range(1, ny - 1):
                for i in range(1, nx - 1):
                    out[k, j, i] = (a[k - 1, j, i] + a[k + 1, j, i] + a[k, j - 1, i] + a[k, j + 1, i]
                                    + a[k, j, i - 1] + a[k, j, i + 1] - six * a[k, j, i])

    @njit(inline="always")
    def minmod(a, b):
        if a * b > 0.0:
            return a if abs(a) < abs(b) else b
        return 0.0

    @njit(inline="always")
    def hll(ul, ur):
        fl, fr = 0.5 * ul * ul, 0.5 * ur * ur
        lo = ur if ur < ul else ul
        hi = ur if ul < ur else ul
        sl = 0.0 if 0.0 < lo else lo
        sr = 0.0 if hi < 0.0 else hi
        if sr - sl > 0.0:
            return (sr * fl - sl * fr + sl * sr * (ur - ul)) / (sr - sl)
        return 0.0

    @njit(parallel=True)
    def recon_flux(q, flux, g):
        """PLM (minmod) + HLL x1 flux of Burgers on the interior faces of every block: the face
        i takes plus of cell i - 1 and minus of cell i, each reconstructed where it is used."""
        nb, nk, nj, ni = q.shape
        for bk in prange(nb * (nk - 2 * g)):
            b, k = bk // (nk - 2 * g), g + bk % (nk - 2 * g)
            for j in range(g, nj - g):
                row, out = q[b, k, j], flux[b, k, j]
                for i in range(g, ni - g + 1):
                    qm, q0, qp = row[i - 2], row[i - 1], row[i]
                    plus = q0 + 0.5 * minmod(q0 - qm, qp - q0)
                    qn = row[i + 1]
                    minus = qp - 0.5 * minmod(qp - q0, qn - qp)
                    out[i] = hll(plus, minus)

    @njit(parallel=True)
    def sum_interior(data, g):
        nb, m = data.shape[0], data.shape[1]
        total = 0.0
        for b in prange(nb):
            acc = 0.0
            for k in range(g, m - g):
                for j in range(g, m - g):
                    for i in range(g, m - g):
                        acc += data[b, k, j, i]
            total += acc
        return total

    @njit(parallel=True)
    def hash_grid_build(xyz, inv, dims, point_ids, cell_starts, cell_ends, cells, counts):
        """Stable counting sort of the points (n, 3) into the cells floor(p * inv) wrapped into the grid
        (x fastest), as c/hash_grid.cpp: one chunk of the points per row of ``counts`` (chunks, cells)."""
        n, chunks = xyz.shape[0], counts.shape[0]
        dx, dy, dz = dims[0], dims[1], dims[2]
        ncells = dx * dy * dz
        for t in prange(chunks):
            counts[t, :] = 0
            for i in range(n * t // chunks, n * (t + 1) // chunks):
                x = np.int64(np.floor(xyz[i, 0] * inv)) % dx
                y = np.int64(np.floor(xyz[i, 1] * inv)) % dy
                z = np.int64(np.floor(xyz[i, 2] * inv)) % dz
                c = (z * dy + y) * dx + x
                cells[i] = c
                counts[t, c] += 1
        start = 0
        for c in range(ncells):
            cell_starts[c] = start
            for t in range(chunks):
                count = counts[t, c]
                counts[t, c] = start
                start += count
            cell_ends[c] = start
        for t in prange(chunks):
            for i in range(n * t // chunks, n * (t + 1) // chunks):
                c = cells[i]
                point_ids[counts[t, c]] = i
                counts[t, c] += 1

    @njit(parallel=True)
    def hash_grid_density(xyz, h, inv, dims, point_ids, cell_starts, cell_ends, rho):
        """rho[i] = sum of (h² - r²)³ over the points within h, in the cell order, over the 27 cells
        around each point's own (wrapped into the grid), as c/hash_grid.cpp."""
        dx, dy, dz = dims[0], dims[1], dims[2]
        h2 = h * h
        for s in prange(xyz.shape[0]):
            i = point_ids[s]
            px, py, pz = xyz[i, 0], xyz[i, 1], xyz[i, 2]
            cx = np.int64(np.floor(px * inv))
            cy = np.int64(np.floor(py * inv))
            cz = np.int64(np.floor(pz * inv))
            acc = np.float32(0.0)
            for oz in range(-1, 2):
                z = (cz + oz) % dz
                for oy in range(-1, 2):
                    y = (cy + oy) % dy
                    for ox in range(-1, 2):
                        c = (z * dy + y) * dx + (cx + ox) % dx
                        for k in range(cell_starts[c], cell_ends[c]):
                            j = point_ids[k]
                            ex, ey, ez = px - xyz[j, 0], py - xyz[j, 1], pz - xyz[j, 2]
                            r2 = ex * ex + ey * ey + ez * ez
                            if r2 < h2:
                                w = h2 - r2
                                acc += w * w * w
            rho[i] = acc

    @njit(parallel=True)
    def touch(x):
        for i in prange(x.size):
            x[i] = x[i] + 1.0

    return SimpleNamespace(scale=scale, saxpy=saxpy, laplacian3d=laplacian3d, recon_flux=recon_flux,
                           sum_interior=sum_interior, hash_grid_build=hash_grid_build,
                           hash_grid_density=hash_grid_density, touch=touch)
