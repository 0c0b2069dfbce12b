// Hand-written C++ cell list for the hash-grid benchmark cases (hash_grid_cases.py).
//
// The same tables as wp.HashGrid (runtime/hash_grid.py): a point p falls in the cell
// floor(p * inv) (computed in float, as the grid does), stored in the physical cell
// (x mod dim_x, y mod dim_y, z mod dim_z) (x fastest); the points are sorted by cell with a stable
// counting sort into `point_ids` (sorted position -> point index), and each cell's sorted positions
// are [cell_starts[c], cell_ends[c]). The density loop visits the points in that order and, for each,
// the 27 cells around its own (wrapped into the grid; dims of at least 3, so each physical cell once),
// reading the candidates' coordinates through point_ids as a hash-grid query does.
// The distance test is the kernel's plain `if`, which g++ compiles to a branch (taken for about one
// candidate in six, unpredictably); a masked sum runs about 1.3x faster on one thread.
// Compiled by benchmarks/cnative.py with `g++ -O3 -march=native -fopenmp -shared -fPIC`.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <omp.h>
#include <vector>

namespace {

inline int32_t wrap(int64_t x, int32_t n) {
    const int64_t r = x % n;
    return (int32_t)(r < 0 ? r + n : r);
}

inline int64_t coordinate(float x) {  // floor, as the grid (points here are finite and in range)
    return (int64_t)std::floor(x);
}

}  // namespace

extern "C" {

// Stable counting sort of n points (xyz, float32) into cells of width 1/inv on a dim[0] x dim[1] x
// dim[2] grid: fills point_ids (n), cell_starts and cell_ends (one per cell). `cells` (n ints) and
// `counts` (threads x cells ints) are scratch the caller allocates once. Each thread counts, then
// scatters, its own contiguous chunk of the points, so the order within a cell is the input order (two
// barriers: after the counts, after the offsets). At most `threads` threads: one row of `counts` each.
void hash_grid_build_f32(const float* __restrict xyz, int64_t n, float inv, const int32_t* dim,
                         int32_t* __restrict point_ids, int32_t* __restrict cell_starts,
                         int32_t* __restrict cell_ends, int32_t* __restrict cells,
                         int32_t* __restrict counts, int32_t threads) {
    const int32_t dx = dim[0], dy = dim[1], dz = dim[2];
    const int64_t ncells = (int64_t)dx * dy * dz;
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num(), nthreads = omp_get_num_threads();  // at most `threads`
        const int64_t lo = n * t / nthreads, hi = n * (t + 1) / nthreads;
        int32_t* __restrict mine = counts + t * ncells;
        std::memset(mine, 0, ncells * sizeof(int32_t));
        for (int64_t i = lo; i < hi; ++i) {
            const int32_t x = wrap(coordinate(xyz[3 * i] * inv), dx);
            const int32_t y = wrap(coordinate(xyz[3 * i + 1] * inv), dy);
            const int32_t z = wrap(coordinate(xyz[3 * i + 2] * inv), dz);
            const int32_t c = (z * dy + y) * dx + x;
            cells[i] = c;
            ++mine[c];
        }
#pragma omp barrier
        // one thread: each cell's range, and where each thread's points of the cell go (after those of
        // the threads before it); the implicit barrier of `single` ends it
#pragma omp single
        {
            int32_t at = 0;
            for (int64_t c = 0; c < ncells; ++c) {
                cell_starts[c] = at;
                for (int u = 0; u < nthreads; ++u) {
                    const int32_t count = counts[u * ncells + c];
                    counts[u * ncells + c] = at;
                    at += count;
                }
                cell_ends[c] = at;
            }
        }
        for (int64_t i = lo; i < hi; ++i) point_ids[mine[cells[i]]++] = (int32_t)i;
    }
}

// rho[i] = sum over the points j with |p_i - p_j| < h of (h^2 - r^2)^3, visiting the points in the
// cell order (position s -> point_ids[s]) and, for each, the 27 cells around its own.
void hash_grid_density_f32(const float* __restrict xyz, int64_t n, float h, float inv, const int32_t* dim,
                           const int32_t* __restrict point_ids, const int32_t* __restrict cell_starts,
                           const int32_t* __restrict cell_ends, float* __restrict rho) {
    const int32_t dx = dim[0], dy = dim[1], dz = dim[2];
    const float h2 = h * h;
#pragma omp parallel for schedule(static)
    for (int64_t s = 0; s < n; ++s) {
        const int32_t i = point_ids[s];
        const float px = xyz[3 * i], py = xyz[3 * i + 1], pz = xyz[3 * i + 2];
        const int64_t cx = coordinate(px * inv), cy = coordinate(py * inv), cz = coordinate(pz * inv);
        float sum = 0.0f;
        for (int64_t oz = -1; oz <= 1; ++oz) {
            const int32_t z = wrap(cz + oz, dz);
            for (int64_t oy = -1; oy <= 1; ++oy) {
                const int32_t y = wrap(cy + oy, dy);
                for (int64_t ox = -1; ox <= 1; ++ox) {
                    const int32_t c = (z * dy + y) * dx + wrap(cx + ox, dx);
                    const int32_t end = cell_ends[c];
                    for (int32_t k = cell_starts[c]; k < end; ++k) {
                        const int32_t j = point_ids[k];
                        const float ex = px - xyz[3 * j], ey = py - xyz[3 * j + 1], ez = pz - xyz[3 * j + 2];
                        const float r2 = ex * ex + ey * ey + ez * ez;
                        if (r2 < h2) {
                            const float w = h2 - r2;
                            sum += w * w * w;
                        }
                    }
                }
            }
        }
        rho[i] = sum;
    }
}

}  // extern "C"
